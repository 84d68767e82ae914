"""Linear systems by LU factorization: ``np.linalg.det``, ``slogdet``, ``solve``, ``inv``,
``matrix_power`` (negative powers through ``inv``) and ``multi_dot`` (Cholesky and the tensor
forms are in :mod:`.linalg_forms`).

Input: stacks of square matrices ``(..., n, n)`` with ``n`` static (at most :data:`MAX_N`;
with symbolic input shapes the conversion asks for static ones). Output: Arrays in numpy's
dtypes (float32 stays float32, other real types compute in float64; float16 is refused as
numpy refuses it).

onnxruntime has no linear-algebra kernels for float64 (its ``Det`` is float32 only), so the
model runs LAPACK's algorithm itself, unrolled over the ``n`` columns: ``getrf`` (partial
pivoting on the first largest ``|a|`` of the column, multipliers scaled by the pivot's
reciprocal, rank-1 updates of the trailing matrix), ``getrs`` (the row swaps and the unit
lower solve applied while eliminating, then the upper solve from the last row, dividing).
numpy's ``det`` is ``sign * exp(sum(log|u_ii|))`` as its ``umath_linalg`` computes it, and an
exactly zero pivot gives ``(0, -inf)`` from ``slogdet``. The operations are LAPACK's in
LAPACK's order, but numpy's LAPACK (OpenBLAS) blocks and fuses them differently: results
agree to rounding (well-conditioned matrices: within 1e-12 relative in float64), not bit for
bit. ``solve`` and ``inv`` of a matrix with an exactly zero pivot fail the run where numpy
raises ``LinAlgError: Singular matrix``.
"""

from __future__ import annotations

import operator

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.complex_values import static_dim
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.science.compose import Np
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.shape.common import ints

__all__ = ["MAX_N"]

MAX_N = 32  # the factorization is unrolled: about 20 nodes per column
_I64 = np.dtype(np.int64)
_ROUNDING = "LAPACK's LU in LAPACK's order: equal to numpy's to rounding, not bit for bit"


def _square(ctx, a, fname: str) -> tuple[Array, int]:
    """``a`` as a float stack of square matrices in numpy's linalg dtype, and its static n."""
    x = to_array(ctx, a)
    if x.ndim < 2:
        raise ctx.error(f"{fname}: {x.ndim}-dimensional array given. Array must be at least "
                        "two-dimensional (numpy raises LinAlgError)")
    if x.dtype.kind not in "biuf":
        raise ctx.error(f"{fname}: arrays of dtype {x.dtype} are not supported here")
    if x.dtype == np.float16:
        raise ctx.error(f"{fname}: array type float16 is unsupported in linalg (numpy raises "
                        "TypeError); cast to float32 or float64")
    m = x.shape[-2] if x.shape[-2] is not None else x.shape[-1]
    n = static_dim(ctx, m, f"{fname}: the matrix size must be known at conversion time (the "
                   "factorization is unrolled over its columns)")
    for d in x.shape[-2:]:
        if d is not None and d != n:
            raise ctx.error(f"{fname}: Last 2 dimensions of the array must be square (numpy "
                            "raises LinAlgError)")
    if n > MAX_N:
        raise ctx.error(f"{fname}: matrices larger than {MAX_N}x{MAX_N} are not supported (the "
                        "factorization is unrolled)")
    dt = np.dtype(np.float32) if x.dtype == np.float32 else np.dtype(np.float64)
    return ctx.cast(x, dt), n


def _slice(ctx, x, axis: int, start: int, stop: int):
    return ctx.op("Slice", x, ints(ctx, [start]), ints(ctx, [stop]), ints(ctx, [axis]))


def _lu(ctx, a: Array, n: int, rhs=None):
    """LAPACK's ``getrf`` on ``a`` (..., n, n), the same row operations applied to ``rhs``
    (..., n, k) when given. Returns (pivots: n values (..., 1, 1), U's rows above the
    diagonal: n values (..., 1, n - i), swaps: n bool values (..., 1, 1) true where rows
    were exchanged, the eliminated rhs rows: n values (..., 1, k))."""
    dt = a.dtype
    r, b = a.value, rhs
    pivots, urows, swapped, brows = [], [], [], []
    for k in range(n):
        m = n - k
        col = _slice(ctx, r, -1, 0, 1)  # (..., m, 1)
        p = ctx.op("ArgMax", ctx.op("Abs", col), axis=-2, keepdims=1, select_last_index=0)
        at_p = ctx.op("Equal", ctx.op("Unsqueeze", ctx.op("Range", *(ctx.const(np.array(v))
                      for v in (0, m, 1))), ints(ctx, [-1])), p)  # (..., m, 1)
        prow = ctx.op("GatherElements", r, ctx.op("Expand", p, ctx.op("Concat", ctx.op(
            "Shape", p, end=-1), ints(ctx, [m]), axis=0)), axis=-2)  # (..., 1, m)
        row0 = _slice(ctx, r, -2, 0, 1)
        first = ctx.const(np.arange(m).reshape(m, 1) == 0)
        r = ctx.op("Where", first, prow, ctx.op("Where", at_p, row0, r))
        if b is not None:
            bp = ctx.op("GatherElements", b, ctx.op("Expand", p, ctx.op("Concat", ctx.op(
                "Shape", b, end=-2), ints(ctx, [1]), ctx.op("Shape", b, start=-1), axis=0)),
                axis=-2)
            b = ctx.op("Where", first, bp, ctx.op("Where", at_p, _slice(ctx, b, -2, 0, 1), b))
            brows.append(bp)
        pivot = _slice(ctx, prow, -1, 0, 1)  # (..., 1, 1)
        pivots.append(pivot)
        urows.append(prow)
        swapped.append(ctx.op("Not", ctx.op("Equal", p, ctx.const(np.zeros((1, 1), np.int64)))))
        if k == n - 1:
            break
        # dscal by the reciprocal, then dger: a - l * u (the negation is exact)
        lcol = ctx.op("Mul", _slice(ctx, _slice(ctx, r, -2, 1, m), -1, 0, 1), ctx.op(
            "Div", ctx.const(np.ones((), dt)), pivot))  # (..., m - 1, 1)
        r = ctx.op("Sub", _slice(ctx, _slice(ctx, r, -2, 1, m), -1, 1, m),
                   ctx.op("Mul", lcol, _slice(ctx, prow, -1, 1, m)))
        if b is not None:
            b = ctx.op("Sub", _slice(ctx, b, -2, 1, m), ctx.op("Mul", lcol, bp))
    return pivots, urows, swapped, brows


def _slogdet(ctx, x: Array, n: int):
    """(sign, logabsdet) as numpy's umath_linalg: running product of signs, running sum of
    logs in column order; an exactly zero pivot gives (0, -inf)."""
    dt = x.dtype
    batch = x.shape[:-2]
    if n == 0:
        shape = ctx.op("Shape", x, end=-2)
        ones = ctx.op("Expand", ctx.const(np.ones((), dt)), shape)
        return Array(ones, dt, batch), Array(ctx.op("Mul", ones, ctx.const(np.zeros((), dt))),
                                             dt, batch)
    pivots, _, swapped, _ = _lu(ctx, x, n)
    zero = ctx.const(np.zeros((), dt))
    sign, logdet, singular = None, None, None
    for piv, sw in zip(pivots, swapped):
        absp = ctx.op("Abs", piv)
        s = ctx.op("Div", piv, absp)
        s = ctx.op("Where", sw, ctx.op("Neg", s), s)
        sign = s if sign is None else ctx.op("Mul", sign, s)
        lg = ctx.op("Log", absp)
        logdet = lg if logdet is None else ctx.op("Add", logdet, lg)
        z = ctx.op("Equal", piv, zero)
        singular = z if singular is None else ctx.op("Or", singular, z)
    sign = ctx.op("Where", singular, zero, sign)
    logdet = ctx.op("Where", singular, ctx.const(np.array(-np.inf, dt)), logdet)
    axes = ints(ctx, [-2, -1])
    return (Array(ctx.op("Squeeze", sign, axes), dt, batch),
            Array(ctx.op("Squeeze", logdet, axes), dt, batch))


@register(np.linalg.slogdet, limits={"a": _ROUNDING})
def slogdet(ctx, a):
    """``sign, logabsdet = np.linalg.slogdet(a)`` (a plain tuple: unpack it)."""
    x, n = _square(ctx, a, "np.linalg.slogdet")
    return _slogdet(ctx, x, n)


@register(np.linalg.det, limits={"a": _ROUNDING})
def det(ctx, a):
    """``np.linalg.det(a)``: ``sign * exp(logabsdet)``, as numpy computes it."""
    x, n = _square(ctx, a, "np.linalg.det")
    sign, logdet = _slogdet(ctx, x, n)
    return Array(ctx.op("Mul", sign, ctx.op("Exp", logdet)), x.dtype, x.shape[:-2])


def _solve(ctx, x: Array, n: int, b, fname: str):
    """``getrs`` after ``getrf``: (..., n, k) solutions of ``x @ X = b``; the run fails on an
    exactly zero pivot (numpy's LinAlgError)."""
    dt = x.dtype
    if n == 0:
        return b
    pivots, urows, _, brows = _lu(ctx, x, n, b)
    zero = ctx.const(np.zeros((), dt))
    sol: list = [None] * n
    rows = list(brows)
    for k in range(n - 1, -1, -1):  # dtrsm, upper, from the last row: divide, then update
        sol[k] = ctx.op("Div", rows[k], pivots[k])
        for i in range(k):
            u_ik = _slice(ctx, urows[i], -1, k - i, k - i + 1)
            rows[i] = ctx.op("Sub", rows[i], ctx.op("Mul", sol[k], u_ik))
    out = sol[0] if n == 1 else ctx.op("Concat", *sol, axis=-2)
    bad = None
    for piv in pivots:
        z = ctx.op("Equal", piv, zero)
        bad = z if bad is None else ctx.op("Or", bad, z)
    shape = x.shape[:-2] + (n, None)
    return runtime_check(ctx, Array(bad, np.dtype(np.bool_), ()), Array(out, dt, shape),
                         "LinAlgError_Singular_matrix", "LinAlgError: Singular matrix")


def _broadcast_batch(ctx, x: Array, b: Array):
    """x (..., n, n) and b (..., n, k) expanded to one batch shape (numpy's broadcasting)."""
    if x.ndim == 2 and b.ndim == 2:
        return x, b
    corner = ctx.op("Add", _slice(ctx, _slice(ctx, x, -1, 0, 1), -2, 0, 1),
                    _slice(ctx, _slice(ctx, b, -1, 0, 1), -2, 0, 1))
    batch = ctx.op("Shape", corner, end=-2)
    xs = ctx.op("Expand", x, ctx.op("Concat", batch, ctx.op("Shape", x, start=-2), axis=0))
    bs = ctx.op("Expand", b, ctx.op("Concat", batch, ctx.op("Shape", b, start=-2), axis=0))
    nd = max(x.ndim, b.ndim) - 2
    bx = (None,) * nd
    return Array(xs, x.dtype, bx + x.shape[-2:]), Array(bs, b.dtype, bx + b.shape[-2:])


@register(np.linalg.solve, limits={"a": _ROUNDING})
def solve(ctx, a, b):
    """``np.linalg.solve(a, b)``: ``b`` of shape (..., n) when 1-D, else (..., n, k)."""
    fname = "np.linalg.solve"
    x, n = _square(ctx, a, fname)
    y = to_array(ctx, b)
    if y.dtype.kind not in "biuf" or y.dtype == np.float16:
        raise ctx.error(f"{fname}: b of dtype {y.dtype} is not supported (numpy raises "
                        "TypeError for float16)")
    dt = np.result_type(x.dtype, y.dtype)
    x, y = ctx.cast(x, dt), ctx.cast(y, dt)
    vector = y.ndim == 1
    if vector:
        y = Array(ctx.op("Unsqueeze", y, ints(ctx, [-1])), dt, (y.shape[0], 1))
    if y.ndim < 2:
        raise ctx.error(f"{fname}: b must be at least 1-D")
    if y.shape[-2] is not None and y.shape[-2] != n:
        raise ctx.error(f"{fname}: b has {y.shape[-2]} rows for a {n}x{n} matrix (numpy raises "
                        "ValueError)")
    x, y = _broadcast_batch(ctx, x, y)
    out = _solve(ctx, x, n, y.value, fname) if n else y
    out = Array(out.value, dt, x.shape[:-2] + (n, y.shape[-1]))
    if vector:
        out = Array(ctx.op("Squeeze", out, ints(ctx, [-1])), dt, out.shape[:-1])
    return out


@register(np.linalg.inv, limits={"a": _ROUNDING})
def inv(ctx, a):
    """``np.linalg.inv(a)``: ``solve(a, identity)``, as numpy computes it (``gesv``)."""
    x, n = _square(ctx, a, "np.linalg.inv")
    if n == 0:
        return Array(ctx.op("Identity", x), x.dtype, x.shape)
    eye = ctx.op("Expand", ctx.const(np.eye(n, dtype=x.dtype)), ctx.op("Shape", x))
    out = _solve(ctx, x, n, eye, "np.linalg.inv")
    return Array(out.value, x.dtype, x.shape)


@register(np.linalg.matrix_power, limits={"n": "an int known at conversion time"})
def matrix_power(ctx, a, n):
    """``np.linalg.matrix_power(a, n)``: numpy's products (``a @ a``, ``(a @ a) @ a``, then
    binary powering), of ``inv(a)`` for negative ``n``; integer and bool matrices stay so."""
    fname = "np.linalg.matrix_power"
    n = ctx.static(n, "n")
    try:
        n = operator.index(n)
    except TypeError:
        raise ctx.error(f"{fname}: exponent must be an integer (numpy raises TypeError)") \
            from None
    x = to_array(ctx, a)
    if x.ndim < 2:
        raise ctx.error(f"{fname}: {x.ndim}-dimensional array given. Array must be at least "
                        "two-dimensional (numpy raises LinAlgError)")
    if None not in x.shape[-2:] and x.shape[-2] != x.shape[-1]:
        raise ctx.error(f"{fname}: Last 2 dimensions of the array must be square (numpy raises "
                        "LinAlgError)")
    if x.dtype.kind not in "biuf":
        raise ctx.error(f"{fname}: arrays of dtype {x.dtype} are not supported here")
    N = Np(ctx)
    if n == 0:  # empty_like(a) with the identity broadcast in: a's dtype
        k = static_dim(ctx, x.shape[-1], f"{fname}: the matrix size must be known at "
                       "conversion time for n=0")
        return Array(ctx.op("Expand", ctx.const(np.eye(k, dtype=x.dtype)), ctx.op("Shape", x)),
                     x.dtype, x.shape)
    if n < 0:
        x = inv(ctx, x)
        n = abs(n)
    if n == 1:
        return Array(ctx.op("Identity", x), x.dtype, x.shape)
    # numpy: bool matrices use its own matmul loop (logical); others np.matmul
    if n == 2:
        return N.matmul(x, x)
    if n == 3:
        return N.matmul(N.matmul(x, x), x)
    z = result = None
    while n > 0:
        z = x if z is None else N.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else N.matmul(result, z)
    return result


@register(np.linalg.multi_dot, limits={"arrays": "shapes known at conversion time (numpy's "
                                                 "product order depends on them)"})
def multi_dot(ctx, arrays):
    """``np.linalg.multi_dot([a, b, ...])``: numpy's product order (for three arrays its cost
    comparison, for more its dynamic programme on the static shapes), 1-D ends as vectors."""
    fname = "np.linalg.multi_dot"
    if not isinstance(arrays, (list, tuple)):
        raise ctx.error(f"{fname}: pass a list or tuple of arrays")
    if len(arrays) < 2:
        raise ctx.error(f"{fname}: Expecting at least two arrays (numpy raises ValueError)")
    N = Np(ctx)
    xs = [to_array(ctx, v) for v in arrays]
    if len(xs) == 2:
        return N.dot(xs[0], xs[1])
    first, last = xs[0].ndim == 1, xs[-1].ndim == 1
    if first:
        xs[0] = Array(ctx.op("Unsqueeze", xs[0], ints(ctx, [0])), xs[0].dtype,
                      (1,) + xs[0].shape)
    if last:
        xs[-1] = Array(ctx.op("Unsqueeze", xs[-1], ints(ctx, [1])), xs[-1].dtype,
                       xs[-1].shape + (1,))
    for v in xs:
        if v.ndim != 2:
            raise ctx.error(f"{fname}: {v.ndim}-dimensional array given. Array must be "
                            "two-dimensional (numpy raises LinAlgError)")
    # numpy picks the product order from the shapes: with symbolic input shapes, one model
    # per input shape
    dims = [static_dim(ctx, d, f"{fname}: numpy picks the product order from the shapes; they "
                       "must be known at conversion time (or write the products with @)")
            for d in [v.shape[0] for v in xs] + [xs[-1].shape[1]]]
    if len(xs) == 3:
        a0, a1b0, b1c0, c1 = dims
        cost1 = a0 * b1c0 * (a1b0 + c1)
        cost2 = a1b0 * c1 * (a0 + b1c0)
        out = N.dot(N.dot(xs[0], xs[1]), xs[2]) if cost1 < cost2 else \
            N.dot(xs[0], N.dot(xs[1], xs[2]))
    else:
        order = _order(dims)
        out = _chain(N, xs, order, 0, len(xs) - 1)
    if first and last:
        return Array(ctx.op("Squeeze", out, ints(ctx, [0, 1])), out.dtype, ())
    if first:
        return Array(ctx.op("Squeeze", out, ints(ctx, [0])), out.dtype, out.shape[1:])
    if last:
        return Array(ctx.op("Squeeze", out, ints(ctx, [1])), out.dtype, out.shape[:1])
    return out


def _order(p: list[int]) -> list[list[int]]:
    """numpy's ``_multi_dot_matrix_chain_order`` (the split table)."""
    n = len(p) - 1
    m = [[0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for ln in range(1, n):
        for i in range(n - ln):
            j = i + ln
            m[i][j] = float("inf")
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < m[i][j]:
                    m[i][j] = q
                    s[i][j] = k
    return s


def _chain(N, xs, s, i, j):
    if i == j:
        return xs[i]
    return N.dot(_chain(N, xs, s, i, s[i][j]), _chain(N, xs, s, s[i][j] + 1, j))

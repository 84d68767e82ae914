"""numpy's polynomial helpers (``np.lib.polynomial``): vander, polyval, polyfit, polyder,
polyint, polyadd, polysub, polymul.

Input: coefficient arrays (highest power first, as numpy's poly* functions take them) and
sample points. Output: Arrays in numpy's dtypes.

``polyval`` runs numpy's Horner loop (``y = y * x + p[i]``: the same roundings) as an ONNX
``Loop`` over the run-time number of coefficients. ``polyfit`` cannot follow numpy's ``lstsq``
(LAPACK's SVD; onnxruntime has no linear-algebra solver): it scales the Vandermonde matrix's
columns as numpy does, then solves the least-squares problem by modified Gram–Schmidt QR of
the matrix augmented with ``y`` (backward stable, Björck 1967) and back substitution, in
float64. Measured against numpy (tests/test_science.py): within 1e-12 relative to the largest
coefficient for well-conditioned fits (condition number of the scaled matrix below 1e3), within
4e-10 up to 5e6. An estimated condition number (``‖R‖_F·‖R⁻¹‖_F``, an upper bound within a
factor ``deg+1``) above ``1e8`` makes the run fail instead of returning coefficients that may
differ from numpy's (e.g. ``deg=3`` on x in [1000, 1004]: center the data, ``x - x.mean()``).

Supported syntax:

* ``np.vander(x, N=None, increasing=False)`` (``N`` static, or ``len(x)`` when known).
* ``np.polyval(p, x)``: ``p`` a 1-D array (run-time length); ``x`` any array or scalar.
* ``np.polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False)`` with ``deg`` a static
  int ≤ 10, ``y`` 1-D or 2-D, optional weights ``w``: float64, as numpy's (float32 data is
  scaled in float32 and solved in float64, as numpy's lstsq does).
* ``np.polyder(p, m=1)``, ``np.polyint(p, m=1, k=None)`` (``m`` static),
  ``np.polyadd(a1, a2)``, ``np.polysub(a1, a2)``, ``np.polymul(a1, a2)`` on 1-D arrays.

Not supported: ``polyfit(..., full=True)`` or ``cov=True`` (singular values and the
covariance scaling come from numpy's SVD), ``np.poly1d`` objects (write the coefficient
array and ``np.polyval``), ``np.roots`` and ``np.poly`` (eigenvalues).
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.science.compose import Np, counted_loop
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.shape.common import guard, ints

_I64 = np.dtype(np.int64)
_F64 = np.dtype(np.float64)
_MAX_DEG = 10
_MAX_COND = 1e8


def _one_d(ctx, p, fname: str, what: str = "p") -> Array:
    a = to_array(ctx, p)
    if a.ndim == 0:  # numpy's atleast_1d in the poly functions
        a = Array(ctx.op("Reshape", a, ints(ctx, [1])), a.dtype, (1,))
    if a.ndim != 1:
        raise ctx.error(f"{fname}: {what} must be a 1-D coefficient array, got {a.ndim}-D")
    if a.dtype.kind not in "biuf":
        raise ctx.error(f"{fname}: coefficients of dtype {a.dtype} are not supported")
    return a


def _len(ctx, a: Array) -> Array:
    if a.shape[0] is not None:
        return ctx.const_array(np.int64(a.shape[0]))
    return Array(ctx.op("Squeeze", ctx.op("Shape", a, start=0, end=1), ints(ctx, [0])), _I64, ())


# ------------------------------------------------------------------------------ vander
@register(np.vander)
def vander(ctx, x, N=None, increasing=False):  # noqa: N803 (numpy's name)
    """``np.vander(x, N=None, increasing=False)``: powers by repeated multiplication (numpy's
    ``multiply.accumulate``), in ``np.promote_types(x.dtype, int)``."""
    Nn = Np(ctx)
    xa = to_array(ctx, x)
    if xa.ndim != 1:
        raise ctx.error("np.vander: x must be a one-dimensional array or sequence (numpy "
                        "raises ValueError)")
    n = xa.shape[0] if N is None else ctx.static(N, "N")
    if n is None:
        raise ctx.error("np.vander: N must be known at conversion time; pass N= or give x a "
                        "static length")
    n = int(n)
    increasing = bool(ctx.static(increasing, "increasing"))
    dt = np.promote_types(xa.dtype, int)
    col = Array(ctx.op("Unsqueeze", ctx.cast(xa, dt), ints(ctx, [1])), dt, (xa.shape[0], 1))
    ones = Array(ctx.op("Expand", ctx.const(np.ones((1, 1), dt)), ctx.op("Shape", col)), dt,
                 col.shape)
    cols = [ones] if n > 0 else []
    for _ in range(n - 1):
        cols.append(Nn.multiply(cols[-1], col) if len(cols) > 1 else col)
    if not cols:
        return Array(ctx.op("Slice", ones, ints(ctx, [0]), ints(ctx, [0]), ints(ctx, [1])), dt,
                     (xa.shape[0], 0))
    if not increasing:
        cols = cols[::-1]
    return Array(ctx.op("Concat", *cols, axis=1), dt, (xa.shape[0], n))


# ----------------------------------------------------------------------------- polyval
@register(np.polyval)
def polyval(ctx, p, x):
    """``np.polyval(p, x)``: numpy's Horner loop ``y = y * x + pv`` over the coefficients."""
    N = Np(ctx)
    pa = _one_d(ctx, p, "np.polyval")
    xa = to_array(ctx, x)
    y0 = N.zeros_like(xa)
    # After one step y has numpy's result dtype; with no coefficients numpy returns
    # zeros_like(x). Unrolled when the length is known, else a Loop in the result dtype
    # (an empty p then fails the run when the two dtypes differ).
    if pa.shape[0] is not None:
        y = y0
        for i in range(pa.shape[0]):
            y = N.add(N.multiply(y, xa), N.getitem(pa, i))
        return y
    dt = np.result_type(xa.dtype, pa.dtype)
    count = _len(ctx, pa)
    if dt != xa.dtype:
        ok = ctx.op("Greater", count, ctx.const(np.array(0, np.int64)))
        vec = guard(ctx, ok, Array(ctx.op("Reshape", count, ints(ctx, [1])), _I64, (1,)))
        count = Array(ctx.op("Squeeze", vec, ints(ctx, [0])), _I64, ())
    start = ctx.cast(y0, dt)

    def step(i, states):
        (y,) = states
        y = Array(y.value, dt, xa.shape)
        pv = Array(ctx.op("Gather", pa, i, axis=0), pa.dtype, ())
        return [ctx.cast(N.add(N.multiply(y, xa), pv), dt)]

    (y,) = counted_loop(ctx, count, [start], step)
    return Array(y.value, dt, xa.shape)


# ----------------------------------------------------------------------------- polyfit
def _dot_cols(ctx, a, b):
    """Column-wise dot products: ``sum(a * b, axis=0)`` keeping a leading axis of 1."""
    return ctx.op("ReduceSum", ctx.op("Mul", a, b), ints(ctx, [0]), keepdims=1)


def _back_substitute(ctx, r_rows: list[list], z_rows: list) -> list:
    """Solves the upper-triangular ``R X = Z`` row by row from the bottom.

    ``r_rows[i][j]`` are 0-d float64 values (j >= i), ``z_rows[i]`` rows of shape (1, k)."""
    n = len(z_rows)
    x: list = [None] * n
    for i in range(n - 1, -1, -1):
        acc = z_rows[i]
        for j in range(i + 1, n):
            acc = ctx.op("Sub", acc, ctx.op("Mul", r_rows[i][j], x[j]))
        x[i] = ctx.op("Div", acc, r_rows[i][i])
    return x


@register(np.polyfit)
def polyfit(ctx, x, y, deg, rcond=None, full=False, w=None, cov=False):
    """``np.polyfit(x, y, deg, w=None)``: least squares by scaled MGS QR (module doc)."""
    fname = "np.polyfit"
    if ctx.static(full, "full") or ctx.static(cov, "cov") is not False:
        raise ctx.error(f"{fname}(..., full=True / cov=...) is not supported: numpy computes "
                        "them from its SVD; call np.polyfit(x, y, deg) and compute residuals "
                        "with np.polyval")
    if rcond is not None:
        ctx.static(rcond, "rcond")  # ill-conditioned fits fail at run time (module doc)
    deg = ctx.static(deg, "deg")
    if isinstance(deg, (bool, np.bool_)) or not isinstance(deg, (int, np.integer)):
        raise ctx.error(f"{fname}: deg must be an int, got {deg!r}")
    order = int(deg) + 1
    if deg < 0:
        raise ctx.error(f"{fname}: expected deg >= 0 (numpy raises ValueError)")
    if deg > _MAX_DEG:
        raise ctx.error(f"{fname}: deg > {_MAX_DEG} is not supported (such fits are "
                        "ill-conditioned; numpy's SVD answer cannot be matched)")
    xa, ya = to_array(ctx, x), to_array(ctx, y)
    if xa.dtype.kind not in "biuf" or ya.dtype.kind not in "biuf":
        raise ctx.error(f"{fname}: x and y must be real numbers")
    x_dt, y_dt = np.result_type(xa.dtype, 0.0), np.result_type(ya.dtype, 0.0)
    if np.float16 in (x_dt, y_dt):
        raise ctx.error(f"{fname}: array type float16 is unsupported in linalg (numpy raises "
                        "TypeError); cast the data to float32 or float64")
    if xa.ndim != 1:
        raise ctx.error(f"{fname}: expected 1D vector for x (numpy raises TypeError)")
    if xa.shape[0] == 0:
        raise ctx.error(f"{fname}: expected non-empty vector for x (numpy raises TypeError)")
    if ya.ndim not in (1, 2):
        raise ctx.error(f"{fname}: expected 1D or 2D array for y (numpy raises TypeError)")
    if None not in (xa.shape[0], ya.shape[0]) and xa.shape[0] != ya.shape[0]:
        raise ctx.error(f"{fname}: expected x and y to have same length (numpy raises "
                        "TypeError)")
    N = Np(ctx)
    # numpy's steps up to lstsq, in its dtypes (float32 data stays float32 until lstsq,
    # which computes in float64): x + 0.0, vander, weights, column scaling.
    lhs = vander(ctx, ctx.cast(xa, x_dt), order)  # (m, order), highest power first
    rhs = ctx.cast(ya, y_dt)
    if w is not None:
        wa = to_array(ctx, w)
        wa = ctx.cast(wa, np.result_type(wa.dtype, 0.0))
        if wa.ndim != 1:
            raise ctx.error(f"{fname}: expected a 1-d array for weights (numpy raises "
                            "TypeError)")
        wcol = Array(ctx.op("Unsqueeze", wa, ints(ctx, [1])), wa.dtype, (wa.shape[0], 1))
        lhs = ctx.cast(N.multiply(lhs, wcol), x_dt)  # lhs *= w[:, newaxis]
        rhs = ctx.cast(N.multiply(rhs, wcol if ya.ndim == 2 else wa), y_dt)
    scale = N.sqrt(N.sum(N.multiply(lhs, lhs), axis=0, keepdims=True))  # (1, order)
    lhs_v = ctx.cast(N.true_divide(lhs, scale), _F64).value
    if ya.ndim == 1:
        rhs = Array(ctx.op("Unsqueeze", rhs, ints(ctx, [1])), rhs.dtype, (ya.shape[0], 1))
    rhs = ctx.cast(rhs, _F64)
    scale = ctx.cast(scale, _F64).value
    cols = [ctx.op("Slice", lhs_v, ints(ctx, [j]), ints(ctx, [j + 1]), ints(ctx, [1]))
            for j in range(order)]
    b = rhs.value
    r = [[None] * order for _ in range(order)]
    z = []
    qs = []
    for j in range(order):  # modified Gram-Schmidt, y carried along as extra columns
        v = cols[j]
        for i in range(j):
            r[i][j] = ctx.op("Squeeze", _dot_cols(ctx, qs[i], v), ints(ctx, [0, 1]))
            v = ctx.op("Sub", v, ctx.op("Mul", qs[i], r[i][j]))
        r[j][j] = ctx.op("Sqrt", ctx.op("Squeeze", _dot_cols(ctx, v, v), ints(ctx, [0, 1])))
        q = ctx.op("Div", v, r[j][j])
        qs.append(q)
        zj = _dot_cols(ctx, q, b)  # (1, k)
        z.append(zj)
        b = ctx.op("Sub", b, ctx.op("Mul", q, zj))
    k_dims = ctx.op("Shape", rhs, start=1, end=2)
    eye = [ctx.const(np.eye(order)[i:i + 1]) for i in range(order)]
    coef_rows = _back_substitute(ctx, r, z)
    inv_rows = _back_substitute(ctx, r, eye)
    # ‖R‖_F ‖R⁻¹‖_F bounds the 2-norm condition number from above (within a factor order)
    r_sq = None
    for i in range(order):
        for j in range(i, order):
            term = ctx.op("Mul", r[i][j], r[i][j])
            r_sq = term if r_sq is None else ctx.op("Add", r_sq, term)
    inv_sq = ctx.op("ReduceSum", ctx.op("Mul", *(2 * [ctx.op("Concat", *inv_rows, axis=0)])),
                    keepdims=0)
    cond = ctx.op("Sqrt", ctx.op("Mul", r_sq, inv_sq))
    # NaN (a zero column) fails too: the comparison is False
    ok = ctx.op("LessOrEqual", cond, ctx.const(np.array(_MAX_COND)))
    coef = ctx.op("Concat", *coef_rows, axis=0)  # (order, k)
    coef = ctx.op("Div", coef, ctx.op("Transpose", scale, perm=[1, 0]))
    shape_vec = Array(ctx.op("Concat", ints(ctx, [order]), k_dims, axis=0), _I64, (2,))
    coef = ctx.op("Reshape", coef, guard(ctx, ok, shape_vec))
    out = Array(coef, _F64, (order, ya.shape[1] if ya.ndim == 2 else 1))
    if ya.ndim == 1:
        out = Array(ctx.op("Squeeze", out, ints(ctx, [1])), _F64, (order,))
    return out


# ------------------------------------------------------------- derivative, integral, sums
def _strict_1d(ctx, p, fname: str) -> Array:
    a = to_array(ctx, p)
    if a.ndim != 1:
        raise ctx.error(f"{fname}: p must be a 1-D coefficient array, got {a.ndim}-D (numpy "
                        "raises TypeError or gives nonsense for other ranks)")
    if a.dtype.kind not in "biuf":
        raise ctx.error(f"{fname}: coefficients of dtype {a.dtype} are not supported")
    return a


def _order(ctx, m, fname: str) -> int:
    m = ctx.static(m, "m")
    if isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer)):
        raise ctx.error(f"{fname}: the order m must be an int, got {m!r}")
    if m < 0:
        raise ctx.error(f"{fname}: Order of derivative/integral must be positive (numpy raises "
                        "ValueError)")
    return int(m)


@register(np.polyder)
def polyder(ctx, p, m=1):
    """``np.polyder(p, m=1)``: numpy's ``p[:-1] * arange(n, 0, -1)``, m times."""
    N = Np(ctx)
    m = _order(ctx, m, "np.polyder")
    y = _strict_1d(ctx, p, "np.polyder")
    for _ in range(m):
        n = N.subtract(_len(ctx, y), 1)
        y = N.multiply(N.getitem(y, slice(None, -1)), N.arange(n, 0, -1))
    return y


@register(np.polyint)
def polyint(ctx, p, m=1, k=None):
    """``np.polyint(p, m=1, k=None)``: ``k`` static (a number or m numbers)."""
    N = Np(ctx)
    m = _order(ctx, m, "np.polyint")
    ks = np.zeros(m, float) if k is None else np.atleast_1d(ctx.static(k, "k"))
    if len(ks) == 1 and m > 1:
        ks = ks[0] * np.ones(m, float)
    if len(ks) < m:
        raise ctx.error("np.polyint: k must be a scalar or a rank-1 array of length 1 or >m "
                        "(numpy raises ValueError)")
    y = _strict_1d(ctx, p, "np.polyint")
    for i in range(m):
        y = N.concatenate((N.true_divide(y, N.arange(_len(ctx, y), 0, -1)),
                           ctx.const_array(np.asarray([ks[i]]))))
    return y


def _left_padded(ctx, a: Array, length) -> Array:
    """``a`` with zeros of its dtype in front, to ``length`` (an int64 0-d value)."""
    missing = ctx.op("Sub", length, _len(ctx, a))
    zeros = ctx.op("ConstantOfShape", ctx.op("Reshape", missing, ints(ctx, [1])),
                   value=ir.tensor(np.zeros(1, a.dtype)))
    return Array(ctx.op("Concat", zeros, a, axis=0), a.dtype, (None,))


def _aligned(ctx, a1, a2, fname: str) -> tuple[Array, Array]:
    x, y = to_array(ctx, a1), to_array(ctx, a2)
    x, y = (Array(ctx.op("Reshape", v, ints(ctx, [1])), v.dtype, (1,)) if v.ndim == 0 else v
            for v in (x, y))
    for v in (x, y):
        if v.ndim != 1:
            raise ctx.error(f"{fname}: coefficient arrays must be 1-D, got {v.ndim}-D")
    if x.shape[0] is not None and x.shape[0] == y.shape[0]:
        return x, y
    if x.shape[0] is not None and y.shape[0] is not None:
        n = max(x.shape[0], y.shape[0])
        length = ctx.const(np.array(n, np.int64))
    else:
        n, length = None, ctx.op("Max", _len(ctx, x), _len(ctx, y))
    x, y = _left_padded(ctx, x, length), _left_padded(ctx, y, length)
    return Array(x.value, x.dtype, (n,)), Array(y.value, y.dtype, (n,))


@register(np.polyadd)
def polyadd(ctx, a1, a2):
    """``np.polyadd(a1, a2)``: the shorter one padded with zeros in front."""
    x, y = _aligned(ctx, a1, a2, "np.polyadd")
    return Np(ctx).add(x, y)


@register(np.polysub)
def polysub(ctx, a1, a2):
    """``np.polysub(a1, a2)``: the shorter one padded with zeros in front."""
    x, y = _aligned(ctx, a1, a2, "np.polysub")
    return Np(ctx).subtract(x, y)


def _poly1d_coeffs(ctx, a) -> Array:
    """``np.poly1d(a).coeffs``: leading zeros trimmed (run-time length), ``[0]`` if none left."""
    x = to_array(ctx, a)
    if x.ndim == 0:
        x = Array(ctx.op("Reshape", x, ints(ctx, [1])), x.dtype, (1,))
    if x.ndim != 1:
        raise ctx.error("np.polymul: Polynomial must be 1d only (numpy raises ValueError)")
    # b = [*x, +0]; keep x from its first nonzero, else b's last element (numpy's [0]: a
    # positive zero even when x ends in -0.0)
    b = ctx.op("Concat", x, ctx.const(np.zeros(1, x.dtype)), axis=0)
    xf = ctx.cast(x, np.float32) if x.dtype == np.float16 else x
    nonzero = ctx.op("Cast", ctx.op("Not", ctx.op("Equal", xf, ctx.const(np.zeros((), xf.dtype)))),
                     to=7)
    nonzero = ctx.op("Concat", nonzero, ints(ctx, [1]), axis=0)  # the sentinel past the end
    first = ctx.op("ArgMax", nonzero, axis=0, keepdims=1, select_last_index=0)
    n = ctx.op("Shape", x)
    stop = ctx.op("Where", ctx.op("Equal", first, n), ctx.op("Add", n, ints(ctx, [1])), n)
    return Array(ctx.op("Slice", b, first, stop, ints(ctx, [0])), x.dtype, (None,))


@register(np.polymul)
def polymul(ctx, a1, a2):
    """``np.polymul(a1, a2)``: numpy's ``convolve(poly1d(a1), poly1d(a2))`` (leading zeros
    trimmed first, so the length is a run-time one)."""
    return Np(ctx).convolve(_poly1d_coeffs(ctx, a1), _poly1d_coeffs(ctx, a2))

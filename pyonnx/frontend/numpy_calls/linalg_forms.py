"""``np.linalg.cholesky``, ``tensorinv`` and ``tensorsolve``, on the LU family's helpers.

Input: stacks of square matrices (static size, at most ``linalg_lu.MAX_N``), tensors of static
shape. Output: Arrays in numpy's linalg dtypes (float32 stays float32, other real types
float64). Cholesky runs LAPACK's ``potf2`` column by column in the model (onnxruntime has no
float64 linear algebra): equal to numpy's to rounding, not bit for bit.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.complex_values import static_dim
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.linalg_lu import _ROUNDING, _slice, _square, inv, solve
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.science.compose import Np
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.shape.common import ints

__all__: list[str] = []


@register(np.linalg.cholesky, limits={"a": "LAPACK's potf2 in its order: equal to numpy's to "
                                           "rounding, not bit for bit"})
def cholesky(ctx, a, /, *, upper=False):
    """``np.linalg.cholesky(a, upper=False)``: LAPACK's ``potf2`` column by column (the lower
    triangle is read; ``upper=True`` reads the upper one and returns the transpose). A matrix
    that is not positive definite fails the run (numpy raises LinAlgError)."""
    x, n = _square(ctx, a, "np.linalg.cholesky")
    dt = x.dtype
    upper = bool(ctx.static(upper, "upper"))
    if n == 0:
        return Array(ctx.op("Identity", x), dt, x.shape)
    m = ctx.op("Transpose", x, perm=[*range(x.ndim - 2), x.ndim - 1, x.ndim - 2]) \
        if upper else x.value
    cols: list = []
    bad = None
    zero = ctx.const(np.zeros((), dt))
    for j in range(n):
        v = _slice(ctx, _slice(ctx, m, -2, j, n), -1, j, j + 1)  # A[j:, j]  (..., n - j, 1)
        if j:
            sub = ctx.op("Concat", *(_slice(ctx, c, -2, j - k, n - k)
                                     for k, c in enumerate(cols)), axis=-1)  # L[j:, :j]
            row = _slice(ctx, sub, -2, 0, 1)  # L[j, :j]  (..., 1, j)
            v = ctx.op("Sub", v, ctx.op("MatMul", sub, ctx.op(
                "Transpose", row, perm=[*range(x.ndim - 2), x.ndim - 1, x.ndim - 2])))
        ajj = _slice(ctx, v, -2, 0, 1)
        not_pd = ctx.op("Not", ctx.op("Greater", ajj, zero))  # <= 0 or NaN
        bad = not_pd if bad is None else ctx.op("Or", bad, not_pd)
        root = ctx.op("Sqrt", ajj)
        col = root if j == n - 1 else ctx.op("Concat", root, ctx.op(
            "Mul", _slice(ctx, v, -2, 1, n - j), ctx.op("Div", ctx.const(np.ones((), dt)), root)),
            axis=-2)
        cols.append(col)
    full = []
    for j, c in enumerate(cols):
        if j:
            zeros = ctx.op("Expand", ctx.const(np.zeros((1, 1), dt)), ctx.op("Concat", ctx.op(
                "Shape", c, end=-2), ints(ctx, [j, 1]), axis=0))
            c = ctx.op("Concat", zeros, c, axis=-2)
        full.append(c)
    out = ctx.op("Concat", *full, axis=-1) if n > 1 else full[0]
    if upper:
        out = ctx.op("Transpose", out, perm=[*range(x.ndim - 2), x.ndim - 1, x.ndim - 2])
    return runtime_check(ctx, Array(bad, np.dtype(np.bool_), ()), Array(out, dt, x.shape),
                         "LinAlgError_Matrix_is_not_positive_definite",
                         "LinAlgError: Matrix is not positive definite")


def _static_shape(ctx, x: Array, fname: str) -> tuple[int, ...]:
    return tuple(static_dim(ctx, d, f"{fname}: the shapes must be known at conversion time")
                 for d in x.shape)


@register(np.linalg.tensorinv, limits={"a": _ROUNDING})
def tensorinv(ctx, a, ind=2):
    """``np.linalg.tensorinv(a, ind=2)``: ``inv`` of the reshaped matrix, reshaped back."""
    fname = "np.linalg.tensorinv"
    ind = ctx.static(ind, "ind")
    if not isinstance(ind, int) or ind <= 0:
        raise ctx.error(f"{fname}: Invalid ind argument (numpy raises ValueError)")
    x = to_array(ctx, a)
    shape = _static_shape(ctx, x, fname)
    inv_shape = shape[ind:] + shape[:ind]
    prod = int(np.prod(shape[ind:]))
    if int(np.prod(shape[:ind])) != prod:
        raise ctx.error(f"{fname}: the first {ind} and the last dimensions have different "
                        "sizes (numpy raises LinAlgError)")
    r = inv(ctx, Array(ctx.op("Reshape", x, ints(ctx, [prod, prod])), x.dtype, (prod, prod)))
    return Array(ctx.op("Reshape", r, ints(ctx, inv_shape)), r.dtype, inv_shape)


@register(np.linalg.tensorsolve, limits={"a": _ROUNDING})
def tensorsolve(ctx, a, b, axes=None):
    """``np.linalg.tensorsolve(a, b, axes=None)``: numpy's transpose, reshape and ``solve``."""
    fname = "np.linalg.tensorsolve"
    x, y = to_array(ctx, a), to_array(ctx, b)
    axes = ctx.static(axes, "axes")
    an = x.ndim
    if axes is not None:
        allaxes = list(range(an))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(an, k)
        x = Np(ctx).transpose(x, allaxes)
    shape = _static_shape(ctx, x, fname)
    if an - y.ndim <= 0:
        raise ctx.error(f"{fname}: a must have more dimensions than b")
    oldshape = shape[-(an - y.ndim):]
    prod = int(np.prod(oldshape))
    if int(np.prod(shape)) != prod ** 2:
        raise ctx.error(f"{fname}: Input arrays must satisfy the requirement prod(a.shape[b.ndim:])"
                        " == prod(a.shape[:b.ndim]) (numpy raises LinAlgError)")
    m = Array(ctx.op("Reshape", x, ints(ctx, [prod, prod])), x.dtype, (prod, prod))
    v = Array(ctx.op("Reshape", y, ints(ctx, [-1])), y.dtype, (None,))
    res = solve(ctx, m, v)
    return Array(ctx.op("Reshape", res, ints(ctx, oldshape)), res.dtype, oldshape)

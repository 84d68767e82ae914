"""numpy norms: np.linalg.norm, matrix_norm, vector_norm.

Input: an array (integers and bool are computed in float64, as numpy does) with static ``ord``,
``axis`` and ``keepdims``. Output: a floating Array in the input's floating dtype; float16 is
computed in float32 and rounded once.

Supported syntax:

* ``np.linalg.norm(x, ord=None, axis=None, keepdims=False)``: vectors (ord None/2, 1, inf,
  -inf, 0, other p) and matrices (None/'fro', 1, -1, inf, -inf). ord=2/-2/'nuc' for matrices
  need a singular value decomposition, which onnxruntime lacks: refused.
* ``np.linalg.matrix_norm(x, keepdims=False, ord='fro')``,
  ``np.linalg.vector_norm(x, axis=None, keepdims=False, ord=2)`` (axis None, int or tuple).
"""

from __future__ import annotations

import math

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.linalg.common import _F32
from pyonnx.frontend.numpy_calls.shape import (
    I64, axes_of, axis_of, flatten_range, guard, ints, ravel_array, reshape_dims, shape_slice,
    to_array, transpose_to, unsqueeze,
)


# ---------------------------------------------------------------------------------- norm
def _reduce(ctx, op: str, x: Array, axes: tuple[int, ...], keepdims: bool) -> Array:
    shape = tuple((1 if keepdims else None) if i in axes else d for i, d in enumerate(x.shape))
    shape = tuple(d for i, d in enumerate(shape) if keepdims or i not in axes)
    run = _F32 if x.dtype == np.float16 and op == "ReduceSum" else x.dtype
    value = ctx.op(op, ctx.cast(x, run), ints(ctx, axes), keepdims=int(keepdims))
    if op in ("ReduceMax", "ReduceMin"):
        value = _keep_nan(ctx, x, ints(ctx, axes), value, keepdims, run)
    return ctx.cast(Array(value, run, shape), x.dtype)


def _keep_nan(ctx, x: Array, axes, value, keepdims: bool, run):
    """NaN where the reduced values hold one: onnxruntime's ReduceMax/Min skip NaN, numpy's
    max/min return it (a count of NaNs, not their max: ReduceMax of an empty axis is -inf)."""
    is_nan = ctx.cast(Array(ctx.op("IsNaN", x.value), np.dtype(bool), x.shape), run)
    nans = ctx.op("ReduceSum", is_nan.value, axes, keepdims=int(keepdims))
    return ctx.op("Where", ctx.op("Greater", nans, ctx.const(np.zeros((), run))),
                  ctx.const(np.array(np.nan, run)), value)


def _reduce_max0(ctx, x: Array, axes: tuple[int, ...], keepdims: bool) -> Array:
    """numpy's ``max(..., initial=0)`` of non-negative values: 0 for an empty axis
    (onnxruntime's ReduceMax gives -inf there; Max with 0 keeps NaN, as numpy's max does)."""
    r = _reduce(ctx, "ReduceMax", x, axes, keepdims)
    return Array(ctx.op("Max", r, ctx.const(np.zeros((), x.dtype))), x.dtype, r.shape)


def _reduce_min(ctx, x: Array, axes: tuple[int, ...], keepdims: bool) -> Array:
    """A min reduction: numpy raises when a reduced axis is empty (no identity)."""
    name = "minimum"
    op = "ReduceMin"
    dims = [x.shape[a] for a in axes]
    if any(d == 0 for d in dims):
        raise ctx.error(f"zero-size array to reduction operation {name} which has no identity")
    if all(d is not None for d in dims):
        return _reduce(ctx, op, x, axes, keepdims)
    n = ctx.op("ReduceMin", ctx.op("Gather", ctx.op("Shape", x), ints(ctx, axes)), keepdims=0)
    ok = ctx.op("Greater", n, ctx.const(np.int64(0)))
    axes_vec = guard(ctx, ok, Array(ints(ctx, axes), I64, (len(axes),)))
    shape = tuple(d if i not in axes else 1 for i, d in enumerate(x.shape) if keepdims or i not in axes)
    value = ctx.op(op, x, axes_vec, keepdims=int(keepdims))
    return Array(_keep_nan(ctx, x, axes_vec.value, value, keepdims, x.dtype), x.dtype, shape)


def _sqrt(ctx, x: Array) -> Array:
    run = _F32 if x.dtype == np.float16 else x.dtype
    return ctx.cast(Array(ctx.op("Sqrt", ctx.cast(x, run)), run, x.shape), x.dtype)


def _abs(ctx, x: Array) -> Array:
    return Array(ctx.op("Abs", x), x.dtype, x.shape)


def _sum_squares(ctx, x: Array, axes: tuple[int, ...], keepdims: bool) -> Array:
    run = _F32 if x.dtype == np.float16 else x.dtype
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keepdims or i not in axes)
    value = ctx.op("ReduceSumSquare", ctx.cast(x, run), ints(ctx, axes), keepdims=int(keepdims))
    return ctx.cast(Array(value, run, shape), x.dtype)


@register(np.linalg.norm)
def norm(ctx, x, ord=None, axis=None, keepdims=False):
    """``np.linalg.norm(x, ord=None, axis=None, keepdims=False)`` (see module docstring)."""
    x = to_array(ctx, x)
    if x.dtype.kind != "f":
        x = ctx.cast(x, np.float64)
    if x.dtype == np.float16:
        # numpy rounds each float16 step; onnxruntime computes float16 ops in float32 anyway:
        # compute in float32 and round once (within float16 tolerance of numpy's result).
        return ctx.cast(norm(ctx, ctx.cast(x, np.float32), ord, axis, keepdims), np.float16)
    ord = ctx.static(ord, "ord")
    axis = ctx.static(axis, "axis")
    keepdims = bool(ctx.static(keepdims, "keepdims"))
    nd = x.ndim
    if axis is None and (ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1)):
        ret = _sqrt(ctx, _sum_squares(ctx, x, tuple(range(nd)), False))
        if keepdims:
            ret = unsqueeze(ctx, ret, list(range(nd)))
        return ret
    if axis is None:
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        axis = (axis,)
    if len(axis) == 1:
        ax = (axis_of(ctx, axis[0], nd),)
        if ord == math.inf:
            return _reduce_max0(ctx, _abs(ctx, x), ax, keepdims)
        if ord == -math.inf:
            return _reduce_min(ctx, _abs(ctx, x), ax, keepdims)
        if ord == 0:
            nz = ctx.op("Not", ctx.op("Equal", x, ctx.const(np.zeros((), x.dtype))))
            return _reduce(ctx, "ReduceSum", ctx.cast(Array(nz, np.dtype(bool), x.shape), x.dtype),
                           ax, keepdims)
        if ord == 1:
            return _reduce(ctx, "ReduceSum", _abs(ctx, x), ax, keepdims)
        if ord is None or ord == 2:
            return _sqrt(ctx, _sum_squares(ctx, x, ax, keepdims))
        if isinstance(ord, str):
            raise ctx.error(f"Invalid norm order '{ord}' for vectors")
        try:
            p = float(ord)
        except (TypeError, ValueError):
            raise ctx.error(f"Invalid norm order {ord!r} for vectors") from None
        run = _F32 if x.dtype == np.float16 else x.dtype
        absx = _abs(ctx, x)
        with np.errstate(all="ignore"):
            p_t = np.asarray(p).astype(x.dtype)
            inv = np.reciprocal(np.asarray(p, dtype=x.dtype))
        powed = ctx.cast(Array(ctx.op("Pow", ctx.cast(absx, run), ctx.const(p_t.astype(run))),
                               run, x.shape), x.dtype)
        s = _reduce(ctx, "ReduceSum", powed, ax, keepdims)
        return ctx.cast(Array(ctx.op("Pow", ctx.cast(s, run), ctx.const(inv.astype(run))), run,
                              s.shape), x.dtype)
    if len(axis) == 2:
        row = axis_of(ctx, axis[0], nd)
        col = axis_of(ctx, axis[1], nd)
        if row == col:
            raise ctx.error("Duplicate axes given.")
        if ord in (2, -2, "nuc"):
            raise ctx.error(f"np.linalg.norm(ord={ord!r}) of a matrix needs a singular value "
                            "decomposition, which onnxruntime does not provide; compute it "
                            "outside the compiled function (ord='fro', 1, -1, inf, -inf work)")
        if ord in (None, "fro", "f"):
            ret = _sqrt(ctx, _sum_squares(ctx, x, (row, col), False))
        elif ord in (1, -1, math.inf, -math.inf):
            if ord in (1, -1):
                summed, other = row, col
            else:
                summed, other = col, row
            s = _reduce(ctx, "ReduceSum", _abs(ctx, x), (summed,), False)
            if other > summed:
                other -= 1
            # numpy 2.4: max(..., initial=0) (0 for no columns); min raises on no columns.
            ret = _reduce_max0(ctx, s, (other,), False) if ord > 0 else \
                _reduce_min(ctx, s, (other,), False)
        else:
            raise ctx.error("Invalid norm order for matrices.")
        if keepdims:
            ret = unsqueeze(ctx, ret, sorted((row, col)))
        return ret
    raise ctx.error("Improper number of dimensions to norm.")


# ------------------------------------------------------------ numpy 2 array-API spellings
@register(np.linalg.matrix_norm)
def matrix_norm(ctx, x, /, *, keepdims=False, ord="fro"):
    """``np.linalg.matrix_norm(x, keepdims=False, ord='fro')``: over the last two axes."""
    return norm(ctx, x, ord, (-2, -1), keepdims)


@register(np.linalg.vector_norm)
def vector_norm(ctx, x, /, *, axis=None, keepdims=False, ord=2):
    """``np.linalg.vector_norm(x, axis=None, keepdims=False, ord=2)``: axis None, an int or a
    tuple (those axes flattened into one vector)."""
    a = to_array(ctx, x)
    axis = ctx.static(axis, "axis")
    keepdims = bool(ctx.static(keepdims, "keepdims"))
    if axis is None:
        axes = tuple(range(a.ndim))
        res = norm(ctx, ravel_array(ctx, a), ord, 0, False)
    elif isinstance(axis, tuple):
        axes = axes_of(ctx, axis, a.ndim)
        given = tuple(axis_of(ctx, ax, a.ndim) for ax in axis)
        rest = [i for i in range(a.ndim) if i not in axes]
        t = transpose_to(ctx, a, list(given) + rest)
        merged = reshape_dims(ctx, t, [flatten_range(ctx, t, 0, len(axes))[0],
                                       shape_slice(ctx, t, len(axes), t.ndim)])
        res = norm(ctx, merged, ord, 0, False)
    else:
        axes = (axis_of(ctx, axis, a.ndim),)
        res = norm(ctx, a, ord, axes[0], False)
    if keepdims:
        res = unsqueeze(ctx, res, sorted(axes))
    return res

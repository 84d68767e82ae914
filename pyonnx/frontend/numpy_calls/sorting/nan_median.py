"""``np.nanmedian``: the median of each slice without its NaNs, with numpy's arithmetic.

Input: an array, static ``axis`` and ``keepdims``. Output: an Array of the array's dtype for
floats (NaN where a slice has no value left); integer and bool arrays are ``np.median``'s.

numpy computes the two middle values' mean in two ways, and both are followed:

* ``np.median`` of the compressed slice (axis=None, a 1-d array, or a reduced length of 600
  or more): the middle value itself when the count is odd, else ``np.mean`` of the two
  (float16 summed in float32, rounded once);
* ``np.ma.median`` (``_nanmedian_small``, shorter slices of an n-d array): ``(lo + hi) / 2``
  in the array's dtype, the middle value added to itself when the count is odd.

When the reduced length is only known at run time, both are computed and the length picks.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.sorting.common import (
    _BOOL, _axis, _bool_flag, _ints, emit_exact,
)
from pyonnx.frontend.numpy_calls.sorting.ordering import sort_along
from pyonnx.frontend.numpy_calls.sorting.quantiles import _nan_counts

__all__ = ["nanmedian"]

_F32 = np.dtype(np.float32)
_SMALL = 600  # numpy's _nanmedian: sort + indexing (np.ma.median) below this length


def _merged(ctx, x: Array, reduced: tuple, kept: list) -> Array:
    """``x`` with the reduced axes moved first and merged into one (axis 0)."""
    nd = x.ndim
    if nd == 0:
        return Array(ctx.op("Reshape", x, _ints(ctx, 1)), x.dtype, (1,))
    moved = ctx.op("Transpose", x, perm=list(reduced) + kept) if nd > 1 else x.value
    known = [x.shape[i] for i in reduced]
    merged = None if any(d is None for d in known) else int(np.prod(known))
    shape_vec = ctx.op("ReduceProd", ctx.op("Gather", ctx.op("Shape", x), _ints(ctx, *reduced),
                                            axis=0), keepdims=1)
    if kept:
        shape_vec = ctx.op("Concat", shape_vec, *(ctx.op("Shape", x, start=i, end=i + 1)
                                                  for i in kept), axis=0)
    return Array(ctx.op("Reshape", moved, shape_vec, allowzero=1), x.dtype,
                 (merged,) + tuple(x.shape[i] for i in kept))


def _halve_sum(ctx, lo: Array, hi: Array, dt: np.dtype, wide: bool) -> Array:
    """``(lo + hi) / 2``: in float32 rounded once to float16 (``wide``, np.mean's way), else
    in ``dt`` step by step (emit_exact rounds float16 after each step)."""
    if wide and dt == np.float16:
        s = kernels.emit(ctx, "Add", [ctx.cast(lo, _F32), ctx.cast(hi, _F32)], _F32)
        half = kernels.emit(ctx, "Div", [s, ctx.const_array(np.array(2, _F32))], _F32)
        return ctx.cast(half, dt)
    s = emit_exact(ctx, "Add", [lo, hi], dt)
    return emit_exact(ctx, "Div", [s, ctx.const_array(np.array(2, dt))], dt)


@register(np.nanmedian)
def nanmedian(ctx, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``np.nanmedian(a, axis=None, keepdims=False)``."""
    if out is not None:
        raise ctx.error("np.nanmedian(..., out=...) is not supported; assign the result")
    x = to_array(ctx, a)
    if x.dtype.kind != "f":  # no NaN to skip: numpy's np.median (and np.nanmean if empty)
        from pyonnx.frontend.numpy_calls.registry import lookup
        return lookup(np.median).fn(ctx, x, axis, None, overwrite_input, keepdims)
    keepdims = _bool_flag(ctx, keepdims, "keepdims")
    axis = ctx.static(axis, "axis")
    nd = x.ndim
    if axis is None:
        reduced = tuple(range(nd))
    else:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        reduced = tuple(sorted(_axis(ctx, ax, nd, "np.nanmedian") for ax in axes))
        if len(set(reduced)) != len(reduced):
            raise ctx.error("np.nanmedian: repeated axis (numpy raises ValueError)")
    kept = [i for i in range(nd) if i not in reduced]
    arr = _merged(ctx, x, reduced, kept)
    rest = arr.shape[1:]
    srt, _ = sort_along(ctx, arr, 0)
    counts, _, take = _nan_counts(ctx, arr, srt, ())
    one, two = ctx.const(np.array(1, np.int64)), ctx.const(np.array(2, np.int64))
    # (n - 1) // 2 and n // 2 (n >= 0; n == 0 reads the appended NaN row, replaced below).
    lo = Array(take(ctx.op("Div", ctx.op("Max", ctx.op("Sub", counts, one),
                                         ctx.const(np.array(0, np.int64))), two)), x.dtype, rest)
    hi = Array(take(ctx.op("Div", counts, two)), x.dtype, rest)
    odd = Array(ctx.op("Equal", ctx.op("Mod", counts, two), one), _BOOL, rest)
    by_mean = kernels.where(ctx, odd, lo, _halve_sum(ctx, lo, hi, x.dtype, True))
    by_ma = _halve_sum(ctx, lo, hi, x.dtype, False)
    length = arr.shape[0]
    if not kept or (length is not None and length >= _SMALL):
        result = by_mean
    elif length is not None:
        result = by_ma
    else:
        n_all = ctx.op("Squeeze", ctx.op("Shape", arr, start=0, end=1), _ints(ctx, 0))
        small = Array(ctx.op("Less", n_all, ctx.const(np.array(_SMALL, np.int64))), _BOOL, ())
        result = kernels.where(ctx, small, by_ma, by_mean)
    none_left = Array(ctx.op("Equal", counts, ctx.const(np.array(0, np.int64))), _BOOL, rest)
    result = kernels.where(ctx, none_left, ctx.const_array(np.array(np.nan, x.dtype)), result)
    result = Array(result.value, x.dtype, rest)
    if keepdims:
        shape = tuple(1 if i in reduced else x.shape[i] for i in range(nd))
        vec = ctx.op("Concat", *(_ints(ctx, 1) if i in reduced else
                                 ctx.op("Shape", x, start=i, end=i + 1) for i in range(nd)),
                     axis=0) if nd else _ints(ctx)
        result = Array(ctx.op("Reshape", result, vec, allowzero=1), x.dtype, shape)
    return result

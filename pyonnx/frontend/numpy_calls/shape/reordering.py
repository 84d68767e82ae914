"""numpy reversals and rotations: flip, fliplr, flipud, roll.

Input: an array, static axes, and shifts (ints or integer 0-d arrays). Output: a strong Array
with the input's shape and dtype, always a new value (numpy returns a copy or a view that code
here cannot write through).

Supported syntax:

* ``np.flip(x, axis=None)``, ``np.fliplr``, ``np.flipud``, ``np.roll(x, shift, axis=None)``
  (shift int, 0-d int array or tuple; axis None, int or tuple).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape.common import (
    _BIG, I64, DimLike, _binary_i64, _copy, _i64_scalar, axes_of, axis_of, dim_value, ints,
    ints_array, ravel_array, reshape_vec, shape_slice, slice_axis, to_array,
)


# ------------------------------------------------------------------------ flip / roll
def _flip_axes(ctx, a: Array, axes: Sequence[int]) -> Array:
    if not axes:
        return _copy(ctx, a)
    value = ctx.op("Slice", a, ints(ctx, [-1] * len(axes)), ints(ctx, [-_BIG] * len(axes)),
                   ints(ctx, axes), ints(ctx, [-1] * len(axes)))
    return Array(value, a.dtype, a.shape)


@register(np.flip)
def flip(ctx, m, axis=None):
    """``np.flip(x, axis=None)`` (axis None, int or tuple)."""
    a = to_array(ctx, m)
    return _flip_axes(ctx, a, axes_of(ctx, axis, a.ndim))


@register(np.fliplr)
def fliplr(ctx, m):
    """``np.fliplr(x)`` (x at least 2-D)."""
    a = to_array(ctx, m)
    if a.ndim < 2:
        raise ctx.error("Input must be >= 2-d.")
    return _flip_axes(ctx, a, [1])


@register(np.flipud)
def flipud(ctx, m):
    """``np.flipud(x)`` (x at least 1-D)."""
    a = to_array(ctx, m)
    if a.ndim < 1:
        raise ctx.error("Input must be >= 1-d.")
    return _flip_axes(ctx, a, [0])


def _roll_axis(ctx, a: Array, shift: DimLike, axis: int) -> Array:
    n = a.shape[axis]
    if isinstance(shift, int) and n is not None:
        if n == 0:
            return a
        s = shift % n
        if s == 0:
            return a
        head = slice_axis(ctx, a, axis, n - s, n)
        tail = slice_axis(ctx, a, axis, 0, n - s)
        return Array(ctx.op("Concat", head, tail, axis=axis), a.dtype, a.shape)
    # The split point n - shift mod n, with mod by max(n, 1) so an empty axis stays empty.
    n_vec = Array(ctx.op("Shape", a, start=axis, end=axis + 1), I64, (1,))
    safe_n = ctx.op("Max", n_vec, ints(ctx, [1]))
    sh = ctx.op("Unsqueeze", _i64_scalar(ctx, shift), ints(ctx, [0]))
    cut = Array(ctx.op("Sub", n_vec, ctx.op("Mod", sh, safe_n)), I64, (1,))
    head = slice_axis(ctx, a, axis, cut, ints_array(ctx, [_BIG]), static_len=None)
    tail = slice_axis(ctx, a, axis, 0, cut, static_len=None)
    return Array(ctx.op("Concat", head, tail, axis=axis), a.dtype, a.shape)


@register(np.roll)
def roll(ctx, a, shift, axis=None):
    """``np.roll(x, shift, axis=None)``: shift an int, an integer 0-d array or a tuple; axis
    None (flattened), int or tuple (shifts on a repeated axis add up, as in numpy)."""
    arr = to_array(ctx, a)
    axis = ctx.static(axis, "axis")
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    shifts = [dim_value(ctx, s, "shift") for s in shifts]
    if axis is None:
        if len(shifts) != 1:
            raise ctx.error("np.roll with axis=None needs a single shift")
        flat = ravel_array(ctx, arr)
        rolled = _roll_axis(ctx, flat, shifts[0], 0)
        if arr.ndim == 1:
            return rolled
        return reshape_vec(ctx, rolled, shape_slice(ctx, arr, 0, arr.ndim).value, arr.shape)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = [axis_of(ctx, ax, arr.ndim) for ax in axes]
    if len(axes) != len(shifts) and 1 not in (len(axes), len(shifts)):
        raise ctx.error("'shift' and 'axis' should be scalars or 1D sequences of the same length")
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    total: dict[int, DimLike] = {}
    for ax, s in zip(axes, shifts):
        if ax in total:
            prev = total[ax]
            total[ax] = prev + s if isinstance(prev, int) and isinstance(s, int) else \
                _binary_i64(ctx, "Add", prev, s)
        else:
            total[ax] = s
    out = arr
    for ax, s in total.items():
        out = _roll_axis(ctx, out, s, ax)
    return out if out is not arr else _copy(ctx, arr)

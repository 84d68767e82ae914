"""numpy's array editing: ``np.append``, ``np.delete``, ``np.insert`` (new arrays, never in
place).

Input: an array-like (Array, static value, or a list built at run time for the index of
``np.delete``), the positions and values, ``axis``. Output: one strong Array.

Supported syntax:

* ``np.append(arr, values, axis=None)``: ``axis=None`` ravels both (the values are a strong
  array, as numpy's ``ravel(values)`` makes them: ``np.append(float32_x, 0.5)`` is float64);
  with an axis the ranks must be equal (numpy's message).
* ``np.delete(arr, obj, axis=None)``: ``obj`` an int, a slice, a static list, or an integer or
  boolean array (0-d or 1-D; negative positions count from the end; a position out of range
  makes onnxruntime fail the run as numpy raises IndexError).
* ``np.insert(arr, obj, values, axis=None)`` with ``obj`` ONE integer (static or 0-d array):
  the values are cast to ``arr``'s dtype and broadcast as numpy's
  ``array(values, ndmin=arr.ndim)`` moved to ``axis``; several positions are refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph import sequences
from pyonnx.frontend.graph.values import Array, Seq, is_static
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape.common import (
    I64, axis_of, guard, ints, ravel_array, shape_vector, slice_axis, strong, to_array,
)
from pyonnx.frontend.numpy_calls.shape.joining import concatenate

_BOOL = np.dtype(np.bool_)


def _array_axis(ctx, arr: Any, axis: Any, fname: str) -> tuple[Array, int]:
    """``arr`` as an Array and the normalized axis (``axis=None``: raveled, axis 0)."""
    x = to_array(ctx, arr)
    if ctx.static(axis, "axis") is None:
        return ravel_array(ctx, x), 0
    if x.ndim == 0:
        raise ctx.error(f"{fname}: axis {ctx.static(axis, 'axis')} is out of bounds for array "
                        "of dimension 0 (numpy raises AxisError); use axis=None")
    return x, axis_of(ctx, axis, x.ndim)


@register(np.append)
def append(ctx, arr, values, axis=None):
    """``np.append(arr, values, axis=None)``: ``np.concatenate((arr, values), axis)`` after
    raveling both when ``axis`` is None."""
    if ctx.static(axis, "axis") is None:
        return concatenate(ctx, [ravel_array(ctx, to_array(ctx, arr)),
                                 ravel_array(ctx, to_array(ctx, values))], 0)
    return concatenate(ctx, [to_array(ctx, arr), to_array(ctx, values)], axis)


def _length(ctx, x: Array, axis: int) -> Array:
    """Dimension ``axis`` of ``x`` as a 0-d int64 Array."""
    if x.shape[axis] is not None:
        return ctx.const_array(np.int64(x.shape[axis]))
    vec = ctx.op("Shape", x, start=axis, end=axis + 1)
    return Array(ctx.op("Squeeze", vec, ints(ctx, [0])), I64, ())


@register(np.delete)
def delete(ctx, arr, obj, axis=None):
    """``np.delete(arr, obj, axis=None)``: the entries of ``arr`` along ``axis`` not selected
    by ``obj`` (positions, a slice or a boolean mask), in order."""
    x, ax = _array_axis(ctx, arr, axis, "np.delete")
    n = _length(ctx, x, ax)
    if isinstance(obj, slice):
        from pyonnx.frontend.graph.indexing import getitem
        positions = ctx.op("Range", ctx.const(np.int64(0)), n, ctx.const(np.int64(1)))
        obj = getitem(ctx, Array(positions, I64, (x.shape[ax],)), obj)
    elif isinstance(obj, Seq):
        obj = sequences.stacked(ctx, obj, "np.delete with a list built at run time")
    elif is_static(obj) and np.size(obj) == 0:
        obj = np.zeros(0, np.int64)  # numpy: an empty list is no positions
    idx = to_array(ctx, obj)
    if idx.ndim > 1:
        raise ctx.error("np.delete: the positions must be a 0-d or 1-D array (numpy raises "
                        "ValueError for more dimensions)")
    ones = ctx.op("Expand", ctx.const(np.array(True)), ctx.op("Reshape", n, ints(ctx, [1])))
    if idx.dtype == _BOOL:
        if idx.ndim == 0:
            raise ctx.error("np.delete with a 0-d boolean is not supported (numpy treats it as "
                            "the integer 0 or 1 with a warning); write the position")
        if x.shape[ax] is not None and idx.shape[0] is not None and idx.shape[0] != x.shape[ax]:
            raise ctx.error(f"boolean array argument obj to delete must be one dimensional and "
                            f"match the axis length of {x.shape[ax]} (numpy raises ValueError)")
        # A mask of another length fails the run, as numpy raises (And would broadcast a
        # length-1 mask, and Compress pads or truncates a wrong one silently).
        vec = Array(ctx.op("Shape", idx), I64, (1,))
        ok = ctx.op("Equal", ctx.op("Shape", idx), ctx.op("Reshape", n, ints(ctx, [1])))
        ok = ctx.op("Squeeze", ok, ints(ctx, [0]))
        idx = Array(ctx.op("Reshape", idx, guard(ctx, ok, vec)), idx.dtype, idx.shape)
        keep = ctx.op("Not", idx)
    elif idx.dtype.kind in "iu":
        flat = ctx.op("Reshape", ctx.cast(idx, I64), ints(ctx, [-1]))
        falses = ctx.op("Expand", ctx.const(np.array(False)), ctx.op("Shape", flat))
        # ScatterElements takes negative positions as numpy does and fails out of range.
        keep = ctx.op("ScatterElements", ones, flat, falses, axis=0)
    else:
        raise ctx.error(f"np.delete: positions of dtype {idx.dtype} are not integers "
                        "(numpy raises IndexError); cast them (.astype(int))")
    out = ctx.op("Compress", x, keep, axis=ax)
    return Array(out, x.dtype, x.shape[:ax] + (None,) + x.shape[ax + 1:])


@register(np.insert)
def insert(ctx, arr, obj, values, axis=None):
    """``np.insert(arr, obj, values, axis=None)`` for one integer position ``obj``."""
    x, ax = _array_axis(ctx, arr, axis, "np.insert")
    if isinstance(obj, slice) or isinstance(obj, (list, tuple, Seq)) or (
            isinstance(obj, (Array, np.ndarray)) and obj.ndim != 0):
        raise ctx.error("np.insert with several positions is not supported; insert one "
                        "position at a time (np.insert(a, i, v)) or build the array with "
                        "np.concatenate")
    pos = to_array(ctx, obj)
    if pos.dtype.kind not in "iu":
        raise ctx.error(f"np.insert: the position must be an integer, got {pos.dtype}")
    n = x.shape[ax]
    if is_static(obj) and n is not None and not -n <= int(obj) <= n:
        raise ctx.error(f"index {int(obj)} is out of bounds for axis {ax} with size {n} "
                        "(numpy raises IndexError)")
    length = _length(ctx, x, ax)
    pos = ctx.cast(pos, I64)
    # negative positions count from the end (numpy: index += N)
    pos = Array(ctx.op("Where", ctx.op("Less", pos, ctx.const(np.int64(0))),
                       ctx.op("Add", pos, length), pos), I64, ())
    v = to_array(ctx, values)
    if not np.can_cast(v.dtype, x.dtype, "unsafe"):
        raise ctx.error(f"np.insert cannot cast {v.dtype} values to {x.dtype}")
    v = ctx.cast(v, x.dtype)
    if v.ndim > x.ndim:
        raise ctx.error(f"np.insert: {v.ndim}-d values do not fit into a {x.ndim}-d array "
                        "(numpy raises ValueError)")
    if v.ndim < x.ndim:  # numpy's array(values, ndmin=arr.ndim)
        v = Array(ctx.op("Unsqueeze", v, ints(ctx, list(range(x.ndim - v.ndim)))), v.dtype,
                  (1,) * (x.ndim - v.ndim) + v.shape)
    if ax:  # np.moveaxis(values, 0, axis)
        perm = list(range(1, ax + 1)) + [0] + list(range(ax + 1, x.ndim))
        v = Array(ctx.op("Transpose", v, perm=perm), v.dtype, tuple(v.shape[p] for p in perm))
    for d, (a, b) in enumerate(zip(x.shape, v.shape)):
        if d != ax and a is not None and b is not None and b not in (1, a):
            raise ctx.error(f"np.insert: values of shape {v.shape} cannot be broadcast to the "
                            f"array's shape {x.shape} (numpy raises ValueError)")
    dims = [ctx.dim(v, d) if d == ax else ctx.dim(x, d) for d in range(x.ndim)]
    target = shape_vector(ctx, dims)
    v = Array(ctx.op("Expand", v, target), v.dtype,
              tuple(v.shape[ax] if d == ax else x.shape[d] for d in range(x.ndim)))
    p1 = ctx.op("Reshape", pos, ints(ctx, [1]))
    head = slice_axis(ctx, x, ax, 0, Array(p1, I64, (1,)))
    tail = slice_axis(ctx, x, ax, Array(p1, I64, (1,)), np.iinfo(np.int64).max)
    return concatenate(ctx, [head, strong(v), tail], ax)

"""numpy joins: concatenate/concat, stack, hstack, vstack, dstack, column_stack.

Input: a list or tuple mixing arrays and static values, or one array (joined along its first
axis). Output: one strong Array in numpy's result dtype (or ``dtype=``, checked with
``casting=``). Dimensions known on several items must agree (numpy's message at conversion
time); those known only at run time are checked by onnxruntime's Concat.

Supported syntax:

* ``np.concatenate``/``np.concat`` (axis int or None, ``dtype=``, ``casting=``), ``np.stack``,
  ``np.hstack``, ``np.vstack``, ``np.dstack``, ``np.column_stack``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pyonnx.frontend.graph import sequences
from pyonnx.frontend.graph.values import Array, Dim, Seq, is_static
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape.common import (
    _copy, _merge_axes, axis_of, fmt_shape, guard, ravel_array, shape_slice, strong, to_array,
    transpose_to, unsqueeze,
)
from pyonnx.frontend.numpy_calls.shape.axes import _matrix_transpose
from pyonnx.frontend.numpy_calls.shape.reshaping import _atleast


# ------------------------------------------------------------------------------ joining
def _sequence(ctx, arrays: Any, name: str) -> list[Any] | Array:
    """The items of a join's sequence argument; an Array is returned as is (its rows)."""
    if isinstance(arrays, Array):
        return strong(arrays)
    if isinstance(arrays, (list, tuple)):
        return list(arrays)
    if is_static(arrays):
        try:
            return list(np.asarray(arrays))
        except TypeError:
            pass
    raise ctx.error(f"{name} needs a list or tuple of arrays")


def _join_dtype(ctx, arrays: list[Array], dtype: Any, casting: Any) -> np.dtype:
    casting = ctx.static(casting, "casting")
    if dtype is None:
        out = np.result_type(*(a.dtype for a in arrays))
    else:
        out = np.dtype(ctx.static(dtype, "dtype"))
    for a in arrays:
        if not np.can_cast(a.dtype, out, casting=casting):
            raise ctx.error(f"Cannot cast array data from dtype('{a.dtype}') to dtype('{out}') "
                            f"according to the rule '{casting}'")
    return out


def _merge_dim(ctx, dims: Sequence[Dim], axis: int) -> Dim:
    known = [(i, d) for i, d in enumerate(dims) if d is not None]
    for i, d in known[1:]:
        if d != known[0][1]:
            raise ctx.error("all the input array dimensions except for the concatenation axis "
                            f"must match exactly, but along dimension {axis}, the array at "
                            f"index {known[0][0]} has size {known[0][1]} and the array at index "
                            f"{i} has size {d}")
    return known[0][1] if known else None


def _concat_arrays(ctx, arrays: list[Array], axis: int, dtype: np.dtype) -> Array:
    arrays = [ctx.cast(a, dtype) for a in arrays]
    ndim = arrays[0].ndim
    shape: list[Dim] = []
    for i in range(ndim):
        dims = [a.shape[i] for a in arrays]
        if i == axis:
            shape.append(None if any(d is None for d in dims) else sum(dims))
        else:
            shape.append(_merge_dim(ctx, dims, i))
    if len(arrays) == 1:
        return _copy(ctx, arrays[0])
    return Array(ctx.op("Concat", *arrays, axis=axis), dtype, tuple(shape))


def _concat_rows(ctx, x: Array, axis: Any) -> Array:
    """``np.concatenate(x, axis)`` for one array ``x``: its rows joined along ``axis``."""
    if x.ndim == 0:
        raise ctx.error("np.concatenate needs a sequence of arrays, got a 0-d array")
    x = _nonempty_rows(ctx, x, "concatenate")
    if axis is None:
        return ravel_array(ctx, x)
    if x.ndim < 2:
        raise ctx.error("zero-dimensional arrays cannot be concatenated")
    k = axis_of(ctx, axis, x.ndim - 1)
    moved = transpose_to(ctx, x, list(range(1, k + 1)) + [0] + list(range(k + 1, x.ndim)))
    return _merge_axes(ctx, moved, k)


def _nonempty_rows(ctx, x: Array, what: str) -> Array:
    """``x``, made to fail at run time when it has no rows (numpy: need at least one array)."""
    if x.shape[0] == 0:
        raise ctx.error(f"need at least one array to {what}")
    if x.shape[0] is not None:
        return x
    vec = shape_slice(ctx, x, 0, x.ndim)
    ok = ctx.op("Greater", ctx.op("Gather", vec, ctx.const(np.int64(0))), ctx.const(np.int64(0)))
    return Array(ctx.op("Reshape", x, guard(ctx, ok, vec), allowzero=1), x.dtype, x.shape)


@register(np.concatenate, np.concat)
def concatenate(ctx, arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """``np.concatenate(seq, axis=0, dtype=None, casting='same_kind')``; axis None flattens."""
    if out is not None:
        raise ctx.error("np.concatenate(..., out=...) is not supported; assign the result")
    axis = ctx.static(axis, "axis")
    if isinstance(arrays, Seq):  # a list built at run time
        x = sequences.concatenate(ctx, arrays, axis)
        return ctx.cast(x, _join_dtype(ctx, [x], dtype, casting)) if dtype is not None else x
    seq = _sequence(ctx, arrays, "np.concatenate")
    if isinstance(seq, Array):
        x = seq
        if dtype is not None:
            x = ctx.cast(x, _join_dtype(ctx, [x], dtype, casting))
        return _concat_rows(ctx, x, axis)
    if not seq:
        raise ctx.error("need at least one array to concatenate")
    items = [to_array(ctx, v) for v in seq]
    if axis is None:
        items = [ravel_array(ctx, a) for a in items]
        axis = 0
    for i, a in enumerate(items):
        if a.ndim == 0:
            raise ctx.error("zero-dimensional arrays cannot be concatenated")
        if a.ndim != items[0].ndim:
            raise ctx.error("all the input arrays must have same number of dimensions, but the "
                            f"array at index 0 has {items[0].ndim} dimension(s) and the array "
                            f"at index {i} has {a.ndim} dimension(s)")
    ax = axis_of(ctx, axis, items[0].ndim)
    return _concat_arrays(ctx, items, ax, _join_dtype(ctx, items, dtype, casting))


@register(np.stack)
def stack(ctx, arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """``np.stack(seq, axis=0, dtype=None, casting='same_kind')``; equal shapes required."""
    if out is not None:
        raise ctx.error("np.stack(..., out=...) is not supported; assign the result")
    if isinstance(arrays, Seq):  # a list built at run time
        arrays = sequences.to_array(ctx, arrays)
    seq = _sequence(ctx, arrays, "np.stack")
    if isinstance(seq, Array):
        x = seq
        if dtype is not None:
            x = ctx.cast(x, _join_dtype(ctx, [x], dtype, casting))
        if x.ndim == 0:
            raise ctx.error("np.stack needs a sequence of arrays, got a 0-d array")
        x = _nonempty_rows(ctx, x, "stack")
        k = axis_of(ctx, axis, x.ndim)
        order = list(range(1, x.ndim))
        order.insert(k, 0)
        return _copy(ctx, transpose_to(ctx, x, order))
    if not seq:
        raise ctx.error("need at least one array to stack")
    items = [to_array(ctx, v) for v in seq]
    ndim = items[0].ndim
    for a in items:
        if a.ndim != ndim or any(p is not None and q is not None and p != q
                                 for p, q in zip(a.shape, items[0].shape)):
            raise ctx.error("all input arrays must have the same shape, got "
                            + " and ".join(fmt_shape(b.shape) for b in items))
    k = axis_of(ctx, axis, ndim + 1)
    dt = _join_dtype(ctx, items, dtype, casting)
    expanded = [unsqueeze(ctx, a, [k]) for a in items]
    # Concat checks every other axis at run time, which covers all of the items' dimensions.
    return _concat_arrays(ctx, expanded, k, dt)


def _rows(ctx, seq: list[Any] | Array, name: str) -> list[Any]:
    if isinstance(seq, Array):
        if seq.ndim == 0 or seq.shape[0] is None:
            raise ctx.error(f"{name} of one array needs its first dimension known at conversion "
                            "time; use np.concatenate (or reshape) instead")
        return [Array(ctx.op("Gather", seq, ctx.const(np.int64(i)), axis=0), seq.dtype,
                      seq.shape[1:]) for i in range(seq.shape[0])]
    return seq


def _seq_join(ctx, seq: Seq, axis_2d: int, dtype, casting) -> Array:
    """``np.vstack`` (``axis_2d`` 0) or ``np.hstack`` (1) of a list built at run time: its
    items' rank is known, so the join is one sequence op (an empty list fails at run time, as
    numpy raises)."""
    ndim = len(seq.shape)
    if axis_2d == 0 and ndim <= 1:  # rows: stack them (0-d items become a column)
        x = sequences.to_array(ctx, seq)
        x = unsqueeze(ctx, x, [1]) if ndim == 0 else x
    elif axis_2d == 1 and ndim == 0:
        x = sequences.to_array(ctx, seq)
    else:
        x = sequences.concatenate(ctx, seq, 0 if ndim == 1 else axis_2d)
    return ctx.cast(x, _join_dtype(ctx, [x], dtype, casting)) if dtype is not None else x


@register(np.hstack)
def hstack(ctx, tup, *, dtype=None, casting="same_kind"):
    """``np.hstack(seq)``: along axis 0 for 1-D items, else axis 1."""
    if isinstance(tup, Seq):
        return _seq_join(ctx, tup, 1, dtype, casting)
    items = [_atleast(ctx, a, 1) for a in _rows(ctx, _sequence(ctx, tup, "np.hstack"), "np.hstack")]
    if not items:
        raise ctx.error("need at least one array to concatenate")
    return concatenate(ctx, items, 0 if items[0].ndim == 1 else 1, dtype=dtype, casting=casting)


@register(np.vstack)
def vstack(ctx, tup, *, dtype=None, casting="same_kind"):
    """``np.vstack(seq)``: items as at least 2-D, joined along axis 0."""
    if isinstance(tup, Seq):
        return _seq_join(ctx, tup, 0, dtype, casting)
    items = [_atleast(ctx, a, 2) for a in _rows(ctx, _sequence(ctx, tup, "np.vstack"), "np.vstack")]
    return concatenate(ctx, items, 0, dtype=dtype, casting=casting)


@register(np.dstack)
def dstack(ctx, tup):
    """``np.dstack(seq)``: items as at least 3-D, joined along axis 2."""
    items = [_atleast(ctx, a, 3) for a in _rows(ctx, _sequence(ctx, tup, "np.dstack"), "np.dstack")]
    return concatenate(ctx, items, 2)


@register(np.column_stack)
def column_stack(ctx, tup):
    """``np.column_stack(seq)``: 0-d/1-d items become columns, joined along axis 1."""
    items = []
    for v in _rows(ctx, _sequence(ctx, tup, "np.column_stack"), "np.column_stack"):
        a = to_array(ctx, v)
        if a.ndim < 2:
            a = _matrix_transpose(ctx, _atleast(ctx, a, 2))
        items.append(a)
    return concatenate(ctx, items, 1)

"""Python lists whose length is only known at run time, as ONNX sequences.

Input: lists appended to inside a ``Loop`` body or a run-time branch (the control-flow lowering
turns them into :class:`~pyonnx.frontend.graph.values.Seq` values when the paths disagree on
their length). Output: sequence nodes for what numpy code does with such a list:
``np.array(out)``/``np.stack(out)``/``np.concatenate(out)`` (ConcatFromSequence), ``len(out)``
(SequenceLength), ``out[i]`` (SequenceAt, negative ``i`` too) and ``for v in out``;
``out.append(v)`` (SequenceInsert) is lower/appends.py; ``if out:`` (length > 0), ``out[a:b]``
(a run-time list again) and ``x[out]`` (the list as an index array, empty included).

A list of arrays holds one dtype: appending a value of another dtype is an error (numpy would
keep both; an ONNX sequence cannot), except a Python number, which takes the list's dtype.
An empty run-time list given to ``np.array``/``np.stack``/``np.concatenate`` fails at run time
(numpy raises for ``stack``/``concatenate``; for ``np.array`` numpy returns an empty float64
array, which a model with one output type cannot mirror, so it refuses instead), except
``np.array(lst, dtype)`` of a list of numbers, which is exact (shape (0,) when empty).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.iterables import DynamicIter
from pyonnx.frontend.graph.values import Array, Seq, is_static

__all__ = ["as_sequence", "to_array", "concatenate", "length", "item", "iterate", "truth",
           "stacked", "sliced", "from_rows", "lists_as_arrays"]

_I64 = np.dtype(np.int64)


def as_sequence(ctx, value: Any, dtype: np.dtype, shape: tuple,
                weak: bool | None = False) -> Seq:
    """``value`` (a Python list or a Seq) as a sequence of ``dtype`` elements (``weak``: see
    :class:`Seq`)."""
    if isinstance(value, Seq):
        if value.dtype != dtype:
            raise ctx.error(f"a list of {value.dtype} arrays cannot hold {dtype} arrays here")
        return value if value.weak == weak else Seq(value.value, dtype, value.shape, weak)
    items = [ctx.asarray(v) for v in value]
    for a in items:
        if a.dtype != dtype and not a.weak and not np.can_cast(a.dtype, dtype, "safe"):
            raise ctx.error(f"a list holding {a.dtype} values becomes a run-time list of "
                            f"{dtype} arrays here; convert the values (.astype(...))")
    if not items:
        out = ctx.op("SequenceEmpty", dtype=dtypes.to_ir(dtype))
    else:
        out = ctx.op("SequenceConstruct", *[ctx.cast(a, dtype) for a in items])
    out.type = ir.SequenceType(ir.TensorType(dtypes.to_ir(dtype)))
    return Seq(out, dtype, shape, weak)


def to_array(ctx, seq: Seq) -> Array:
    """``np.stack(seq)``: the items along a new first axis (fails at run time when empty)."""
    out = ctx.op("ConcatFromSequence", seq, axis=0, new_axis=1)
    return Array(out, seq.dtype, (None, *seq.shape))


def concatenate(ctx, seq: Seq, axis: Any) -> Array:
    """``np.concatenate(seq, axis)``: the items joined along an existing axis."""
    from pyonnx.frontend.graph.shapes import normalize_axis

    if axis is None:
        raise ctx.error("np.concatenate(lst, axis=None) of a list built at run time is not "
                        "supported; ravel the items before appending them")
    if not seq.shape:
        raise ctx.error("zero-dimensional arrays cannot be concatenated")
    try:
        ax = normalize_axis(axis, len(seq.shape))
    except ValueError as e:
        raise ctx.error(str(e)) from None
    out = ctx.op("ConcatFromSequence", seq, axis=ax, new_axis=0)
    return Array(out, seq.dtype, tuple(None if i == ax else d for i, d in enumerate(seq.shape)))


def length(ctx, seq: Seq) -> Array:
    """``len(seq)``, a Python int (weak int64)."""
    return Array(ctx.op("SequenceLength", seq), _I64, (), weak=True)


def item(ctx, seq: Seq, index: Any) -> Array | Seq:
    """``seq[index]`` for an integer index (negative counts from the end) or a slice."""
    if isinstance(index, slice):
        return sliced(ctx, seq, index)
    if not (is_static(index) and isinstance(index, (int, np.integer))
                                        or isinstance(index, Array)):
        raise ctx.error("a list built at run time can only be indexed by one integer or a "
                        "slice; use np.array(lst)[...] for other indexing")
    i = ctx.asarray(index)
    if i.ndim or i.dtype.kind not in "iu":
        raise ctx.error("list indices must be integers")
    # (an item of a list of Python numbers is one: keep.append(i) over a range holds ints)
    return Array(ctx.op("SequenceAt", seq, ctx.cast(i, _I64)), seq.dtype, seq.shape,
                 weak=seq.weak is True and not seq.shape)


def iterate(ctx, seq: Seq) -> DynamicIter:
    """``for v in seq``."""
    return DynamicIter(length(ctx, seq), lambda ctx, k: item(ctx, seq, k))


def truth(ctx, seq: Seq) -> Array:
    """``bool(seq)``: True when the list is not empty (a 0-d bool)."""
    n = length(ctx, seq)
    return Array(ctx.op("Greater", n, ctx.const(np.array(0, np.int64))), np.dtype(np.bool_), ())


def stacked(ctx, seq: Seq, what: str) -> Array:
    """``np.array(seq)`` for the uses that accept an empty list (an index, a slice): the items
    stacked along a new first axis, of shape (0, *item shape) when the list is empty.

    ConcatFromSequence fails on an empty sequence, so a zero item goes last and is sliced off
    again; that needs the items' shape at conversion time. (Last, not first: onnx's reference
    evaluator divides by the length for a position into an empty sequence.)
    """
    if any(d is None for d in seq.shape):
        raise ctx.error(f"{what} needs the shape of the items of this list built at run time, "
                        "which differs between appends or is only known at run time; build "
                        "an array instead (np.stack(lst) when it is never empty)")
    pad = ctx.const(np.zeros(seq.shape, seq.dtype))
    padded = ctx.op("SequenceInsert", seq, pad)
    padded.type = seq.value.type
    whole = ctx.op("ConcatFromSequence", padded, axis=0, new_axis=1)
    out = ctx.op("Slice", whole, ctx.const(np.array([0], np.int64)),
                 ctx.const(np.array([-1], np.int64)), ctx.const(np.array([0], np.int64)))
    return Array(out, seq.dtype, (None, *seq.shape))


def from_rows(ctx, rows: Array, weak: bool | None = False) -> Seq:
    """The rows of ``rows`` (first axis) as a run-time list (empty when it has none)."""
    # no split input: keepdims applies only when split is omitted (chunks of length 1)
    out = ctx.op("SplitToSequence", rows, axis=0, keepdims=0)
    out.type = ir.SequenceType(ir.TensorType(dtypes.to_ir(rows.dtype)))
    return Seq(out, rows.dtype, rows.shape[1:], weak)


def sliced(ctx, seq: Seq, index: slice) -> Seq:
    """``seq[a:b:c]``: a run-time list again (Python's slice bounds, clipped)."""
    from pyonnx.frontend.graph.indexing import getitem

    return from_rows(ctx, getitem(ctx, stacked(ctx, seq, "slicing"), index), seq.weak)


def lists_as_arrays(ctx, index: Any) -> Any:
    """A subscript with the lists built at run time in it (``boxes[keep]``, ``x[keep, 0]``)
    replaced by the index arrays numpy makes of them (of shape (0,) when empty)."""
    if isinstance(index, Seq):
        return stacked(ctx, index, "indexing with a list built at run time")
    if isinstance(index, tuple) and any(isinstance(i, Seq) for i in index):
        return tuple(lists_as_arrays(ctx, i) for i in index)
    return index

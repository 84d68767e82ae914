"""Python lists whose length is only known at run time, as ONNX sequences.

Input: lists appended to inside a ``Loop`` body or a run-time branch (the control-flow lowering
turns them into :class:`~pyonnx.frontend.graph.values.Seq` values when the paths disagree on
their length). Output: sequence nodes for what numpy code does with such a list:
``out.append(v)`` (SequenceInsert), ``np.array(out)``/``np.stack(out)``/``np.concatenate(out)``
(ConcatFromSequence), ``len(out)`` (SequenceLength), ``out[i]`` (SequenceAt, negative ``i``
too) and ``for v in out``.

A list of arrays holds one dtype: appending a value of another dtype is an error (numpy would
keep both; an ONNX sequence cannot), except a Python number, which takes the list's dtype.
An empty run-time list given to ``np.array``/``np.stack``/``np.concatenate`` fails at run time
(numpy raises for ``stack``/``concatenate``; for ``np.array`` numpy returns an empty float64
array, which a model with one output type cannot mirror, so it refuses instead).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.lower.iteration import DynamicIter
from pyonnx.frontend.graph.values import Array, Seq, is_static

__all__ = ["append", "as_sequence", "to_array", "concatenate", "length", "item", "iterate"]

_I64 = np.dtype(np.int64)


def as_sequence(ctx, value: Any, dtype: np.dtype, shape: tuple) -> Seq:
    """``value`` (a Python list or a Seq) as a sequence of ``dtype`` elements."""
    if isinstance(value, Seq):
        if value.dtype != dtype:
            raise ctx.error(f"a list of {value.dtype} arrays cannot hold {dtype} arrays here")
        return value
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
    return Seq(out, dtype, shape)


def append(lowering, target: Any, value: Any) -> Any:
    """``target.append(value)`` (rewritten to ``target = target.append(value)``); returns the
    list bound to ``target`` afterwards."""
    ctx = lowering.ctx
    if isinstance(target, Seq):
        _capture(lowering, value)
        v = ctx.asarray(value)
        if v.dtype != target.dtype:
            if not v.weak:
                raise ctx.error(f"appending a {v.dtype} value to a list of {target.dtype} arrays "
                                "built at run time: an ONNX sequence holds one dtype; convert "
                                f"it (.astype(np.{target.dtype}))")
            v = ctx.cast(v, target.dtype)
        if v.ndim != len(target.shape):
            raise ctx.error(f"appending a {v.ndim}-d value to a list of {len(target.shape)}-d "
                            "arrays built at run time: an ONNX sequence holds one rank")
        out = ctx.op("SequenceInsert", target, v)
        out.type = target.value.type
        shape = tuple(p if p == q else None for p, q in zip(target.shape, v.shape))
        return Seq(out, target.dtype, shape)
    if not isinstance(target, list):
        kind = "numpy.ndarray" if isinstance(target, Array) else type(target).__name__
        raise ctx.error(f"'{kind}' object has no attribute 'append'"
                        + ("; use np.append(x, v) or collect values in a list"
                           if isinstance(target, Array) else ""))
    if not lowering.dynamic_depth:
        target.append(value)  # Python's meaning, aliases included
        return target
    # Inside a run-time branch or loop body the list is rebuilt, not mutated: the same body
    # may be lowered more than once and the other branch must not see the item. Another name
    # for the same list would then miss the append.
    others = [n for n, v in lowering.env.locals.items() if v is target]
    if len(others) > 1:
        raise ctx.error(f"the list appended to here is also named {', '.join(sorted(others))}; "
                        "inside run-time control flow a list may have only one name")
    return [*target, value]


def _capture(lowering, value: Any) -> None:
    """The sequence keeps a copy of ``value``: numpy's list keeps the array itself, so its
    memory must not be written afterwards (checked at the writes), nor be memory an enclosing
    loop writes on every iteration (the next iteration would change the appended array)."""
    from pyonnx.frontend.lower import aliases

    ctx = lowering.ctx
    hit = aliases.entry_of(ctx, value)
    if hit is None:
        return
    buffer = hit[0]
    written = ctx.aliases.memory.get(buffer, buffer.initial) is not buffer.initial
    if any(buffer in carried or (written and id(buffer.initial) in state)
           for carried, state in ctx.loop_buffers):
        raise ctx.error("the array appended here is written on every iteration of the loop, so "
                        "numpy's list would hold the same array many times; append a copy "
                        "(lst.append(x.copy()))")
    buffer.captured = True


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


def item(ctx, seq: Seq, index: Any) -> Array:
    """``seq[index]`` for an integer index (negative counts from the end)."""
    if isinstance(index, slice) or not (is_static(index) and isinstance(index, (int, np.integer))
                                        or isinstance(index, Array)):
        raise ctx.error("a list built at run time can only be indexed by one integer; use "
                        "np.array(lst)[...] for other indexing")
    i = ctx.asarray(index)
    if i.ndim or i.dtype.kind not in "iu":
        raise ctx.error("list indices must be integers")
    return Array(ctx.op("SequenceAt", seq, ctx.cast(i, _I64)), seq.dtype, seq.shape)


def iterate(ctx, seq: Seq) -> DynamicIter:
    """``for v in seq``."""
    return DynamicIter(length(ctx, seq), lambda ctx, k: item(ctx, seq, k))

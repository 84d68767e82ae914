"""``lst[i] = v`` on a Python list or a list built at run time (``peaks[-1] = x[i]``).

Input: the list (a Python list of frontend values, or a :class:`Seq`), one integer index and
the value (the setitem pass made the statement ``lst = <setitem>(lst, i, v)``). Output: the
list bound to the name afterwards.

* A Python list with a static index: at conversion time outside run-time control flow (in
  place: Python's meaning, other names included); inside a run-time branch or loop body it is
  rebuilt, as appends are (appends.py), so another name of the same list is refused there.
  A run-time index into a Python list of arrays is refused (make it an array).
* A run-time list: ``SequenceInsert`` at the normalized position, then ``SequenceErase`` of
  the old item (an index out of range fails at run time, where numpy raises IndexError).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array, Seq, is_static

__all__ = ["assign"]

_I64 = np.dtype(np.int64)


def assign(lowering, target: Any, index: Any, value: Any) -> Any:
    """``target[index] = value`` for a list ``target``; returns the list afterwards."""
    ctx = lowering.ctx
    if isinstance(index, slice):
        raise ctx.error("assigning to a slice of a list is not supported; build a new list")
    if isinstance(target, Seq):
        return _sequence(ctx, target, index, value)
    if not (is_static(index) and isinstance(index, (int, np.integer))
            and not isinstance(index, bool)):
        raise ctx.error("a Python list can be assigned at an index known at conversion time "
                        "only; use an array (np.array(lst)) for run-time indices")
    name = ctx.argument_lists.get(id(target))
    if name is not None:
        raise ctx.error(f"assigning into the list argument '{name}' changes the caller's list; "
                        f"copy it first ({name} = list({name}))")
    n = len(target)
    if not -n <= index < n:
        raise ctx.error("list assignment index out of range (Python raises IndexError)")
    if not lowering.dynamic_depth:
        target[index] = value  # Python's meaning, aliases included
        return target
    others = [m for f in ctx.frames for m, v in f.env.locals.items() if v is target]
    if len(others) > 1:
        raise ctx.error(f"the list assigned here is also named {', '.join(sorted(others))}; "
                        "inside run-time control flow a list may have only one name")
    new = list(target)
    new[index] = value
    return new


def _sequence(ctx, seq: Seq, index: Any, value: Any) -> Seq:
    i = ctx.asarray(index)
    if i.ndim or i.dtype.kind not in "iu":
        raise ctx.error("list indices must be integers")
    v = ctx.asarray(value)
    if v.dtype != seq.dtype:
        if not v.weak and not np.can_cast(v.dtype, seq.dtype, "same_kind"):
            raise ctx.error(f"assigning a {v.dtype} value into a list of {seq.dtype} arrays "
                            "built at run time: an ONNX sequence holds one dtype; convert it")
        v = ctx.cast(v, seq.dtype)
    if v.ndim != len(seq.shape):
        raise ctx.error(f"assigning a {v.ndim}-d value into a list of {len(seq.shape)}-d arrays "
                        "built at run time: an ONNX sequence holds one rank")
    i = ctx.cast(i, _I64)
    length = ctx.op("SequenceLength", seq)
    # A negative index counts from the end. Insert before the old item, then erase it (the
    # other order would insert at the length to replace the last item, which onnx's reference
    # evaluator reads as position 0); Erase checks the range (numpy's IndexError).
    pos = ctx.op("Where", ctx.op("Less", i, ctx.const(np.array(0, np.int64))),
                 ctx.op("Add", i, length), i)
    inserted = ctx.op("SequenceInsert", seq, v, pos)
    inserted.type = seq.value.type
    out = ctx.op("SequenceErase", inserted, ctx.op("Add", pos, ctx.const(np.array(1, np.int64))))
    out.type = seq.value.type
    shape = tuple(p if p == q else None for p, q in zip(seq.shape, v.shape))
    return Seq(out, seq.dtype, shape, seq.weak if seq.weak == v.weak else None)

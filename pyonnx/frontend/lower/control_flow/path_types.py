"""Which type a joined 0-d number has on which path.

Input: a value an ``If`` (or a conditional expression's ``Where``) joined from two paths'
values (``sides``), under the condition ``cond``. Output: graph/path_weak's marks on it: a
Python number on one path and a numpy value on the other (path_weak.mark), Python numbers of
two kinds (``1 if c else 0.5``: path_weak.mark_kind), item by item in tuples, lists and dicts.
Run after the join, before the joined value is used.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import path_weak
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.structure import Leaf, Plan, Tree, mixes_python_scalar, plan_of

__all__ = ["mark", "select_flag"]


def mark(ctx, value: Any, plan: Plan, sides: tuple, cond, where: str) -> None:
    """After a join on ``cond`` of ``sides`` (then, else) into ``value``: a 0-d number that is a
    Python number on one path and a numpy value on the other (graph/path_weak.mark), or Python
    numbers of two kinds (1 and 0.5: path_weak.mark_kind), is recorded as such."""
    if isinstance(plan, Tree) and isinstance(value, (tuple, list, dict)):
        # item by item: ((False, 1.5) on one path, (True, 2) on the other)
        def items(v):
            return list(v.values()) if isinstance(v, dict) else list(v)
        if all(isinstance(sd, (tuple, list, dict)) and len(sd) == len(value) for sd in sides):
            for child, v, *ss in zip(plan.children, items(value), *map(items, sides)):
                mark(ctx, v, child, tuple(ss), cond, where)
        return
    if not isinstance(plan, Leaf):
        return
    if mixes_python_scalar(*map(plan_of, sides)):
        then_python = type(sides[0]) in (int, float, bool) or \
            isinstance(sides[0], Array) and sides[0].weak
        path_weak.mark(ctx, value, where, cond if then_python else ctx.op("Not", cond))
    elif plan.weak and plan.shape == ():
        _mark_python_kinds(ctx, value, sides, cond, where)


def _mark_python_kinds(ctx, value: Any, sides: tuple, cond, where: str) -> None:
    """A Python number of one kind on one path and another on the other (``a = 1 if c else
    0.5``), or a side already of two kinds (path_weak.mark_kind): carried as the wider; the
    join records where it is the narrower (unknown when a side's own flag is)."""
    if not isinstance(value, Array):
        return
    kinds = [path_weak.python_kind(v) for v in sides]
    marks = [path_weak.kind_entry(ctx, v) for v in sides]
    if None in kinds or (kinds[0] == kinds[1] and marks == [None, None]):
        return
    seen = kinds + [m[2].kind for m in marks if m is not None]
    narrow_kind = min(seen, key="bif".index)
    if narrow_kind == path_weak.python_kind(value):
        return
    narrow = np.dtype(np.bool_) if narrow_kind == "b" else np.dtype(np.int64)
    flags = []
    for kind, mark in zip(kinds, marks):
        if mark is None:
            flags.append(kind == narrow_kind)
        else:
            flags.append(mark[1] if mark[2].kind == narrow_kind else None)
    path_weak.mark_kind(ctx, value, where, narrow,
                        None if None in flags else select_flag(ctx, cond, *flags))


def select_flag(ctx, cond: ir.Value, then: Any, other: Any) -> ir.Value:
    """``then if cond else other`` for flags that are Python bools or 0-d bool values
    (onnxruntime has no bool ``Where``)."""
    def value(f):
        return f if isinstance(f, ir.Value) else ctx.const(np.array(bool(f)))
    if then is True and other is False:
        return cond
    if then is False and other is True:
        return ctx.op("Not", cond)
    return ctx.op("Or", ctx.op("And", cond, value(then)),
                  ctx.op("And", ctx.op("Not", cond), value(other)))

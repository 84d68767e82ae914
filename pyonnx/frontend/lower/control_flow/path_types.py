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
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.graph.optional import Maybe
from pyonnx.frontend.lower.structure import (
    Leaf,
    OptPlan,
    Plan,
    Tree,
    mixes_python_scalar,
    plan_of,
)

__all__ = ["mark", "select_flag", "side_python_flags", "number_leaves", "number_leaf_at", "python_key", "python_state_flags", "mark_python_state"]


def mark(ctx, value: Any, plan: Plan, sides: tuple, cond, where: str,
         dead: int | None = None) -> None:
    """After a join on ``cond`` of ``sides`` (then, else) into ``value``: a 0-d number that is a
    Python number on one path and a numpy value on the other (graph/path_weak.mark), or Python
    numbers of two kinds (1 and 0.5: path_weak.mark_kind), is recorded as such. ``dead``: the
    side whose path has returned (early_return's guard), whose value is never read."""
    if isinstance(plan, Tree) and isinstance(value, (tuple, list, dict)):
        # item by item: ((False, 1.5) on one path, (True, 2) on the other)
        def items(v):
            return list(v.values()) if isinstance(v, dict) else list(v)
        if all(isinstance(sd, (tuple, list, dict)) and len(sd) == len(value) for sd in sides):
            for child, v, *ss in zip(plan.children, items(value), *map(items, sides)):
                mark(ctx, v, child, tuple(ss), cond, where, dead)
        return
    if isinstance(plan, OptPlan) and isinstance(value, Maybe):
        # a number that is None on some path (a `return None` before `return total`): its
        # number's marks as a number's, the None side's number never read (fuzz seeds
        # 49001423, 49003433, 49003847: sum() of a run-time list, a Python int when empty,
        # came back as the list's float or numpy type)
        nums = [sd.value if isinstance(sd, Maybe) else sd for sd in sides]
        if any(n is None for n in nums):
            if all(n is None for n in nums):
                return
            dead = next(k for k, n in enumerate(nums) if n is None)
            nums[dead] = nums[1 - dead]
        mark(ctx, value.value, plan.leaf, tuple(nums), cond, where, dead)
        return
    if not isinstance(plan, Leaf):
        return
    marked = [isinstance(sd, Array) and id(sd.value) in ctx.path_weak and not sd.weak
              for sd in sides]
    foreign = [path_weak.foreign_kind(ctx, sd) if m else None for sd, m in zip(sides, marked)]
    if any(f is not None for f in foreign) and not plan.weak:
        _mark_foreign(ctx, value, sides, foreign, cond, where, dead)
    elif mixes_python_scalar(*map(plan_of, sides)) or (any(marked) and not plan.weak):
        # per side: True where it is the Python number (a side that is itself a Python number
        # on some paths only, a loop's state, carries its own flag: unknown stays unknown)
        flags = [True if type(sd) in (int, float, bool) or isinstance(sd, Array) and sd.weak
                 else _visible(path_weak.python_flag(ctx, sd)) if m else False
                 for sd, m in zip(sides, marked)]
        if dead is not None:
            flags[dead] = flags[1 - dead]
        if flags == [False, False]:
            return
        _held(ctx, value, sides, cond, where, dead)
        path_weak.mark(ctx, value, where, None if None in flags else
                       ctx.const(np.array(True)) if flags == [True, True] else
                       select_flag(ctx, cond, *flags))
    elif plan.weak and plan.shape == ():
        _mark_python_kinds(ctx, value, sides, cond, where)


def _held(ctx, value: Any, sides: tuple, cond, where: str, dead: int | None) -> None:
    """A Python float side a float16/float32 join holds only rounded (``s = 0.1 if c else
    x32[0]``, then ``s + np.float64(1)``: numpy adds the Python 0.1): ``value`` fails at run
    time where that side ran (python_entry.held_exactly; its graph value is replaced)."""
    from pyonnx.frontend.graph.python_entry import held_exactly

    if not isinstance(value, Array) or value.weak or value.dtype.name not in ("float16",
                                                                               "float32"):
        return
    for i, sd in enumerate(sides):
        if i == dead or not (type(sd) is float or isinstance(sd, Array) and sd.weak
                             and sd.ndim == 0 and sd.dtype.kind == "f"):
            continue
        taken = cond if i == 0 else ctx.op("Not", cond)
        old = value.value
        value.value = held_exactly(ctx, value, sd, taken, "", None, join=where).value
        if id(old) in ctx.mixed_scalars:  # (a refusal kept with the value: branches.py)
            ctx.mixed_scalars[id(value.value)] = ctx.mixed_scalars[id(old)]


def _mark_foreign(ctx, value: Any, sides: tuple, foreign: list, cond, where: str,
                  dead: int | None) -> None:
    """:func:`mark` where a side is a Python number of a kind its dtype cannot stand for on
    some paths (path_weak.foreign_kind: the int 0 of ``sum()`` of nothing, kept through an
    ``if`` such as an ``assert``'s, seed 42000456): the join is that kind where that side's
    flag holds, unknown (refused where it shows) when the other side is a Python number too,
    of another kind, or a flag cannot be read here."""
    kinds = {f[2] for f in foreign if f is not None}
    numpy_side = [f is None and not (type(sd) in (int, float, bool) or isinstance(sd, Array)
                                     and (sd.weak or id(sd.value) in ctx.path_weak))
                  for sd, f in zip(sides, foreign)]
    flags = [_visible(f[1]) if f is not None else False for f in foreign]
    if dead is not None:
        flags[dead], numpy_side[dead] = flags[1 - dead], True
    known = len(kinds) == 1 and None not in flags and \
        all(f is not None or n for f, n in zip(foreign, numpy_side))
    flag = select_flag(ctx, cond, *flags) if known else None
    origin = next(f[0] for f in foreign if f is not None)  # (where that number came from)
    path_weak.mark(ctx, value, origin if known else where, flag,
                   next(iter(kinds)) if len(kinds) == 1 else "i")


def _children(v: Any) -> list:
    return list(v.values()) if isinstance(v, dict) else list(v)


def number_leaves(plan: Plan, sides: tuple) -> list:
    """(leaf plan, the paths' values of it) for each leaf of a joined value, in order (a
    tuple's, list's or dict's items; the value itself for a leaf); [] where a path's
    container does not match the plan's structure."""
    if isinstance(plan, OptPlan):  # a number that may be None: the number's (None: no value)
        return [(plan.leaf, tuple(sd.value if isinstance(sd, Maybe) else sd for sd in sides))]
    if not isinstance(plan, Tree):
        return [(plan, tuple(sides))]  # (a caller uses Leaf plans only; others keep the count)
    if not all(isinstance(sd, (tuple, list, dict)) and len(sd) == len(plan.children)
               for sd in sides):
        return [(None, ())] * _count(plan)
    out = []
    for child, *ss in zip(plan.children, *map(_children, sides)):
        out += number_leaves(child, tuple(ss))
    return out


def _count(plan: Plan) -> int:
    return sum(_count(c) for c in plan.children) if isinstance(plan, Tree) else 1


def number_leaf_at(value: Any, index: int) -> Any:
    """The ``index``-th leaf of a joined value, in :func:`number_leaves`' order."""
    leaves: list = []

    def walk(v: Any) -> None:
        if isinstance(v, (tuple, list, dict)):
            for c in _children(v):
                walk(c)
        else:
            leaves.append(v.value if isinstance(v, Maybe) else v)
    walk(value)
    return leaves[index] if index < len(leaves) else None


def side_python_flags(ctx, sides: tuple, dead: int | None = None,
                      inside: tuple = ()) -> tuple | None:
    """Per side of a join, whether the 0-d number is the Python number there (True/False, or
    the side's own 0-d bool flag): for branches.join_branches to carry out of the If when a
    side's flag is made inside the branch; None when no side is marked with such a flag, or
    a side's flag is unknown. ``dead``: a side that returned (its flag is never read);
    ``inside``: per side, the ids of the nodes the branch made."""
    flags, inner = [], False
    for i, sd in enumerate(sides):
        if type(sd) in (int, float, bool) or isinstance(sd, Array) and sd.weak:
            flags.append(True)
        elif isinstance(sd, Array) and id(sd.value) in ctx.path_weak:
            f = path_weak.python_flag(ctx, sd)
            if f is None:
                return None
            inner = inner or (isinstance(f, ir.Value) and (
                _visible(f) is None or i < len(inside) and f.producer() is not None
                and id(f.producer()) in inside[i]))
            flags.append(f)
        else:
            flags.append(False)
    if not inner:
        return None
    if dead is not None:
        flags[dead] = False
    return tuple(flags)


def _visible(flag: Any) -> Any:
    """``flag`` where the join can read it, else None (unknown): a value made inside a
    branch or loop body that is already a finished graph (an inner join's flag) is not."""
    if not isinstance(flag, ir.Value):
        return flag
    owner = flag.producer().graph if flag.producer() is not None else flag.graph
    return flag if owner is None else None


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
            flags.append(_visible(mark[1]) if mark[2].kind == narrow_kind else None)
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


def python_key(name: str) -> str:
    """The loop state key of ``name``'s "still the Python number" flag (not an identifier)."""
    return f"{name}.python"


def python_state_flags(ctx, exits: dict, names, weak_entry, flagged: set, entry: dict,
                       plans: dict, unknown: set) -> bool:
    """For loops.lower_loop, after the body: ``exits[python_key(n)]``, whether ``n`` is a
    Python number at the iteration's end, for the names ``flagged``. A name whose end value
    may be one on some paths only (marked by a join in the body: it entered the loop as a
    Python number, ``weak_entry``, and an iteration may keep it, or a numpy scalar that
    ``max(s, i)`` may replace by the Python int ``i``, fuzz seed 61000584) joins ``flagged``
    (entry flag: whether it entered as a Python number) and True is returned: lower the body
    again. A flag the body does not know (a nested loop's) is carried as false and the name
    added to ``unknown``: marked unknown after the loop (refused where numpy's result type
    would show it)."""
    more = False
    for n in names:
        v = exits.get(n)
        marked = isinstance(v, Array) and id(v.value) in ctx.path_weak and not v.weak or \
            isinstance(v, Complex) and not v.weak and v.py_path is not None
        if n not in weak_entry and n not in flagged and \
                not (marked and _numpy_scalar(entry.get(n))):
            continue
        if n not in flagged:
            if not marked:
                continue
            flagged.add(n)
            entry[python_key(n)] = Array(ctx.const(np.array(n in weak_entry)),
                                         np.dtype(np.bool_), ())
            plans[python_key(n)] = plan_of(entry[python_key(n)])
            more = True
            continue
        f = (v.py_path[1] if isinstance(v, Complex) else path_weak.python_flag(ctx, v)) \
            if marked else (isinstance(v, (Array, Complex)) and v.weak
                            or type(v) in (int, float, bool, complex))
        if f is None:
            unknown.add(n)
            f = False
        exits[python_key(n)] = Array(f if isinstance(f, ir.Value) else
                                     ctx.const(np.array(bool(f))), np.dtype(np.bool_), ())
    return more


def _numpy_scalar(v: Any) -> bool:
    """Whether ``v`` is a numpy number (a 0-d numeric value or a static ``np.int64(1)``, not
    a Python number)."""
    if isinstance(v, np.generic):
        return v.dtype.kind in "biuf"
    return isinstance(v, Array) and v.ndim == 0 and not v.weak and v.dtype.kind in "biuf"


def mark_python_state(ctx, env_locals: dict, bound: dict, flagged: set, where: str) -> None:
    """In a loop body: marks each flagged name's state input with its carried flag (popped
    from the state's names)."""
    for n in flagged:
        still = env_locals.pop(python_key(n), None)
        if n in bound and isinstance(still, Array) and isinstance(bound[n], Complex):
            bound[n].py_path = (where, still.value)  # (lower/control_flow/complex_paths)
        elif n in bound and isinstance(still, Array):
            path_weak.mark(ctx, bound[n], where, still.value)

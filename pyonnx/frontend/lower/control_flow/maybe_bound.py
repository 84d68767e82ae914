"""Names first assigned in a run-time loop that may run 0 times, read after it.

Input: such a name after the loop (``for _j, _w in pairs: ...`` then ``return _j``): an
:class:`~pyonnx.frontend.graph.values.Undefined` whose ``bound`` is the loop's final value and
whether the loop ran. Output, at each read: the value, made to fail at run time where the loop
ran 0 times (Python raises UnboundLocalError there; the model raises ExecutionError at the
read's line), and the name rebound to it (after a passing read it is bound on this path).

An outer loop carries such a name (maybe-bound at its entry, or at an iteration's end: first
assigned in an inner loop) as its value plus a "bound" flag (state key :func:`flag_key`, false
at entry where it is unbound): maybe-bound in the body and after the loop (:func:`unwrap_exits`).

Refused at the read (the Undefined's message) where the value is not a plain bool, integer or
float array or number or a tuple/list/dict of them, or is an array that shares memory (a view
of a row, ``for row in M: last = row``): the checked value is a copy, which a later write
through the name would not reach (a numpy scalar shares nothing).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph import dtypes, scalar_kinds
from pyonnx.frontend.graph.values import Array, Undefined
from pyonnx.frontend.lower.control_flow.common import internal
from pyonnx.frontend.lower.structure import placeholder, plan_of

__all__ = ["read", "join_sides", "flag", "checkable", "flag_key", "unwrap_exits"]

_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)


def read(lowering, name: str, undefined: Undefined) -> Any:
    """The value of ``name`` (bound to ``undefined``, whose ``bound`` is set) at a read.

    Raises:
        ConversionError: the value cannot be checked without losing what it shares (see the
            module docstring).
    """
    ctx = lowering.ctx
    value, ran = undefined.bound
    if not _checkable(ctx, value):
        raise ctx.error(undefined.message)
    line = ctx.loc.lineno if ctx.loc is not None else 0
    what = f"refused_{name.lstrip('_')}_read_at_line_{line}_is_unbound_the_loop_ran_0_times"
    # 0 where the loop ran, else 1: an index out of range for a length-1 axis
    index = ctx.op("Min", ctx.op("Cast", ctx.op("Not", ran), to=dtypes.to_ir(_I64)),
                   ctx.const(np.array(1, np.int64)))
    raises = (f"UnboundLocalError: cannot access local variable '{name}' where it is not "
              "associated with a value (the loop that assigns it ran 0 times)")
    checked = _through(ctx, value, index, what, raises)
    lowering.env.bind(name, checked)
    return checked


def checkable(ctx, value: Any) -> bool:
    """Whether a maybe-bound ``value`` can be carried and checked at a read (a private array,
    a number, or a container of them: see the module docstring)."""
    return _checkable(ctx, value)


def flag_key(name: str) -> str:
    """The loop state key of ``name``'s "bound" flag (not an identifier: never a user name)."""
    return f"{name}.bound"


def _checkable(ctx, value: Any, depth: int = 0) -> bool:
    if isinstance(value, Array):
        state = ctx.aliases
        # (a Python number or a numpy scalar shares nothing a write could reach: x op= v
        # rebinds it)
        private = id(value) not in state.params and state.lookup(value) is None or \
            value.weak or scalar_kinds.scalar_kind(ctx, value) == "scalar"
        return private and value.dtype.kind in "biuf"
    if isinstance(value, (tuple, list, dict)) and depth < 8:
        return all(_checkable(ctx, v, depth + 1)
                   for v in (value.values() if type(value) is dict else value))
    return isinstance(value, (bool, int, float, str)) or value is None


def _through(ctx, value: Any, index, what: str, raises: str) -> Any:
    """``value`` with every array read through the check: ``Gather(a[None], index)`` is ``a``
    itself (exact for every dtype, the sign of a zero too) where ``index`` is 0 and fails at
    run time where it is 1 (the node's name says why, as graph/checks.runtime_check does);
    0-d kinds carried over."""
    if isinstance(value, Array):
        lifted = ctx.op("Unsqueeze", value.value, ctx.const(np.array([0], np.int64)))
        new = ctx.op("Gather", lifted, index, axis=0)
        new.producer().name += f"_{what}"
        # (runtime/session.py raises Python's own exception, at the read's line)
        new.producer().metadata_props["pyonnx.raises"] = raises
        out = Array(new, value.dtype, value.shape, value.weak)
        state = ctx.aliases
        for kinds in (state.arrays0d, state.scalars0d):
            if value.value in kinds:
                kinds.add(out.value)
        if value.value in state.mixed0d:
            state.mixed0d[out.value] = state.mixed0d[value.value]
        return out
    if isinstance(value, tuple):
        return tuple(_through(ctx, v, index, what, raises) for v in value)
    if isinstance(value, list):
        return [_through(ctx, v, index, what, raises) for v in value]
    if type(value) is dict:
        return {k: _through(ctx, v, index, what, raises) for k, v in value.items()}
    return value


def join_sides(ctx, a: Any, b: Any, missing: Undefined) -> tuple | None:
    """At a run-time if's join, a name whose value on a path is a maybe-bound Undefined (the
    other path read it, which rebinds it, assigned it, or never bound it: ``missing``):
    (then value, else value, then flag, else flag, message), an Undefined replaced by its
    value and flagged with its ``ran``, a bound value flagged None, a never-bound name
    (``missing``, or a loop body's name not assigned yet: Undefined.unassigned) by a stand-in
    flagged false; None where neither is maybe-bound or a path has another
    Undefined (a stale view: refused at its read, as before)."""
    ua, ub = isinstance(a, Undefined), isinstance(b, Undefined)
    if not (ua and a.bound is not None or ub and b.bound is not None):
        return None
    sides, flags = [], []
    for v, other in ((a, b), (b, a)):
        if v is missing or type(v) is Undefined and v.unassigned and v.bound is None:
            sides.append(placeholder(ctx, plan_of(other.bound[0])))
            flags.append(Array(ctx.const(np.array(False)), _BOOL, ()).value)
        elif isinstance(v, Undefined):
            if v.bound is None:
                return None
            sides.append(v.bound[0])
            flags.append(v.bound[1])
        else:
            sides.append(v)
            flags.append(None)
    return (*sides, *flags, (a if ua and a.bound is not None else b).message)


def flag(ctx, ran: Any) -> Array:
    """A path's flag as an If output's value: its ``ran`` (None: bound, true)."""
    return Array(ctx.const(np.array(True)) if ran is None else ran, _BOOL, ())


def unwrap_exits(ctx, exits: dict, nodes, names, pending: set, flagged: dict,
                 entry: dict) -> None:
    """An iteration's end values of the maybe-bound names: ``exits[name]`` its value and
    ``exits[flag_key(name)]`` whether it is bound (true where the body bound it, its
    Undefined's flag where it is maybe-bound there). A pending name found maybe-bound at the
    end becomes flagged (entry: a stand-in, flag false). For loops.lower_loop: ``exits`` the
    body's names, ``nodes`` its nodes, ``names`` its state names, ``pending`` those first bound
    in it, ``flagged`` name -> message (updated), ``entry`` the state's entry values."""
    for n in names:
        v = exits.get(n)
        maybe = type(v) is Undefined and v.bound is not None
        if n not in flagged:
            if not (n in pending and maybe and not internal(n)
                    and checkable(ctx, v.bound[0])):
                continue
            flagged[n] = v.message
            entry[flag_key(n)] = flag(ctx, ctx.const(np.array(False)))
        if maybe:
            exits[n], ran = v.bound
        elif isinstance(v, Undefined):
            continue  # (unbound on every path: stale, refused at a read)
        else:
            ran = None
        with ctx.subgraph(nodes):
            exits[flag_key(n)] = flag(ctx, ran)

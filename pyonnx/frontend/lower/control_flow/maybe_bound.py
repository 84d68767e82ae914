"""Names first assigned in a run-time loop that may run 0 times, read after it.

Input: such a name after the loop (``for _j, _w in pairs: ...`` then ``return _j``): an
:class:`~pyonnx.frontend.graph.values.Undefined` whose ``bound`` is the loop's final value and
whether the loop ran. Output, at each read: the value, made to fail at run time where the loop
ran 0 times (Python raises UnboundLocalError there; the model raises ExecutionError at the
read's line), and the name rebound to it (after a passing read it is bound on this path).

Refused at the read (the Undefined's message) where the value is not a plain bool, integer or
float array or number or a tuple/list/dict of them, or is an array that shares memory (a view
of a row, ``for row in M: last = row``): the checked value is a copy, which a later write
through the name would not reach (a numpy scalar shares nothing).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph import dtypes, kernels, scalar_kinds
from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array, Undefined

__all__ = ["read", "join_sides", "rewrap"]

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
    # (the checked value must not be a constant, or range folding would drop the check)
    flag = Array(ctx.op("Cast", ran, to=dtypes.to_ir(_I64)), _I64, ())
    guard = runtime_check(ctx, Array(ctx.op("Not", ran), _BOOL, ()), flag, what)
    ok = ctx.op("Cast", guard.value, to=dtypes.to_ir(_BOOL))  # true wherever we get here
    checked = _through(ctx, value, ok)
    lowering.env.bind(name, checked)
    return checked


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


def _through(ctx, value: Any, ok) -> Any:
    """``value`` with every array made to depend on ``ok`` (true once the check passed), so
    the check runs before any use and is not pruned: ``Where(ok, a, a)``, ``a & ok`` for bools
    (onnxruntime has no bool Where); 0-d kinds carried over."""
    if isinstance(value, Array):
        if value.dtype == _BOOL:
            new = ctx.op("And", value.value, ok)
        else:  # (kernels.where: the dtypes onnxruntime's Where lacks go through another)
            new = kernels.where(ctx, Array(ok, _BOOL, ()), value, value).value
        out = Array(new, value.dtype, value.shape, value.weak)
        state = ctx.aliases
        for kinds in (state.arrays0d, state.scalars0d, state.mixed0d):
            if value.value in kinds:
                kinds.add(out.value)
        return out
    if isinstance(value, tuple):
        return tuple(_through(ctx, v, ok) for v in value)
    if isinstance(value, list):
        return [_through(ctx, v, ok) for v in value]
    if type(value) is dict:
        return {k: _through(ctx, v, ok) for k, v in value.items()}
    return value


def join_sides(a: Any, b: Any) -> tuple | None:
    """At a run-time if's join, a name whose value on a path is a maybe-bound Undefined (the
    other path read it, which rebinds it, or assigned it): (then value, else value, then
    flag, else flag), an Undefined replaced by its value and flagged with its ``ran``, a
    bound value flagged None; None where a path has a plain Undefined or neither is one."""
    ua, ub = type(a) is Undefined, type(b) is Undefined
    if not (ua or ub) or ua and a.bound is None or ub and b.bound is None:
        return None
    return (a.bound[0] if ua else a, b.bound[0] if ub else b,
            a.bound[1] if ua else None, b.bound[1] if ub else None, (a if ua else b).message)


def rewrap(ctx, cond, value: Any, flags: tuple) -> Undefined:
    """The joined name: bound to ``value`` where the path that ran had it bound."""
    then_flag, else_flag, message = flags
    # (cond and then_flag) or (not cond and else_flag); onnxruntime has no bool Where
    then_ran = cond if then_flag is None else ctx.op("And", cond, then_flag)
    other = ctx.op("Not", cond)
    else_ran = other if else_flag is None else ctx.op("And", other, else_flag)
    return Undefined(message, (value, ctx.op("Or", then_ran, else_ran)))

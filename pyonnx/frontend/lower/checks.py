"""Run-time checks: a ``raise`` reached under a condition on array values.

Input: a ``raise`` statement lowered inside a run-time branch or loop (``assert`` is one too,
canonicalize/asserts.py). Output: the site is recorded, and the check state is updated: one
int64 "first failed site" (0: none yet) and, per site, the 0-d values its message formats.
The state lives in the alias memory as :class:`CheckBuffer` s, so ``If`` and ``Loop`` carry it
as they carry the contents of any array a branch or body writes (once failed, it stays
failed, with the values of the first failure). :func:`outputs` makes the model outputs and the
metadata of :mod:`pyonnx.check_protocol` at the end of the conversion.

Execution after a failure: early_return makes the ``raise`` leave the function (the rest is
guarded, a loop stops); in an inlined helper the caller goes on, and a later site cannot
overwrite the first failure.
"""

from __future__ import annotations

import ast
import dataclasses
import json
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx import check_protocol
from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.lower import aliases

__all__ = ["CheckBuffer", "record", "record_unless", "record_where", "recorded", "outputs"]

_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)


class CheckBuffer(aliases.Buffer):
    """Check state in the alias memory: visible before every branch and loop (its contents
    start as "not failed"), so a site first met inside one is carried out of it."""

    __slots__ = ()


@dataclasses.dataclass
class _Site:
    number: int
    exception: str
    message: list | None  # check_protocol parts
    slots: list[CheckBuffer]
    python: list[bool]
    where: str
    dtypes: list[str]  # the values' own dtypes (slots store them in _stored's)


def _stored(dtype: np.dtype) -> np.dtype:
    """The dtype a message value is kept in: onnxruntime's Where has no kernel for bool, int8,
    int16, uint16, uint32, uint64 or float16; int64 holds every bool and integer exactly
    (uint64 as its bit pattern, cast back by the call), float32 every float16."""
    if dtype.kind in "biu":
        return _I64
    if dtype == np.float16:
        return np.dtype(np.float32)
    return dtype


class _State:
    def __init__(self, ctx):
        self.first = CheckBuffer(Array(ctx.const(np.array(0, np.int64)), _I64, ()))
        self.sites: dict[tuple, _Site] = {}


def _state(ctx) -> _State:
    state = ctx.__dict__.get("_pyonnx_checks")
    if state is None:
        state = ctx._pyonnx_checks = _State(ctx)
    return state


def _class_name(lowering, cls: type) -> str:
    name = f"{cls.__module__}.{cls.__qualname__}"
    if check_protocol.resolve(name) is not cls:
        raise lowering.ctx.error(
            f"raising {cls.__qualname__} at run time: the compiled function re-creates the "
            "exception from its importable name, and this class has none (defined inside a "
            "function?); define it at module level or raise a built-in exception")
    return name


def _message(lowering, node: ast.expr, values: list[Array]) -> list:
    """The message parts of ``node`` (a string or an f-string), appending the run-time values
    it formats to ``values``."""
    ctx = lowering.ctx
    if not isinstance(node, ast.JoinedStr):
        value = lowering.expr(node)
        if isinstance(value, str):
            return [value]
        raise ctx.error("the message of an exception raised at run time must be a string or an "
                        "f-string (f'x is {x}'), whose fields may be scalar values",
                        lowering.loc_of(node))
    parts: list = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            parts.append(str(v.value))
            continue
        value = lowering.expr(v.value)
        spec = lowering.expr(v.format_spec) if v.format_spec is not None else ""
        conversion = {-1: None, 115: "s", 114: "r", 97: "a"}[v.conversion]
        if is_static(value):
            parts.append(format(check_protocol._CONVERSIONS[conversion](value), spec))
            continue
        if not isinstance(value, (Array, Complex)) or value.shape != ():
            raise ctx.error(
                "an exception message raised at run time can format scalars only (this field "
                "is an array or a list); format a scalar such as x[i] or float(x.max())",
                lowering.loc_of(v.value))
        try:  # a bad spec fails now rather than in the call that raises
            format(np.zeros((), value.dtype)[()].item() if value.weak
                   else np.zeros((), value.dtype)[()], spec)
        except (ValueError, TypeError) as e:
            raise ctx.error(f"format spec {spec!r}: {e}", lowering.loc_of(v)) from None
        part = {"value": len(values), "conversion": conversion, "spec": spec}
        if isinstance(value, Complex):
            # its parts travel as two float values; the call puts the number back together
            part["imag"] = len(values) + 1
            values += [_part(value.re, value.weak), _part(value.im, value.weak)]
        else:
            values.append(value)
        parts.append(part)
    return parts


def _part(a: Array, weak: bool) -> Array:
    """A real or imaginary part of a complex message value, weak (a Python complex's part is
    formatted as a Python float) where the complex value was."""
    return Array(a.value, a.dtype, (), weak)


def _exception(lowering, node: ast.Raise, values: list[Array]) -> tuple[str, list | None]:
    ctx = lowering.ctx
    if node.exc is None:
        raise ctx.error("a bare 'raise' re-raises the exception being handled, and there is "
                        "none here; raise an exception such as ValueError('...')")
    if node.cause is not None and lowering.expr(node.cause) is not None:
        raise ctx.error("'raise ... from e' under a run-time condition: the compiled function "
                        "raises without a cause; write 'raise ...' or 'raise ... from None'")
    exc = node.exc
    if isinstance(exc, ast.Call):
        cls = lowering.expr(exc.func)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            if exc.keywords or len(exc.args) > 1 or any(
                    isinstance(a, ast.Starred) for a in exc.args):
                raise ctx.error("an exception raised at run time takes one message (a string "
                                "or an f-string) or none", lowering.loc_of(exc))
            message = _message(lowering, exc.args[0], values) if exc.args else None
            return _class_name(lowering, cls), message
    value = lowering.expr(exc)
    if isinstance(value, type) and issubclass(value, BaseException):
        return _class_name(lowering, value), None
    if isinstance(value, BaseException) and (
            not value.args or len(value.args) == 1 and isinstance(value.args[0], str)):
        return _class_name(lowering, type(value)), list(value.args) or None
    raise ctx.error("'raise' needs an exception class or a call of one with a string or "
                    "f-string message", lowering.loc_of(exc))


def record(lowering, node: ast.Raise) -> None:
    """A ``raise`` reached under a run-time condition: this path fails the check of its site
    (unless an earlier site failed first), with the values its message formats now."""
    values: list[Array] = []
    exception, message = _exception(lowering, node, values)
    _fail(lowering.ctx, id(node), exception, message, values, None, lowering.loc_of(node))
    # (its condition is not known here: control_flow/guards.py then keeps every guard an If)
    lowering.ctx._pyonnx_shape_checks = True


def record_unless(lowering, ok: Array, node: ast.AST, exception: type, message: str) -> None:
    """A check without a ``raise`` statement: this path fails the check of the site ``node``
    with ``exception(message)`` where the 0-d bool ``ok`` is false at run time. Costs a few
    elementwise nodes, no ``If``."""
    bad = Array(lowering.ctx.op("Not", ok.value), _BOOL, ())
    _fail(lowering.ctx, id(node), _class_name(lowering, exception), [message], [], bad,
          lowering.loc_of(node))


def record_where(ctx, bad: Array, key: Any, exception: type, message: str) -> None:
    """A check without a statement: this path fails the site ``key`` with ``exception(message)``
    where the 0-d bool ``bad`` is true at run time, at the current line (``ctx.loc``). Unlike a
    ``runtime_check`` on a value, the check is a model output: it fails the call even where
    nothing reads the value (a dtype read at conversion time, graph/path_weak.py)."""
    name = f"{exception.__module__}.{exception.__qualname__}"
    loc = ctx.loc
    text = f"{loc}: error: {message}" if loc is not None else message
    _fail(ctx, key, name, [text], [], bad, loc)


def _fail(ctx, node_key: Any, exception: str, message: list | None, values: list[Array],
          bad: Array | None, loc) -> None:
    """Fails the check of ``node_key`` on this path (where the 0-d bool ``bad`` holds, when
    given) unless an earlier site failed first."""
    state = _state(ctx)
    key = (node_key, exception, json.dumps(message),
           tuple((v.dtype.str, v.weak) for v in values))
    site = state.sites.get(key)
    if site is None:
        slots = [CheckBuffer(Array(ctx.const(np.zeros((), _stored(v.dtype))),
                                   _stored(v.dtype), ())) for v in values]
        site = state.sites[key] = _Site(len(state.sites) + 1, exception, message, slots,
                                        [bool(v.weak) for v in values],
                                        f"{loc.filename}:{loc.lineno}",
                                        [v.dtype.name for v in values])
    memory = ctx.aliases.memory
    first = memory.get(state.first, state.first.initial)
    fires = ctx.op("Equal", first.value, ctx.const(np.array(0, np.int64)))
    if bad is not None:
        fires = ctx.op("And", fires, bad.value)
    number = ctx.const(np.array(site.number, np.int64))
    memory[state.first] = Array(ctx.op("Where", fires, number, first.value), _I64, ())
    for slot, v in zip(site.slots, values):
        old = memory.get(slot, slot.initial)
        stored = ctx.cast(Array(v.value, v.dtype, ()), slot.initial.dtype)
        memory[slot] = Array(ctx.op("Where", fires, stored.value, old.value),
                             slot.initial.dtype, ())


def recorded(ctx) -> bool:
    """Whether some run-time check site was recorded in this conversion."""
    state = ctx.__dict__.get("_pyonnx_checks")
    return state is not None and bool(state.sites)


def outputs(ctx, taken: set[str]) -> tuple[list[Array], str | None]:
    """The check outputs (per site its failed flag, then its message values, in site order)
    and the ``pyonnx.checks`` metadata; nothing when no site was recorded."""
    state = ctx.__dict__.get("_pyonnx_checks")
    if state is None or not state.sites:
        return [], None
    memory = ctx.aliases.memory
    first = memory.get(state.first, state.first.initial)
    outs: list[Array] = []
    sites = []

    def output(value, dtype, name: str) -> str:
        while name in taken:
            name += "_"
        taken.add(name)
        out = ctx.op("Identity", value)
        out.name = name
        out.type = ir.TensorType(dtypes.to_ir(dtype))
        out.shape = ir.Shape([])
        outs.append(Array(out, dtype, ()))
        return name

    for site in sorted(state.sites.values(), key=lambda s: s.number):
        k = site.number
        failed = ctx.op("Equal", first.value, ctx.const(np.array(k, np.int64)))
        entry = {"failed": output(failed, _BOOL, f"check_{k}_failed"),
                 "exception": site.exception, "where": site.where, "message": site.message,
                 "values": []}
        for j, (slot, python, dtype) in enumerate(zip(site.slots, site.python, site.dtypes)):
            value = memory.get(slot, slot.initial)
            entry["values"].append({"name": output(value.value, value.dtype,
                                                   f"check_{k}_value_{j}"), "python": python,
                                    "dtype": dtype})
        sites.append(entry)
    return outs, json.dumps({"format": check_protocol.FORMAT, "sites": sites})

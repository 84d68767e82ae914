"""Writes whose meaning depends on memory layout: through a reshape that numpy makes a view or
a copy depending on the strides (:class:`~pyonnx.frontend.lower.aliases.MaybeCopy`, see
:mod:`pyonnx.frontend.lower.layout`), and boolean-mask assignments whose value is a view of the
array written.

Input: the target of a write, its buffer and view steps (``alias_writes.write_with``). Output: the
target moved to memory of its own where numpy's copy meaning is the only one anyone can see,
or a ConversionError at the write.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array, Undefined
from pyonnx.frontend.lower.aliases import (
    AliasState, Buffer, MaybeCopy, Step, steps_equal)

__all__ = ["detach", "maybe_copy_error", "refuse_masked_overlap"]


def maybe_copy_error(ctx, loc_text: str, why: str):
    return ctx.error(
        f"{loc_text} is the reshape (or ravel) of an array whose memory order is not C "
        "(made from a transpose, e.g. np.cosh(x.T), swapaxes or np.array/np.copy of one, which "
        "keep their input's order), so numpy may return a copy or a view depending on the "
        f"strides; {why}. Make the order explicit: reshape a C-ordered copy "
        "(y.copy().reshape(...) or np.ascontiguousarray(y).reshape(...)) for a view of that "
        "copy, or take .copy() of the reshape for an independent array")


def detach(lowering, target: Array, buffer: Buffer, steps: tuple,
            loc_text: str) -> tuple[Buffer, tuple]:
    """A write through a :class:`MaybeCopy` reshape: it follows numpy's copy meaning (the
    reshape becomes memory of its own) where nothing can tell a copy from a view afterwards;
    every other name of the old memory then reads as an error ("may or may not see the
    write"). Refused where the old memory is seen beyond this function's names (an
    argument's, a loop's state, memory chosen by run-time data).

    Returns: the target's new buffer and steps.
    """
    ctx = lowering.ctx
    state: AliasState = ctx.aliases
    if buffer.param is not None:
        raise maybe_copy_error(ctx, loc_text, f"the write reaches the caller's "
                                f"'{buffer.param}' exactly when it is a view")
    if buffer.shared or buffer.choice or buffer.captured or lowering.dynamic_depth:
        # (in a run-time branch or loop the other names' bindings are merged or carried
        # after it, which cannot say "unknown")
        raise maybe_copy_error(ctx, loc_text, "the write is in a run-time branch or loop, or "
                                "the memory is seen elsewhere (a loop's state, a run-time "
                                "choice, a list)")
    cut = max(i for i, s in enumerate(steps) if isinstance(s, MaybeCopy)) + 1
    head = steps[:cut]
    if any(isinstance(s, MaybeCopy) or not isinstance(s, Step) for s in head[:-1]):
        raise maybe_copy_error(ctx, loc_text, "pyonnx does not follow this chain of views")
    contents = state.memory.get(buffer, buffer.initial)
    if contents is not head[-1].base:
        raise maybe_copy_error(ctx, loc_text, "its base was written after it was made")
    value = contents
    for step in head:
        value = step.forward(ctx, value)
    fresh = Buffer(value)
    state.c_order.add(value.value)  # a copy numpy makes is C-ordered
    state.memory[fresh] = value
    state.register(value, fresh, ())
    line = ctx.loc.lineno if ctx.loc is not None else "?"
    stale = Undefined(
        f"this name shares memory with an array that is the reshape of an array whose memory "
        f"order is not C, written at line {line}: numpy's reshape there is a copy or a view "
        "depending on the strides, so whether this name sees the write is not known; reshape "
        "a C-ordered copy (y.copy().reshape(...)) or take .copy() of the reshape")

    def moved(v: Any) -> Any:
        if isinstance(v, (tuple, list)) and any(moved(w) is not w for w in v):
            raise maybe_copy_error(ctx, loc_text, "a list or tuple holds an array of its "
                                    "memory, which may or may not see the write")
        hit = state.lookup(v) if isinstance(v, Array) else None
        if hit is None or hit[0] is not buffer:
            return v
        rest = hit[1]
        if len(rest) >= cut and steps_equal(rest[:cut], head):
            state.register(v, fresh, rest[cut:])
            return v
        return stale

    for frame in ctx.frames:
        env = frame.env.locals
        for name, v in list(env.items()):
            new = moved(v)
            if new is not v:
                env[name] = Undefined(new.message.replace("this name", f"'{name}'", 1))
    target_hit = state.lookup(target)
    if target_hit is None or target_hit[0] is not fresh:
        state.register(target, fresh, steps[cut:])
    return fresh, steps[cut:]


def refuse_masked_overlap(ctx, target: Any, index: Any, value: Any, loc_text: str) -> None:
    """``x[mask] = x[::-1]`` or ``x[mask] = x[0]``: numpy's boolean-mask assignment from a view
    of the array it writes copies each run of true mask elements in turn, so a later run can
    read elements an earlier run wrote (fuzz seeds 6000837, 970942); the model reads the whole
    value first. Refused unless the value is one element (every write gets that element: the
    order cannot matter)."""
    items = index if isinstance(index, tuple) else (index,)
    if not any(isinstance(i, Array) and i.dtype == np.bool_ and i.ndim for i in items):
        return
    if not isinstance(value, Array) or not isinstance(target, Array):
        return
    state: AliasState = ctx.aliases
    hit, mine = state.lookup(value), state.lookup(target)
    one_element = all(isinstance(d, int) and d == 1 for d in value.shape)  # (or 0-d)
    if hit is not None and mine is not None and hit[0] is mine[0] and hit[1] and \
            not one_element:
        raise ctx.error(
            f"the value assigned to {loc_text}[mask] is a view of the same array: numpy's "
            "boolean-mask assignment may read elements it has already written (the result "
            "depends on where the mask is true); assign a copy of the value (.copy())")

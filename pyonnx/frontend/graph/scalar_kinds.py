"""numpy scalars versus 0-d arrays: which one a 0-d value is, for what numpy returns and for
what ``x op= v`` does (a numpy scalar is immutable and rebinds; a 0-d array is written).

Input: 0-d Arrays and the conversion's ``AliasState`` (``frontend/lower/aliases.py``, reached as ``ctx.aliases``).
Output: their kind. numpy makes a 0-d *array* only with an array constructor (``np.array``,
``np.asarray``, ``np.zeros(())`` ...), a view (``x[...]``) or from the caller (an argument);
every op on arrays (ufuncs, reductions, an integer on every axis) gives a numpy scalar.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array

__all__ = ["mark_array0d", "is_array0d", "scalar_kind", "merge_kind", "merge_loop_kind",
           "after_inplace"]


def mark_array0d(ctx, a: Array) -> Array:
    """Records that 0-d ``a`` is a numpy 0-d array (numpy makes every other 0-d result a
    numpy scalar: ufuncs, reductions, an integer on every axis).

    The kind belongs to the graph value, so a constant (one value for every equal constant
    of the function, numpy scalars too) is first replaced in ``a`` by an Identity of it."""
    if a.ndim == 0:
        if a.value.const_value is not None:
            a.value = ctx.op("Identity", a.value)
        ctx.aliases.arrays0d.add(a.value)
    return a


def is_array0d(ctx, a: Array) -> bool:
    """Whether 0-d ``a`` is a numpy 0-d array: an argument, a view of memory (``x[...]``),
    or made by an array constructor; else it is a numpy scalar."""
    state = ctx.aliases  # the conversion's lower.aliases.AliasState
    if a.ndim or a.weak:
        return False
    if id(a) in state.params or a.value in state.arrays0d:
        return True
    hit = state.lookup(a)
    if hit is None:
        return False
    buffer, steps = hit
    # AMBIGUOUS/UNKNOWN markers (a value chosen by a run-time if, `a or b`) are no view steps:
    # such a value follows the convention for If outputs, a numpy scalar.
    steps = tuple(s for s in steps if hasattr(s, "forward"))
    # A view (s[...] of a numpy scalar is a 0-d array too), an argument's memory, or contents
    # written into (only arrays are); a numpy scalar someone took a view of stays a scalar.
    return bool(steps) or buffer.param is not None or a is not buffer.initial or \
        buffer.initial.value in state.arrays0d


def scalar_kind(ctx, a: Any) -> str | None:
    """For a 0-d strong Array, what numpy holds: "array" (:func:`is_array0d`), "scalar" (a
    numpy scalar: made by an op, numpy's ufuncs, reductions and integer indexing all give
    scalars), or "unknown" (the output of a run-time ``if``/loop, or a loop's state inside
    its body: the paths may disagree). None for anything else."""
    if not isinstance(a, Array) or a.ndim or a.weak:
        return None
    if is_array0d(ctx, a):
        return "array"
    if a.value in ctx.aliases.scalars0d:
        return "scalar"
    if a.value in ctx.aliases.mixed0d:
        return "unknown"
    producer = a.value.producer()
    if producer is None and a.value.const_value is None or producer is not None and \
            producer.op_type in ("If", "Loop"):
        return "unknown"
    return "scalar"


def merge_kind(ctx, merged: Any, sides: list[Any]) -> None:
    """Records the kind of a 0-d value that joins ``sides`` (the values of the paths of a
    run-time ``if``, or a loop's entry and exit values): the kind they all have, else none
    (:func:`scalar_kind` then says "unknown")."""
    if not isinstance(merged, Array) or merged.ndim or merged.weak:
        return
    kinds = {_kind_of_side(ctx, s) for s in sides}
    if kinds == {"array"}:
        mark_array0d(ctx, merged)
    elif kinds == {"scalar"}:
        ctx.aliases.scalars0d.add(merged.value)
    elif "array" in kinds:
        ctx.aliases.mixed0d.add(merged.value)


def merge_loop_kind(ctx, merged: Any, entry: Any, exit_: Any) -> None:
    """Records a loop output that may run 0 times as mixed (:func:`merge_kind`) when its
    entry value and an iteration's result are a 0-d array and a numpy scalar, one each."""
    if not isinstance(merged, Array) or merged.ndim or merged.weak:
        return
    if {_kind_of_side(ctx, entry), _kind_of_side(ctx, exit_)} == {"array", "scalar"}:
        ctx.aliases.mixed0d.add(merged.value)


def _kind_of_side(ctx, s: Any) -> str | None:
    """:func:`scalar_kind` of one path's value, conversion-time values included (a numpy
    scalar such as ``np.float64(0)``, a 0-d ndarray)."""
    if isinstance(s, Array):
        return None if s.weak else scalar_kind(ctx, s)
    if isinstance(s, np.generic):
        return "scalar"
    if isinstance(s, np.ndarray) and s.ndim == 0:
        return "array"
    return None


def after_inplace(ctx, old: Any, value: Any) -> Any:
    """The value ``x op= v`` binds to ``x`` when it rebinds ``x`` (nothing else sees ``x``'s
    memory; :meth:`~pyonnx.frontend.lower.stmt.StmtLowering.stmt_Assign`): a 0-d array stays
    a 0-d array (numpy wrote into it), a 0-d value that is an array on some paths only stays
    so, and an array whose shape the result does not have is numpy's ValueError.

    ``old``: x's value before (an Array or a conversion-time value); ``value``: ``x op v``,
    already cast back to x's dtype (``expr.binary``)."""
    if isinstance(old, np.ndarray):
        kind = "array"
    elif isinstance(old, Array) and not old.weak:
        kind = scalar_kind(ctx, old) if old.ndim == 0 else "array"
    else:
        return value
    if kind == "scalar" or not isinstance(value, Array):
        return value  # a numpy scalar is immutable: x op= v rebinds it, broadcast too
    shape = old.shape
    if value.ndim != len(shape) or any(p is not None and q is not None and p != q
                                       for p, q in zip(shape, value.shape)):
        raise ctx.error(f"non-broadcastable output operand with shape {tuple(shape)} doesn't "
                        f"match the broadcast shape {value.shape} (numpy raises ValueError for "
                        "'x op= ...')")
    if len(shape):
        return value
    if kind == "array":
        return mark_array0d(ctx, _fresh(ctx, value))
    if kind == "unknown" and old.value in ctx.aliases.mixed0d:
        fresh = _fresh(ctx, value)
        ctx.aliases.mixed0d.add(fresh.value)
        return fresh
    return value


def _fresh(ctx, a: Array) -> Array:
    """``a`` under a graph value of its own (the kind of the value it came from is not
    changed: ``t += 0`` may give back the other operand's value)."""
    return Array(ctx.op("Identity", a.value), a.dtype, a.shape)

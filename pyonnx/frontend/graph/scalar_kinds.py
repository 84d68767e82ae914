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
import onnx_ir as ir

from pyonnx.frontend.graph.values import Array

__all__ = ["mark_array0d", "is_array0d", "scalar_kind", "kind_of", "merge_kind", "merge_kinds",
           "side_flags", "array_flag", "after_inplace", "state_kind", "assume"]


def mark_array0d(ctx, a: Array) -> Array:
    """Records that 0-d ``a`` is a numpy 0-d array (numpy makes every other 0-d result a
    numpy scalar: ufuncs, reductions, an integer on every axis).

    The kind belongs to the graph value, so a constant (one value for every equal constant
    of the function, numpy scalars too) is first replaced in ``a`` by a constant of its own."""
    if a.ndim == 0:
        if a.value.const_value is not None:
            a.value = _own_constant(ctx, a.value)
        ctx.aliases.arrays0d.add(a.value)
    return a


def _own_constant(ctx, value: ir.Value) -> ir.Value:
    """A new initializer with ``value``'s contents (not shared through ctx.const's cache)."""
    name = f"const_{len(ctx.initializers)}"
    tensor = ir.Tensor(np.array(value.const_value.numpy(), copy=True), name=name)
    own = ir.Value(name=name, shape=ir.Shape([]), type=value.type, const_value=tensor)
    ctx.initializers.append(own)
    return own


def is_array0d(ctx, a: Array) -> bool:
    """Whether 0-d ``a`` is a numpy 0-d array: an argument, a view of memory (``x[...]``),
    or made by an array constructor; else it is a numpy scalar."""
    state = ctx.aliases  # the conversion's lower.aliases.AliasState
    if a.ndim or a.weak:
        return False
    if id(a) in state.params or a.value in state.arrays0d:
        return True
    if _mixed(state, a):
        return False
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
    scalars), or "unknown" (a run-time ``if``/loop joined an array and a scalar, or a loop's
    state inside its body: the paths may disagree). None for anything else.

    The joins of run-time control flow record their outputs' kinds (:func:`merge_kind`), so
    an ``If``/``Loop`` output they did not record is pyonnx's own (np.argmax's NaN rule): an
    operation's result, a numpy scalar."""
    if not isinstance(a, Array) or a.ndim or a.weak:
        return None
    if is_array0d(ctx, a):
        return "array"
    if a.value in ctx.aliases.scalars0d:
        return "scalar"
    if _mixed(ctx.aliases, a):
        return "unknown"
    if a.value.producer() is None and a.value.const_value is None and \
            a.value not in ctx.aliases.param_values:
        # a loop's state inside its body (a new Array of an argument's graph input, a.min()
        # of a 0-d argument, is an operation's result: fuzz seed 41001112)
        return "unknown"
    return "scalar"


def merge_kind(ctx, merged: Any, sides: list[Any], flag: Any = None) -> None:
    """Records the kind of a 0-d value that joins ``sides`` (the values of the paths of a
    run-time ``if``, or a loop's entry and exit values; an unbound path's stand-in is not a
    side): "array" or "scalar" when every numpy side is one (a Python number beside numpy
    scalars is graph/path_weak.py's), else mixed (scalar_kind says "unknown"), with ``flag``:
    a 0-d bool graph value, true where it is a 0-d array (:func:`side_flags`), or None when
    that is not known (returning it is then refused: convert._outputs)."""
    if not isinstance(merged, Array) or merged.ndim or merged.weak:
        return
    kinds = {kind_of(ctx, s) for s in sides} - {None}
    if kinds == {"array"}:
        mark_array0d(ctx, merged)
    elif kinds <= {"scalar", "python"}:
        ctx.aliases.scalars0d.add(merged.value)
    else:  # an array and a scalar or Python number, or a path whose kind is not known
        ctx.aliases.mixed0d[merged.value] = flag


def merge_kinds(ctx, merged: Any, sides: list[Any], flag: Any = None) -> None:
    """:func:`merge_kind` of a joined value, and of each 0-d item of a joined tuple, list or
    dict (item by item; ``flag`` belongs to a 0-d value itself)."""
    if isinstance(merged, Array):
        merge_kind(ctx, merged, sides, flag)
        return
    if isinstance(merged, (tuple, list)):
        for i, item in enumerate(merged):
            merge_kinds(ctx, item, [s[i] if isinstance(s, (tuple, list)) and len(s) == len(merged)
                                    else None for s in sides])
    elif type(merged) is dict:
        for k, item in merged.items():
            merge_kinds(ctx, item, [s.get(k) if type(s) is dict else None for s in sides])


def side_flags(ctx, sides: list[Any]) -> list[Any] | None:
    """For a join whose paths give a 0-d value that is a 0-d array on some and a numpy
    scalar on others: per side, whether it is an array (True, False, or the 0-d bool graph
    value of a side that is itself mixed), the flag :func:`merge_kind` records once the join
    selects one per path. None when no flag is needed (the sides agree) or none can be made
    (a side's kind is not known, or is a Python number: path_weak's flag is that one's)."""
    if not any(isinstance(s, Array) and not s.weak and not s.ndim for s in sides):
        return None
    flags = []
    for s in sides:
        kind = kind_of(ctx, s)
        if kind in ("array", "scalar"):
            flags.append(kind == "array")
        elif kind == "unknown" and ctx.aliases.mixed0d.get(s.value) is not None:
            flags.append(ctx.aliases.mixed0d[s.value])
        elif kind is None:
            flags.append(None)  # an unbound path's stand-in: never read
        else:
            return None
    known = [f for f in flags if f is not None]
    if not known or all(f is True for f in known) or all(f is False for f in known):
        return None
    return [False if f is None else f for f in flags]


def array_flag(ctx, a: Any) -> Any:
    """The flag (true where it is a 0-d array) of a mixed 0-d value, or None."""
    mixed = _mixed(ctx.aliases, a) if isinstance(a, Array) and not a.weak else None
    return mixed[0] if mixed else None


def _mixed(state, a: Array) -> tuple | None:
    """(flag or None,) when ``a`` is mixed (:func:`merge_kind`; the new contents ``x op= v``
    wrote into such a value are marked too: stmt._in_place)."""
    if a.value in state.mixed0d:
        return (state.mixed0d[a.value],)
    return None


def kind_of(ctx, s: Any) -> str | None:
    """:func:`scalar_kind` of any value (one path's, at a join), conversion-time values included (a numpy
    scalar such as ``np.float64(0)``, a 0-d ndarray); "python" for a Python number; None for
    a value that is no 0-d number (an unbound name's marker)."""
    if isinstance(s, Array):
        return "python" if s.weak else scalar_kind(ctx, s)
    if isinstance(s, np.generic):
        return "scalar"
    if isinstance(s, np.ndarray) and s.ndim == 0:
        return "array"
    if type(s) in (bool, int, float):
        return "python"
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
    if kind == "unknown":  # an array on some paths: written there, rebound elsewhere
        fresh = _fresh(ctx, value)
        ctx.aliases.mixed0d[fresh.value] = ctx.aliases.mixed0d.get(old.value)
        return fresh
    return value


def _fresh(ctx, a: Array) -> Array:
    """``a`` under a graph value of its own (the kind of the value it came from is not
    changed: ``t += 0`` may give back the other operand's value)."""
    return Array(ctx.op("Identity", a.value), a.dtype, a.shape)


def state_kind(ctx, v: Any) -> Any:
    """The kinds of a loop state's 0-d values, compared across iterations: "scalar" (a numpy
    scalar or a Python number, graph/path_weak.py follows the difference), "array", None (not
    known), "-" (no 0-d number), or a tuple of those for the items of a tuple, list or
    dict."""
    if isinstance(v, (tuple, list)):
        return tuple(state_kind(ctx, i) for i in v)
    if type(v) is dict:
        return tuple((k, state_kind(ctx, i)) for k, i in v.items())
    if isinstance(v, Array) and v.ndim or isinstance(v, np.ndarray) and v.ndim:
        return "-"
    kind = kind_of(ctx, v)
    if kind is None:
        return "-"
    return {"python": "scalar", "scalar": "scalar", "array": "array"}.get(kind)


def assume(ctx, v: Any, kind: Any) -> None:
    """Records the kinds :func:`state_kind` gave for a loop state's value (its body input, or
    the loop's output when every iteration kept them)."""
    if isinstance(kind, tuple) and isinstance(v, (tuple, list)) and len(kind) == len(v):
        for item, k in zip(v, kind):
            assume(ctx, item, k)
    elif isinstance(kind, tuple) and type(v) is dict:
        for key, k in kind:
            if key in v:
                assume(ctx, v[key], k)
    elif isinstance(v, Array) and not v.ndim and not v.weak:
        if kind == "scalar":
            ctx.aliases.scalars0d.add(v.value)
        elif kind == "array":
            mark_array0d(ctx, v)

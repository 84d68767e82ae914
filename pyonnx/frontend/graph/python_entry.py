"""A Python number a loop may leave as it entered, carried in a narrower state dtype.

``s = 0.1`` before ``for i in ...: s = s + x32[i]``: the loop's state is float32 (NEP 50: the
Python float is weak), and on the first iteration numpy rounds 0.1 to float32 too, so the
carried value is numpy's there. But where the loop leaves ``s`` as it entered (0 trips, or an
iteration that never rebinds it), numpy still has the Python float 0.1, which the float32
state holds only as 0.10000000149. Such a value fails at run time on those paths, or is
refused at the line where the paths are not known; a number the state holds exactly (0.0,
0.5, 1e3) needs nothing.

Input: the loop's final value of the name, the value it entered with, and the 0-d bool graph
value that is true where it is still that Python number (``Not(ran)``, or the carried
"still Python" flag: path_types.python_state_flags), None when not known.
Runs in loops.lower_loop, before the value is marked (graph/path_weak.mark, Complex.py_path).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array

__all__ = ["held_exactly"]

_NARROW = {"float16", "float32", "complex64"}
_BOOL = np.dtype(np.bool_)


def held_exactly(ctx, value: Any, entry: Any, flag: Any, name: str, line: Any,
                 join: str | None = None) -> Any:
    """``value``, made to fail at run time where ``flag`` holds and the Python number
    ``entry`` is not held exactly by ``value``'s dtype (refused at the line when ``flag`` is
    None and that may happen). Returns ``value`` unchanged where nothing can differ.
    ``join``: for a run-time ``if`` whose path binds ``entry`` (``"the branches of the 'if'
    at line 3"``), where ``value`` joins the paths; else ``entry`` is a loop's start value."""
    if not isinstance(value, (Array, Complex)) or value.ndim or value.weak or \
            value.dtype.name not in _NARROW:
        return value
    rd = value.re.dtype if isinstance(value, Complex) else value.dtype
    if isinstance(entry, Array) and entry.weak and entry.ndim == 0 and \
            entry.value.const_value is not None and entry.dtype.kind == "f":
        entry = float(entry.value.const_value.numpy())  # (a constant: known now)
    if type(entry) in (float, complex):
        parts = (entry.real, entry.imag) if type(entry) is complex else (entry,)
        if all(np.isnan(p) or float(rd.type(p)) == p for p in parts):
            return value
        shown, inexact = f" {entry!r}", None
    elif isinstance(entry, Complex) and entry.weak:
        shown, inexact = "", _inexact(ctx, (entry.re, entry.im), rd)
    elif isinstance(entry, Array) and entry.weak and entry.ndim == 0 and entry.dtype.kind == "f":
        shown, inexact = "", _inexact(ctx, (entry,), rd)
    else:
        return value
    python = "complex" if isinstance(value, Complex) else "float"
    what_ = f"{'the' if shown else 'a'} Python {python}{shown}"
    if join is None:
        why = (f"'{name}' enters the loop at line {line} as {what_}, which the loop's "
               f"{value.dtype} state holds only rounded, and the loop left it as it entered "
               f"(numpy keeps the Python {python}); start it as np.{value.dtype}(...) or as a "
               f"number {value.dtype} holds exactly (0.0, 0.5, ...)")
    else:
        shown_name = f"'{name}'" if name else "the value"
        why = (f"{shown_name} is {what_} on a path of {join}, and a numpy {value.dtype} on "
               f"another, which holds the Python {python} only rounded, and that path ran "
               f"(numpy keeps the Python {python}); make it np.{value.dtype}(...) on that "
               f"path, or a number {value.dtype} holds exactly (0.0, 0.5, ...)")
    if flag is None:
        raise ctx.error(f"{why[0].upper()}{why[1:]}")
    bad = flag if inexact is None else ctx.op("And", flag, inexact)
    what = f"refused_{name or 'value'}_python_number_not_held_at_line_{line}"
    message = f"ExecutionError: {why}"
    if isinstance(value, Complex):
        value.re = runtime_check(ctx, Array(bad, _BOOL, ()), value.re, what, message)
        return value
    checked = runtime_check(ctx, Array(bad, _BOOL, ()), value, what, message)
    return Array(checked.value, value.dtype, value.shape, value.weak)


def _inexact(ctx, parts: tuple, rd: np.dtype) -> Any:
    """A 0-d bool graph value: some (non-NaN) part changes when rounded to ``rd``."""
    from pyonnx.frontend.graph import dtypes

    out = None
    for p in parts:
        back = ctx.op("Cast", ctx.op("Cast", p.value, to=int(dtypes.to_ir(rd))),
                      to=int(dtypes.to_ir(p.dtype)))
        # (NaN != NaN: a NaN part is held, as a NaN)
        changed = ctx.op("And", ctx.op("Not", ctx.op("Equal", back, p.value)),
                         ctx.op("Not", ctx.op("IsNaN", p.value)))
        out = changed if out is None else ctx.op("Or", out, changed)
    return out

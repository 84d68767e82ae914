"""The kind (Python number or numpy scalar) of a vectorized loop's 0-d result.

Python leaves a loop's name as the object the last taken assignment bound: the start value
(a Python number or a numpy scalar) where no iteration took it, the assigned value (the loop's
Python int index, a Python constant, a numpy element) where one did. A vectorized result is one
graph value, so its kind per path is recorded as the Loop lowering's joins record it
(graph/path_weak.py ``join_kinds``): weak where both are Python numbers of one kind, a path mark with the flag
of the Python number's path where one is a numpy scalar, a kind mark where they are Python
numbers of two kinds. A Python number whose kind the numpy value's dtype cannot hold (the
Python int start 0 of ``max`` over float elements) fails at run time on its path, never comes
back as the other type; for ``sum()`` over a generator (``sum(x[i] for i in range(m))`` is the
Python int 0 for ``m == 0``, usually added to floats at once) it is only marked, and fails
where the kind shows: a ufunc's result type or a returned value (path_weak.foreign_kind).

Input: the FunctionLowering, the loop node, the target name (already rebound to the 0-d
result), the start value's and the assigned value's kinds (:func:`path_weak.python_kind`:
"b"/"i"/"f" for a Python number, None for a numpy value) and ``taken``, a 0-d bool graph value
(or a Python bool), true where an iteration took the assignment.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph import path_weak
from pyonnx.frontend.graph.values import Array

__all__ = ["settle"]

_PYTHON = {"b": bool, "i": int, "f": float}


def settle(lw, node, target: str, kb: str | None, kv: str | None, taken: Any,
           start: Any = None) -> None:
    """Records the kinds of ``target``'s 0-d result on each path (see the module docstring).
    ``start``: the start value, where it is a Python float a narrower dtype may not hold
    (graph/python_entry.py: fails at run time where no iteration took it)."""
    after = lw.env.lookup(target)[1]
    line = getattr(node, "lineno", "?")
    static = isinstance(taken, (bool, np.bool_))  # (known now: an iteration took it or not)
    if static and not isinstance(after, Array):
        # computed at conversion time (np.where of constants gives numpy scalars): Python
        # leaves the start object where no iteration took the assignment, and a Python
        # number of the assigned kind where one did (seed 43001064: max(0.5, ...) kept 0.5)
        if not bool(taken) and start is not None:
            lw.env.bind(target, start)
        elif bool(taken) and kv in _PYTHON and isinstance(after, np.generic):
            lw.env.bind(target, _PYTHON[kv](after.item()))
        return
    if kb == "f" and start is not None and not (static and bool(taken)):
        from pyonnx.frontend.graph.python_entry import held_exactly
        kept = lw.ctx.const(np.array(True)) if static else \
            lw.ctx.op("Not", taken.value if isinstance(taken, Array) else taken)
        after = held_exactly(lw.ctx, after, start, kept, target.lstrip("_"), line)
        lw.env.bind(target, after)
    generator = target.startswith("_pyonnx_comp")
    shown = "the sum over the generator" if generator else f"'{target}'"
    fix = "give sum() the start value of the type it makes, e.g. sum(..., 0.0)" \
        if generator else None
    out = path_weak.join_kinds(lw.ctx, after, kb, kv, taken, f"the loop at line {line}",
                               shown, f"{target.lstrip('_')}_at_line_{line}", fix,
                               lazy=generator)
    if out is not after:
        lw.env.bind(target, out)

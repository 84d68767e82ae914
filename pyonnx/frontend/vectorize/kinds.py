"""The kind (Python number or numpy scalar) of a vectorized loop's 0-d result.

Python leaves a loop's name as the object the last taken assignment bound: the start value
(a Python number or a numpy scalar) where no iteration took it, the assigned value (the loop's
Python int index, a Python constant, a numpy element) where one did. A vectorized result is one
graph value, so its kind per path is recorded as the Loop lowering's joins record it
(graph/path_weak.py): weak where both are Python numbers of one kind, a path mark with the flag
of the Python number's path where one is a numpy scalar, a kind mark where they are Python
numbers of two kinds. A Python number whose kind the numpy value's dtype cannot hold (the
Python int start 0 of ``max`` over float elements) fails at run time on its path, never comes
back as the other type.

Input: the FunctionLowering, the loop node, the target name (already rebound to the 0-d
result), the start value's and the assigned value's kinds (:func:`path_weak.python_kind`:
"b"/"i"/"f" for a Python number, None for a numpy value) and ``taken``, a 0-d bool graph value
(or a Python bool), true where an iteration took the assignment.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph import path_weak
from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array

__all__ = ["settle"]

_ORDER = "bif"
_WORDS = {"b": "bool", "i": "int", "f": "float"}


def _holds(kind: str, dtype: np.dtype) -> bool:
    """Whether a numpy value of ``dtype`` stands for a Python number of ``kind`` (its item() is
    one: a Python int of an integer dtype, a float of a float dtype, a bool of bool)."""
    return {"b": "b", "i": "iu", "f": "f"}[kind].__contains__(np.dtype(dtype).kind)


def settle(lw, node, target: str, kb: str | None, kv: str | None, taken: Any) -> None:
    """Records the kinds of ``target``'s 0-d result on each path (see the module docstring)."""
    after = lw.env.lookup(target)[1]
    if not isinstance(after, Array) or after.ndim != 0 or (kb is None and kv is None):
        return
    ctx = lw.ctx
    where = f"the loop at line {getattr(node, 'lineno', '?')}"
    held = taken.value if isinstance(taken, Array) else ctx.const(np.array(bool(taken)))
    missed = ctx.op("Not", held)
    if kb is not None and kv is not None:  # Python numbers on every path
        after = Array(after.value, after.dtype, (), weak=True)
        lw.env.bind(target, after)
        if kb != kv:
            narrow_kind, flag = (kb, missed) if _ORDER.index(kb) < _ORDER.index(kv) \
                else (kv, held)
            path_weak.mark_kind(ctx, after, where, np.dtype(np.bool_) if narrow_kind == "b"
                                else np.dtype(np.int64), flag)
        return
    kind, flag = (kb, missed) if kb is not None else (kv, held)
    if _holds(kind, after.dtype):
        # a Python number on the paths of ``flag``, numpy's scalar on the others
        path_weak.mark(ctx, after, where, flag)
        return
    # (max(0, x[i]) over floats keeps the Python int 0: the model's float64 cannot be it)
    line = getattr(node, "lineno", "?")
    python = f"a Python {_WORDS[kind]}"
    numpy_word = path_weak.kind_word(after.dtype, False)
    message = (f"ExecutionError: '{target}' is {python} on the paths through the loop at line "
               f"{line} that {'kept its start value' if kb is not None else 'assigned it'} "
               f"and {numpy_word} on the others, and such a path ran: numpy keeps {python}, "
               f"which the model cannot return in its place; make both the same type (e.g. "
               f"start it as {'0.0' if after.dtype.kind == 'f' else 'np.' + str(after.dtype) + '(0)'})")
    checked = runtime_check(ctx, Array(flag, np.dtype(np.bool_), ()), after,
                            f"refused_{target.lstrip('_')}_kind_depends_on_the_path_at_line_{line}",
                            message)
    lw.env.bind(target, Array(checked.value, after.dtype, (), after.weak))

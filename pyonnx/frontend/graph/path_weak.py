"""0-d values that are a Python number on some run-time paths and a numpy value on others.

``s = 0.0`` before a loop that may run 0 times whose body makes ``s`` a numpy scalar
(``s = s + x[i]``), or a run-time ``if`` that binds a Python number on one side and a numpy
scalar on the other: pyonnx carries the numpy value (a graph value has one type). That is
numpy's answer wherever the difference does not show. Where it shows in a result type (NEP 50:
``x32 * s`` is float32 for a Python float ``s`` and float64 for an ``np.float64``), the
operation fails at run time when the Python number's path ran (the join records a flag for
it), or is refused at its line when that is not known: never an answer in the other path's
type.

Input: :func:`mark` after a join (lower/control_flow/branches.py, loops.py);
:func:`check` before a ufunc's result type is used (numpy_calls: ufuncs and operators).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array

__all__ = ["mark", "check", "python_flag"]


def mark(ctx, value: Any, where: str, python: Any = None) -> None:
    """Records that the 0-d ``value`` is a Python number on some paths only (``where``: the
    join, for the message; ``python``: a 0-d bool graph value, true where it is the Python
    number, when known: a returned value is then a Python number where numpy's is)."""
    if isinstance(value, Array) and value.shape == () and not value.weak \
            and value.dtype.kind in "biuf":
        ctx.path_weak[id(value.value)] = (where, python)


def python_flag(ctx, value: Any) -> Any:
    """The flag :func:`mark` recorded for ``value`` (None: not marked, or not known)."""
    entry = ctx.path_weak.get(id(value.value)) if isinstance(value, Array) else None
    return None if entry is None else entry[1]


def check(ctx, ufunc: np.ufunc, operands: tuple, outs: tuple) -> Callable[[Any], Any]:
    """Where ``ufunc(*operands)``'s output dtypes ``outs`` (every marked operand taken as the
    numpy value) differ from those with a marked operand as a Python number: the result fails
    at run time on the paths where that operand is the Python number (its flag is known), or
    the call is refused at the line (it is not).

    Returns:
        ``finish(result) -> result``, to apply to the operation's result: adds that run-time
        check, and marks the result when it is itself a Python number on some paths (every
        other operand is a Python number).
    """
    marked = [i for i, o in enumerate(operands)
              if isinstance(o, Array) and id(o.value) in ctx.path_weak]
    if not marked:
        return _same
    guards = []
    for i in marked:
        o = operands[i]
        alt = list(operands)
        alt[i] = Array(o.value, o.dtype, o.shape, weak=True)
        try:
            alt_outs = dtypes.ufunc_dtypes(ufunc, *alt)[1]
        except TypeError:
            alt_outs = None
        if alt_outs == outs:
            continue
        python = {"b": "bool", "i": "int", "u": "int", "f": "float"}[o.dtype.kind]
        shown = "no loop" if alt_outs is None else alt_outs[0]
        why = (f"an operand is a Python {python} on some paths and a numpy {o.dtype} on others "
               f"({ctx.path_weak[id(o.value)][0]}), and np.{ufunc.__name__} gives {outs[0]} for "
               f"the numpy value but {shown} for the Python number (NEP 50)")
        fix = (f"make it the same type on every path, e.g. start it as np.{o.dtype}(0) or "
               f"convert it with {python}(...)")
        flag = python_flag(ctx, o)
        if flag is None:
            raise ctx.error(f"numpy's result type here depends on the path taken at run time: "
                            f"{why}; {fix}")
        guards.append((flag, f"ExecutionError: numpy's result type here depends on the path "
                             f"taken at run time: {why}; the model has the numpy value's type, "
                             f"and the Python number's path ran; {fix}"))
    derived = None
    if all(dtypes.is_weak(o) for j, o in enumerate(operands) if j not in marked):
        flags = [python_flag(ctx, operands[i]) for i in marked]
        flag = flags[0]
        for f in flags[1:]:
            flag = None if flag is None or f is None else ctx.op("And", flag, f)
        derived = (ctx.path_weak[id(operands[marked[0]].value)][0], flag)

    def finish(result: Any) -> Any:
        for flag, message in guards:
            if isinstance(result, Array):
                result = runtime_check(ctx, Array(flag, np.dtype(np.bool_), ()), result,
                                       "refused_result_type_depends_on_the_path", message)
        if derived is not None:
            mark(ctx, result, *derived)
        return result
    return finish


def _same(result: Any) -> Any:
    return result

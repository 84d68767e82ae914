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

from pyonnx.errors import ExecutionError
from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array

__all__ = ["mark", "mark_kind", "kind_entry", "check", "python_flag", "zero_trip_message",
           "kind_word", "python_kind", "join_kinds", "holds", "foreign_kind", "fail_on_path"]

_KINDS = "biuf"  # a Python bool < int < float


def python_kind(v: Any) -> str | None:
    """"b"/"i"/"f" for a Python number (a conversion-time bool/int/float, not a numpy scalar:
    np.float64 subclasses float; or a weak 0-d graph value, a Python number at run time),
    else None."""
    if type(v) in (bool, int, float):
        return {bool: "b", int: "i", float: "f"}[type(v)]
    if isinstance(v, Array) and v.weak and v.ndim == 0 and v.dtype.kind in "biuf":
        return "i" if v.dtype.kind == "u" else v.dtype.kind
    return None


def mark(ctx, value: Any, where: str, python: Any = None, kind: str | None = None) -> None:
    """Records that the 0-d ``value`` is a Python number on some paths only (``where``: the
    join, for the message; ``python``: a 0-d bool graph value, true where it is the Python
    number, when known: a returned value is then a Python number where numpy's is).
    ``kind``: that number's kind ("b"/"i"/"f") where the value's dtype cannot stand for it (a
    Python int where the model has a float64: :func:`foreign_kind`)."""
    if isinstance(value, Array) and value.shape == () and not value.weak \
            and value.dtype.kind in "biuf":
        ctx.path_weak[id(value.value)] = (where, python) if kind is None or \
            holds(kind, value.dtype) else (where, python, None, kind)


def foreign_kind(ctx, value: Any) -> tuple | None:
    """``(where, flag, kind)`` of a value :func:`mark` marked as a Python number of a kind its
    dtype cannot stand for, else None: such a value cannot be returned on that number's paths
    (convert._outputs fails there), and its ufunc results are checked with it as that kind."""
    entry = ctx.path_weak.get(id(value.value)) if isinstance(value, Array) else None
    return (entry[0], entry[1], entry[3]) if entry is not None and len(entry) == 4 else None


def fail_on_path(ctx, flag: Any, key: Any, message: str) -> None:
    """The call fails at run time with ExecutionError(``message``) where the 0-d bool graph
    value ``flag`` holds (a check output, lower/checks.record_where; ``key`` names the site),
    or is refused at the line where ``flag`` is not known (None) or no check outputs can be
    made here."""
    if flag is None or ctx.record_check is None:
        raise ctx.error(message)
    ctx.record_check(ctx, Array(flag, np.dtype(np.bool_), ()), key, ExecutionError, message)


def mark_kind(ctx, value: Any, where: str, narrow: np.dtype, flag: Any) -> None:
    """Records that the weak 0-d ``value`` (a Python number on every path) is a Python number of
    another kind on some paths: ``a = 1 if c else 0.5`` is carried as the float, and is the int
    where the 0-d bool ``flag`` holds (``narrow``: that kind's weak dtype, bool or int64).
    numpy's ``x_int * a`` is int64 on that path: :func:`check` makes such a result fail there."""
    if isinstance(value, Array) and value.shape == () and value.weak:
        ctx.path_weak[id(value.value)] = (where, flag, np.dtype(narrow))


def kind_entry(ctx, value: Any) -> tuple | None:
    """``(where, flag, narrow dtype)`` of a value :func:`mark_kind` marked, else None."""
    entry = ctx.path_weak.get(id(value.value)) if isinstance(value, Array) else None
    return entry if entry is not None and len(entry) == 3 else None


def python_flag(ctx, value: Any) -> Any:
    """The flag :func:`mark` recorded for ``value`` (None: not marked, not known, or a
    :func:`foreign_kind`)."""
    entry = ctx.path_weak.get(id(value.value)) if isinstance(value, Array) else None
    return None if entry is None or len(entry) != 2 else entry[1]


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
    kinds = [i for i in marked if kind_entry(ctx, operands[i]) is not None]
    if kinds:
        guards += _kind_guards(ctx, ufunc, operands, outs, kinds)
        marked = [i for i in marked if i not in kinds]
    for i in marked:
        o = operands[i]
        alt = list(operands)
        foreign = foreign_kind(ctx, o)
        py_kind = o.dtype.kind if foreign is None else foreign[2]
        alt[i] = Array(o.value, o.dtype if foreign is None else np.dtype(
            {"b": np.bool_, "i": np.int64, "f": np.float64}[py_kind]), o.shape, weak=True)
        try:
            alt_outs = dtypes.ufunc_dtypes(ufunc, *alt)[1]
        except TypeError:
            alt_outs = None
        if alt_outs == outs:
            continue
        python = {"b": "bool", "i": "int", "u": "int", "f": "float"}[py_kind]
        shown = "no loop" if alt_outs is None else alt_outs[0]
        why = (f"an operand is a Python {python} on some paths and a numpy {o.dtype} on others "
               f"({ctx.path_weak[id(o.value)][0]}), and np.{ufunc.__name__} gives {outs[0]} for "
               f"the numpy value but {shown} for the Python number (NEP 50)")
        fix = (f"make it the same type on every path, e.g. start it as np.{o.dtype}(0) or "
               f"convert it with {python}(...)")
        flag = python_flag(ctx, o) if foreign is None else foreign[1]
        if flag is None:
            raise ctx.error(f"numpy's result type here depends on the path taken at run time: "
                            f"{why}; {fix}")
        guards.append((flag, f"ExecutionError: numpy's result type here depends on the path "
                             f"taken at run time: {why}; the model has the numpy value's type, "
                             f"and the Python number's path ran; {fix}"))
    derived = None
    # (an operator of Python numbers gives a Python number; a numpy function, np.sinh(s),
    # a numpy scalar: calls.call counts the numpy calls being lowered)
    if marked and not ctx.numpy_call_depth and \
            all(dtypes.is_weak(o) for j, o in enumerate(operands) if j not in marked):
        flags = [python_flag(ctx, operands[i]) if foreign_kind(ctx, operands[i]) is None
                 else foreign_kind(ctx, operands[i])[1] for i in marked]
        flag = flags[0]
        for f in flags[1:]:
            flag = None if flag is None or f is None else ctx.op("And", flag, f)
        # (the Python result's kind: every marked operand as its Python number, NEP 50)
        py_operands = list(operands)
        for i in marked:
            o, foreign = operands[i], foreign_kind(ctx, operands[i])
            py_operands[i] = Array(o.value, o.dtype if foreign is None else np.dtype(
                {"b": np.bool_, "i": np.int64, "f": np.float64}[foreign[2]]), o.shape, weak=True)
        try:
            py_kind = dtypes.ufunc_dtypes(ufunc, *py_operands)[1][0].kind
        except TypeError:
            py_kind = None
        derived = (ctx.path_weak[id(operands[marked[0]].value)][0], flag,
                   {"b": "b", "i": "i", "u": "i", "f": "f"}.get(py_kind))

    def finish(result: Any) -> Any:
        # (a check output, not a check on the result's data: the result's dtype can be read
        # at conversion time, t.dtype or x.astype(t.dtype), with no node of it run)
        for flag, message in guards:
            bad = Array(flag, np.dtype(np.bool_), ())
            if ctx.record_check is None:  # (no check outputs: on the data, as before)
                result = runtime_check(ctx, bad, result,
                                       "refused_result_type_depends_on_the_path", message)
                continue
            ctx.record_check(ctx, bad, ("path_weak", id(flag), message), ExecutionError,
                             message.removeprefix("ExecutionError: "))
        if derived is not None:
            mark(ctx, result, *derived)
        return result
    return finish


def _kind_guards(ctx, ufunc: np.ufunc, operands: tuple, outs: tuple,
                 kinds: list[int]) -> list[tuple[Any, str]]:
    """The run-time guards (flag, message) for operands :func:`mark_kind` marked whose other
    kind would give numpy another result dtype (refused at the line where a flag is unknown)."""
    guards = []
    for i in kinds:
        o = operands[i]
        where, flag, narrow = kind_entry(ctx, o)
        alt = list(operands)
        alt[i] = Array(o.value, narrow, o.shape, weak=True)
        try:
            alt_outs = dtypes.ufunc_dtypes(ufunc, *alt)[1]
        except TypeError:
            alt_outs = None
        if alt_outs == outs:
            continue
        names = {"b": "bool", "i": "int", "u": "int", "f": "float"}
        why = (f"an operand is a Python {names[narrow.kind]} on some paths and a Python "
               f"{names[o.dtype.kind]} on others ({where}), and np.{ufunc.__name__} gives "
               f"{outs[0]} for the {names[o.dtype.kind]} but "
               f"{'no loop' if alt_outs is None else alt_outs[0]} for the {names[narrow.kind]}")
        fix = f"make it the same type on every path, e.g. {names[o.dtype.kind]}(...) on both"
        if flag is None:
            raise ctx.error(f"numpy's result type here depends on the path taken at run time: "
                            f"{why}; {fix}")
        guards.append((flag, f"ExecutionError: numpy's result type here depends on the path "
                             f"taken at run time: {why}; the model has the "
                             f"{names[o.dtype.kind]}'s type, and the other path ran; {fix}"))
    return guards


def _same(result: Any) -> Any:
    return result


def kind_word(dtype: np.dtype, weak: bool) -> str:
    """"a Python int", "a numpy float32", ... for messages."""
    if weak:
        return f"a Python {_WORDS.get(np.dtype(dtype).kind, 'number')}"
    return f"a numpy {np.dtype(dtype)}"


_WORDS = {"b": "bool", "i": "int", "u": "int", "f": "float"}


def zero_trip_message(name: str, entry: str, final: str, line: object) -> str:
    """The run-time refusal (``pyonnx.raises``) of a loop that ran 0 times and so left ``name``
    of its entry type (``entry``, e.g. "a Python int"), which the model's type for it
    (``final``) cannot hold."""
    return (f"ExecutionError: '{name}' is {entry} before the loop at line {line} and {final} "
            f"after an iteration, and the loop ran 0 times: numpy keeps {entry}, which the "
            "model cannot return in its place; start it with the type the loop makes (e.g. "
            "0.0, or np.float64(0) for a sum of array elements)")


_ORDER = "bif"


def holds(kind: str, dtype: np.dtype) -> bool:
    """Whether a numpy value of ``dtype`` stands for a Python number of ``kind`` (its item() is
    one: an int of an integer dtype, a float of a float dtype, a bool of bool)."""
    return np.dtype(dtype).kind in {"b": "b", "i": "iu", "f": "f"}[kind]


def join_kinds(ctx, value: Any, kb: str | None, kv: str | None, taken: Any, where: str,
               name: str, tag: str, fix: str | None = None, lazy: bool = False) -> Any:
    """The 0-d ``value`` that is one object on the paths where the 0-d bool ``taken`` holds
    (of kind ``kv``: :func:`python_kind`, None for a numpy value) and another where it does not
    (kind ``kb``): Python's ``max(a, b)`` returns the winner itself, a loop leaves a name as
    the last assignment it took. Returned weak where both are Python numbers (kind-marked,
    :func:`mark_kind`, where their kinds differ); marked (:func:`mark`) with the Python
    number's path where one is a numpy value whose dtype stands for that number; where that
    dtype cannot (a Python int kept by ``max`` over floats), the value fails at run time on the
    Python number's path, never returns in the other type. ``where``/``name``: for messages
    ("the loop at line 3", "'m'"); ``tag``: for the check's name; ``fix``: what to write;
    ``lazy``: a Python number the dtype cannot hold is only marked (:func:`foreign_kind`: a
    ufunc result type or a return where it shows fails), not failed wherever its path runs."""
    if not isinstance(value, Array) or value.ndim != 0 or (kb is None and kv is None) or \
            value.dtype.kind not in "biuf":
        return value
    held = taken.value if isinstance(taken, Array) else ctx.const(np.array(bool(taken)))
    missed = ctx.op("Not", held)
    if kb is not None and kv is not None:  # Python numbers on every path
        value = Array(value.value, value.dtype, (), weak=True)
        if kb != kv:
            narrow_kind, flag = (kb, missed) if _ORDER.index(kb) < _ORDER.index(kv) \
                else (kv, held)
            mark_kind(ctx, value, where, np.dtype(np.bool_) if narrow_kind == "b"
                      else np.dtype(np.int64), flag)
        return value
    kind, flag = (kb, missed) if kb is not None else (kv, held)
    if value.weak:  # (a Python number of the value's kind on the other path too)
        value = Array(value.value, value.dtype, ())
    if holds(kind, value.dtype) or lazy:
        # a Python number on the paths of flag (of a kind the dtype cannot stand for: checked
        # where it shows, in a ufunc's result type or a returned value)
        mark(ctx, value, where, flag, kind)
        return value
    python = f"a Python {_WORDS[kind]}"
    start = "0.0" if value.dtype.kind == "f" else f"np.{value.dtype}(0)"
    message = (f"ExecutionError: {name} is {python} on some paths through {where} and "
               f"{kind_word(value.dtype, False)} on others, and a path that gives {python} "
               f"ran: numpy gives {python} there, which the model cannot return in its place; "
               + (fix or f"make both the same type (e.g. start it as {start}, or convert with "
                  f"{_WORDS.get(value.dtype.kind, 'float')}(...))"))
    checked = runtime_check(ctx, Array(flag, np.dtype(np.bool_), ()), value,
                            f"refused_{tag}_kind_depends_on_the_path", message)
    return Array(checked.value, value.dtype, ())

"""Complex 0-d values whose numpy type depends on the run-time path, after an ``if`` or a loop.

Two differences a graph value cannot carry, and which numpy shows:

- a Python ``complex`` on some paths and a numpy value on others (``s = 0j`` before a loop
  that may run 0 times, whose body makes ``s`` a numpy scalar): NEP 50 treats the Python
  complex as weak, so ``s + y32`` is complex64 where ``s`` is still ``0j`` and complex128
  where it is an ``np.complex128``; a returned ``s`` is a Python complex there;
- a 0-d array on some paths and a numpy scalar on others (``acc = np.zeros((), complex)``,
  then ``acc = acc + z[i]``): what a return gives back.

The join records which path ran where it knows it (``Complex.py_path``, ``Complex.kind_flag``):
a return then gives numpy's type per call (convert._outputs), and an operation whose result
dtype differs between the two (:func:`check_operands`) fails at run time where the Python
complex's path ran, or is refused at its line where that is not known. Never an answer in
the other path's type.

Input: the Complex a join rebuilt and the values of its paths (lower/control_flow/branches.py,
loops.py; a loop body's state inputs: loop_body.py). Must run after the join's kinds
(Complex.zero_d) are set (structure.rebuild).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import complex_kinds, path_weak
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array

__all__ = ["python_side", "kind_side", "after_join", "after_loop", "sides_of",
           "mark_first_iteration", "check_operands", "check_call", "derive", "weak_entry",
           "real_result"]


def python_side(v: Any) -> Any:
    """Whether ``v`` (one path's value) is a Python complex: True, False, its flag (a 0-d
    bool graph value) or None (not known)."""
    if type(v) is complex:
        return True
    if isinstance(v, Complex):
        if v.weak:
            return True
        return v.py_path[1] if v.py_path is not None else False
    if isinstance(v, (np.generic, np.ndarray)):
        return False
    return None


def kind_side(v: Any) -> Any:
    """Whether ``v`` (one path's 0-d value) is a 0-d array: True, False (a numpy scalar, or a
    Python complex: its own flag says that one), its flag, or None (not known)."""
    if type(v) is complex or isinstance(v, Complex) and v.weak:
        return False
    kind = complex_kinds.kind(v) if isinstance(v, Complex) else complex_kinds.static_kind(v)
    if kind == "unknown":
        return v.kind_flag
    return {"array": True, "scalar": False}.get(kind)


def after_join(ctx, merged: Any, sides: list, select, where: str, visible,
               taken: list | None = None, name: str = "") -> None:
    """Marks the 0-d Complex ``merged`` (and those in a joined tuple, list or dict, item by item)
    that is one of ``sides`` (per path, :func:`sides_of`: a path whose value is never read, an
    unbound name's stand-in or a path that returned, is marked so), where the paths differ in what
    numpy holds. ``select(flags)``: the join's flag from per-side flags (True/False/0-d bool graph
    values); ``visible(flag)``: whether a side's graph-value flag can be read after the join (a flag
    made inside a branch or loop body cannot); ``where``: for messages. ``taken`` (a run-time
    ``if``'s join): per side, the 0-d bool graph value true where that path ran: a Python complex
    side the merged dtype holds only rounded fails where it ran (python_entry.held_exactly;
    ``name``: the joined name)."""
    if isinstance(merged, (tuple, list)):
        for i, item in enumerate(merged):
            after_join(ctx, item, [s if s is _UNREAD else s[i] if isinstance(s, (tuple, list))
                                   and len(s) == len(merged) else None for s in sides],
                       select, where, visible, taken, name)
        return
    if type(merged) is dict:
        for k, item in merged.items():
            after_join(ctx, item, [s if s is _UNREAD else s.get(k) if type(s) is dict
                                   else None for s in sides], select, where, visible, taken,
                       name)
        return
    if not isinstance(merged, Complex) or merged.ndim or merged.weak:
        return
    py = _flag([s if s is _UNREAD else python_side(s) for s in sides], select, visible)
    if py is not False:
        merged.py_path = (where, ctx.const(np.array(True)) if py is True else py)
        if taken is not None:
            _held(ctx, merged, sides, taken, where, name)
    if complex_kinds.kind(merged) == "unknown":
        kind = _flag([s if s is _UNREAD else kind_side(s) for s in sides], select, visible)
        if isinstance(kind, bool):  # the paths that are read agree
            merged.zero_d = "array" if kind else "scalar"
        else:
            merged.kind_flag = kind


def _held(ctx, merged: Complex, sides: list, taken: list, where: str, name: str) -> None:
    """python_entry.held_exactly for each side of a run-time ``if`` that is a Python
    complex (where it ran)."""
    from pyonnx.frontend.graph.python_entry import held_exactly

    for s, ran in zip(sides, taken):
        if s is _UNREAD or not (type(s) is complex or isinstance(s, Complex) and s.weak):
            continue
        held_exactly(ctx, merged, s, ran, name, None, join=where)


def _flag(flags: list, select, visible) -> Any:
    """The join's flag from per-side flags (None entries of never-read paths take another
    side's flag): False/True when every read side agrees, a graph value, or None (a side's
    flag is not known or not visible)."""
    read = [f for f in flags if f is not _UNREAD]
    if any(f is None or isinstance(f, ir.Value) and not visible(f) for f in read):
        return None
    if not read or all(f is False for f in read):
        return False
    if all(f is True for f in read):
        return True
    fill = next(f for f in read)
    return select([fill if f is _UNREAD else f for f in flags])


_UNREAD = object()


def sides_of(values: list, unread: set[int]) -> list:
    """Per side, its value, or the marker of a path whose value is never read (positions
    in ``unread``) for :func:`after_join`'s flags."""
    return [_UNREAD if i in unread else v for i, v in enumerate(values)]


def weak_entry(entry_plans: dict, plans: dict) -> set:
    """The loop state names that enter as a Python complex (weak) and are carried as a numpy
    0-d complex value (``s = 0j``, then ``s = s + z[i]``)."""
    from pyonnx.frontend.lower.structure import ComplexPlan, Static

    def weak(p):
        return isinstance(p, ComplexPlan) and p.weak or isinstance(p, Static) and \
            type(p.value) is complex
    return {k for k, p in plans.items()
            if isinstance(p, ComplexPlan) and not p.weak and p.shape == ()
            and weak(entry_plans.get(k))}


def mark_first_iteration(value: Any, line: Any) -> None:
    """Marks a loop body's state input that is the Python complex it entered with on the first
    iteration only (:func:`weak_entry`)."""
    if isinstance(value, Complex) and not value.ndim and not value.weak:
        value.py_path = (f"the loop at line {line}: a Python complex on its first iteration "
                         "only", None)


def derive(ctx, result: Any, operands: tuple) -> Any:
    """Marks the 0-d Complex ``result`` of an operator (``acc * 2``, ``-acc``) whose operands
    are Python numbers on some paths (marked) and Python numbers on every path (the others):
    Python's own arithmetic gives a Python complex there. Returns ``result``."""
    if not isinstance(result, Complex) or result.ndim or result.weak:
        return result
    flags, where = [], None
    for v in operands:
        if isinstance(v, Complex) and v.weak or isinstance(v, Array) and v.weak \
                or type(v) in (bool, int, float, complex):
            continue
        if isinstance(v, Complex) and v.py_path is not None:
            where, flag = v.py_path
        elif isinstance(v, Array) and not v.ndim and id(v.value) in ctx.path_weak and \
                len(ctx.path_weak[id(v.value)]) in (2, 4):
            where, flag = ctx.path_weak[id(v.value)][:2]
        else:
            return result  # a numpy operand on every path: a numpy result
        flags.append(flag)
    if not flags:
        return result
    flag = flags[0]
    for f in flags[1:]:
        flag = None if flag is None or f is None else ctx.op("And", flag, f)
    result.py_path = (where, flag)
    return result


def real_result(ctx, z: Complex, out: Array, exact: bool) -> Array:
    """``out``, a real 0-d value Python computes from the 0-d ``z`` (``z.real``, ``z.imag``,
    ``abs(z)``), which is a Python float where ``z`` is a Python complex: weak for a Python
    complex ``z``, marked (graph/path_weak.py) where ``z`` is one on some paths only.
    ``exact``: ``out`` is exact (a part) whatever the dtype; else (``abs``) Python's value is a
    float64 computation, which a complex64 ``z``'s float32 result does not give: it fails at
    run time on those paths (refused at the line where they are not known)."""
    from pyonnx.frontend.graph.checks import runtime_check

    if not isinstance(z, Complex) or z.ndim:
        return out
    if z.weak:
        return Array(out.value, out.dtype, out.shape, weak=True)
    if z.py_path is None:
        return out
    where, flag = z.py_path
    if not exact and out.dtype != np.float64:
        message = (f"abs() of a value that is a Python complex on some paths ({where}) and a "
                   f"numpy {z.dtype} on others: Python computes it in float64, the model in "
                   f"{out.dtype}; make it the same type on every path (np.{z.dtype}(...))")
        if flag is None:
            raise ctx.error(message)
        checked = runtime_check(ctx, Array(flag, np.dtype(np.bool_), ()), out,
                                "refused_abs_of_a_python_complex", f"ExecutionError: {message}")
        return Array(checked.value, out.dtype, out.shape)
    # (a value of its own: the mark belongs to the graph value, which np.abs(z) may share)
    out = Array(ctx.op("Identity", out.value), out.dtype, out.shape)
    path_weak.mark(ctx, out, where, flag)
    return out


# numpy functions that take a Python complex as it is (np.real(0.5j) is the Python float
# 0.0) or as weak (np.where): not refused by check_call
_WEAK_AWARE = frozenset({np.where, np.select, np.real, np.imag, np.iscomplexobj, np.isrealobj,
                         np.shape, np.ndim, np.size})


def check_call(ctx, func: Any, args: list) -> None:
    """A numpy function of a complex64 value that is a Python complex on some paths: numpy
    makes the Python complex a complex128 array (``np.exp(0j)`` is complex128), the model
    computes in complex64: the call fails at run time on those paths (refused at the line
    where they are not known). Ufuncs of several operands, np.where and np.select take a
    Python complex as weak: their result dtypes are checked by :func:`check_operands`."""
    numpy_function = isinstance(func, np.ufunc) or \
        getattr(func, "__module__", None) in ("numpy", "numpy.fft", "numpy.linalg")
    if not numpy_function or isinstance(func, np.ufunc) and func.nin > 1 or \
            isinstance(func, type) or func in _WEAK_AWARE:
        return
    for v in args:
        if isinstance(v, Complex) and v.py_path is not None and not v.weak and \
                v.dtype == np.complex64:
            where, flag = v.py_path
            name = getattr(func, "__name__", "the function")
            message = (f"np.{name} of a value that is a Python complex on some paths ({where}) "
                       "and a numpy complex64 on others: numpy computes the Python complex as "
                       "complex128, the model in complex64; make it the same type on every "
                       "path (np.complex64(...))")
            path_weak.fail_on_path(ctx, flag, ("complex_call", id(flag), message), message)


def check_operands(ctx, name: str, values: tuple, dtype: np.dtype, resolve) -> None:
    """Where the result dtype of ``name`` (e.g. "np.add") on ``values`` (``dtype``, with every value
    as the graph has it) differs from numpy's with a marked operand as its Python number (a
    Complex's ``py_path``; a real value graph/path_weak marked): the call fails at run time where
    that path ran (its flag is known), or is refused at the line. ``resolve(values)``: the result
    dtype of other operands."""
    from pyonnx.errors import ExecutionError

    for i, v in enumerate(values):
        if isinstance(v, Complex) and v.py_path is not None and not v.weak:
            where, flag = v.py_path
            stand_in = Complex(v.re, v.im, np.dtype(np.complex128), True)
            python = "complex"
        elif isinstance(v, Array) and not v.weak and v.ndim == 0 and \
                id(v.value) in ctx.path_weak and v.dtype.kind in "biuf":
            entry = ctx.path_weak[id(v.value)]
            if len(entry) == 3:  # (another Python kind: path_weak.mark_kind, weak values)
                continue
            kind = entry[3] if len(entry) == 4 else \
                {"b": "b", "i": "i", "u": "i", "f": "f"}[v.dtype.kind]
            where, flag = entry[0], entry[1]
            python = {"b": "bool", "i": "int", "f": "float"}[kind]
            stand_in = Array(v.value, np.dtype({"b": np.bool_, "i": np.int64,
                                                "f": np.float64}[kind]), (), weak=True)
        else:
            continue
        alt = list(values)
        alt[i] = stand_in
        try:
            other = resolve(tuple(alt))
        except Exception:
            other = None
        if other == dtype:
            continue
        why = (f"an operand is a Python {python} on some paths and a numpy {v.dtype} on others "
               f"({where}), and {name} gives {dtype} for the numpy value but "
               f"{'no result' if other is None else other} for the Python number (NEP 50)")
        fix = (f"make it the same type on every path, e.g. start it as np.{v.dtype}(0) or "
               f"convert it with {python}(...)")
        if flag is None or ctx.record_check is None:
            raise ctx.error(f"numpy's result type here depends on the path taken at run time: "
                            f"{why}; {fix}")
        message = (f"numpy's result type here depends on the path taken at run time: {why}; "
                   f"the model has the numpy value's type, and the Python number's path ran; "
                   f"{fix}")
        ctx.record_check(ctx, Array(flag, np.dtype(np.bool_), ()),
                         ("complex_path", id(flag), message), ExecutionError, message)


def after_loop(ctx, value: Any, k: str, entry: dict, exits: dict, may_skip: bool,
               inputs: tuple, nodes: list, ran, line: Any, held: bool) -> None:
    """:func:`after_join` for a loop's final value of ``k`` (loops.lower_loop): the entry's
    path (0 iterations, when the loop may skip) and an iteration's. A flag made in the body is not
    read after the loop (``ran()``: the 0-d bool "the loop ran" graph value). ``held``: check
    that the state holds a Python complex entry exactly (python_entry; a name carried with a
    "still Python" flag is checked with that flag instead)."""
    if not isinstance(value, (Complex, tuple, list, dict)):
        return
    inside = {id(n) for n in nodes} | {id(inputs[0]), id(inputs[1])} | \
        {id(v) for state in inputs[2] for v in state}

    def visible(flag: ir.Value) -> bool:
        return id(flag) not in inside and id(flag.producer()) not in inside

    if may_skip:
        sides = [entry.get(k), exits.get(k)]

        def select(f):
            from pyonnx.frontend.lower.control_flow.path_types import select_flag
            return select_flag(ctx, ran(), f[1], f[0])
    else:
        sides = [exits.get(k)]

        def select(f):
            return f[0]
    after_join(ctx, value, sides, select, f"the loop at line {line}", visible)
    if held and isinstance(value, Complex) and value.py_path is not None:
        from pyonnx.frontend.graph.python_entry import held_exactly
        held_exactly(ctx, value, entry.get(k), value.py_path[1], k, line)

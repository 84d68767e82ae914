"""Lowering the planned whole-array steps of a vectorized loop.

Input: the FunctionLowering, the loop nest's :class:`~.exprs.Space` (its header names already
bound) and the :class:`~.forms.Step` list. Output: the steps lowered through the ordinary
statement lowering (each is numpy code), bindings of the loop's results in the environment.

The float rule: a reduction is computed by numpy's own function (``np.sum`` is pairwise, as
numpy's; onnxruntime's is computed one dtype wider), not in the loop's order, so float sums and
products differ from the loop by rounding only (a few ulps times log n; the tests' tolerance).
Integer and boolean results are exact (integer sums and products wrap modulo 2**bits as the
loop's do). Extrema, arg-extrema, counts, flags and searches never reassociate.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from pyonnx.frontend.canonicalize.setitem import SetItemTransformer
from pyonnx.frontend.canonicalize.templates import located
from pyonnx.frontend.graph import dtypes, path_weak
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.vectorize import extremes, kinds
from pyonnx.frontend.vectorize.exprs import NP, Space, call, fresh, name

__all__ = ["run_steps", "lower_stmts", "identity", "expr"]

_I64 = np.dtype(np.int64)


def expr(text: str, **names: Any) -> ast.expr:
    """``text`` parsed, each ``{key}`` replaced by a name or an AST (substituted by name)."""
    from pyonnx.frontend.canonicalize.templates import expression
    return expression(text, **names)


def lower_stmts(lw, node: ast.AST, stmts: list[ast.stmt]) -> None:
    """Lowers generated statements, located at ``node``, item writes canonicalized."""
    stmts = [SetItemTransformer().visit(s) for s in stmts]
    out: list[ast.stmt] = []
    for s in stmts:
        out.extend(s if isinstance(s, list) else [s])
    for s in out:
        ast.fix_missing_locations(located([s], node)[0])
    lw.block(out)


def assign(target: str | ast.expr, value: ast.expr) -> ast.stmt:
    t = ast.Name(id=target, ctx=ast.Store()) if isinstance(target, str) else target
    return ast.Assign(targets=[t], value=value)


def bind(lw, node: ast.AST, value: ast.expr, what: str = "e") -> tuple[str, Any]:
    """Lowers ``value`` into a fresh name; returns the name and its frontend value."""
    n = fresh(what)
    lower_stmts(lw, node, [assign(n, value)])
    return n, lw.env.lookup(n)[1]


def identity(dtype: np.dtype, kind: str) -> Any:
    """The identity of max (``kind == "max"``) or min for ``dtype``."""
    up = kind == "max"
    if dtype.kind == "b":
        return not up
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return int(info.min if up else info.max)
    return float("-inf" if up else "inf")


def _dtype_attr(dtype: np.dtype) -> ast.expr:
    return ast.Attribute(value=name(NP), attr=np.dtype(dtype).name, ctx=ast.Load())


def run_steps(lw, node: ast.AST, space: Space, steps: list) -> None:
    # (a flag step records its kinds itself: which one the result is depends on the data)
    before = {st.target: path_weak.python_kind(lw.env.lookup(st.target)[1])
              for st in steps
              if st.kind in ("reduce", "argext")}
    for st in steps:
        globals()[f"_{st.kind}"](lw, node, space, st)
    for target, kind in before.items():
        _fail_on_zero_trips_if_kind_changed(lw, node, space, target, kind)


_KIND_NAMES = {"b": "bool", "i": "int", "f": "float"}


def _fail_on_zero_trips_if_kind_changed(lw, node, space: Space, target: str,
                                        kind: str | None) -> None:
    """As the Loop lowering does (control_flow/loops.py): a Python number the loop turns into
    another kind (``s = 0`` summing floats) is the entry value after 0 iterations in numpy, so the
    model fails at run time when no iteration runs instead of answering in the wrong type.
    (``s = 0.0`` summing float64 elements gives np.float64(0.0) after 0 iterations where numpy
    keeps the Python 0.0: np.float64 is a subclass of float, equal in value and dtype; refusing
    the most common loop on empty input would cost more than it protects.)"""
    value = lw.env.lookup(target)[1]
    if kind is None or not isinstance(value, Array) or value.dtype.kind == kind or \
            target.startswith("_pyonnx_"):  # internal accumulators (sum() of a generator)
        return
    from pyonnx.frontend.graph.checks import runtime_check

    ctx = lw.ctx
    line = getattr(node, "lineno", 0)
    checks = [bind(lw, node, expr("k > 0", k=v.k), "ran")[1] for v in space.vars]
    if any(not isinstance(c, Array) and not bool(c) for c in checks):
        raise ctx.error(f"'{target}' is a Python {_KIND_NAMES[kind]} before the loop at line "
                        f"{line} and another type in it, and the loop runs 0 times: numpy "
                        f"keeps the {_KIND_NAMES[kind]}; start it with the type the loop makes "
                        "(e.g. 0.0, or np.float64(0) for a sum of array elements)")
    checks = [c for c in checks if isinstance(c, Array)]
    if not checks:
        return  # every trip count is a known positive number: the loop runs
    ok = checks[0]
    for c in checks[1:]:
        ok = Array(ctx.op("And", ok.value, c.value), ok.dtype, ())
    what = f"refused_{target}_changes_type_in_the_loop_at_line_{line}_which_ran_0_times"
    entry = path_weak.kind_word(np.dtype(_KIND_NAMES[kind]), True)
    checked = runtime_check(ctx, Array(ctx.op("Not", ok.value), ok.dtype, ()), value, what,
                            path_weak.zero_trip_message(
                                target, entry, path_weak.kind_word(value.dtype, value.weak),
                                line))
    lw.env.bind(target, Array(checked.value, value.dtype, value.shape, value.weak))


def _write(lw, node, space, st) -> None:
    y = lw.env.lookup(st.target)[1]
    sl = st.index
    parts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
    if all(isinstance(p, ast.Slice) and p.step is None and p.lower is not None and
           p.upper is not None for p in parts) and \
            isinstance(y, Array) and y.ndim == len(parts) <= 2 and \
            not space.aliased(y, st.target):
        _write_by_concatenation(lw, node, st, y, parts)
        return
    target = ast.Subscript(value=ast.Name(id=st.target, ctx=ast.Load()), slice=sl,
                           ctx=ast.Store())
    lower_stmts(lw, node, [assign(target, st.value)])


def _write_by_concatenation(lw, node, st, y, parts: list[ast.Slice]) -> None:
    """``y[s0:e0, s1:e1] = v`` for an array no other name, view or caller sees, as
    ``y = y[:s0] + (y[s0:e0, :s1] + v + y[s0:e0, e1:]) + y[e0:]`` (Slice/Concat, no flat
    positions). ``y[:s]`` and ``y[s:]`` make ``y`` for any ``s``, so an empty range keeps ``y``.
    The value is broadcast to the block and cast as numpy's item write casts (unsafe)."""
    value = st.value
    if st.op is not True:
        spans = [bind(lw, node, expr("e - s", e=p.upper, s=p.lower), "n")[0] for p in parts]
        value = call("broadcast_to", value, ast.Tuple(elts=[name(n) for n in spans],
                                                      ctx=ast.Load()))
    value = ast.Call(func=ast.Attribute(value=value, attr="astype", ctx=ast.Load()),
                     args=[_dtype_attr(y.dtype)], keywords=[])

    def part(rows: ast.Slice | None, cols: ast.Slice | None) -> ast.expr:
        idx = [i for i in (rows, cols) if i is not None] if cols is not None else [rows]
        return ast.Subscript(value=name(st.target), slice=ast.Tuple(elts=idx, ctx=ast.Load())
                             if len(idx) > 1 else idx[0], ctx=ast.Load())

    r = parts[0]
    if len(parts) == 2:
        c = parts[1]
        rows = ast.Slice(lower=r.lower, upper=r.upper)
        value = call("concatenate", ast.Tuple(elts=[
            part(rows, ast.Slice(upper=c.lower)), value,
            part(rows, ast.Slice(lower=c.upper))], ctx=ast.Load()), axis=ast.Constant(1))
    # A write from row 0 (a prefix scan from its first element) needs no (empty) head.
    lower, start = bind(lw, node, r.lower, "s")
    head = [] if type(start) is int and start == 0 else [part(ast.Slice(upper=name(lower)),
                                                              None)]
    joined = call("concatenate", ast.Tuple(elts=[
        *head, value, part(ast.Slice(lower=r.upper), None)], ctx=ast.Load()))
    lower_stmts(lw, node, [assign(st.target, joined)])


def _scalar(e: ast.expr) -> ast.expr:
    """``e[()]``: np.where of 0-d operands is a 0-d array; the loop it replaces rebinds its
    accumulator to a numpy scalar (or keeps its start value), so the result is a scalar."""
    return ast.Subscript(value=e, slice=ast.Tuple(elts=[], ctx=ast.Load()), ctx=ast.Load())


def _temp(lw, node, space, st) -> None:
    lower_stmts(lw, node, [assign(st.target, st.value.node)])


def _flag(lw, node, space, st) -> None:
    """``if cond(i): t = v`` (``v`` the same in every iteration): ``t = v`` where some
    iteration's condition held. Python numbers stay Python numbers (np.where would make them
    numpy scalars); where ``t`` and ``v`` differ in kind (a Python int and a Python float, a
    Python number and a numpy scalar), the result records on which paths it is which
    (graph/path_weak.py)."""
    before = lw.env.lookup(st.target)[1]
    v_name, v = bind(lw, node, st.value, "v")
    hit_name, hit = bind(lw, node, call("any", st.mask), "hit")
    lower_stmts(lw, node, [assign(st.target, _scalar(call("where", name(hit_name),
                                                          name(v_name), name(st.target))))])
    kinds.settle(lw, node, st.target, path_weak.python_kind(before), path_weak.python_kind(v),
                 hit, start=before)


def _reduce(lw, node, space, st) -> None:
    acc = st.target
    e_name, e = bind(lw, node, st.value.node)
    m_name = bind(lw, node, st.mask.node, "m")[0] if st.mask is not None else None
    found, a, _ = lw.env.lookup(acc)
    op = st.op
    if op in ("sum", "prod", "or", "and"):
        ufunc = {"sum": np.add, "prod": np.multiply, "or": np.bitwise_or,
                 "and": np.bitwise_and}[op]
        P = dtypes.ufunc_dtypes(ufunc, a, e)[1][0]
        neutral = {"sum": 0, "prod": 1, "or": False, "and": True}[op]
        E = name(e_name) if m_name is None else call("where", name(m_name), name(e_name),
                                                     ast.Constant(neutral))
        if P.kind == "b" or op in ("or", "and"):
            red = call("any" if op in ("sum", "or") else "all", E)
            binop = ast.BitOr() if op in ("sum", "or") else ast.BitAnd()
        else:
            red = call(op, E, dtype=_dtype_attr(P))
            binop = ast.Add() if op == "sum" else ast.Mult()
        lower_stmts(lw, node, [assign(acc, ast.BinOp(left=name(acc), op=binop, right=red))])
        if m_name is None:
            _keep_python_number(lw, acc, a, e, space, node)
        else:  # the start value where no iteration's mask held
            taken = bind(lw, node, call("any", name(m_name)), "any")[1]
            kinds.settle(lw, node, acc, path_weak.python_kind(a), path_weak.python_kind(
                Array(e.value, e.dtype, (), weak=e.weak) if isinstance(e, Array) else e), taken,
                start=a)
        return
    kind = "max" if op in ("pymax", "maximum") else "min"
    # Reduced in the dtype the loop's comparisons end in (max(-inf, int) is a float), so the
    # padding identity is one of that dtype.
    P = dtypes.ufunc_dtypes(np.maximum, a, e)[1][0]
    ident = identity(P, kind)
    fn = "max" if kind == "max" else "min"
    e_cast = ast.Call(func=ast.Attribute(value=name(e_name), attr="astype", ctx=ast.Load()),
                      args=[_dtype_attr(P)], keywords=[])
    if op in ("pymax", "pymin") and isinstance(e, Array) and e.dtype != P:
        # As the Loop lowering (builtins max): Python returns the winner unchanged, an element
        # of e's dtype or the start value: the result type would depend on the data.
        fn = "max" if kind == "max" else "min"
        raise lw.ctx.error(
            f"{fn}() of a {e.dtype} value and a {P} value: Python returns the winner "
            "unchanged, so the result type would depend on the data; cast the operands to one "
            f"dtype or use np.{'maximum' if kind == 'max' else 'minimum'}")
    # (Python's max returns the winner itself: the start where no element beat it, an
    # element where one did; each element is a Python number where e is weak)
    kinds_of = (path_weak.python_kind(a), path_weak.python_kind(
        Array(e.value, e.dtype, (), weak=e.weak) if isinstance(e, Array) else e))
    kept = None
    if op in ("pymax", "pymin") and m_name is None:
        kept = extremes.python_extreme(lw, node, space, acc, a, e_name, P, kind, bind,
                                       lower_stmts, assign)
    if kept is not None:
        kinds.settle(lw, node, acc, *kinds_of, Array(lw.ctx.op("Not", kept.value),
                                                     kept.dtype, ()), start=a)
        return
    if op in ("pymax", "pymin"):
        # Python's max(acc, e) keeps acc unless e compares greater: NaN never wins.
        cmp = ast.Gt() if kind == "max" else ast.Lt()
        sel = ast.Compare(left=name(e_name), ops=[cmp], comparators=[name(acc)])
        if m_name is not None:
            sel = ast.BinOp(left=name(m_name), op=ast.BitAnd(), right=sel)
        W = call("where", sel, e_cast, ast.Constant(ident))
        r_name = bind(lw, node, call(fn, W, initial=ast.Constant(ident)), "r")[0]
        won_name, won = bind(lw, node, ast.Compare(left=name(r_name), ops=[cmp],
                                                   comparators=[name(acc)]), "won")
        lower_stmts(lw, node, [assign(acc, _scalar(call("where", name(won_name), name(r_name),
                                                        name(acc))))])
        kinds.settle(lw, node, acc, *kinds_of, won, start=a)
        return
    E = e_cast if m_name is None else call("where", name(m_name), e_cast, ast.Constant(ident))
    r = call(fn, E, initial=ast.Constant(ident))
    lower_stmts(lw, node, [assign(acc, call("maximum" if kind == "max" else "minimum",
                                            name(acc), r))])
    _keep_python_number(lw, acc, a, e, space, node)  # (np.maximum: numpy's after any trip)


def _keep_python_number(lw, acc: str, before: Any, e: Any, space: Space, node) -> None:
    """``acc`` is a Python number after the loop when it was one before and every iteration
    combined it with a Python number (``s += a + i`` for Python ``s``, ``a`` and the loop's
    ``i``; ``max(s, i)``): the reduction's numpy scalar is rebound weak, as numpy returns it.
    Combined with numpy values, it is a Python number only when the loop ran 0 times:
    marked so (graph/path_weak.py)."""
    each = (not isinstance(e, Array) and isinstance(e, (bool, int, float))) or \
        (isinstance(e, Array) and e.weak)
    after = lw.env.lookup(acc)[1]
    if path_weak.python_kind(before) is None or not isinstance(after, Array) or after.ndim != 0 \
            or after.weak:
        return
    if each:
        lw.env.bind(acc, Array(after.value, after.dtype, (), weak=True))
        return
    ctx = lw.ctx
    counts = [lw.env.lookup(v.k)[1] for v in space.vars]
    if all(not isinstance(c, Array) and c != 0 for c in counts):
        return  # runs at least once
    zero = ctx.const(np.array(0, np.int64))
    flag = None
    for c in counts:
        c = c if isinstance(c, Array) else Array(ctx.const(np.array(c, np.int64)), _I64, ())
        none = ctx.op("Equal", ctx.cast(c, _I64).value, zero)
        flag = none if flag is None else ctx.op("Or", flag, none)
    # (one the dtype cannot hold, a Python int start of a float sum, fails where it is kept)
    kinds.settle(lw, node, acc, path_weak.python_kind(before), None,
                 Array(ctx.op("Not", flag), np.dtype(np.bool_), ()), start=before)


def _argext(lw, node, space, st) -> None:
    """``if e > best: best = e; k = i``: the first (in iteration order) strict improvement."""
    best, k_name, kind = st.target, st.extra, st.op
    var = space.vars[0]
    start = lw.env.lookup(best)[1]
    kb = path_weak.python_kind(start)
    kk = None if k_name is None else path_weak.python_kind(lw.env.lookup(k_name)[1])
    e_name, e = bind(lw, node, st.value.node)
    ident = identity(e.dtype, kind)
    cmp = ast.Gt() if kind == "max" else ast.Lt()
    sel_name = bind(lw, node, ast.Compare(left=name(e_name), ops=[cmp],
                                          comparators=[name(best)]), "m")[0]
    W = call("where", name(sel_name), name(e_name), ast.Constant(ident))
    if var.step < 0:
        W = ast.Subscript(value=W, slice=ast.Slice(step=ast.Constant(-1)), ctx=ast.Load())
    # One padding element so an empty range still has an argmax (not selected: found is False).
    padded = bind(lw, node, call("concatenate", ast.Tuple(elts=[W, ast.List(
        elts=[ast.Constant(ident)], ctx=ast.Load())], ctx=ast.Load()),
        dtype=_dtype_attr(e.dtype), casting=ast.Constant("unsafe")), "w")[0]  # ident fits
    p = bind(lw, node, call("argmax" if kind == "max" else "argmin", name(padded)), "p")[0]
    found, taken = bind(lw, node, call("any", name(sel_name)), "f")
    at = ast.Subscript(value=name(padded), slice=name(p), ctx=ast.Load())
    stmts = [assign(best, _scalar(call("where", name(found), at, name(best))))]
    if k_name is not None:
        index = expr(f"start + p * {var.step}", start=var.start, p=p)
        stmts.append(assign(k_name, _scalar(call("where", name(found), index, name(k_name)))))
    lower_stmts(lw, node, stmts)
    # (each element of e is a Python number where e is weak; the index is the loop's int)
    ke = path_weak.python_kind(Array(e.value, e.dtype, (), weak=e.weak)) \
        if isinstance(e, Array) else path_weak.python_kind(e)
    kinds.settle(lw, node, best, kb, ke, taken, start=start)
    if k_name is not None:
        kinds.settle(lw, node, k_name, kk, "i", taken)

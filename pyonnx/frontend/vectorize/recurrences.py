"""The two loop forms that carry something from one iteration to the next and still vectorize:
prefix recurrences and first-index searches.

Input: the FunctionLowering, the canonical ``For`` (one loop, its header bound in ``space``).
Output: a zero-argument function lowering the whole-array form, None when the loop is not of
the form (prefix), or :class:`~.exprs.Bail`.

* **prefix** ``y[i + w] = y[i + w - step] + x[...]`` (``*`` likewise, either operand order;
  ``max(y[prev], x[...])``/``min``, ``np.maximum``/``np.minimum`` in either order), ``step`` 1
  or -1, ``y`` 1-d, the combined value one read of another array whose dtype promotes into
  ``y``'s (so each partial result is computed and stored in ``y``'s dtype, as the loop does):
  ``np.cumsum``/``np.cumprod``/``np.maximum.accumulate``/``np.minimum.accumulate`` of the
  initial element followed by the values, in iteration order (the builtin ``max`` skips NaN
  values as Python's does); ``y`` shares no memory with a read array (``y = x`` with
  ``y[i] = y[i-1] + x[i-1]`` reads what the loop wrote: it stays a ``Loop``). The float
  ``y[i] = y[i-1] * a + x[i]`` is :mod:`.linear`'s.
* **search** (canonical ``break``): ``if cond: hit = f(i); break`` after temporaries becomes a
  mask, ``p = argmax`` of the mask with a padding ``False``, ``found = mask[p]`` and
  ``hit = np.where(found, f(i_p), hit)``; the assigned values may not read arrays (they
  would be read at the padding index).
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.graph import path_weak
from pyonnx.frontend.vectorize import emit, kinds, prefix_scan
from pyonnx.frontend.vectorize.exprs import (NP, Bail, Space, Vectorizer, call, fresh, lookup,
                                             name)
from pyonnx.frontend.vectorize.forms import Step, _check_aliases, setitem_parts

__all__ = ["plan_prefix", "plan_search"]


def _static_offset(vz: Vectorizer, index: ast.expr) -> tuple[Any, int] | None:
    try:
        aff = vz.affine(index)
    except Bail:
        return None
    if aff is None:
        return None
    var, off = aff
    if isinstance(off, ast.UnaryOp) and isinstance(off.operand, ast.Constant):
        return var, -off.operand.value
    if isinstance(off, ast.Constant) and type(off.value) is int:
        return var, off.value
    return None


def plan_prefix(lw, node: ast.For, space: Space):
    if len(space.vars) != 1 or len(node.body) != 1:
        return None
    parts = setitem_parts(node.body[0])
    if parts is None:
        return None
    y, index, value = parts
    var = space.vars[0]
    if var.S != 1:
        return None
    vz = Vectorizer(space)
    w = _static_offset(vz, index)
    if w is None:
        return None
    form = _recurrence(vz, value, y, w[1] - var.step)
    if form is None:
        return None
    fn, e = form
    yv = lookup(space, y)
    if not (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id != y
            and e.value.id not in space.assigned):
        raise Bail("prefix value is not one read of another array")
    xv = lookup(space, e.value.id)
    # (y = x, or y a view of x: the loop reads values it wrote; np.cumsum of x would not)
    _check_aliases(node.body, space, {y: ""})
    # float16 sums and products would round every partial result; extrema round nothing.
    f16_ok = fn not in ("cumsum", "cumprod")
    if yv.ndim != 1 or yv.dtype.kind not in "iuf" or (yv.dtype == np.float16 and not f16_ok) or \
            not hasattr(xv, "dtype") or np.result_type(yv.dtype, xv.dtype) != yv.dtype:
        raise Bail("prefix dtypes")
    ev = vz.vec(e)
    if ev.axes != (var.name,) or ev.rank != 0:
        raise Bail("prefix value")
    # The initial element and the written range, both checked against y's length.
    init_off = w[1] - var.step
    start_w = emit.expr(f"lo + {w[1]}", lo=var.lo)
    space.checks.append((y, 0, start_w, var))
    if var.step > 0:
        init_start = emit.expr(f"lo + {init_off}", lo=var.lo)
    else:
        init_start = emit.expr(f"lo + k - 1 + {init_off}", lo=var.lo, k=var.k)
    space.checks.append((y, 0, init_start, var) if var.step > 0 else
                        (y, 0, emit.expr(f"lo + {init_off}", lo=var.lo), var))
    if fn in ("pymax", "pymin"):
        # Python's max(prev, v) keeps prev unless v compares greater: a NaN value never wins,
        # so it becomes the identity (np.maximum.accumulate would propagate it); a NaN initial
        # element stays NaN, as in the loop. (Of equal zeros the loop keeps the first, the
        # accumulate the last: the sign of a zero may differ, as onnxruntime's Where loses
        # -0.0 anyway.)
        nan_to = (float("-inf") if fn == "pymax" else float("inf")) if xv.dtype.kind == "f" \
            else None
        fn = "maximum" if fn == "pymax" else "minimum"
    else:
        nan_to = None
    scan_fn = fn

    def run() -> None:
        nonlocal ev
        if nan_to is not None:
            ev = dataclasses.replace(ev, node=_nan_to(lw, node, ev.node, nan_to))
        init = ast.Subscript(value=name(y), slice=ast.Slice(
            lower=init_start, upper=ast.BinOp(left=init_start, op=ast.Add(),
                                              right=ast.Constant(1))), ctx=ast.Load())
        vals = ev.node
        if var.step < 0:
            vals = ast.Subscript(value=vals, slice=ast.Slice(step=ast.Constant(-1)),
                                 ctx=ast.Load())
        # The scan starts with the initial element (scan[0] is y[init] itself, exactly):
        # written back with the values, so no Slice drops it.
        joined = call("concatenate", ast.Tuple(elts=[init, vals], ctx=ast.Load()))
        if scan_fn in ("maximum", "minimum") and prefix_scan.applies(yv.dtype):
            # floats: the same scan as np.maximum.accumulate's, in fewer nodes (prefix_scan)
            j_name, j_val = emit.bind(lw, node, joined, "joined")
            if isinstance(j_val, Array) and j_val.ndim == 1 and j_val.dtype == yv.dtype:
                tmp = fresh("running")
                lw.env.bind(tmp, prefix_scan.running_extreme(lw.ctx, j_val,
                                                             scan_fn == "maximum"))
                scan = name(tmp)
            else:
                scan = _scan_call(scan_fn, name(j_name))
        else:
            scan = _scan_call(scan_fn, joined)
        if var.step < 0:
            scan = ast.Subscript(value=scan, slice=ast.Slice(step=ast.Constant(-1)),
                                 ctx=ast.Load())
            index = ast.Slice(lower=start_w, upper=emit.expr("s + 1", s=init_start))
        else:
            # (lo carries the bounds check: a literal start keeps the lower bound static)
            first = _literal(var.bounds[0])
            lower = ast.Constant(first + init_off) if first is not None else init_start
            index = ast.Slice(lower=lower, upper=emit.expr("s + k", s=start_w, k=var.k))
        emit.run_steps(lw, node, space, [Step("write", y, value=scan, index=index, op=True)])
    return run


def _nan_to(lw, node: ast.For, values: ast.expr, ident: float) -> ast.expr:
    """``values`` with each NaN replaced by ``ident``, as a name: one plain ``Where`` with the
    values in its second branch, which keeps a -0.0 (np.where's exact select costs ~15 nodes;
    the accumulate after it does not keep the sign of a zero tie anyway)."""
    v_name, v = emit.bind(lw, node, values, "v")
    if not isinstance(v, Array):
        return name(v_name)
    if v.dtype == np.float16:  # (onnxruntime's IsNaN and Where of float16 run through float32)
        return call("where", call("isnan", name(v_name)), ast.Constant(ident), name(v_name))
    ctx = lw.ctx
    out = ctx.op("Where", ctx.op("IsNaN", v.value), ctx.const(np.array(ident, v.dtype)), v.value)
    w_name = fresh("nan_to")
    lw.env.bind(w_name, Array(out, v.dtype, v.shape))
    return name(w_name)


def _literal(e: ast.expr) -> int | None:
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        v = _literal(e.operand)
        return None if v is None else -v
    return None


def _scan_call(fn: str, arg: ast.expr) -> ast.expr:
    if fn in ("cumsum", "cumprod"):
        return call(fn, arg, axis=ast.Constant(0))  # 1-d: axis=None would flatten (a Reshape)
    acc = ast.Attribute(value=ast.Attribute(value=name(NP), attr=fn, ctx=ast.Load()),
                        attr="accumulate", ctx=ast.Load())
    return ast.Call(func=acc, args=[arg], keywords=[])


def _recurrence(vz: Vectorizer, value: ast.expr, y: str, off: int) -> tuple[str, ast.expr] | None:
    """``(scan, e)`` for ``y[prev] + e``, ``e * y[prev]``, ``max(y[prev], e)``,
    ``np.maximum(e, y[prev])`` (and min), ``y[prev]`` at offset ``off``; else None."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Mult)):
        fn = "cumsum" if isinstance(value.op, ast.Add) else "cumprod"
        if _is_prev(vz, value.left, y, off):
            return fn, value.right
        if _is_prev(vz, value.right, y, off):
            return fn, value.left
        return None
    if not (isinstance(value, ast.Call) and len(value.args) == 2 and not value.keywords):
        return None
    try:
        f = vz.callee(value.func)
    except Bail:
        return None
    a, b = value.args
    if f in (max, min):  # Python's max keeps its first argument on ties and NaN: prev first
        return ("pymax" if f is max else "pymin", b) if _is_prev(vz, a, y, off) else None
    if f is np.maximum or f is np.minimum:
        if _is_prev(vz, a, y, off):
            return f.__name__, b
        if _is_prev(vz, b, y, off):
            return f.__name__, a
    return None


def _is_prev(vz: Vectorizer, e: ast.expr, y: str, off: int) -> bool:
    if not (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id == y):
        return False
    got = _static_offset(vz, e.slice)
    return got is not None and got[1] == off


def plan_search(lw, node: ast.For, extra: ast.expr, space: Space, live_out):
    if not (isinstance(extra, ast.UnaryOp) and isinstance(extra.op, ast.Not)
            and isinstance(extra.operand, ast.Name)):
        raise Bail("extra test")
    flag = extra.operand.id
    var = space.vars[0]
    if var.name in live_out:
        raise Bail("loop variable live after a search")
    *pre, last = node.body
    if not (isinstance(last, ast.If) and not last.orelse):
        raise Bail("search body")
    vz = Vectorizer(space)
    for s in pre:
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and
                isinstance(s.targets[0], ast.Name)) or setitem_parts(s) is not None:
            raise Bail("search prelude")
        t = s.targets[0].id
        if t in live_out or t == flag:
            raise Bail("temporary live after the loop")
        space.temps[t] = vz.vec(s.value)
    from pyonnx.frontend.vectorize.exprs import boolean
    if not boolean(last.test):
        raise Bail("search condition")
    mask = vz.vec(last.test)
    if mask.axes != (var.name,) or mask.rank != 0:
        raise Bail("search condition")
    sets: list[tuple[str, ast.expr]] = []
    saw_flag = False
    for s in last.body:
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and
                isinstance(s.targets[0], ast.Name)):
            raise Bail("search assignment")
        t = s.targets[0].id
        if t == flag:
            saw_flag = isinstance(s.value, ast.Constant) and s.value.value is True
            continue
        if any(isinstance(n, (ast.Subscript, ast.Call)) for n in ast.walk(s.value)) or \
                uses(s.value) & (space.assigned - {var.name}) or not lw.env.lookup(t)[0] or \
                any(t == u for u, _ in sets):
            raise Bail("search result")
        sets.append((t, s.value))
        before = lw.env.lookup(t)[1]
        if isinstance(before, Array) and before.ndim and not _same_static_shape(
                before, lw.env.lookup(s.value.id)[1] if isinstance(s.value, ast.Name) else None):
            # np.where(found, v, before) computes both: an array result the loop may not
            # have had a value of v's shape for (the stand-in of a return value not taken
            # yet: fuzz seed 30011908, a broadcast failure at run time) stays a Loop
            raise Bail("search result of another shape")
    if not saw_flag:
        raise Bail("search without break")
    temps = [(t, space.temps[t]) for t in space.temps]

    def run() -> None:
        for t, v in temps:
            emit.lower_stmts(lw, node, [emit.assign(t, v.node)])
        m = mask.node if var.step > 0 else ast.Subscript(
            value=mask.node, slice=ast.Slice(step=ast.Constant(-1)), ctx=ast.Load())
        # A False sentinel: argmax is the first hit, or 0 (nothing) or the sentinel (empty);
        # the mask at it says whether it is a hit (no trip count needed).
        padded, _ = emit.bind(lw, node, call("concatenate", ast.Tuple(elts=[
            m, ast.List(elts=[ast.Constant(False)], ctx=ast.Load())], ctx=ast.Load())), "m")
        p, _ = emit.bind(lw, node, call("argmax", name(padded), axis=ast.Constant(0)), "p")
        found, _ = emit.bind(lw, node, emit.expr("m[p]", m=padded, p=p), "f")
        at = fresh("at")
        emit.lower_stmts(lw, node, [emit.assign(at, emit.expr(f"start + p * {var.step}",
                                                              start=var.start, p=p))])
        at_value = lw.env.lookup(at)[1]  # the loop's Python int at the hit
        if isinstance(at_value, Array):
            lw.env.bind(at, Array(at_value.value, at_value.dtype, (), weak=True))
        taken = lw.env.lookup(found)[1]
        if not lw.env.lookup(flag)[0]:
            emit.lower_stmts(lw, node, [emit.assign(flag, name(found))])
        # Each result is the value the hit's iteration assigned or the one it had before: as
        # in the loop, a Python number where that is one (idx = -1 ... idx = i stays a Python
        # int), a numpy scalar where that is one (vectorize/kinds.py).
        for t, v in sets + [(flag, ast.Constant(True))]:
            start = lw.env.lookup(t)[1]
            v_name, value = emit.bind(lw, node, _rename(v, var.name, at), "v")
            emit.lower_stmts(lw, node, [emit.assign(t, emit.expr(
                "np.where(f, v, t)[()]", np=NP, f=found, v=v_name, t=t))])
            kinds.settle(lw, node, t, path_weak.python_kind(start),
                         path_weak.python_kind(value), taken, start=start)
    return run


def _same_static_shape(a: Array, b: Any) -> bool:
    """Whether ``b`` is an Array of ``a``'s shape, every dimension known."""
    return isinstance(b, Array) and a.shape == b.shape and None not in a.shape


def uses(e: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}


def _rename(e: ast.expr, old: str, new: str) -> ast.expr:
    import copy
    e = copy.deepcopy(e)
    for n in ast.walk(e):
        if isinstance(n, ast.Name) and n.id == old:
            n.id = new
    return e

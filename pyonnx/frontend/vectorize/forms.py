"""Dependence analysis of a canonical loop body and its plan as whole-array steps.

Input: the statements of the innermost body of a ``range`` loop nest and its
:class:`~.exprs.Space`. Output: a list of :class:`Step` (in body order), or :class:`Bail`.

A body is vectorized when every statement is one of (in any order, under ``if``/``else`` on
per-element comparisons, which become masks):

* **map write** ``y[I] = v`` (canonical ``y = setitem(y, I, v)``): ``I`` holds every induction
  variable once with coefficient 1 (each iteration writes its own element), ``y`` is read in the
  body only at that same ``I`` (a read at another offset of a written array is a cross-iteration
  dependence), and ``y`` shares no memory with another array the body reads. Under a mask the
  write keeps the old element: ``y[I] = np.where(m, v, y[I])``;
* **temporary** ``t = e`` outside masks, not live after the loop;
* **reduction** ``acc = acc op e`` / ``acc = e op acc`` (``+``, ``*``, ``|``, ``&``),
  ``acc = max(acc, e)``/``min``, ``acc = np.maximum(acc, e)``/``np.minimum``, where ``acc``
  appears nowhere else in the body (a count is ``n = n + 1`` under a mask);
* **flag** ``f = CONST`` under a mask (``found = True``), ``f`` not read in the body;
* **arg-extremum** ``if e > best: best = e; k = i`` (``<`` for the minimum): numpy's
  first-index rule is the loop's rule for a strict comparison.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any

import numpy as np

from pyonnx.frontend.analysis import assigned, uses
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.vectorize.exprs import (Bail, Space, VExpr, Vectorizer, boolean, call,
                                             index_key, lookup)

__all__ = ["Step", "plan_body"]


@dataclasses.dataclass
class Step:
    """One whole-array step. ``kind``: "write" (target, index, value; ``op`` True when the value
    has the block's shape), "temp" (target, value),
    "reduce" (target, op, value, mask), "flag" (target, value, mask), "argext" (target best,
    index name, value, op, mask)."""
    kind: str
    target: str
    value: Any = None
    index: Any = None
    op: Any = None
    mask: ast.expr | None = None
    extra: Any = None


def setitem_parts(s: ast.stmt) -> tuple[str, ast.expr, ast.expr] | None:
    """``(y, I, v)`` for the canonical ``y = setitem(y, I, v)`` of ``y[I] = v``."""
    if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and \
            getattr(s.value, "pyonnx_setitem", False):
        base, index, value = s.value.args
        if isinstance(base, ast.Name):
            return base.id, index, value
        raise Bail("write through a view chain")
    return None


def _writes(stmts: list[ast.stmt], out: dict[str, str]) -> None:
    for s in stmts:
        parts = setitem_parts(s)
        if parts is not None:
            key = index_key(parts[1])
            if out.setdefault(parts[0], key) != key:
                raise Bail("two writes at different indices")
        elif isinstance(s, ast.If):
            _writes(s.body, out)
            _writes(s.orelse, out)


_REDUCE_OPS = {ast.Add: "sum", ast.Mult: "prod", ast.BitOr: "or", ast.BitAnd: "and"}


def _reduction(s: ast.Assign, acc: str, space: Space) -> tuple[str, ast.expr] | None:
    """``(op, e)`` when ``s`` updates the accumulator ``acc`` from ``e`` alone."""
    v = s.value
    if isinstance(v, ast.BinOp) and type(v.op) in _REDUCE_OPS:
        op = _REDUCE_OPS[type(v.op)]
        if isinstance(v.left, ast.Name) and v.left.id == acc:
            e = v.right
        elif isinstance(v.right, ast.Name) and v.right.id == acc and op in ("sum", "prod") \
                and not getattr(v, "pyonnx_inplace", None):
            e = v.left
        else:
            return None
    elif isinstance(v, ast.Call) and len(v.args) == 2 and not v.keywords and \
            isinstance(v.args[0], ast.Name) and v.args[0].id == acc:
        fn = Vectorizer(space).callee(v.func)
        names = {max: "pymax", min: "pymin", np.maximum: "maximum", np.minimum: "minimum"}
        if fn not in names:
            return None
        op, e = names[fn], v.args[1]
    else:
        return None
    if acc in uses(e):
        raise Bail("accumulator read in its own update")
    return op, e


def plan_body(body: list[ast.stmt], space: Space, live_out: frozenset[str]) -> list[Step]:
    """The steps of ``body`` (see the module docstring); raises Bail."""
    written: dict[str, str] = {}
    _writes(body, written)
    vz = Vectorizer(space)
    for y in written:
        value = lookup(space, y)
        if not isinstance(value, (Array, np.ndarray)) or value.ndim == 0:
            raise Bail("write into a non-array")
    space.written = {y: k for y, k in written.items()}
    _check_aliases(body, space, written)
    counts: dict[Any, int] = {}  # name → loads; ("=", name) → stores
    for n in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(n, ast.Name):
            key = n.id if isinstance(n.ctx, ast.Load) else ("=", n.id)
            counts[key] = counts.get(key, 0) + 1
    steps: list[Step] = []
    _block(body, None, vz, steps, counts, live_out)
    return steps


def _check_aliases(body: list[ast.stmt], space: Space, written: dict[str, str]) -> None:
    """A written array must share memory with no other array the body reads."""
    state = space.ctx.aliases
    read = {n for n in uses(ast.Module(body=body, type_ignores=[])) if n not in space.temps}
    for y in written:
        yv = lookup(space, y)
        ye = state.lookup(yv) if isinstance(yv, Array) else None
        for r in read:
            if r == y or space.var(r) is not None:
                continue
            found, rv, _ = space.env.lookup(r)
            if not found or not isinstance(rv, (Array, np.ndarray)):
                continue
            if rv is yv:
                raise Bail("written array read under another name")
            re_ = state.lookup(rv) if isinstance(rv, Array) else None
            if ye is not None and re_ is not None and ye[0] is re_[0]:
                raise Bail("written array is a view of a read array")


def _and(vz: Vectorizer, mask: VExpr | None, m: VExpr) -> VExpr:
    if mask is None:
        return m
    axes, rank, (a, b) = vz.combine([mask, m])
    return VExpr(ast.BinOp(left=a, op=ast.BitAnd(), right=b), axes, rank)


def _not(m: VExpr) -> VExpr:
    return VExpr(_invert(m.node), m.axes, m.rank)


def _invert(m: ast.expr) -> ast.expr:
    return ast.UnaryOp(op=ast.Invert(), operand=m)


def _block(stmts, mask, vz: Vectorizer, steps, counts, live_out) -> None:
    space = vz.space
    full = space.order()
    for s in stmts:
        if isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value,
                                                                               ast.Constant)):
            continue
        parts = setitem_parts(s)
        if parts is not None:
            y, index, value = parts
            value_v = vz.vec(value)
            node, axes, rank = vz.index(y, lookup(space, y).ndim, index)
            if axes != full:
                raise Bail("a write that does not depend on every loop variable")
            v = vz.align(value_v, full, rank)
            # Consecutive writes of the same elements (the branches of an if/else) become one
            # write: the later one selects over the earlier one's value instead of over a
            # re-read of y (one slice write instead of two; each costs a full pass or more).
            prev = steps[-1] if steps else None
            merge = (prev is not None and prev.kind == "write" and prev.target == y
                     and ast.dump(prev.index) == ast.dump(node.slice) and y not in uses(value))
            old = prev.value if merge else node
            raw = v
            m = vz.align(mask, full, rank) if mask is not None else None
            # exact: the value has the written block's shape (no broadcast needed).
            exact = value_v.axes == full and value_v.rank == rank == 0
            if merge and m is not None and prev.mask is not None and \
                    ast.dump(m) == ast.dump(_invert(prev.mask)):
                v = _np_where(prev.mask, prev.extra, v)  # if/else: y is not read at all
                exact = exact and prev.op
            elif m is not None:
                v = _np_where(m, v, old)
                exact = True  # old is the block itself
            if merge:
                steps.pop()
            steps.append(Step("write", y, value=v, index=node.slice, mask=m, extra=raw,
                              op=exact))
            continue
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0],
                                                                             ast.Name):
            target = s.targets[0].id
            if space.var(target) is not None:
                raise Bail("assignment to the loop variable")
            red = _reduction(s, target, space)
            if red is not None:
                op, e = red
                if counts.get(target, 0) != 1 or counts.get(("=", target)) != 1:
                    raise Bail("accumulator read elsewhere in the body")
                _accumulator_ok(space, target, s)
                if op in ("or", "and") and not boolean(e):
                    raise Bail("bitwise reduction of non-booleans")
                if op in ("pymax", "pymin") and _reads_kind(space, e, "b"):
                    raise Bail("Python max of booleans")  # its result type is the data's
                if op in ("sum", "prod") and _float16_in(space, s.value):
                    # numpy's pairwise float16 sum is far from the loop's (every partial sum
                    # rounded to float16): beyond the tolerance reassociation may take.
                    raise Bail("float16 accumulation")
                ev = vz.vec(e)
                m = None
                if mask is not None:
                    axes, rank, (mm, ee) = vz.combine([mask, ev])
                    m, ev = VExpr(mm, axes, rank), VExpr(ee, axes, rank)
                if ev.axes != full:
                    raise Bail("reduced value does not vary along every loop variable")
                steps.append(Step("reduce", target, value=ev, op=op, mask=m))
                continue
            if mask is not None:
                # The mask must vary along every loop variable: a zero-trip inner loop then
                # leaves it empty (an invariant condition would set the flag with no iteration).
                if isinstance(s.value, ast.Constant) and counts.get(target, 0) == 0 and \
                        counts.get(("=", target)) == 1 and space.env.lookup(target)[0] and \
                        mask.axes == full:
                    steps.append(Step("flag", target, value=s.value, mask=mask.node))
                    continue
                raise Bail("assignment under a mask")
            if target in live_out or target in space.written:
                raise Bail("temporary live after the loop, or a written array rebound")
            space.temps[target] = vz.vec(s.value)
            steps.append(Step("temp", target, value=space.temps[target]))
            continue
        if isinstance(s, ast.If):
            if mask is None and _argext(s, vz, steps, counts):
                continue
            if not boolean(s.test):
                raise Bail("if on a non-comparison")
            m = vz.vec(s.test)
            _block(s.body, _and(vz, mask, m), vz, steps, counts, live_out)
            _block(s.orelse, _and(vz, mask, _not(m)), vz, steps, counts, live_out)
            continue
        raise Bail(type(s).__name__)


def _float16_in(space: Space, e: ast.expr) -> bool:
    """Whether ``e`` reads a float16 value (through temporaries too)."""
    return _reads(space, e, lambda d: d == np.float16)


def _reads_kind(space: Space, e: ast.expr, kind: str) -> bool:
    return _reads(space, e, lambda d: d.kind == kind)


def _reads(space: Space, e: ast.expr, pred) -> bool:
    for n in ast.walk(e):
        if not isinstance(n, ast.Name) or space.var(n.id) is not None:
            continue
        if n.id in space.temps:
            if _reads(space, space.temps[n.id].node, pred):
                return True
            continue
        found, v, _ = space.env.lookup(n.id)
        d = getattr(v, "dtype", None)
        if found and d is not None and pred(np.dtype(d)):
            return True
    return False


def _accumulator_ok(space: Space, acc: str, s: ast.Assign) -> None:
    found, value, _ = space.env.lookup(acc)
    if not found:
        raise Bail("accumulator undefined before the loop")
    if isinstance(value, np.ndarray) or (isinstance(value, Array) and value.ndim > 0):
        raise Bail("array accumulator")  # in place through views: keep the Loop
    if getattr(s.value, "pyonnx_inplace", None) is True and (
            isinstance(value, Array) and not value.weak or isinstance(value, np.generic)):
        # a 0-d array is written in place; a numpy scalar is rebound to the promoted result,
        # whose dtype may then depend on the trip count: the Loop lowering decides (or refuses)
        raise Bail("in-place update of a 0-d array or numpy scalar")


def _np_where(m: ast.expr, a: ast.expr, b: ast.expr) -> ast.expr:
    return call("where", m, a, b)


def _argext(s: ast.If, vz: Vectorizer, steps, counts) -> bool:
    """``if e > best: best = e; k = i`` (or ``<``; ``best < e``): the first arg-extremum."""
    t = s.test
    if s.orelse or not isinstance(t, ast.Compare) or len(t.ops) != 1:
        return False
    left, right, op = t.left, t.comparators[0], t.ops[0]
    if isinstance(right, ast.Name) and isinstance(op, (ast.Gt, ast.Lt)):
        best, e, kind = right.id, left, "max" if isinstance(op, ast.Gt) else "min"
    elif isinstance(left, ast.Name) and isinstance(op, (ast.Gt, ast.Lt)):
        best, e, kind = left.id, right, "min" if isinstance(op, ast.Gt) else "max"
    else:
        return False
    space = vz.space
    if len(space.vars) != 1 or best not in space.assigned:
        return False
    update = index_name = None
    for b in s.body:
        if not (isinstance(b, ast.Assign) and len(b.targets) == 1
                and isinstance(b.targets[0], ast.Name)):
            return False
        tgt = b.targets[0].id
        if tgt == best and ast.dump(b.value) == ast.dump(e):
            update = b
        elif isinstance(b.value, ast.Name) and space.var(b.value.id) and index_name is None:
            index_name = tgt
        else:
            return False
    if update is None or counts.get(best, 0) != 1 or best in uses(e) or \
            _reads_kind(space, e, "b") or \
            counts.get(("=", best)) != 1:
        return False
    if index_name is not None and (counts.get(index_name, 0) or index_name == best
                                   or counts.get(("=", index_name)) != 1):
        return False
    for n in (best, index_name):
        if n is not None and not space.env.lookup(n)[0]:
            raise Bail("arg-extremum names undefined before the loop")
    ev = vz.vec(e)
    if ev.axes != space.order() or ev.rank:
        raise Bail("arg-extremum of a value that does not vary with the loop")
    steps.append(Step("argext", best, value=ev, op=kind, extra=index_name))
    return True


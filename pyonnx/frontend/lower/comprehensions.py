"""Lowering of comprehensions and generator expressions.

Input: a ``ListComp``/``GeneratorExp``/``DictComp`` node (or one passed to ``sum``/``any``/
``all``). Output: a Python list (dict) of frontend values when every iterable and filter is known
at conversion time (the comprehension is unrolled), else the value of its loop form: the
statements ``r = []; for t in it: if c: r.append(e)`` (``r = start; ... r = r + e`` for ``sum``,
``r = r | bool(e)`` for ``any``), built once per node with fresh names for the comprehension
variables (they do not leak, as in Python 3) and lowered by the ordinary statement machinery,
so a run-time iterable is an ONNX ``Loop`` and a run-time filter an ``If`` building a run-time
list (a sequence).
"""

from __future__ import annotations

import ast
import builtins
import itertools
from typing import Any

from pyonnx.frontend.analysis import annotate_block
from pyonnx.frontend.canonicalize.templates import FLAG_PREFIX
from pyonnx.frontend.graph.iterables import DynamicIter
from pyonnx.frontend.graph.values import is_static
from pyonnx.frontend.lower.iteration import iterate

__all__ = ["comprehension", "REDUCTIONS"]

# builtin → (initial value, how an element updates the accumulator)
REDUCTIONS = {builtins.sum: "sum", builtins.any: "any", builtins.all: "all"}

_counter = itertools.count()


class _Dynamic(Exception):
    """An iterable or filter of the comprehension is only known at run time."""


def comprehension(lowering, node: ast.ListComp | ast.GeneratorExp | ast.DictComp,
                  kind: str = "list", start: Any = 0) -> tuple[bool, Any]:
    """Lowers ``node``; returns (reduced, value): ``reduced`` is True when ``kind`` ("sum",
    "any", "all") was applied by the loop form, False when ``value`` is the list (or dict)."""
    ctx = lowering.ctx
    # The unrolling may find a run-time iterable or filter after evaluating some items (whose
    # writes, through helpers, must not happen twice): every frame's bindings and the buffers'
    # contents are restored before the loop form runs.
    frames = [(f, dict(f.env.locals)) for f in ctx.frames]
    memory = dict(ctx.aliases.memory)
    env = lowering.env
    targets = {t.id for g in node.generators for t in ast.walk(g.target)
               if isinstance(t, ast.Name)}
    before = {n: env.locals[n] for n in targets if n in env.locals}
    out: list = []
    try:
        _unroll(lowering, node, 0, out)
    except _Dynamic:
        for f, saved in frames:
            f.env.locals = saved
        ctx.aliases.memory = memory
    else:
        for n in targets:  # comprehension variables do not leak (Python 3)
            env.locals.pop(n, None)
        env.locals.update(before)
        if isinstance(node, ast.DictComp):
            return False, _as_dict(lowering, out)
        return False, out
    if isinstance(node, ast.DictComp):
        raise lowering.ctx.error(
            "a dict comprehension over values only known at run time is not supported (its "
            "keys must be known at conversion time); iterate over a static range or list")
    return kind != "list", _loop_form(lowering, node, kind, start)


def _as_dict(lowering, pairs: list) -> dict:
    out = {}
    for k, v in pairs:
        if not is_static(k):
            raise lowering.ctx.error("a dict comprehension's keys must be known at conversion "
                                     "time (strings, ints); use an array for run-time keys")
        out[k] = v
    return out


def _unroll(lowering, node, i: int, out: list) -> None:
    gens = node.generators
    if i == len(gens):
        if isinstance(node, ast.DictComp):
            out.append((lowering.expr(node.key), lowering.expr(node.value)))
        else:
            out.append(lowering.expr(node.elt))
        return
    gen = gens[i]
    if gen.is_async:
        raise lowering.ctx.error("async comprehensions are not supported")
    items = iterate(lowering.ctx, lowering.expr(gen.iter))
    if isinstance(items, DynamicIter):
        raise _Dynamic()
    for item in items:
        lowering.assign(gen.target, item)
        ok = True
        for cond in gen.ifs:
            truth = lowering.static_truth(lowering.expr(cond))
            if truth is None:
                raise _Dynamic()
            if not truth:
                ok = False
                break
        if ok:
            _unroll(lowering, node, i + 1, out)


def _loop_form(lowering, node, kind: str, start: Any) -> Any:
    stmts, result, fresh = _statements(node, kind)
    env = lowering.env
    before = set(env.locals)
    env.bind(result, [] if kind == "list" else (start if kind == "sum" else kind == "all"))
    try:
        lowering.block(stmts)
        return env.locals[result]
    finally:
        for name in set(env.locals) - before:
            del env.locals[name]


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        new = self.names.get(node.id)
        return ast.copy_location(ast.Name(id=new, ctx=node.ctx), node) if new else node


def _statements(node, kind: str) -> tuple[list[ast.stmt], str, list[str]]:
    """The loop form of ``node`` (cached on it): statements, result name, fresh names."""
    cached = node.__dict__.get("_pyonnx_loop_" + kind)
    if cached is not None:
        return cached
    import copy

    n = next(_counter)
    result = f"{FLAG_PREFIX}comp{n}"
    names = {t.id: f"{FLAG_PREFIX}comp{n}_{t.id}" for g in node.generators
             for t in ast.walk(g.target) if isinstance(t, ast.Name)}
    rename = _Rename(names)
    elt = rename.visit(copy.deepcopy(node.elt))
    if kind == "list":
        call = ast.Call(func=ast.Attribute(value=ast.Name(id=result, ctx=ast.Load()),
                                           attr="append", ctx=ast.Load()),
                        args=[elt], keywords=[])
        call.pyonnx_append = True  # type: ignore[attr-defined]
        update: ast.expr = call
    elif kind == "sum":
        update = ast.BinOp(left=ast.Name(id=result, ctx=ast.Load()), op=ast.Add(), right=elt)
    else:
        truth = ast.Call(func=ast.Name(id="_pyonnx_bool", ctx=ast.Load()), args=[elt],
                         keywords=[])
        truth.pyonnx_truth = True  # type: ignore[attr-defined]
        update = ast.BinOp(left=ast.Name(id=result, ctx=ast.Load()),
                           op=ast.BitOr() if kind == "any" else ast.BitAnd(), right=truth)
    body: list[ast.stmt] = [ast.Assign(targets=[ast.Name(id=result, ctx=ast.Store())],
                                       value=update)]
    for i, gen in reversed(list(enumerate(node.generators))):
        for cond in reversed(gen.ifs):
            body = [ast.If(test=rename.visit(copy.deepcopy(cond)), body=body, orelse=[])]
        it = gen.iter if i == 0 else rename.visit(copy.deepcopy(gen.iter))
        body = [ast.For(target=rename.visit(copy.deepcopy(gen.target)), iter=it, body=body,
                        orelse=[])]
    for s in body:
        for sub in ast.walk(s):
            if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
                ast.copy_location(sub, node.elt if hasattr(node, "elt") else node)
    annotate_block(body, frozenset({result}))
    out = (body, result, list(names.values()))
    setattr(node, "_pyonnx_loop_" + kind, out)
    return out

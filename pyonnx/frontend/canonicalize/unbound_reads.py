"""Rewrite a statement that reads a local name no path has assigned yet as the ``raise`` Python runs.

Input: a FunctionDef. Output: the same, where a statement inside an ``if``/``for``/``while``
that reads (where it always evaluates) a local name that no path from the function's entry has
assigned before it is ``raise UnboundLocalError("cannot access local variable ...")``:

    if c:
        for _j, _w in pairs: ...
    else:
        t = _j * _w        # raise UnboundLocalError(...)

Python raises there only when the statement runs; numpy code that never takes that path is
valid. Left as it was, the lowering refused the whole function at conversion ("used before it is
assigned"); as a ``raise``, a run-time path that reaches it fails at the call, as in Python
(lower/checks.py), and a path known at conversion time still fails at conversion.

A statement at the top level of the body is left alone (it runs whenever the function gets
there: the lowering's message at the line is the better answer). Only reads Python always
evaluates count (not those in a conditional expression's branches, after the first operand of
``and``/``or``, or in lambdas and comprehensions), and a name counts as assigned after any
statement that may assign it (a loop body's names from the loop's start on), so a statement is
rewritten only where every path reaching it raises.

Requires: asserts (their ``if``/``raise``); runs before early_return (which makes a ``raise``
leave the function) and before the passes that add names of their own.
"""

from __future__ import annotations

import ast

from pyonnx.frontend.canonicalize.templates import located

__all__ = ["transform"]


def _stored(nodes: list[ast.AST]) -> set[str]:
    """Names any of ``nodes`` may bind in this scope (not in nested functions' scopes)."""
    out: set[str] = set()
    todo = list(nodes)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
            continue
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                          ast.GeneratorExp)):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        elif isinstance(n, ast.NamedExpr):
            out.add(n.target.id)
        todo.extend(ast.iter_child_nodes(n))
    return out


def _declared(tree: ast.FunctionDef) -> set[str]:
    """Names a ``global`` or ``nonlocal`` statement of this scope declares."""
    out: set[str] = set()
    todo = list(tree.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            out |= set(n.names)
        todo.extend(ast.iter_child_nodes(n))
    return out


def _reads(node: ast.AST) -> list[str]:
    """Names ``node`` reads where Python always evaluates them, in order."""
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return []
    if isinstance(node, ast.Name):
        return [node.id] if isinstance(node.ctx, ast.Load) else []
    if isinstance(node, ast.IfExp):
        return _reads(node.test)
    if isinstance(node, ast.BoolOp):
        return _reads(node.values[0])
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return [node.target.id, *_reads(node.value)]
    return [r for child in ast.iter_child_nodes(node) for r in _reads(child)]


def _head(stmt: ast.stmt) -> list[ast.AST]:
    """The parts of ``stmt`` that run every time the statement does (a compound statement's
    test or iterable; a simple statement whole)."""
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, ast.For):
        return [stmt.iter]
    if isinstance(stmt, (ast.Try, ast.With, ast.AsyncWith, ast.AsyncFor, ast.Match,
                         ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    return [stmt]


class _Rewriter:
    def __init__(self, locals_: set[str]):
        self.locals = locals_

    def block(self, stmts: list[ast.stmt], assigned: set[str], nested: bool) -> set[str]:
        """Rewrites ``stmts`` in place; returns the names that may be assigned after them."""
        for k, stmt in enumerate(stmts):
            unbound = next((n for part in _head(stmt) for n in _reads(part)
                            if n in self.locals and n not in assigned), None)
            if unbound is not None and nested:
                stmts[k] = _raise(stmt, unbound)
                continue
            assigned = self.stmt(stmt, assigned)
        return assigned

    def stmt(self, stmt: ast.stmt, assigned: set[str]) -> set[str]:
        if isinstance(stmt, ast.If):
            return self.block(stmt.body, set(assigned), True) | \
                self.block(stmt.orelse, set(assigned), True)
        if isinstance(stmt, (ast.For, ast.While)):
            # from the second iteration on, whatever the body binds may be bound
            inside = assigned | _stored(stmt.body) | _stored([getattr(stmt, "target", stmt)])
            self.block(stmt.body, set(inside), True)
            return self.block(stmt.orelse, set(inside), True)
        return assigned | _stored([stmt])


def _raise(stmt: ast.stmt, name: str) -> ast.stmt:
    message = f"cannot access local variable '{name}' where it is not associated with a value"
    exc = ast.Call(func=ast.Name(id="UnboundLocalError", ctx=ast.Load()),
                   args=[ast.Constant(message)], keywords=[])
    return located([ast.Raise(exc=exc, cause=None)], stmt)[0]


def transform(tree: ast.FunctionDef) -> ast.FunctionDef:
    a = tree.args
    params = {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    params |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
    locals_ = (_stored(tree.body) | params) - _declared(tree)
    _Rewriter(locals_).block(tree.body, params, False)
    return tree

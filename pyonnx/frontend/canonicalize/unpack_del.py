"""Rewrite item assignments inside unpacking targets, and ``del name``.

Input: a FunctionDef. Output: the same, where

* ``A[0], A[1] = A[1], A[0]`` (an unpacking target holding subscripts, a tuple or list of the
  same length on the right) is ``_t = (A[1], A[0]); A[0] = _t[0]; A[1] = _t[1]``: Python
  evaluates the right side first (numpy: rows are views, elements copies) and then assigns
  left to right; the setitem pass then rewrites each item assignment;
* ``del y`` is ``y = <deleted>()`` (a call marked ``pyonnx_deleted``): later reads of ``y`` are
  errors as in Python (NameError), and liveness sees the name's value end.

Requires: nothing; runs before setitem.
"""

from __future__ import annotations

import ast
import itertools

from pyonnx.frontend.canonicalize.templates import FLAG_PREFIX

__all__ = ["UnpackDelTransformer", "transform"]


def _located(node: ast.AST, origin: ast.AST) -> ast.AST:
    for n in ast.walk(node):
        if "lineno" in n._attributes and getattr(n, "lineno", None) is None:
            ast.copy_location(n, origin)
    return node


class UnpackDelTransformer(ast.NodeTransformer):
    def __init__(self):
        self._ids = itertools.count(1)

    def visit_Assign(self, node: ast.Assign) -> ast.stmt | list[ast.stmt]:
        if len(node.targets) != 1:
            return node
        target, value = node.targets[0], node.value
        pair = (ast.Tuple, ast.List)
        if not (isinstance(target, pair) and isinstance(value, pair)
                and len(target.elts) == len(value.elts)
                and any(isinstance(t, ast.Subscript) for t in target.elts)
                and not any(isinstance(e, ast.Starred) for e in target.elts + value.elts)):
            return node
        temp = f"{FLAG_PREFIX}unpack_{next(self._ids)}"
        out: list[ast.stmt] = [_located(ast.Assign(
            targets=[ast.Name(id=temp, ctx=ast.Store())],
            value=ast.Tuple(elts=value.elts, ctx=ast.Load())), node)]
        for i, t in enumerate(target.elts):
            item = ast.Subscript(value=ast.Name(id=temp, ctx=ast.Load()),
                                 slice=ast.Constant(i), ctx=ast.Load())
            out.append(_located(ast.Assign(targets=[t], value=_located(item, t)), t))
        return out

    def visit_Delete(self, node: ast.Delete) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for t in node.targets:
            # (other targets are refused by the syntax check)
            call = ast.Call(func=ast.Name(id="_pyonnx_deleted", ctx=ast.Load()), args=[],
                            keywords=[])
            call.pyonnx_deleted = t.id  # type: ignore[attr-defined]
            out.append(_located(ast.Assign(targets=[ast.Name(id=t.id, ctx=ast.Store())],
                                           value=call), t))
        return out


def transform(tree: ast.FunctionDef) -> ast.FunctionDef:
    return UnpackDelTransformer().visit(tree)

"""Rewrite ``lst.append(v)`` statements into the rebinding ``lst = lst.append(v)``.

Input: a FunctionDef. Output: the same with each expression statement ``name.append(value)``
replaced by an assignment to ``name`` whose call is marked ``pyonnx_append``: liveness then
sees a new definition of the list, so a list appended to in a loop or a run-time branch becomes
loop state or an ``If`` output (an ONNX sequence when its length varies). The lowering of a
marked call returns the list after the append (:func:`pyonnx.frontend.lower.appends.append`).
Requires: nothing.
"""

from __future__ import annotations

import ast

__all__ = ["ListAppendTransformer", "transform"]


class ListAppendTransformer(ast.NodeTransformer):
    def visit_Expr(self, node: ast.Expr) -> ast.stmt:
        call = node.value
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "append" and isinstance(call.func.value, ast.Name)
                and len(call.args) == 1 and not call.keywords):
            call.pyonnx_append = True  # type: ignore[attr-defined]
            target = ast.Name(id=call.func.value.id, ctx=ast.Store())
            return ast.copy_location(ast.Assign(targets=[ast.copy_location(target, node)],
                                                value=call), node)
        return node


def transform(tree: ast.FunctionDef) -> ast.FunctionDef:
    return ListAppendTransformer().visit(tree)

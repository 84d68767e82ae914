"""Rewrite augmented assignments ``x op= v`` into ``x = x op v``.

Input: a FunctionDef. Output: the same with no ``ast.AugAssign`` left. The new ``BinOp`` is
marked ``pyonnx_inplace = True``: numpy's in-place operators keep the target's dtype (and refuse
a result they cannot cast back to it under ``same_kind``), which the lowering enforces. A
subscript target ``x[i] += v`` becomes ``x[i] = x[i] + v``; its index expression is evaluated
twice, which is safe because index expressions in converted code have no side effects.
Requires: nothing.
"""

from __future__ import annotations

import ast
import copy

__all__ = ["AugAssignTransformer", "transform"]


class AugAssignTransformer(ast.NodeTransformer):
    """Replaces each AugAssign with an Assign carrying the same location."""

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.Assign:
        load_target = copy.deepcopy(node.target)
        for n in ast.walk(load_target):
            if hasattr(n, "ctx"):
                n.ctx = ast.Load()
        value = ast.BinOp(left=load_target, op=node.op, right=node.value)
        # numpy's in-place rule; a subscript target reads x[i], which for a single element is
        # a numpy scalar (no in-place cast check: the store casts), else a view (checked).
        value.pyonnx_inplace = "subscript" if isinstance(node.target, ast.Subscript) \
            else True  # type: ignore[attr-defined]
        assign = ast.Assign(targets=[node.target], value=value)
        for n in (value, assign):
            ast.copy_location(n, node)
        return assign


def transform(tree: ast.FunctionDef) -> ast.FunctionDef:
    return AugAssignTransformer().visit(tree)

"""Small AST templates for the canonicalization passes (after AutoGraph's ``pyct/templates``).

Input: a Python statement or expression written as text, with names to substitute by AST nodes
or other names. Output: fresh AST nodes with no location (the caller copies one from the node
it replaces, :func:`located`).
"""

from __future__ import annotations

import ast
import copy
from typing import Any

__all__ = ["statements", "expression", "located", "FLAG_PREFIX"]

# Names of the variables the passes introduce: no user code spells these.
FLAG_PREFIX = "_pyonnx_"


class _Substitute(ast.NodeTransformer):
    def __init__(self, replacements: dict[str, Any]):
        self.replacements = replacements

    def visit_Name(self, node: ast.Name) -> ast.AST:
        new = self.replacements.get(node.id)
        if new is None:
            return node
        if isinstance(new, str):
            return ast.Name(id=new, ctx=node.ctx)
        return copy.deepcopy(new)


def statements(text: str, **replacements: Any) -> list[ast.stmt]:
    """The statements of ``text`` with each name in ``replacements`` substituted (a str renames,
    an AST expression is inserted)."""
    tree = _unlocated(ast.parse(text))
    return [_Substitute(replacements).visit(s) for s in tree.body]


def expression(text: str, **replacements: Any) -> ast.expr:
    """The expression ``text`` with names substituted as in :func:`statements`."""
    return _Substitute(replacements).visit(_unlocated(ast.parse(text, mode="eval")).body)


def _unlocated(tree: ast.AST) -> Any:
    """The template's own nodes lose their (template-relative) locations."""
    for n in ast.walk(tree):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(n, attr):
                delattr(n, attr)
    return tree


def located(nodes: list[ast.AST], origin: ast.AST) -> list[Any]:
    """``nodes`` with every node lacking a location given ``origin``'s (errors then point at the
    construct the node replaces)."""
    for n in nodes:
        for sub in ast.walk(n):
            if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
                ast.copy_location(sub, origin)
    return nodes

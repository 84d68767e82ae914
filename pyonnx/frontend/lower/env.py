"""The environment: Python names → frontend values (static Python values or Arrays).

One :class:`Env` per function body being lowered (the converted function and each inlined
helper). Free names resolve as Python resolves them: closure cells, then module globals, then
builtins. A name the function assigns anywhere is local, so reading it before its assignment is
an error, as Python's UnboundLocalError is.
"""

from __future__ import annotations

import ast
from typing import Any

from pyonnx.frontend.graph.values import Undefined
from pyonnx.frontend.source import FunctionSource

__all__ = ["Env", "assigned_names"]


def assigned_names(tree: ast.FunctionDef) -> frozenset[str]:
    """Every name the function body binds (its locals), parameters included."""
    names = {a.arg for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and \
                not node.__dict__.get("pyonnx_setitem_root"):
            names.add(node.id)
    return frozenset(names)


class Env:
    """Names of one function body.

    Attributes:
        src: the function whose free names this environment resolves.
        locals: name → value for names bound so far.
    """

    def __init__(self, src: FunctionSource, local_names: frozenset[str]):
        self.src = src
        self.locals: dict[str, Any] = {}
        self._local_names = local_names

    def bind(self, name: str, value: Any) -> None:
        self.locals[name] = value

    def lookup(self, name: str) -> tuple[bool, Any, str]:
        """Returns (found, value, why-not) for ``name``."""
        if name in self.locals:
            value = self.locals[name]
            if isinstance(value, Undefined):
                return False, None, value.message
            return True, value, ""
        if name in self._local_names:
            return False, None, (f"local variable '{name}' is used before it is assigned "
                                 "(Python raises UnboundLocalError here)")
        found, value = self.src.resolve_free(name)
        if found:
            return True, value, ""
        return False, None, f"name '{name}' is not defined"

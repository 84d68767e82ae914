"""AST → AST canonicalization passes, one construct per module, each with ``transform(tree)``.

They run in the order of :data:`PASSES` on a copy of the function's AST, before any analysis or
lowering; each keeps every node's absolute source location (copied from the node it replaces).
"""

from __future__ import annotations

import ast
import copy

from pyonnx.frontend.canonicalize import augassign

__all__ = ["canonicalize", "PASSES"]

# Order: augmented assignment first, so later passes (SetItem, control flow) see plain
# assignments only.
PASSES = (augassign,)


def canonicalize(tree: ast.FunctionDef) -> ast.FunctionDef:
    """Runs every canonicalization pass on a deep copy of ``tree`` and returns the copy."""
    tree = copy.deepcopy(tree)
    for p in PASSES:
        tree = p.transform(tree)
    return tree

"""AST → AST canonicalization passes, one construct per module, each with ``transform(tree)``.

They run in the order of :data:`PASSES` on a copy of the function's AST, before any analysis or
lowering; each keeps every node's absolute source location (copied from the node it replaces).
"""

from __future__ import annotations

import ast

from pyonnx.frontend.canonicalize import (asserts, augassign, break_continue, early_return,
                                          imports_contexts, list_append, local_functions,
                                          setitem, unbound_reads, unpack_del)

__all__ = ["canonicalize", "PASSES"]

# Order: nested functions and lambdas are lifted first, so every later pass sees one function
# body at a time (each nested body is canonicalized on its own); imports and 'with' blocks become
# plain statements before any pass looks at blocks; item assignments in unpacking targets become
# single ones before augassign and setitem; augmented assignment first, so later passes see
# plain assignments only; break/continue before early return, whose loop tests combine with the
# break flags (as AutoGraph orders them). 'assert' becomes if/raise before early_return, which
# makes a 'raise' leave the function as a 'return' does; a read of a name no path has assigned
# becomes the 'raise' Python runs there (unbound_reads) once asserts are if/raise, while the
# names are still the user's.
# x[i] = v becomes a rebinding of x after augassign made x[i] += v a plain assignment.
PASSES = (local_functions, imports_contexts, asserts, unbound_reads, unpack_del, augassign,
          setitem, list_append, break_continue, early_return)


def canonicalize(tree: ast.FunctionDef) -> ast.FunctionDef:
    """Runs every canonicalization pass on ``tree``, in place, and returns it.

    The caller owns the tree (``prepare`` parses one per function and keeps only the canonical
    form): a deep copy here cost more than parsing the source again (~560 µs of a cold
    conversion).
    """
    for p in PASSES:
        tree = p.transform(tree)
    for nested in tree.__dict__.get("pyonnx_lifted", ()):  # each nested body on its own
        canonicalize(nested)
    return tree

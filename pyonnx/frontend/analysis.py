"""Structural liveness on a canonical function AST (onnxscript's ``_internal/analysis.py``).

Input: a canonicalized FunctionDef (no ``break``/``continue``, one final ``return``). Output:
annotations on its control-flow statements, which the lowering reads to choose ``If`` outputs
and ``Loop`` state:

* ``If``, ``For`` and ``While`` nodes get ``pyonnx_live_out``: the names read after the
  statement before being assigned again;
* ``For`` and ``While`` nodes get ``pyonnx_live_iter`` (the names live at the end of the body,
  i.e. at the loop header: read by the next iteration, the test, or after the loop) and
  ``pyonnx_assigned`` (the names the body assigns).

An ``If``'s outputs are ``assigned ∩ pyonnx_live_out``; a loop's state is
``pyonnx_assigned ∩ pyonnx_live_iter``. No control-flow graph is needed once the jumps are
flags: liveness is a recursion over statements with a fixed point for loops.
Requires: every canonicalization pass.
"""

from __future__ import annotations

import ast
from functools import reduce

__all__ = ["annotate_liveness", "annotate_block", "uses", "assigned"]

_EMPTY: frozenset[str] = frozenset()


def uses(node: ast.AST | None) -> frozenset[str]:
    """Names an expression (or statement) reads; comprehension variables excluded."""
    if node is None:
        return _EMPTY
    loads: set[str] = set()
    local: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loads.add(n.id)
        elif isinstance(n, ast.comprehension):
            local |= {t.id for t in ast.walk(n.target) if isinstance(t, ast.Name)}
    return frozenset(loads - local)


def assigned(stmts: list[ast.stmt] | ast.AST) -> frozenset[str]:
    """Names bound anywhere in ``stmts`` (nested blocks included, comprehensions excluded)."""
    nodes = stmts if isinstance(stmts, list) else [stmts]
    names: set[str] = set()
    for s in nodes:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
            elif isinstance(n, ast.comprehension):
                names -= {t.id for t in ast.walk(n.target) if isinstance(t, ast.Name)}
    return frozenset(names)


def _target_names(target: ast.expr) -> frozenset[str]:
    return frozenset(n.id for n in ast.walk(target)
                     if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))


def _target_uses(target: ast.expr) -> frozenset[str]:
    """Names a target reads (the base and index of ``x[i] = v``, the object of ``o.a = v``)."""
    return uses(target)


def annotate_liveness(tree: ast.FunctionDef) -> ast.FunctionDef:
    """Annotates ``tree``'s control-flow statements in place (see the module docstring)."""
    _block(tree.body, _EMPTY)
    return tree


def annotate_block(stmts: list[ast.stmt], live_out: frozenset[str]) -> list[ast.stmt]:
    """Annotates statements lowered on their own (a comprehension's loop form) whose names
    ``live_out`` are read after them."""
    _block(stmts, live_out)
    return stmts


def _block(stmts: list[ast.stmt], live: frozenset[str]) -> frozenset[str]:
    for s in reversed(stmts):
        live = _stmt(s, live)
    return live


def _stmt(s: ast.stmt, live: frozenset[str]) -> frozenset[str]:
    if isinstance(s, ast.Assign):
        defs = reduce(frozenset.union, (_target_names(t) for t in s.targets), _EMPTY)
        reads = reduce(frozenset.union, (_target_uses(t) for t in s.targets), _EMPTY)
        return (live - defs) | reads | uses(s.value)
    if isinstance(s, ast.AnnAssign):
        if s.value is None:
            return live
        return (live - _target_names(s.target)) | _target_uses(s.target) | uses(s.value)
    if isinstance(s, ast.Return):
        return uses(s.value)
    if isinstance(s, ast.Raise):
        return uses(s.exc) | uses(s.cause)
    if isinstance(s, ast.If):
        s.pyonnx_live_out = live  # type: ignore[attr-defined]
        return uses(s.test) | _block(s.body, live) | _block(s.orelse, live)
    if isinstance(s, ast.While):
        s.pyonnx_live_out = live  # type: ignore[attr-defined]
        s.pyonnx_assigned = assigned(s.body)  # type: ignore[attr-defined]
        exit_live = _block(s.orelse, live) | uses(s.test)
        header = exit_live
        while True:
            new = exit_live | _block(s.body, header)
            if new == header:
                break
            header = new
        s.pyonnx_live_iter = header  # type: ignore[attr-defined]
        return header
    if isinstance(s, ast.For):
        s.pyonnx_live_out = live  # type: ignore[attr-defined]
        s.pyonnx_assigned = assigned(s.body)  # type: ignore[attr-defined]
        targets = _target_names(s.target)
        extra = uses(getattr(s, "pyonnx_extra_test", None))
        exit_live = _block(s.orelse, live) | extra
        header = exit_live
        while True:
            new = exit_live | (_block(s.body, header) - targets) | _target_uses(s.target)
            if new == header:
                break
            header = new
        s.pyonnx_live_iter = header  # type: ignore[attr-defined]
        return header | uses(s.iter)
    # Expression statements, assert, pass, ...: reads only.
    return live | uses(s)

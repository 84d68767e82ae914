"""Rewrite ``break`` and ``continue`` into control flags (AutoGraph's ``break_statements`` and
``continue_statements``).

Input: a FunctionDef with no AugAssign. Output: the same with no ``break``/``continue``:

* ``continue`` becomes ``_pyonnx_continue_N = True``; the flag is reset at the top of each
  iteration and the statements that follow a possible ``continue`` in the body run under
  ``if not _pyonnx_continue_N:``.
* ``break`` becomes ``_pyonnx_break_N = True`` with the same guarding; the flag is set False
  before the loop and the loop stops when it is set: a ``while`` loop's test becomes
  ``not _pyonnx_break_N and (test)``, a ``for`` loop gets the attribute ``pyonnx_extra_test``
  (an expression checked before each iteration, as AutoGraph's ``extra_test``).
* a loop's ``else`` clause runs after the loop under ``if not _pyonnx_break_N:`` (Python runs
  it when the loop was not left by ``break``).

With conversion-time conditions the flags are Python bools and every guard folds away; with
run-time conditions they become graph values and the guards become ``If`` nodes.
Requires: augassign. Nested loops are rewritten innermost first.
"""

from __future__ import annotations

import ast
import itertools

from pyonnx.frontend.canonicalize.templates import FLAG_PREFIX, expression, located, statements

__all__ = ["BreakContinueTransformer", "transform", "add_extra_test"]


def _jumps(stmts: list[ast.stmt], kind: type) -> bool:
    """Whether ``stmts`` contain a ``kind`` (Break/Continue) of the loop they belong to (nested
    loops' own jumps do not count)."""
    for s in stmts:
        if isinstance(s, kind):
            return True
        if isinstance(s, ast.If) and (_jumps(s.body, kind) or _jumps(s.orelse, kind)):
            return True
        if isinstance(s, (ast.For, ast.While)) and _jumps(s.orelse, kind):
            return True  # a loop's else clause belongs to the enclosing loop
    return False


def guard(stmts: list[ast.stmt], kind: type, flag: str) -> list[ast.stmt]:
    """``stmts`` with each ``kind`` jump replaced by ``flag = True`` and everything after a
    possible jump run only while the flag is not set."""
    out: list[ast.stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, kind):
            out.extend(located(statements(f"{flag} = True"), s))
            return out  # the rest of the block is unreachable
        if isinstance(s, ast.If) and (_jumps(s.body, kind) or _jumps(s.orelse, kind)):
            s.body = guard(s.body, kind, flag) or located([ast.Pass()], s)
            s.orelse = guard(s.orelse, kind, flag)
        elif isinstance(s, (ast.For, ast.While)) and _jumps(s.orelse, kind):
            s.orelse = guard(s.orelse, kind, flag)
        else:
            out.append(s)
            continue
        out.append(s)
        rest = stmts[i + 1:]
        if rest:
            body = guard(rest, kind, flag)
            out.extend(located(statements(f"if not {flag}:\n    pass"), rest[0]))
            out[-1].body = body
        return out
    return out


def add_extra_test(loop: ast.For | ast.While, test: ast.expr) -> None:
    """Makes ``loop`` stop as soon as ``test`` is false (checked before each iteration)."""
    if isinstance(loop, ast.While):
        loop.test = located([ast.BoolOp(op=ast.And(), values=[test, loop.test])], loop.test)[0]
    else:
        old = getattr(loop, "pyonnx_extra_test", None)
        loop.pyonnx_extra_test = test if old is None else located(  # type: ignore[attr-defined]
            [ast.BoolOp(op=ast.And(), values=[test, old])], loop)[0]


class BreakContinueTransformer(ast.NodeTransformer):
    """Rewrites the jumps of each loop; single use (numbers flags per function)."""

    def __init__(self):
        self._ids = itertools.count(1)

    def _loop(self, node: ast.For | ast.While) -> list[ast.stmt]:
        self.generic_visit(node)  # inner loops first: their jumps are theirs
        before: list[ast.stmt] = []
        after: list[ast.stmt] = []
        if _jumps(node.body, ast.Continue):
            flag = f"{FLAG_PREFIX}continue_{next(self._ids)}"
            node.body = located(statements(f"{flag} = False"), node) + guard(
                node.body, ast.Continue, flag)
        if _jumps(node.body, ast.Break):
            flag = f"{FLAG_PREFIX}break_{next(self._ids)}"
            node.body = guard(node.body, ast.Break, flag) or located([ast.Pass()], node)
            before = located(statements(f"{flag} = False"), node)
            add_extra_test(node, located([expression(f"not {flag}")], node)[0])
            if node.orelse:
                guard_if = located(statements(f"if not {flag}:\n    pass"), node.orelse[0])[0]
                guard_if.body = node.orelse
                node.orelse = []
                after = [guard_if]
        return [*before, node, *after]

    visit_For = _loop
    visit_While = _loop


def transform(tree: ast.FunctionDef) -> ast.FunctionDef:
    return BreakContinueTransformer().visit(tree)

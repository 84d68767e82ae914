"""Rewrite early ``return`` statements into a return flag and a return value (AutoGraph's
``return_statements``).

Input: a FunctionDef with no ``break``/``continue`` (see :mod:`break_continue`). Output: when
the only ``return`` is the body's last statement, the tree unchanged; otherwise one whose only
``return`` is its last statement, ``return _pyonnx_retval``:

* ``return v`` becomes ``_pyonnx_return = True; _pyonnx_retval = v``;
* statements after one that may have returned run under ``if not _pyonnx_return:``;
* a loop containing a ``return`` stops once the flag is set (its test, or its
  ``pyonnx_extra_test``, gains ``not _pyonnx_return``);
* ``raise`` leaves the function too: ``raise E(...)`` is kept (the lowering records a check
  there, or refuses it at conversion time) and followed by ``_pyonnx_return = True`` (the
  return value stays unbound on that path: nothing reads it, the call raises);
* falling off the end returns None, as in Python (the lowering refuses a function that returns
  None on a path it cannot rule out at conversion time);
* statements after a ``while True:`` loop with no ``break`` are unreachable (the loop is left
  by ``return`` only) and are dropped.

Requires: break_continue (a loop's extra test is combined with the break flag's).
"""

from __future__ import annotations

import ast

from pyonnx.frontend.canonicalize.break_continue import add_extra_test
from pyonnx.frontend.canonicalize.templates import FLAG_PREFIX, expression, located, statements

__all__ = ["transform", "RETURN_FLAG", "RETURN_VALUE"]

RETURN_FLAG = f"{FLAG_PREFIX}return"
RETURN_VALUE = f"{FLAG_PREFIX}retval"


def _returns(stmts: list[ast.stmt]) -> bool:
    for s in stmts:
        if isinstance(s, (ast.Return, ast.Raise)):
            return True
        if isinstance(s, (ast.If, ast.For, ast.While)) and (
                _returns(s.body) or _returns(s.orelse)):
            return True
    return False


def _guard(stmts: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            value = s.value if s.value is not None else located([ast.Constant(None)], s)[0]
            new = located(statements(f"{RETURN_FLAG} = True\n{RETURN_VALUE} = value",
                                     value=value), s)
            out.extend(new)
            return out
        if isinstance(s, ast.Raise):
            out.append(s)
            out.extend(located(statements(f"{RETURN_FLAG} = True"), s))
            return out
        if not isinstance(s, (ast.If, ast.For, ast.While)) or not (
                _returns(s.body) or _returns(s.orelse)):
            out.append(s)
            continue
        if isinstance(s, ast.If):
            s.body = _guard(s.body) or located([ast.Pass()], s)
            s.orelse = _guard(s.orelse)
        else:
            loop_returns = _returns(s.body)
            # 'while True:' without 'break' is left by 'return' only: what follows it is
            # unreachable (no fall-off-the-end None joins the returned values).
            only_returns = (isinstance(s, ast.While) and isinstance(s.test, ast.Constant)
                            and s.test.value is True and loop_returns)
            s.body = _guard(s.body) or located([ast.Pass()], s)
            s.orelse = _guard(s.orelse)
            if loop_returns:
                add_extra_test(s, located([expression(f"not {RETURN_FLAG}")], s)[0])
                if s.orelse:  # a loop left by 'return' does not run its else clause
                    guard_if = located(statements(f"if not {RETURN_FLAG}:\n    pass"),
                                       s.orelse[0])[0]
                    guard_if.body = s.orelse
                    s.orelse = [guard_if]
        out.append(s)
        rest = stmts[i + 1:]
        if rest and not (isinstance(s, ast.While) and only_returns):
            guard_if = located(statements(f"if not {RETURN_FLAG}:\n    pass"), rest[0])[0]
            guard_if.body = _guard(rest)
            out.append(guard_if)
        return out
    return out


def _early_return(stmts: list[ast.stmt], last: bool) -> bool:
    """Whether ``stmts`` hold a ``return`` other than the function's final statement."""
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return) and not (last and i == len(stmts) - 1):
            return True
        if isinstance(s, (ast.If, ast.For, ast.While)) and (
                _early_return(s.body, False) or _early_return(s.orelse, False)):
            return True
    return False


def _mark_raise_guards(stmts: list[ast.stmt]) -> None:
    """Marks the ``if not _pyonnx_return:`` guards ``pyonnx_raise_guard``: only a ``raise``
    sets the flag in this function, so when it is set the call raises and nothing computed
    under the guard is seen (the lowering may then compute the guarded code without an If,
    control_flow/guards.py)."""
    for s in stmts:
        if isinstance(s, ast.If):
            t = s.test
            if (not s.orelse and isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not)
                    and isinstance(t.operand, ast.Name) and t.operand.id == RETURN_FLAG):
                s.pyonnx_raise_guard = True  # type: ignore[attr-defined]
        if isinstance(s, (ast.If, ast.For, ast.While)):
            _mark_raise_guards(s.body)
            _mark_raise_guards(s.orelse)


def transform(tree: ast.FunctionDef) -> ast.FunctionDef:
    raise_only = not _early_return(tree.body, True)
    tree = _transform(tree)
    if raise_only:
        _mark_raise_guards(tree.body)
    return tree


def _transform(tree: ast.FunctionDef) -> ast.FunctionDef:
    body = tree.body
    if not _returns(body[:-1]) and not (body and isinstance(body[-1], (ast.If, ast.For, ast.While))
                                        and _returns(body[-1:])):
        return tree  # at most a final return: nothing to rewrite
    end = body[-1]
    if not isinstance(end, ast.Return):
        # Falling off the end returns None.
        body = body + located([ast.Return(value=None)], end)
    tree.body = (located(statements(f"{RETURN_FLAG} = False"), body[0]) + _guard(body)
                 + located([ast.Return(value=ast.Name(id=RETURN_VALUE, ctx=ast.Load()))], end))
    return tree

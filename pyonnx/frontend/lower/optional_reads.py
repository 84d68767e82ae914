"""Reading a name that may still be None (graph/optional.Maybe, the "not found yet" sentinel).

Input: the FunctionLowering and the AST of the read. Output:
* ``best is None`` / ``best is not None`` → the 0-d bool ``not has`` / ``has``;
* in the operands that such a test guards (``best is None or v > best``, ``best is not None
  and ...``, the ``else`` of ``if best is None:``), the name is its number: Python only reads
  it there when it is not None, so no check is needed;
* the name returned as it is (``return best``, ``return best, i``; also through the early
  return's result name) → the Maybe itself: the model returns its flag and number, and the
  call gives None where the flag is False (frontend/convert.py ``("maybe", ...)``);
* any other read → the number, with a run-time check (checks.record_unless) that raises
  TypeError after the run where Python's value would have been None: Python raises
  TypeError when None meets an operator.
"""

from __future__ import annotations

import ast
import contextlib
from typing import Any, Iterator

import numpy as np

from pyonnx.frontend.graph.optional import Maybe
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import checks

__all__ = ["none_test", "read", "returned", "narrowed_by"]


def _test(lowering, node: ast.expr) -> tuple[str, bool] | None:
    """(name, True for ``is None`` / False for ``is not None``) when ``node`` tests a Maybe."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.Is, ast.IsNot))):
        return None
    left, right = node.left, node.comparators[0]
    if isinstance(left, ast.Constant) and left.value is None:
        left, right = right, left
    if not (isinstance(left, ast.Name) and isinstance(right, ast.Constant)
            and right.value is None):
        return None
    found, value, _ = lowering.env.lookup(left.id)
    if not (found and isinstance(value, Maybe)):
        return None
    return left.id, isinstance(node.ops[0], ast.Is)


def none_test(lowering, node: ast.Compare) -> Array | None:
    """The value of ``node`` when it is ``name is None`` / ``is not None`` on a Maybe."""
    test = _test(lowering, node)
    if test is None:
        return None
    maybe = lowering.env.lookup(test[0])[1]
    # (a Python bool, as Python's 'is' gives: weak)
    if test[1]:
        return Array(lowering.ctx.op("Not", maybe.has.value), np.dtype(np.bool_), (), weak=True)
    return Array(maybe.has.value, np.dtype(np.bool_), (), weak=True)


def read(lowering, node: ast.Name, value: Maybe) -> Array:
    """The number of ``value``, failing at run time (TypeError) where it is None."""
    checks.record_unless(
        lowering, value.has, node, TypeError,
        f"'{node.id}' is None here (pyonnx: it was bound to None and no number was bound to "
        f"it since; test 'if {node.id} is None:' before reading it as a number)")
    return value.value


def returned(lowering, node: ast.expr) -> Any:
    """The value of a returned expression (or of the early return's result), keeping a
    possibly-None name whole where it is the value or an item of a returned tuple/list."""
    if isinstance(node, ast.Name):
        found, value, _ = lowering.env.lookup(node.id)
        if found and isinstance(value, Maybe):
            return value
    elif isinstance(node, (ast.Tuple, ast.List)) and not any(
            isinstance(e, ast.Starred) for e in node.elts) and any(
            isinstance(e, ast.Name) and isinstance(lowering.env.lookup(e.id)[1], Maybe)
            for e in node.elts):
        items = [returned(lowering, e) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    return lowering.expr(node)


@contextlib.contextmanager
def narrowed_by(lowering, test: ast.expr, holds: bool) -> Iterator[None]:
    """While lowering code that runs only when ``test`` is ``holds``: if that means a Maybe
    name is not None, the name is its number (restored after, unless the code rebound it)."""
    found = _test(lowering, test)
    if found is None or found[1] == holds:
        yield
        return
    name = found[0]
    maybe = lowering.env.lookup(name)[1]
    lowering.env.bind(name, maybe.value)
    try:
        yield
    finally:
        if lowering.env.locals.get(name) is maybe.value:
            lowering.env.bind(name, maybe)


def plain(value: Any) -> bool:
    return not isinstance(value, Maybe)

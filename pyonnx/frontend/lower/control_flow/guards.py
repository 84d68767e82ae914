"""Run-time checks without ``If`` nodes: ``assert``/``raise`` sites and the code they guard.

An ``assert test, "message"`` is ``if not test: raise AssertionError("message")`` followed
(early_return) by ``_pyonnx_return = True`` and ``if not _pyonnx_return:`` around the rest of
the block: two ``If`` nodes, 1.3–2.6 µs each in onnxruntime (FACTS.md), per call or per loop
iteration. Two cheaper forms, each with Python's meaning:

* the **site**: ``if c: raise E("static message")`` records the check with ``Where`` nodes
  (fails where ``c`` and no earlier site failed, checks.py) and sets the return flag to
  ``flag or c``; no ``If`` (the message formats no run-time value, so nothing in the branch
  can fail or cost);
* the **guard**: in a function where only ``raise`` sets the flag (early_return marks such
  guards ``pyonnx_raise_guard``), a set flag means the call raises after the run and nothing
  computed under the guard is seen (results are dropped, arguments are not written back); the
  guarded code is then computed without the ``If`` when it cannot fail at run time or run
  long: its nodes are all unary math, reductions, casts and elementwise ops (no loop, no
  branch, no integer division; indexing only as the code before the guard already did it:
  ``x[i]`` read by the assert's test), and no check of the conversion may be about
  shapes (its condition reads no Shape/Size node; a ``raise`` lowered under an ``If`` counts
  as one): a failed shape check followed by a broadcasting op would otherwise give
  onnxruntime's failure instead of the check's exception.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from pyonnx.frontend.canonicalize.early_return import RETURN_FLAG
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import checks
from pyonnx.frontend.lower.control_flow.common import (
    _BOOL, Branch, changed_buffers, condition, outer_ids)

__all__ = ["raise_site", "inline_guard"]

# Ops that fail on no input value and no shape (not ReduceMax/ReduceMin: empty inputs fail).
_UNARY = frozenset({
    "Identity", "Cast", "Neg", "Abs", "Not", "Sign", "Floor", "Ceil", "Round", "IsNaN",
    "IsInf", "Exp", "Log", "Sqrt", "Tanh", "Sigmoid", "Relu", "Reciprocal", "Sin", "Cos",
    "Erf", "Softplus", "Shape", "Size", "ReduceSum", "ReduceMean", "ReduceProd", "ReduceL1",
    "ReduceL2", "ReduceSumSquare", "Constant", "BitwiseNot",
})
# Elementwise ops of several inputs: safe when the shapes agree statically (or are 0-d).
_ELEMENTWISE = frozenset({
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less", "LessOrEqual",
    "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Where", "BitwiseAnd", "BitwiseOr",
    "BitwiseXor",
})


def _static_message(exc: ast.expr | None) -> bool:
    if isinstance(exc, (ast.Name, ast.Attribute)):
        return True
    return (isinstance(exc, ast.Call) and isinstance(exc.func, (ast.Name, ast.Attribute))
            and not exc.keywords and len(exc.args) <= 1
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in exc.args))


def raise_site(lowering, node: ast.If, cond_value: Any) -> bool:
    """Lowers ``if c: raise E("...")`` (and early_return's flag assignment after it) on a
    run-time ``c`` as a check without ``If``; False (nothing done) for any other ``if``."""
    body = node.body
    if node.orelse or not body or not isinstance(body[0], ast.Raise) or len(body) > 2:
        return False
    raise_ = body[0]
    if raise_.cause is not None or not _static_message(raise_.exc):
        return False
    flag = body[1] if len(body) == 2 else None
    if flag is not None and not (
            isinstance(flag, ast.Assign) and len(flag.targets) == 1
            and isinstance(flag.targets[0], ast.Name) and flag.targets[0].id == RETURN_FLAG
            and isinstance(flag.value, ast.Constant) and flag.value.value is True):
        return False
    ctx = lowering.ctx
    values: list[Array] = []
    exception, message = checks._exception(lowering, raise_, values)
    bad = Array(condition(ctx, cond_value), _BOOL, ())
    checks._fail(lowering.ctx, id(raise_), exception, message, [], bad, lowering.loc_of(raise_))
    if _reads_shape(bad.value):
        setattr(ctx, SHAPE_CHECKS, True)
    if flag is not None:
        found, before, _ = lowering.env.lookup(RETURN_FLAG)
        if found and isinstance(before, Array):
            bad = Array(ctx.op("Or", before.value, bad.value), _BOOL, ())
        elif found and before is True:
            bad = True
        lowering.env.bind(RETURN_FLAG, bad)
    return True


def inline_guard(lowering, node: ast.If, then: Branch) -> bool:
    """Binds the lowered guarded block ``then`` as if it ran unconditionally, when ``node`` is
    a raise-only return guard and ``then`` cannot fail at run time (module docstring)."""
    ctx = lowering.ctx
    if not getattr(node, "pyonnx_raise_guard", False) or getattr(ctx, SHAPE_CHECKS, False) \
            or not _safe(then.nodes, ctx.nodes):
        return False
    ctx.nodes.extend(then.nodes)
    for frame, env in zip(ctx.frames, then.frames):
        frame.env.locals = env
    ctx.aliases.memory = then.memory
    return True


def _signature(n) -> tuple:
    return (n.op_type, n.domain, tuple(id(v) for v in n.inputs),
            tuple(sorted((k, repr(a.value)) for k, a in n.attributes.items())))


def _safe(nodes: list, before: list) -> bool:
    """Whether ``nodes`` cannot fail at run time: safe ops, or a node that computes what a node
    of the enclosing graph ``before`` already computed (``x[i]`` read by the assert's test)."""
    done = {_signature(n) for n in before if not n.op_type in ("Loop", "If", "Scan")}
    for n in nodes:
        if n.domain or n.op_type not in _UNARY and n.op_type not in _ELEMENTWISE:
            if _signature(n) in done:
                continue
            return False
        if n.op_type in ("Div", "Pow") and not (
                n.outputs[0].dtype is not None and n.outputs[0].dtype.is_floating_point()):
            return False  # (an integer division by zero would fail)
    return True


SHAPE_CHECKS = "_pyonnx_shape_checks"  # ctx attribute: some check may be about shapes


def _reads_shape(value, limit: int = 400) -> bool:
    """Whether ``value`` depends on a Shape or Size node (or on more nodes than ``limit``)."""
    seen: set[int] = set()
    todo = [value]
    while todo:
        node = todo.pop().producer()
        if node is None or id(node) in seen:
            continue
        if node.op_type in ("Shape", "Size") or len(seen) > limit:
            return True
        seen.add(id(node))
        todo.extend(v for v in node.inputs if v is not None)
    return False

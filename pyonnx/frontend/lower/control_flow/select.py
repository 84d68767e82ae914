"""Conditional expressions on run-time conditions (``a if c else b``, ``and``, ``or``).

Input: the condition's value and the two sides as callables (each lowered only on its path).
Output: the value of the side that runs. Short expressions whose sides cannot fail at run time
(comparisons and arithmetic, no indexing) are computed on both sides and selected with
``Where``: an ``If`` costs 1.3–2.6 µs in onnxruntime, more than the few nodes it would skip;
the others are an ``If`` (:func:`.branches.join_branches`).
"""

from __future__ import annotations

from typing import Any, Callable

import onnx_ir as ir

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import choices, memory_sharing
from pyonnx.frontend.lower.control_flow import complex_paths, path_types
from pyonnx.frontend.lower.control_flow.branches import join_branches
from pyonnx.frontend.lower.control_flow.join_memory import choose
from pyonnx.frontend.lower.control_flow.common import (
    _BOOL, changed_buffers, condition, join_or_error, lower_branch, outer_ids)
from pyonnx.frontend.lower.structure import Leaf, Static, leaf_plans, leaves_of, plan_of, rebuild

__all__ = ["select"]

# Ops that cannot fail at run time and have no effect but their output: a conditional
# expression made only of these is computed on both sides (see the module docstring).
_SPECULATABLE = frozenset({
    "Add", "Sub", "Mul", "Neg", "Abs", "Equal", "Less", "LessOrEqual", "Greater",
    "GreaterOrEqual", "Not", "And", "Or", "Xor", "Cast", "Identity", "Shape", "Size", "Where",
    "Max", "Min", "Sign", "Floor", "Ceil", "IsNaN", "IsInf", "Squeeze", "Unsqueeze", "Exp",
    "Sqrt", "Tanh", "Sigmoid", "Relu", "Reciprocal", "Round", "BitwiseAnd", "BitwiseOr",
    "BitwiseXor", "BitwiseNot",
})
_SPECULATE_MAX_NODES = 8


def select(lowering, cond_value: Any, then: Callable[[], Any], otherwise: Callable[[], Any],
           what: str) -> Any:
    """A conditional expression on a run-time condition: ``then()`` if it holds, else
    ``otherwise()``, each evaluated only on its path (``a if c else b``, ``and``, ``or``)."""
    ctx = lowering.ctx
    cond = condition(ctx, cond_value)
    a_branch = lower_branch(lowering, then)
    b_branch = lower_branch(lowering, otherwise)
    a, b = a_branch.result, b_branch.result
    writes = changed_buffers(ctx, [a_branch.memory, b_branch.memory], outer_ids(ctx))
    nodes = a_branch.nodes + b_branch.nodes
    if not writes and _speculatable(nodes):
        # Both sides are cheap and cannot fail: compute both, pick with Where (when the
        # shapes agree: Where would broadcast a scalar side to the other's shape).
        plan = join_or_error(lowering, what, plan_of(a), plan_of(b), "a conditional expression")
        leaves = leaf_plans(plan)
        if isinstance(plan, Static) or all(
                isinstance(p, Leaf) and None not in p.shape and
                _shape_of(x) == p.shape and _shape_of(y) == p.shape
                for p, x, y in zip(leaves, _flat(a), _flat(b))):
            ctx.nodes.extend(nodes)
            if isinstance(plan, Static):
                return plan.value
            picked = [kernels.where(ctx, Array(cond, _BOOL, ()), x, y).value
                      for x, y in zip(leaves_of(ctx, plan, a), leaves_of(ctx, plan, b))]
            value = rebuild(plan, iter(picked))
            path_types.mark(ctx, value, plan, (a, b), cond, what)
            # (a complex value that is a Python complex or a 0-d array on one side only;
            # both sides ran here, so their flags are readable)
            complex_paths.after_join(
                ctx, value, [a, b], lambda f: path_types.select_flag(ctx, cond, f[0], f[1]),
                what, lambda f: True,
                [cond, ctx.op("Not", cond)])
            if memory_sharing.shares_memory(ctx, a, None) or \
                    memory_sharing.shares_memory(ctx, b, None):
                # a view of a or of b, decided at run time
                outer = outer_ids(ctx)
                alts = (choices.alternative(ctx, a, None, a_branch.env, outer),
                        choices.alternative(ctx, b, None, b_branch.env, outer))
                # (both sides ran: an inner choice's conditions do not say which path did)
                choose(ctx, value, cond, alts if None not in alts and not any(
                    isinstance(a, choices.Nested) for a in alts) else None, sides=(a, b))
            return value
    return join_branches(lowering, cond, a_branch, b_branch, frozenset(),
                          ctx.loc.lineno if ctx.loc else 0, "expression", result=True)


def _flat(v: Any) -> list[Any]:
    if isinstance(v, (tuple, list, dict)):
        return [x for item in (v.values() if type(v) is dict else v) for x in _flat(item)]
    return [v]


def _shape_of(v: Any) -> tuple:
    return v.shape if isinstance(v, Array) else ()


def _speculatable(nodes: list[ir.Node]) -> bool:
    return len(nodes) <= _SPECULATE_MAX_NODES and all(
        n.op_type in _SPECULATABLE and not n.domain for n in nodes)

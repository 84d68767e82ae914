"""VJP rules: per ONNX op, the cotangents of its inputs from those of its outputs.

Input: the :class:`~pyonnx.passes.gradient.backward.Backward` builder ``b`` (``b.node`` is the
forward node, ``b.needs(i)`` says whether input i wants a cotangent), the node, and one
cotangent per output (``None`` = symbolic zero; at least one is not None). Output: one cotangent
per input (``None`` for zero or not needed), shaped like that input. Rules are direct VJPs (JAX
``interpreters/ad.py``'s transpose rules, written out), not JVP + transpose.

Every op a rule emits has a rule itself (or carries no float values), so gradient models can be
differentiated again. Rules only use ops onnxruntime's CPU provider runs in float16/32/64
(``Sinh``'s derivative is built from ``Exp``: there is no float64 ``Cosh``).

Registered with ``@vjp("Op", ...)``. Ops whose float outputs are locally constant in their
inputs (``Floor``, ``Ceil``, ``Round``, ``Sign``, ``EyeLike``...) are registered with
:func:`zero_vjp`: they stop the gradient. Ops with only integer or bool outputs (comparisons,
``Shape``, ``Size``, ``ArgMax``, ``NonZero``...) need no entry: the activity analysis never
gives them a cotangent. ``If`` and ``Loop`` are in :mod:`pyonnx.passes.gradient.control_flow`;
``Scan`` and the sequence ops have no rule (a missing rule is a ConversionError at the op's
line).

This module holds the tables and the decorators only: it imports no rule and no pass (the
rules in ``rules/`` and ``control_flow/`` import it; ``entry`` imports them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import onnx_ir as ir

__all__ = ["RULES", "COMPOSITE_RULES", "composite", "vjp", "zero_vjp"]

# Rules take the Backward builder first (not imported: this module stays under it).
Cts = Sequence[ir.Value | None]
Rule = Callable[[Any, ir.Node, Cts], Sequence[ir.Value | None]]

RULES: dict[str, Rule] = {}


def vjp(*op_types: str) -> Callable[[Rule], Rule]:
    """Registers a VJP rule for ONNX ops (default domain)."""

    def register(fn: Rule) -> Rule:
        for op in op_types:
            RULES[op] = fn
        return fn

    return register


def zero_vjp(*op_types: str) -> None:
    """Registers ops whose derivative is zero wherever it exists (they stop the gradient)."""
    for op in op_types:
        RULES[op] = lambda b, node, gs: [None] * len(node.inputs)


# ------------------------------------------------------------------ composite functions
# Nodes marked ``meta["pyonnx.derivative"] = (name, inputs)`` end a multi-node construction of
# a numpy function (the frontend's float64 math, built from many ops because onnxruntime lacks
# the kernel or is imprecise). The pass differentiates them as the function: ``rule(b, g, xs,
# y)`` gives the cotangents of ``xs``. Node by node, the branches a construction discards
# would turn into NaN (0 * inf) at points like arcsin'(0), and the backward pass would be
# hundreds of nodes.
CompositeRule = Callable[[Any, ir.Value, Sequence[ir.Value], ir.Value],
                         Sequence[ir.Value | None]]
COMPOSITE_RULES: dict[str, CompositeRule] = {}


def composite(*names: str) -> Callable[[CompositeRule], CompositeRule]:
    def register(fn: CompositeRule) -> CompositeRule:
        for name in names:
            COMPOSITE_RULES[name] = fn
        return fn

    return register

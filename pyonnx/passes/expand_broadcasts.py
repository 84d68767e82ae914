"""Row-vector broadcasts are expanded before the op: onnxruntime's general broadcast is slow.

Input: an ``ir.Model`` about to be serialized (an execution-only rewrite: run from
``pipeline.finish``, after differentiation and the idiom rewrites have seen the model).
Output: the same model where, in the main graph, a binary elementwise op (``Add``, ``Sub``,
``Mul``, ``Div``, comparisons, ``Max``/``Min`` of two...) whose operand ``m`` repeats along an
outer axis while its innermost dimensions vary (``img - mean`` with ``img`` (H, W, 3) and
``mean`` (3,); ``boxes * scale`` with (N, 4) and (4,); ``np.maximum(a[:, None, :2], b[None, :,
:2])``) reads ``Expand(m, Shape(x))`` instead, ``x`` being the other operand; likewise each
input of ``Where`` against another (``np.where(keep[None, :], x, fill)``: 3.9 ms for (50176,
3) with a (3,) operand, where the expanded form is a plain same-shape ``Where``).

Why: onnxruntime's CPU broadcast walks the output in spans of the innermost dimensions where
both operands vary alike, with a fixed cost per span (about 15 ns). ``m`` of shape (C,) against
(N, C) makes N spans of C elements; measured (float32, one thread): C = 3 at N = 50,176 took
867 µs against 25 µs for Expand + the same-shape op (numpy: 290 µs), C = 4 at N = 8,400 98 µs
against 7, C = 16 319 against 97, C = 64 270 against 208; C = 256 was faster direct (99
against 160). ``Expand`` itself copies such a row in doubling blocks (fast). So the rewrite is
made when the span (the product of ``m``'s innermost dimensions before a statically-1 one) is
at most :data:`SPAN_MAX`: at conversion time when those dimensions are known, else by the
Expand's target shape chosen at run time (``Where(span <= SPAN_MAX, Shape(x), 1...)``: a
target of ones leaves ``m`` as it is, and the op broadcasts it itself). The opposite pattern,
``m`` of shape (N, 1) against (N, C), is left alone: ``Expand`` is slow there too (measured 1.2
ms for (50176, 1) → (50176, 3)).

Exact: ``Expand(m, Shape(x))`` is numpy's broadcast of ``m`` against ``x``, whose shape is the
op's output shape, so the op reads the same operand values at every output position (and an
operand numpy cannot broadcast still fails, in the Expand, at the same source line: the new
nodes carry the op's name prefix, ``doc_string`` and location). Subgraphs (``Loop``/``If``/
``Scan`` bodies) are left alone: their arrays are small and every node costs per iteration.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import onnx_ir as ir

from pyonnx.passes.setitem_forms import Builder
from pyonnx.passes.static_dims import Dims, infer

__all__ = ["ExpandBroadcastsPass", "SPAN_MAX"]

logger = logging.getLogger(__name__)

SPAN_MAX = 64

_OPS = frozenset({"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "Equal", "Less",
                  "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor",
                  "BitwiseAnd", "BitwiseOr", "BitwiseXor", "PRelu"})
_LOC = "pyonnx.loc"


class ExpandBroadcastsPass(ir.passes.InPlacePass):
    """Expands row-vector operands of binary elementwise ops (module docstring)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        graph = model.graph
        nodes = [n for n in graph if n.domain in ("", "ai.onnx") and (
                 n.op_type in _OPS and len(n.inputs) == 2 or n.op_type == "Where")
                 and all(v is not None for v in n.inputs)]
        if not nodes:
            return ir.passes.PassResult(model, modified=False)
        dims = infer(graph)
        b = _Emit(model)
        count = 0
        for node in nodes:
            n = len(node.inputs)
            for k in range(n):  # (Where: each of its three inputs, against another)
                m = node.inputs[k]
                for j in range(n):
                    x = node.inputs[j]
                    plan = None if j == k else _plan(dims.get(id(m)), dims.get(id(x)))
                    if plan is not None:
                        node.replace_input_with(k, b.expanded(node, m, x, len(dims[id(x)]),
                                                              *plan))
                        count += 1
                        break
                if n == 2 and node.inputs[k] is not m:
                    break  # a binary op: its other operand is then not a row vector
        if count:
            logger.debug("expanded %d row-vector broadcast operands", count)
        return ir.passes.PassResult(model, modified=bool(count))


def _plan(m: Dims | None, x: Dims | None) -> tuple[int, bool] | None:
    """``(k, static)`` when ``m`` (against ``x``) is a row-vector broadcast worth expanding:
    ``k`` innermost dimensions of ``m`` not statically 1, then a statically-1 one where ``x``'s
    is not; ``static`` when their product is known (and at most SPAN_MAX). None otherwise."""
    if m is None or x is None or len(m) > len(x):
        return None
    rank = len(x)
    mp = (1,) * (rank - len(m)) + tuple(m)
    k = 0
    while k < rank and mp[rank - 1 - k] != 1:
        k += 1
    if k == 0 or k == rank or x[rank - 1 - k] == 1:
        return None
    tail_m, tail_x = mp[rank - k:], x[rank - k:]
    if any(d == 1 for d in tail_x):
        return None  # x repeats there itself: Expand(m) would not give it long spans
    if all(isinstance(d, int) for d in tail_m):
        span = math.prod(tail_m)
        return (k, True) if 1 < span <= SPAN_MAX else None
    return k, False


class _Emit:
    """Makes the new nodes (unique names; shared ``Shape(x)`` per value)."""

    def __init__(self, model: ir.Model):
        self.b = Builder(model)
        self.graph = model.graph
        self.shapes: dict[int, ir.Value] = {}  # Shape(x) per x
        self.small: dict[tuple[int, int], ir.Value] = {}  # the span test per (m, k)
        self.done: dict[tuple[int, int, int, bool], ir.Value] = {}  # the Expand per (m, x)

    def node(self, origin: ir.Node, op: str, inputs: list, attrs: list | None = None,
             dtype: ir.DataType | None = None) -> ir.Value:
        node = ir.Node("", op, inputs, attrs or [], num_outputs=1,
                       name=self.b.node_name(f"{origin.name or op}_{op}_broadcast"),
                       doc_string=origin.doc_string)
        if _LOC in origin.meta:
            node.meta[_LOC] = origin.meta[_LOC]
        out = node.outputs[0]
        out.name = self.b.value_name(f"{origin.outputs[0].name or 'v'}_{op.lower()}_broadcast")
        if dtype is not None:
            out.type = ir.TensorType(dtype)
        self.graph.insert_before(origin, node)
        return out

    def expanded(self, origin: ir.Node, m: ir.Value, x: ir.Value, rank: int, k: int,
                 static: bool) -> ir.Value:
        """``Expand(m, Shape(x))`` (``x`` of rank ``rank``), its target chosen at run time
        when the span of ``m``'s ``k`` innermost dimensions is not ``static``."""
        key = (id(m), id(x), k, static)
        if key in self.done:
            return self.done[key]
        i64 = ir.DataType.INT64
        shape_x = self.shapes.get(id(x))
        if shape_x is None:
            shape_x = self.shapes[id(x)] = self.node(origin, "Shape", [x], dtype=i64)
        target = shape_x
        if not static:
            # (one innermost dimension, the usual case: its (1,) shape is the span, compared
            # as it is; Where broadcasts the (1,) condition. A node less on tiny arrays.)
            small = self.small.get((id(m), k))
            if small is None:
                span = self.node(origin, "Shape", [m], [ir.AttrInt64("start", -k)], i64)
                if k > 1:
                    span = self.node(origin, "ReduceProd", [span],
                                     [ir.AttrInt64("keepdims", 0)], i64)
                small = self.small[(id(m), k)] = self.node(
                    origin, "LessOrEqual", [span, self.b.const(np.array(SPAN_MAX, np.int64))],
                    dtype=ir.DataType.BOOL)
            ones = self.b.const(np.ones(rank, np.int64))
            target = self.node(origin, "Where", [small, shape_x, ones], dtype=i64)
        out = self.done[key] = self.node(origin, "Expand", [m, target], dtype=m.dtype)
        return out

"""Matching helpers of the idiom rewrites (:mod:`pyonnx.passes.rewrite_idioms`): constants,
single uses, producers, reversed slices, and the replacement of a node by another.

Input: ``onnx_ir`` nodes and values of a model being rewritten. Output: facts about them, or
(:func:`_replace`) the graph with one node replaced.
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

_LOC = "pyonnx.loc"
_BIG = 2**62  # a Slice bound beyond any real length


def _const(value: ir.Value | None) -> np.ndarray | None:
    if value is None:
        return None
    tensor = value.const_value
    if tensor is None:
        producer = value.producer()
        if producer is not None and producer.op_type == "Constant" and producer.domain == "":
            attr = producer.attributes.get("value")
            if attr is not None and not attr.is_ref() and attr.type == ir.AttributeType.TENSOR:
                tensor = attr.as_tensor()
    return None if tensor is None else tensor.numpy()


def _only_use(value: ir.Value, node: ir.Node) -> bool:
    """``value`` is used by ``node`` alone (once) and is no graph output."""
    uses = list(value.uses())
    return len(uses) == 1 and uses[0].node is node and not value.is_graph_output()


def _producer(value: ir.Value | None, op: str) -> ir.Node | None:
    node = None if value is None else value.producer()
    if node is None or node.op_type != op or node.domain != "":
        return None
    return node


def _reversed_axes(node: ir.Node) -> tuple[int, ...] | None:
    """The axes a ``Slice`` reverses whole (step -1 from the end to before the start), or None
    when it does anything else. Axes are as written (possibly negative)."""
    if node.op_type != "Slice" or node.domain != "" or len(node.inputs) < 5:
        return None
    starts, ends, axes, steps = (_const(v) for v in node.inputs[1:5])
    if starts is None or ends is None or axes is None or steps is None:
        return None
    if not (np.all(steps == -1) and np.all((starts == -1) | (starts >= _BIG))
            and np.all(ends <= -_BIG)):
        return None
    return tuple(int(a) for a in axes)


def _rank(value: ir.Value | None) -> int | None:
    return None if value is None or value.shape is None else len(value.shape)


def _same_axes(a: tuple[int, ...], b: tuple[int, ...], rank: int | None) -> bool:
    if rank is None:
        return sorted(a) == sorted(b)
    return sorted(x % rank for x in a) == sorted(x % rank for x in b)


def _replace(old: ir.Node, op: str, inputs: list, attributes: list[ir.Attr]) -> ir.Node:
    """A node replacing ``old``'s single output (its name, location and doc string)."""
    new = ir.Node("", op, inputs, attributes, name=old.name, doc_string=old.doc_string)
    if _LOC in old.meta:
        new.meta[_LOC] = old.meta[_LOC]
    graph = old.graph
    assert graph is not None
    graph.insert_before(old, new)
    out, result = old.outputs[0], new.outputs[0]
    result.name, result.type, result.shape = out.name, out.type, out.shape
    out.replace_all_uses_with(result, replace_graph_outputs=True)
    out.name = None
    graph.remove(old, safe=True)
    return new


# Ops whose output has the element type of their first input (Where: of its second).
_SAME_DTYPE = frozenset({
    "Identity", "Slice", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Expand", "Flatten",
    "Gather", "GatherElements", "Concat", "Neg", "Abs", "Add", "Sub", "Mul", "Div", "Pow",
    "Max", "Min", "Relu", "Exp", "Log", "Sqrt", "Sin", "Cos", "Tanh", "Floor", "Ceil", "Round",
    "CumSum", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare"})


def _dtype(value: ir.Value | None, depth: int = 8) -> ir.DataType | None:
    """The element type of ``value``: its own, a constant's, a producing Cast's ``to``, else
    followed through ops that keep their input's type (intermediate values of the frontend
    carry no types; :data:`_SAME_DTYPE`), else None."""
    if value is None:
        return None
    if value.type is not None:
        return value.type.dtype
    if value.const_value is not None:
        return value.const_value.dtype
    node = value.producer()
    if node is None or node.domain not in ("", "ai.onnx") or depth == 0:
        return None
    if node.op_type == "Cast":
        return ir.DataType(node.attributes.get_int("to", 0))
    if node.op_type in _SAME_DTYPE and node.inputs:
        return _dtype(node.inputs[0], depth - 1)
    if node.op_type == "Where" and len(node.inputs) == 3:
        return _dtype(node.inputs[1], depth - 1)
    return None
    if value.type is not None:
        return value.type.dtype
    cast = _producer(value, "Cast")
    if cast is not None:
        return ir.DataType(cast.attributes.get_int("to", 0))
    return None

"""Column reads of an outer array inside a ``Loop`` body read rows of a transposed copy.

Input: an ``ir.Model`` (after ``HoistLoopInvariantsPass``). Output: the same model where, in
each ``Loop`` body, the ``Gather(X, k, axis=a)`` nodes with ``X`` defined outside the body, a
constant 0-d ``k``, ``a != 0`` and ``X``'s rank known, when the body reads at least two
different such ``k`` of one ``(X, a)``, read ``Gather(T, k, axis=0)`` with
``T = Transpose(X, perm)`` (axis ``a`` first, the others in their order) placed before the
``Loop``.

Why: onnxruntime's Gather along an inner axis copies element by element (``boxes[rest, 0]``
in an NMS loop is ``Gather(Gather(boxes, 0, axis=1), rest)``: about 3 µs per column of 1000
boxes on every iteration); the same column as a row of the transposed copy is one contiguous
copy. The Transpose runs once per run of the Loop node (it cannot fail, so it may run before
a loop that runs 0 times). Two reads at least: one column of a wide array is not worth a
copy of all of it.

Exact: ``Gather(Transpose(X, perm), k, axis=0)`` holds the elements of ``Gather(X, k, axis=a)``
in the same order and shape, and fails for the same ``k`` with the same message (axis ``a``'s
length is the first axis's now); the node keeps its name, whose ``_numpy_index_axis<a>``
suffix tells the runtime numpy's axis.
"""

from __future__ import annotations

import logging

import onnx_ir as ir

from pyonnx.passes.subgraph_walk import visit_innermost_first

__all__ = ["LoopColumnReadsPass"]

logger = logging.getLogger(__name__)


class LoopColumnReadsPass(ir.passes.InPlacePass):
    """Column Gathers of outer arrays in Loop bodies read a transposed copy (module
    docstring)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        count = visit_innermost_first(
            model.graph, lambda g, node: _loop(g, node) if node.op_type == "Loop" and
            node.domain in ("", "ai.onnx") else 0)
        if count:
            logger.debug("read %d loop column reads from transposed copies", count)
        return ir.passes.PassResult(model, modified=bool(count))


def _loop(graph: ir.Graph, loop: ir.Node) -> int:
    body = loop.attributes["body"].as_graph()
    inside: set[int] = {id(v) for v in body.inputs}
    for n in body:
        inside.update(id(o) for o in n.outputs)
    groups: dict[tuple[int, int], list[ir.Node]] = {}
    for n in body:
        if n.op_type != "Gather" or n.domain not in ("", "ai.onnx") or len(n.inputs) != 2:
            continue
        x, k = n.inputs
        if x is None or id(x) in inside or k is None or k.const_value is None:
            continue
        kv = k.const_value.numpy()
        rank = _rank(x)
        if kv.ndim != 0 or kv.dtype.kind not in "iu" or rank is None or rank < 2:
            continue
        attr = n.attributes.get("axis")
        a = 0 if attr is None or attr.is_ref() else int(attr.value)
        a = a + rank if a < 0 else a
        if 0 < a < rank:
            groups.setdefault((id(x), a), []).append(n)
    count = 0
    for (_, a), gathers in groups.items():
        if len({int(g.inputs[1].const_value.numpy()) for g in gathers}) < 2:
            continue
        x = gathers[0].inputs[0]
        rank = _rank(x)
        perm = [a] + [d for d in range(rank) if d != a]
        t = ir.Node("", "Transpose", [x], [ir.AttrInt64s("perm", perm)],
                    name=f"{gathers[0].name}_columns")
        t.outputs[0].name = f"{gathers[0].name}_columns"
        t.outputs[0].type = x.type
        graph.insert_before(loop, t)
        for g in gathers:
            g.replace_input_with(0, t.outputs[0])
            g.attributes["axis"] = ir.AttrInt64("axis", 0)
            count += 1
    return count


def _rank(value: ir.Value) -> int | None:
    if value.shape is not None:
        return len(value.shape)
    if value.const_value is not None:
        return len(value.const_value.shape)
    return None


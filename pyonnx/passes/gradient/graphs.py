"""Graph helpers of the gradient pass: the outer values a node's subgraphs capture, the inputs a
composite mark adds to a node, and every name in use (for fresh names)."""

from __future__ import annotations

import onnx_ir as ir

from pyonnx.passes.marks import DERIVATIVE, mark_inputs

__all__: list[str] = []

_DERIVATIVE = DERIVATIVE


def _mark_inputs(node: ir.Node) -> tuple[ir.Value, ...]:
    """The inputs of the numpy function a composite mark says ``node`` computes
    (:func:`pyonnx.passes.marks.mark_inputs`: () when unmarked or stale).

    The walk differentiates a marked node with respect to these, not its ONNX inputs, so they
    are edges of the graph for activity, captures and pruning: optimizations (loop-invariant
    hoisting, CSE with a value outside a branch) may leave a construction inside a Loop or If
    body that no longer reads its argument directly, only values computed from it outside.
    Without these edges the body would not capture the argument and its gradient was dropped.
    """
    return mark_inputs(node)


def _inputs(node: ir.Node) -> tuple[ir.Value, ...]:
    """``node``'s inputs (omitted ones left out) and its composite mark's inputs."""
    return (*(v for v in node.inputs if v is not None), *_mark_inputs(node))


def _captures(node: ir.Node) -> list[ir.Value]:
    """Outer values the node's subgraphs use (implicit inputs), in first-use order."""
    found: dict[ir.Value, None] = {}

    def walk(graph: ir.Graph, defined: set[ir.Value]) -> None:
        defined = defined | set(graph.inputs) | set(graph.initializers.values())
        for n in graph:
            for v in _inputs(n):
                if v not in defined:
                    found[v] = None
            for attr in n.attributes.values():
                if attr.type == ir.AttributeType.GRAPH:
                    walk(attr.value, defined)
                elif attr.type == ir.AttributeType.GRAPHS:
                    for sub in attr.value:
                        walk(sub, defined)
            defined |= set(n.outputs)

    for attr in node.attributes.values():
        if attr.type == ir.AttributeType.GRAPH:
            walk(attr.value, set())
        elif attr.type == ir.AttributeType.GRAPHS:
            for sub in attr.value:
                walk(sub, set())
    return list(found)


def _all_names(model: ir.Model) -> set[str]:
    names: set[str] = set(model.graph.initializers)
    for v in model.graph.inputs:
        names.add(v.name or "")
    for node in ir.traversal.RecursiveGraphIterator(model.graph):
        names.add(node.name or "")
        for v in node.outputs:
            names.add(v.name or "")
        for attr in node.attributes.values():
            graphs = [attr.value] if attr.type == ir.AttributeType.GRAPH else \
                list(attr.value) if attr.type == ir.AttributeType.GRAPHS else []
            for sub in graphs:
                names.update(v.name or "" for v in sub.inputs)
    return names

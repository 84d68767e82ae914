"""Graph helpers of the gradient pass: the outer values a node's subgraphs capture, whether a
value is still in the model, and every name in use (for fresh names)."""

from __future__ import annotations

import onnx_ir as ir

__all__: list[str] = []


def _captures(node: ir.Node) -> list[ir.Value]:
    """Outer values the node's subgraphs use (implicit inputs), in first-use order."""
    found: dict[ir.Value, None] = {}

    def walk(graph: ir.Graph, defined: set[ir.Value]) -> None:
        defined = defined | set(graph.inputs) | set(graph.initializers.values())
        for n in graph:
            for v in n.inputs:
                if v is not None and v not in defined:
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


def _alive(v: ir.Value) -> bool:
    """Whether ``v`` is still a value of the model (optimizations may have replaced it): made
    by a node in a graph (this one or an enclosing one), or a graph input or initializer."""
    producer = v.producer()
    if producer is not None:
        return producer.graph is not None
    return v.is_graph_input() or v.is_initializer()


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

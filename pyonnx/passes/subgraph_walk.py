"""One walk over a graph and every graph nested in its control-flow nodes, innermost first.

Input: an ``ir.Graph`` and ``visit(graph, node) -> int``. Output: the sum of ``visit``'s counts.
``visit`` is called for every default-domain node that carries graphs (``If``, ``Loop``,
``Scan``, ``SequenceMap``), in graph order, after the walk has visited the graphs inside that
node (so a pass sees inner loops rewritten before their outer loop). The node list of each
graph is taken before its visits: ``visit`` may insert nodes before ``node`` or replace it.
Attribute references (function attributes) carry no graph and are skipped.

Shared by the passes that rewrite loops from the inside out (:mod:`.loop_to_scan`,
:mod:`.hoist_scan_maps`, :mod:`.hoist_loop_invariants`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import onnx_ir as ir

__all__ = ["SUBGRAPH_OPS", "inner_graphs", "visit_innermost_first"]

# The default-domain ops that carry graphs (cheap test before looking at attributes).
SUBGRAPH_OPS = frozenset({"If", "Loop", "Scan", "SequenceMap"})


def inner_graphs(node: ir.Node) -> Iterator[ir.Graph]:
    """The graphs held by ``node``'s attributes (GRAPH and GRAPHS), in attribute order."""
    for attr in node.attributes.values():
        if attr.is_ref():
            continue
        if attr.type == ir.AttributeType.GRAPH:
            yield attr.as_graph()
        elif attr.type == ir.AttributeType.GRAPHS:
            yield from attr.as_graphs()


def visit_innermost_first(graph: ir.Graph, visit: Callable[[ir.Graph, ir.Node], int]) -> int:
    """Calls ``visit(g, node)`` on every graph-carrying node of ``graph`` and of the graphs
    inside it, inner graphs first; returns the sum of the counts ``visit`` returns."""
    count = 0
    for node in list(graph):
        if node.op_type not in SUBGRAPH_OPS or node.domain:
            continue
        for g in inner_graphs(node):
            count += visit_innermost_first(g, visit)
        count += visit(graph, node)
    return count

"""Valid names: every value and node named, no value name used twice in the model.

Input: an ``ir.Model``. Output: the same model, renamed only if needed: a walk checks that all
value names (graph inputs, initializers, node outputs, in every graph) are non-empty and
distinct across the whole model, and node names distinct per graph; if so nothing changes,
otherwise onnx-ir's ``NameFixPass`` renames (deterministically, in graph order).

Why not always run ``NameFixPass``: on pyonnx's models names are already unique unless
subgraphs reuse generated names (each onnx-ir graph counts ``val_0``... from zero) or a returned
variable takes a generated name (the frontend now names values uniquely itself); the check
costs a third of the pass (~48 µs against ~125 µs on the 54-node model of
benchmarks/conversion.py). An omitted optional output (name ``""``, no users) is valid and stays
omitted.
"""

from __future__ import annotations

import logging

import onnx_ir as ir
import onnx_ir.passes.common as common

__all__ = ["UniqueNamesPass"]

logger = logging.getLogger(__name__)

_GRAPH_ATTRS = (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS)
_SUBGRAPH_OPS = frozenset({"If", "Loop", "Scan", "SequenceMap"})


class UniqueNamesPass(ir.passes.InPlacePass):
    """Renames values and nodes (with ``NameFixPass``) only when a name is missing or reused."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        if not model.functions and _unique(model.graph, set()):
            return ir.passes.PassResult(model, modified=False)
        logger.debug("duplicate or missing names: running NameFixPass")
        return common.NameFixPass()(model)


def _unique(graph: ir.Graph, values: set[str]) -> bool:
    """Whether names in ``graph`` (and its subgraphs) are present and not in ``values``;
    adds them to ``values``."""
    for value in graph.inputs:
        name = value.name
        if not name or name in values:
            return False
        values.add(name)
    for value in graph.initializers.values():
        if value.is_graph_input():
            continue
        name = value.name
        if not name or name in values:
            return False
        values.add(name)
    nodes: set[str] = set()
    for node in graph:
        name = node.name
        if not name or name in nodes:
            return False
        nodes.add(name)
        for out in node.outputs:
            name = out.name
            if not name:
                if out.uses() or out.is_graph_output():
                    return False
                continue  # an omitted optional output
            if name in values:
                return False
            values.add(name)
        if node.op_type in _SUBGRAPH_OPS or node.domain not in ("", "ai.onnx"):
            for attr in node.attributes.values():
                if attr.is_ref() or attr.type not in _GRAPH_ATTRS:
                    continue
                for sub in attr.as_graphs() if attr.type == ir.AttributeType.GRAPHS \
                        else (attr.as_graph(),):
                    if not _unique(sub, values):
                        return False
    return True

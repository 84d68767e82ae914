"""Dead-code removal: nodes whose results nobody uses, unused initializers and opset imports.

Input: an ``ir.Model``. Output: the same model without

- nodes none of whose outputs is used or is a graph output, in every graph and subgraph
  (walking each graph backwards, so whole dead chains go in one pass; a dead node's
  subgraphs release the outer values they capture, so their producers can go too);
- unused optional outputs (``Dropout``'s mask ... per the op schema) and trailing omitted
  inputs of the nodes that stay;
- unused outputs of ``If`` nodes, with the branch outputs that computed them (the If is
  rebuilt with fewer outputs, and the branches' dead nodes go in the same walk). Besides the
  work saved, onnxruntime 1.32's optimizer fails on an If in a branch whose outputs nobody
  uses when it reads an outer value ("Trying to get a TensorSeq, but got: (null)", fuzz seed
  934593);
- main-graph initializers that are no longer used (an initializer that is also a graph input
  stays: it is part of the signature);
- opset imports no node uses (the default domain always stays).

This is onnx-ir's ``RemoveUnusedNodesPass`` followed by its ``RemoveUnusedOpsetsPass``, in one
walk and with one change, measured: onnx-ir looks up the op schema of *every* live node (about
2 µs each, half its time on pyonnx's models); this pass asks only for nodes that have an unused
output, and caches the answer per (op, opset). On the 54-node benchmark model
(benchmarks/conversion.py) onnx-ir's two passes took ~320 µs, this one ~65 µs. The effect is
the same (``tests/passes/test_remove_unused.py`` compares them).
"""

from __future__ import annotations

import functools
import logging

import onnx_ir as ir

__all__ = ["RemoveUnusedPass"]

logger = logging.getLogger(__name__)

_GRAPH_ATTRS = (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS)
_SUBGRAPH_OPS = frozenset({"If", "Loop", "Scan", "SequenceMap"})


class RemoveUnusedPass(ir.passes.InPlacePass):
    """Removes unused nodes (recursively), optional outputs, initializers and opset imports."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        graph = model.graph
        opset = graph.opset_imports.get("", model.opset_imports.get(""))
        domains: set[str] = {""}
        count = _sweep(graph, opset, domains)
        for function in model.functions.values():
            domains.add(function.domain)
            count += _sweep(function, function.opset_imports.get("", opset), set())
        for name, value in list(graph.initializers.items()):
            if not value.uses() and not value.is_graph_output() and not value.is_graph_input():
                del graph.initializers[name]
                count += 1
        for domain in [d for d in graph.opset_imports if d not in domains]:
            del graph.opset_imports[domain]
            count += 1
        if count:
            logger.debug("removed %d unused nodes, outputs, initializers and opsets", count)
        return ir.passes.PassResult(model, modified=bool(count))


def _sweep(graph: ir.Graph | ir.Function, opset: int | None, domains: set[str]) -> int:
    """Removes dead nodes of ``graph`` and its subgraphs; adds the live nodes' domains."""
    count = 0
    for node in reversed(graph):  # users before producers: dead chains go in one walk
        outputs = node.outputs
        unused = [not o.uses() and not o.is_graph_output() for o in outputs]
        if all(unused):
            if node.op_type in _SUBGRAPH_OPS or node.domain not in ("", "ai.onnx"):
                _release_captures(node)
            graph.remove(node, safe=True)
            count += 1
            continue
        domains.add(node.domain)
        if any(unused) and node.op_type == "If" and node.domain in ("", "ai.onnx"):
            node = _prune_if(graph, node, unused)
            count += 1
        elif any(unused) and opset is not None and node.domain in ("", "ai.onnx"):
            count += _trim_outputs(node, unused, opset)
        inputs = node.inputs
        if inputs and inputs[-1] is None:
            n = len(inputs)
            while n and inputs[n - 1] is None:
                n -= 1
            node.resize_inputs(n)
            count += 1
        # Only these ONNX ops carry graphs (reading every node's attributes costs 0.3 µs).
        if node.op_type in _SUBGRAPH_OPS or node.domain not in ("", "ai.onnx"):
            for attr in node.attributes.values():
                if attr.type not in _GRAPH_ATTRS or attr.is_ref():
                    continue
                for sub in (attr.as_graphs() if attr.type == ir.AttributeType.GRAPHS
                            else (attr.as_graph(),)):
                    count += _sweep(sub, opset, domains)
    return count


def _release_captures(node: ir.Node) -> None:
    """Drops the inputs of every node in ``node``'s subgraphs (``node`` is dead): a body's
    nodes still count as uses of the outer values they capture, which would keep their
    producers alive (the ReduceMax of a max whose NaN-guard If went dead with a softmax
    rewrite: one full pass per call)."""
    for attr in node.attributes.values():
        if attr.type not in _GRAPH_ATTRS or attr.is_ref():
            continue
        for sub in (attr.as_graphs() if attr.type == ir.AttributeType.GRAPHS
                    else (attr.as_graph(),)):
            for inner in sub:
                _release_captures(inner)
                inner.resize_inputs(0)


def _prune_if(graph: ir.Graph | ir.Function, node: ir.Node, unused: list[bool]) -> ir.Node:
    """``node`` (an If with some outputs unused) rebuilt without them and without the branch
    outputs that made them; returns the new node, in ``node``'s place."""
    keep = [i for i, dead in enumerate(unused) if not dead]
    branches = []
    for attr_name in ("then_branch", "else_branch"):
        sub = node.attributes[attr_name].as_graph()
        outs = [sub.outputs[i] for i in keep]
        sub.outputs.clear()
        sub.outputs.extend(outs)
        branches.append(ir.AttrGraph(attr_name, sub))
    old = [node.outputs[i] for i in keep]
    new = ir.Node(node.domain, "If", inputs=list(node.inputs), attributes=branches,
                  num_outputs=len(keep), name=node.name, version=node.version,
                  doc_string=node.doc_string)
    new.metadata_props.update(node.metadata_props)
    graph.insert_before(node, new)
    for was, now in zip(old, new.outputs):
        now.type, now.shape, now.const_value = was.type, was.shape, was.const_value
        was.replace_all_uses_with(now, replace_graph_outputs=True)
    names = [v.name for v in old]
    for v in old:
        v.name = None
    for v, n in zip(new.outputs, names):
        v.name = n
    graph.remove(node, safe=False)
    return new


def _trim_outputs(node: ir.Node, unused: list[bool], opset: int) -> int:
    """Drops unused optional outputs: names the inner ones "", removes trailing ones."""
    optional = _optional_outputs(node.op_type, opset)
    if optional is None:
        return 0
    if node.op_type == "BatchNormalization":
        return 0  # its output count selects training mode in some opsets: leave it
    changed = 0
    for i, (out, dead) in enumerate(zip(node.outputs, unused)):
        if dead and i < len(optional) and optional[i] and out.name != "":
            out.name = ""
            changed = 1
    n = len(node.outputs)
    while n and node.outputs[n - 1].name == "" and unused[n - 1]:
        n -= 1
    if n != len(node.outputs):
        node.resize_outputs(n)
        changed = 1
    return changed


@functools.lru_cache(maxsize=None)
def _optional_outputs(op_type: str, opset: int) -> tuple[bool, ...] | None:
    """Per output, whether the schema marks it optional; None when unknown or variadic."""
    import onnx

    try:
        schema = onnx.defs.get_schema(op_type, opset, "")
    except Exception:  # an op onnx does not know (custom or misspelled): leave its outputs
        return None
    options = []
    for formal in schema.outputs:
        if formal.option == onnx.defs.OpSchema.FormalParameterOption.Variadic:
            return None
        options.append(formal.option == onnx.defs.OpSchema.FormalParameterOption.Optional)
    return tuple(options)

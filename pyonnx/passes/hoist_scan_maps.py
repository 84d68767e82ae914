"""Elementwise work on a ``Scan``'s input elements moves out of its body, onto the whole input.

Input: an ``ir.Model`` about to be serialized (run after :class:`LoopToScanPass`, which makes
most Scans). Output: the same model where, in each default-domain ``Scan`` body, a node that

* is elementwise and cannot fail (``Add``, ``Sub``, ``Mul``, ``Neg``, ``Cast``...), and
* reads one scan input element (``x_i``), possibly twice, and otherwise only 0-d values from
  outside the body (constants, or outer values of known 0-d shape),

is computed once before the ``Scan`` on the whole scan input (``alpha * x`` instead of
``alpha * x[i]`` per iteration) and read by the body as a new scan input. The body's EWMA
``out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]`` then runs 2 nodes instead of 3 per
iteration (a Scan iteration costs about 0.3 µs per body node in onnxruntime).

The results are bit-identical: each element is the same op on the same operands (a 0-d operand
broadcasts to every element alike; the whole-input op visits exactly the elements the Scan
visits, whatever its axis or direction). Repeated until no node moves, so chains
(``Cast`` then ``Mul``) move too; scan inputs the body no longer reads are then dropped.
"""

from __future__ import annotations

import logging

import onnx_ir as ir

from pyonnx.passes.setitem_forms import Builder
from pyonnx.passes.subgraph_walk import visit_innermost_first

__all__ = ["HoistScanMapsPass"]

logger = logging.getLogger(__name__)

# Elementwise ops that never fail and whose result element depends on the same-position
# elements only (Div is left out: an integer division by zero fails).
_MAPS = frozenset({"Add", "Sub", "Mul", "Neg", "Abs", "Cast", "Identity", "Max", "Min",
                   "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Equal", "Not", "And",
                   "Or", "Xor", "Floor", "Ceil", "Round", "Sqrt", "Exp", "Log", "Sin", "Cos",
                   "Tanh", "Sigmoid", "Relu", "IsNaN", "IsInf", "Sign", "Reciprocal"})
# Ops whose output is 0-d when every input is (broadcasting of 0-d operands).
_SCALAR_SAFE = _MAPS | {"Div", "Pow", "Mod", "Where"}


class HoistScanMapsPass(ir.passes.InPlacePass):
    """Moves elementwise maps of scan input elements out of Scan bodies (module docstring)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        b = Builder(model)
        count = _graph(b, model.graph)
        if count:
            logger.debug("moved %d nodes out of Scan bodies", count)
        return ir.passes.PassResult(model, modified=bool(count))


def _graph(b: Builder, graph: ir.Graph) -> int:
    def visit(g: ir.Graph, node: ir.Node) -> int:
        if node.op_type != "Scan":
            return 0
        count = 0
        while _hoist_one(b, g, node):
            count += 1
        _drop_unused_inputs(node)
        return count
    return visit_innermost_first(graph, visit)


def _drop_unused_inputs(scan: ir.Node) -> None:
    """Removes scan inputs the body no longer reads (their per-iteration slicing costs time),
    keeping at least one (a Scan's trip count is its scan inputs' length)."""
    body = scan.attributes["body"].value
    n_scan = scan.attributes["num_scan_inputs"].value
    n_state = len(body.inputs) - n_scan
    keep = [k for k in range(n_scan) if body.inputs[n_state + k].uses()]
    if not keep:
        keep = [0]
    if len(keep) == n_scan:
        return
    elements = [body.inputs[n_state + k] for k in keep]
    wholes = [scan.inputs[n_state + k] for k in keep]
    del body.inputs[n_state:]
    body.inputs.extend(elements)
    for i, v in enumerate(wholes):
        scan.replace_input_with(n_state + i, v)
    scan.resize_inputs(n_state + len(keep))
    scan.attributes["num_scan_inputs"] = ir.AttrInt64("num_scan_inputs", len(keep))
    for name in ("scan_input_axes", "scan_input_directions"):
        values = _ints(scan, name)
        if values is not None:
            scan.attributes[name] = ir.AttrInt64s(name, [values[k] for k in keep])


def _is_scalar_outside(v: ir.Value, body: ir.Graph) -> bool:
    """A 0-d value defined outside ``body`` (a constant or an outer value known to be 0-d)."""
    producer = v.producer()
    if producer is not None and producer.graph is body or v in body.inputs:
        return False
    return _is_0d(v)


def _is_0d(v: ir.Value, depth: int = 4) -> bool:
    """Whether ``v`` is 0-d: by its constant, its shape, or as an elementwise op of 0-d values
    (``Cast(alpha)``, ``1 - alpha``: shapes are not inferred on every value)."""
    if v.const_value is not None:
        return len(v.const_value.shape) == 0
    if v.shape is not None:
        return len(v.shape) == 0
    node = v.producer()
    if depth == 0 or node is None or node.domain or node.op_type not in _SCALAR_SAFE:
        return False
    return all(i is not None and _is_0d(i, depth - 1) for i in node.inputs)


def _ints(node: ir.Node, name: str) -> list[int] | None:
    attr = node.attributes.get(name)
    return None if attr is None else list(attr.value)


def _hoist_one(b: Builder, graph: ir.Graph, scan: ir.Node) -> bool:
    """Moves one eligible body node out of ``scan``; False when there is none."""
    body = scan.attributes["body"].value
    n_scan = scan.attributes["num_scan_inputs"].value
    n_state = len(body.inputs) - n_scan
    elements = {id(v): k for k, v in enumerate(body.inputs[n_state:])}
    for node in body:
        if node.op_type not in _MAPS or node.domain or any(
                a.type == ir.AttributeType.GRAPH for a in node.attributes.values()):
            continue
        ins = [v for v in node.inputs if v is not None]
        scanned = {elements[id(v)] for v in ins if id(v) in elements}
        if len(scanned) != 1 or not all(id(v) in elements or _is_scalar_outside(v, body)
                                        for v in ins):
            continue
        if any(out in body.outputs for out in node.outputs):
            continue  # (a body output that is a body input: left as it is)
        (k,) = scanned
        _move(b, graph, scan, body, node, n_state, k, n_scan)
        return True
    return False


_PREDICATES = frozenset({"Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Equal", "Not",
                         "And", "Or", "Xor", "IsNaN", "IsInf"})


def _result_type(node: ir.Node, element: ir.Value) -> ir.TypeProtocol | None:
    """The type of a map node's result (an op of :data:`_MAPS`) from its element's type."""
    if node.op_type in _PREDICATES:
        return ir.TensorType(ir.DataType.BOOL)
    if node.op_type == "Cast":
        to = node.attributes.get("to")
        return None if to is None or to.is_ref() else ir.TensorType(ir.DataType(to.value))
    return element.type  # (arithmetic keeps its operands' type)


def _move(b: Builder, graph: ir.Graph, scan: ir.Node, body: ir.Graph, node: ir.Node,
          n_state: int, k: int, n_scan: int) -> None:
    """``node`` (reading scan input ``k``'s element) recomputed before ``scan`` on the whole
    scan input, its result a new (last) scan input read where ``node``'s output was."""
    input_index = n_state + k
    whole = scan.inputs[input_index]
    element = body.inputs[input_index]
    outer = ir.Node("", node.op_type, [whole if v is element else v for v in node.inputs],
                    list(node.attributes.values()), num_outputs=1,
                    name=b.node_name(f"{scan.name or 'Scan'}_{node.op_type}_hoisted"),
                    doc_string=node.doc_string)
    outer.meta.update(node.meta)
    outer.outputs[0].name = b.value_name(f"{node.outputs[0].name or 'scan'}_all")
    outer.outputs[0].type = node.outputs[0].type
    graph.insert_before(scan, outer)
    # (the other operands are 0-d: the result has the element's shape)
    result_type = node.outputs[0].type or _result_type(node, element)
    new_element = ir.Value(name=b.value_name(f"{node.outputs[0].name or 'scan'}_element"),
                           type=result_type, shape=node.outputs[0].shape or (
                               element.shape if result_type is not None else None))
    body.inputs.append(new_element)
    node.outputs[0].replace_all_uses_with(new_element)
    body.remove(node, safe=True)
    scan.resize_inputs(len(scan.inputs) + 1)
    scan.replace_input_with(len(scan.inputs) - 1, outer.outputs[0])
    scan.attributes["num_scan_inputs"] = ir.AttrInt64("num_scan_inputs", n_scan + 1)
    for name in ("scan_input_axes", "scan_input_directions"):
        values = _ints(scan, name)
        if values is not None:
            values.append(values[k])
            scan.attributes[name] = ir.AttrInt64s(name, values)

"""A ``Scan`` of a scalar recurrence runs ``K`` of its iterations per Scan iteration.

Input: an ``ir.Model`` about to be serialized (run after :class:`LoopToScanPass` and
:class:`HoistScanMapsPass`: the recurrences that stay loops are Scans by then, with their
elementwise maps of the inputs hoisted out). Output: the same model where each default-domain
``Scan`` whose

* states, scan input elements and scan outputs are all 0-d (``y[i] = y[i-1] * a + x[i]``),
* body is at most :data:`_MAX_BODY` elementwise nodes (:data:`_ELEMENTWISE`) that read, besides
  the body's inputs, only 0-d values from outside, every body output depending on an input,
* axes and directions are the defaults (forward, axis 0),

becomes::

    If(M >= 2K,
       then: Scan(states, x[:M - r] as (q, K))  -- body: the old body K times over, on (1,)
             Scan(its states, x[M - r:])        -- the old body, r = (M - 1) % K + 1 trips
             scan outputs: concatenated,
       else: the old Scan)

Why: onnxruntime spends about 0.35 µs per body node per iteration and little on the Scan
iteration itself; a recurrence's body is 2 nodes plus the ``Identity`` onnxruntime needs where
the new state is also the scan output (its state buffers are swapped between iterations).
Unrolled, the ``K`` copies chain without that Identity, one ``Split`` and one ``Concat`` per
Scan iteration: ``K = 8`` runs 2.25 nodes per iteration instead of 3 (measured on a
hand-written recurrence: 1.19 -> 0.83 µs per iteration).

The results are identical: the same nodes run on the same values in the same order (a 0-d
operand broadcasts against a ``(1,)`` one exactly as against a 0-d one); the remainder Scan
always has 1 to K trips (onnxruntime's Scan fails on an empty scan input), the unrolled one at
least 1 (M >= 2K). Bodies with a failing op (an integer division by zero) fail at the same
iteration. A Scan of fewer than 2K trips runs as before, behind the ``If``.
"""

from __future__ import annotations

import logging

import numpy as np
import onnx_ir as ir

from pyonnx.passes.setitem_forms import Builder, replace_uses
from pyonnx.passes.static_dims import Dims, infer
from pyonnx.passes.subgraph_walk import inner_graphs, visit_innermost_first

__all__ = ["UnrollScansPass"]

logger = logging.getLogger(__name__)

_K = 8
_MAX_BODY = 12
_I64 = np.int64
# Elementwise ops (every output element from the same-position input elements, numpy
# broadcasting) with no graph attribute: a (1,) operand in place of a 0-d one gives a (1,)
# result of the same value.
_ELEMENTWISE = frozenset({
    "Add", "Sub", "Mul", "Div", "Mod", "Pow", "Neg", "Abs", "Cast", "Identity", "Max", "Min",
    "Where", "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Equal", "Not", "And", "Or",
    "Xor", "Floor", "Ceil", "Round", "Sqrt", "Exp", "Log", "Sin", "Cos", "Tanh", "Sigmoid",
    "Relu", "IsNaN", "IsInf", "Sign", "Reciprocal", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
    "BitwiseNot", "BitShift"})
_DEFAULT_ONLY = ("scan_input_axes", "scan_input_directions", "scan_output_axes",
                 "scan_output_directions")


class UnrollScansPass(ir.passes.InPlacePass):
    """Unrolls scalar-recurrence Scans ``K`` times behind a trip-count ``If`` (module
    docstring)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        if model.opset_imports.get("", 0) < 15:  # (Shape's start and end)
            return ir.passes.PassResult(model, modified=False)
        b = Builder(model)
        known: dict[int, Dims] = {}

        def visit(g: ir.Graph, node: ir.Node) -> int:
            if node.op_type != "Scan":
                return 0
            if not known:
                # at the first Scan, before any rewrite: the pass reads the ranks of values
                # that were there already
                known.update(_known_dims(model.graph))
            return int(_unroll(b, g, node, known))

        count = visit_innermost_first(model.graph, visit)
        if count:
            logger.debug("unrolled %d Scan nodes %d times", count, _K)
        return ir.passes.PassResult(model, modified=bool(count))


def _known_dims(graph: ir.Graph, outer: dict | None = None) -> dict[int, Dims]:
    """static_dims.infer over ``graph`` and every graph nested in it (a subgraph sees its
    enclosing graphs' values): value id -> dims."""
    known = infer(graph, outer)
    for node in graph:
        for g in inner_graphs(node):
            known.update(_known_dims(g, known))
    return known


def _eligible(scan: ir.Node, known: dict[int, Dims]) -> ir.Graph | None:
    """The body of ``scan`` when the module docstring's conditions hold (ranks from
    ``known``, :func:`_known_dims`), else None."""

    def rank(v: ir.Value | None) -> int | None:
        dims = None if v is None else known.get(id(v))
        return None if dims is None else len(dims)

    body_attr = scan.attributes.get("body")
    n_scan = scan.attributes.get("num_scan_inputs")
    if scan.domain or body_attr is None or body_attr.is_ref() or n_scan is None or \
            body_attr.type != ir.AttributeType.GRAPH:
        return None
    for name in _DEFAULT_ONLY:
        attr = scan.attributes.get(name)
        if attr is not None and any(attr.value):
            return None
    body = body_attr.as_graph()
    n_state = len(body.inputs) - n_scan.value
    if n_scan.value < 1 or n_state < 0 or len(list(body)) > _MAX_BODY or \
            len(body.outputs) != len(scan.outputs) or \
            any(v is None for v in scan.inputs) or len(scan.inputs) != len(body.inputs):
        return None
    # (every value the body reads 0-d; the scan inputs 1-D: each is cut into rows of 8)
    if not all(rank(v) == 0 for v in (*body.inputs, *body.outputs, *scan.inputs[:n_state])) \
            or not all(rank(v) == 1 for v in scan.inputs[n_state:]):
        return None
    varying = {id(v) for v in body.inputs}
    for node in body:
        if node.op_type not in _ELEMENTWISE or node.domain or \
                any(a.is_ref() or a.type in (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS)
                    for a in node.attributes.values()) or \
                not all(rank(v) == 0 for v in node.inputs):
            return None
        if any(id(v) in varying for v in node.inputs):
            varying.update(id(o) for o in node.outputs)
    if not all(id(v) in varying for v in body.outputs):
        return None
    return body


class _Cloner:
    """Copies of a body's nodes with their inputs mapped (``Identity`` nodes dropped: their
    output is their mapped input)."""

    def __init__(self, b: Builder, scan: ir.Node):
        self.b, self.scan = b, scan

    def copy(self, body: ir.Graph, mapping: dict[int, ir.Value], nodes: list[ir.Node],
             shape_of_varying: ir.Shape | None) -> dict[int, ir.Value]:
        varying = set(id(v) for v in mapping.values())
        for node in body:
            ins = [mapping.get(id(v), v) for v in node.inputs]
            if node.op_type == "Identity":
                mapping[id(node.outputs[0])] = ins[0]
                continue
            attrs = [ir.Attr(a.name, a.type, a.value) for a in node.attributes.values()]
            new = ir.Node("", node.op_type, ins, attrs, num_outputs=len(node.outputs),
                          name=self.b.node_name(f"{node.name or node.op_type}_unrolled"),
                          doc_string=node.doc_string)
            new.meta.update(node.meta)
            moves = any(id(v) in varying for v in ins)
            for old, out in zip(node.outputs, new.outputs):
                out.name = self.b.value_name(f"{old.name or 'v'}_unrolled")
                out.type = old.type
                if out.type is not None:  # (onnx-ir writes no shape without a type)
                    out.shape = shape_of_varying if moves and shape_of_varying is not None \
                        else old.shape
                mapping[id(old)] = out
                if moves:
                    varying.add(id(out))
            nodes.append(new)
        return mapping

    def node(self, op: str, inputs: list, nodes: list[ir.Node], *, outputs: int = 1,
             attributes: list | None = None, like: ir.Value | None = None,
             shape: ir.Shape | None = None) -> ir.Node:
        node = ir.Node("", op, inputs, attributes or [], num_outputs=outputs,
                       name=self.b.node_name(f"{self.scan.name or 'Scan'}_unroll_{op}"),
                       doc_string=self.scan.doc_string)
        node.meta.update(self.scan.meta)
        for out in node.outputs:
            out.name = self.b.value_name(f"{self.scan.outputs[0].name or 'scan'}_{op.lower()}")
            if like is not None:
                out.type = like.type
            if shape is not None and out.type is not None:
                out.shape = shape
        nodes.append(node)
        return node


def _body_copy(cl: _Cloner, body: ir.Graph, name: str) -> ir.Graph:
    """The body itself, copied (the remainder Scan's; the old Scan keeps the original)."""
    inputs = [ir.Value(name=cl.b.value_name(f"{v.name or 'in'}_rest"), type=v.type,
                       shape=v.shape) for v in body.inputs]
    nodes: list[ir.Node] = []
    mapping = cl.copy(body, {id(o): n for o, n in zip(body.inputs, inputs)}, nodes, None)
    outputs = _outputs(cl, [mapping[id(v)] for v in body.outputs], inputs, nodes)
    return ir.Graph(inputs, outputs, nodes=nodes, name=cl.b.value_name(name))


def _outputs(cl: _Cloner, values: list[ir.Value], inputs: list[ir.Value],
             nodes: list[ir.Node]) -> list[ir.Value]:
    """``values`` as a Scan body's outputs: an Identity where one is a body input or repeats
    (onnxruntime swaps state buffers between iterations)."""
    seen: set[int] = set()
    out = []
    for v in values:
        if id(v) in seen or any(v is i for i in inputs):
            v = cl.node("Identity", [v], nodes, like=v, shape=v.shape).outputs[0]
        seen.add(id(v))
        out.append(v)
    return out


def _unrolled_body(cl: _Cloner, body: ir.Graph, n_state: int) -> ir.Graph:
    """The body ``K`` times over: states ``(1,)``, scan elements ``(K,)`` split into ``K``
    pieces, the ``K`` results of each scan output concatenated."""
    one, k_shape = ir.Shape([1]), ir.Shape([_K])
    states = [ir.Value(name=cl.b.value_name(f"{v.name or 'state'}_unrolled"), type=v.type,
                       shape=one) for v in body.inputs[:n_state]]
    elements = [ir.Value(name=cl.b.value_name(f"{v.name or 'x'}_block"), type=v.type,
                         shape=k_shape) for v in body.inputs[n_state:]]
    nodes: list[ir.Node] = []
    ones = cl.b.const(np.ones(_K, _I64))
    pieces = [cl.node("Split", [e, ones], nodes, outputs=_K, attributes=[
        ir.AttrInt64("axis", 0)], like=e, shape=one).outputs for e in elements]
    current = list(states)
    per_step: list[list[ir.Value]] = []
    for t in range(_K):
        mapping = {id(v): s for v, s in zip(body.inputs[:n_state], current)}
        mapping.update({id(v): p[t] for v, p in zip(body.inputs[n_state:], pieces)})
        cl.copy(body, mapping, nodes, one)
        current = [mapping[id(v)] for v in body.outputs[:n_state]]
        per_step.append([mapping[id(v)] for v in body.outputs[n_state:]])
    scans = [cl.node("Concat", [step[j] for step in per_step], nodes,
                     attributes=[ir.AttrInt64("axis", 0)], like=out, shape=k_shape).outputs[0]
             for j, out in enumerate(body.outputs[n_state:])]
    outputs = _outputs(cl, current, [*states, *(p for ps in pieces for p in ps)], nodes)
    return ir.Graph([*states, *elements], [*outputs, *scans], nodes=nodes,
                    name=cl.b.value_name(f"{body.name or 'body'}_unrolled"))


def _unroll(b: Builder, graph: ir.Graph, scan: ir.Node, known: dict[int, Dims]) -> bool:
    body = _eligible(scan, known)
    if body is None:
        return False
    c = b.const
    cl = _Cloner(b, scan)
    n_scan = scan.attributes["num_scan_inputs"].value
    n_state = len(body.inputs) - n_scan
    states, xs = list(scan.inputs[:n_state]), list(scan.inputs[n_state:])
    before: list[ir.Node] = []
    i64 = ir.TensorType(ir.DataType.INT64)
    m = cl.node("Shape", [xs[0]], before, attributes=[ir.AttrInt64("start", 0),
                                                        ir.AttrInt64("end", 1)]).outputs[0]
    m0 = cl.node("Reshape", [m, c(np.array([], _I64))], before).outputs[0]
    m0.type = i64
    big = cl.node("GreaterOrEqual", [m0, c(np.array(2 * _K, _I64))], before).outputs[0]

    then: list[ir.Node] = []
    rest = cl.node("Add", [cl.node("Mod", [cl.node("Sub", [m0, c(np.array(1, _I64))],
                                                    then).outputs[0],
                                           c(np.array(_K, _I64))], then).outputs[0],
                           c(np.array(1, _I64))], then).outputs[0]
    split = cl.node("Reshape", [cl.node("Sub", [m0, rest], then).outputs[0],
                                c(np.array([1], _I64))], then).outputs[0]
    zero, axis0 = c(np.array([0], _I64)), c(np.array([0], _I64))
    blocks, tails = [], []
    for x in xs:
        head = cl.node("Slice", [x, zero, split, axis0], then, like=x).outputs[0]
        blocks.append(cl.node("Reshape", [head, c(np.array([-1, _K], _I64))], then,
                              like=x).outputs[0])
        tails.append(cl.node("Slice", [x, split, c(np.array([np.iinfo(_I64).max], _I64)),
                                       axis0], then, like=x).outputs[0])
    wide = [cl.node("Reshape", [s, c(np.array([1], _I64))], then, like=s).outputs[0]
            for s in states]
    unrolled = cl.node("Scan", [*wide, *blocks], then, outputs=len(scan.outputs), attributes=[
        ir.AttrGraph("body", _unrolled_body(cl, body, n_state)),
        ir.AttrInt64("num_scan_inputs", n_scan)])
    mid = [cl.node("Reshape", [v, c(np.array([], _I64))], then, like=s).outputs[0]
           for v, s in zip(unrolled.outputs[:n_state], states)]
    for v, s in zip(unrolled.outputs, [*states, *body.outputs[n_state:]]):
        v.type = s.type
    remainder = cl.node("Scan", [*mid, *tails], then, outputs=len(scan.outputs), attributes=[
        ir.AttrGraph("body", _body_copy(cl, body, f"{body.name or 'body'}_rest")),
        ir.AttrInt64("num_scan_inputs", n_scan)])
    then_outs = list(remainder.outputs[:n_state])
    for j in range(len(scan.outputs) - n_state):
        flat = cl.node("Reshape", [unrolled.outputs[n_state + j], c(np.array([-1], _I64))],
                       then).outputs[0]
        then_outs.append(cl.node("Concat", [flat, remainder.outputs[n_state + j]], then,
                                 attributes=[ir.AttrInt64("axis", 0)]).outputs[0])
    for v, old in zip(then_outs, scan.outputs):
        v.type = old.type
    for v, old in zip(remainder.outputs, scan.outputs):
        v.type = old.type

    for v, out in zip((*then_outs, *remainder.outputs, *scan.outputs), 3 * list(body.outputs)):
        v.type = v.type or out.type
    guard = ir.Node("", "If", [big], [], num_outputs=len(scan.outputs),
                    name=b.node_name(f"{scan.name or 'Scan'}_unroll_If"),
                    doc_string=scan.doc_string)
    guard.meta.update(scan.meta)
    for out, old in zip(guard.outputs, scan.outputs):
        out.name = b.value_name(f"{old.name or 'scan'}_unrolled")
        out.type, out.shape = old.type, old.shape
    for node in before:
        graph.insert_before(scan, node)
    graph.insert_before(scan, guard)
    olds = list(scan.outputs)
    for old, new in zip(olds, guard.outputs):
        replace_uses(old, new)  # (new takes old's name)
        old.name = b.value_name(f"{new.name or 'scan'}_few_trips")
    inputs = list(scan.inputs)
    graph.remove(scan, safe=True)  # (which detaches its inputs)
    for i, v in enumerate(inputs):
        scan.replace_input_with(i, v)
    # The old Scan's outputs are now the else branch's: a graph output of ``graph`` it was
    # (replaced above) is the If's.
    else_graph = ir.Graph([], olds, nodes=[scan], name=b.value_name("scan_few_trips"))
    then_graph = ir.Graph([], then_outs, nodes=then, name=b.value_name("scan_unrolled"))
    guard.attributes["then_branch"] = ir.AttrGraph("then_branch", then_graph)
    guard.attributes["else_branch"] = ir.AttrGraph("else_branch", else_graph)
    return True

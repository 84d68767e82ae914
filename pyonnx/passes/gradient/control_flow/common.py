"""Graph helpers of the If and Loop VJPs: subgraphs, reachability, pruning, typed outputs,
replacing a forward node."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import onnx_ir as ir

from pyonnx.passes.gradient.backward import Backward
from pyonnx.passes.gradient.graphs import _captures, _inputs
from pyonnx.passes.gradient.types import FLOAT_TYPES
from pyonnx.passes.marks import DERIVATIVE, replace_value

_GRAPH_ATTRS = (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS)

__all__: list[str] = []


# ------------------------------------------------------------------ graph helpers
def _subgraphs(node: ir.Node) -> Iterable[ir.Graph]:
    for attr in node.attributes.values():
        if attr.type == ir.AttributeType.GRAPH:
            yield attr.value
        elif attr.type == ir.AttributeType.GRAPHS:
            yield from attr.value


def _all_nodes(nodes: Iterable[ir.Node]) -> Iterable[ir.Node]:
    """``nodes`` and the nodes of their subgraphs, recursively."""
    for node in nodes:
        yield node
        for g in _subgraphs(node):
            yield from _all_nodes(g)


def _node_inputs(node: ir.Node) -> list[ir.Value]:
    """A node's inputs (with its composite mark's) and the outer values its subgraphs
    capture."""
    ins = list(_inputs(node))
    if any(a.type in _GRAPH_ATTRS for a in node.attributes.values()):
        ins += _captures(node)
    return ins


def _reach_forward(nodes: Sequence[ir.Node], start: set[ir.Value], b: Backward) -> set[ir.Value]:
    """Float values depending on ``start`` (as the walk's activity: float or untyped)."""
    reached = set(start)
    for node in nodes:
        if any(v in reached for v in _node_inputs(node)):
            for out in node.outputs:
                if b.dtype(out) in FLOAT_TYPES or b.dtype(out) is None:
                    reached.add(out)
    return reached


def _reach_backward(nodes: Sequence[ir.Node], start: set[ir.Value]) -> set[ir.Value]:
    """Values ``start`` depends on."""
    reached = set(start)
    for node in reversed(nodes):
        if any(out in reached for out in node.outputs):
            reached.update(_node_inputs(node))
    return reached


def _prune(graph: ir.Graph) -> None:
    """Removes the nodes of ``graph`` none of whose outputs reach its outputs, detaching their
    inputs (subgraphs included), so the values they used lose those uses."""
    live: set[ir.Value] = set(graph.outputs)
    dead = []
    for node in reversed(list(graph)):
        if any(out in live for out in node.outputs):
            live.update(_node_inputs(node))
        else:
            dead.append(node)
    for node in dead:
        for n in _all_nodes([node]):
            for i in range(len(n.inputs)):
                n.replace_input_with(i, None)
    graph.remove(dead)


def _rewire(old: ir.Value, new: ir.Value, inside: set[ir.Node]) -> None:
    """Makes the nodes of ``inside`` read ``new`` where they read ``old``: their inputs and
    the composite marks naming ``old`` (a mark is no use of the value: a second derivative
    differentiates the marked node as a function of the mark's values, which must be in
    scope where the node runs)."""
    for use in list(old.uses()):
        if use.node in inside:
            use.node.replace_input_with(use.idx, new)
    for n in inside:
        mark = n.meta.get(DERIVATIVE)
        if mark is not None and any(x is old for x in mark[1]):
            n.meta[DERIVATIVE] = (mark[0], [new if x is old else x for x in mark[1]])


def _outputs(b: Backward, values: Sequence[ir.Value], nodes: list[ir.Node]) -> list[ir.Value]:
    """``values`` as subgraph outputs: each produced by one of ``nodes`` and used once as an
    output (an Identity where a value comes from elsewhere or repeats)."""
    produced = {out for n in nodes for out in n.outputs}
    result: list[ir.Value] = []
    for v in values:
        if v not in produced or v in result:
            dtype, dims = b.dtype(v), b.dims(v)
            v = b.op("Identity", v, dtype=dtype, dims=dims)
            produced.add(v)
        result.append(v)
    return result


def _tensor_type(b: Backward, v: ir.Value) -> ir.TensorType:
    dt = b.dtype(v)
    if dt is None:
        raise b.error(f"the gradient of {b.node.op_type} needs the dtype of '{v.name}'")
    return ir.TensorType(dt)


def _typed(b: Backward, v: ir.Value, like: ir.Value, leading: bool = False) -> ir.Value:
    """Gives ``v`` the type of ``like`` (with one more leading unknown dim: a stack of it)."""
    if isinstance(like.type, ir.TensorType) or like.type is None:
        v.type = _tensor_type(b, like)
    else:
        v.type = like.type
    dims = b.dims(like)
    if dims is not None and leading:
        dims = (None, *dims)
    if dims is not None:
        # Only sizes known here go into the model: onnxruntime takes equal symbols for equal
        # sizes, and a state's symbol need not hold on every iteration. (The rules read the
        # symbols from b._extra.)
        v.shape = ir.Shape([d if isinstance(d, int) else None for d in dims])
    b._extra[v] = (b.dtype(like), dims)
    return v


def _replace_node(b: Backward, old: ir.Node, new: ir.Node, before: Sequence[ir.Node] = (),
                  offset_of=None) -> None:
    """Puts ``new`` (after ``before``) in place of ``old``: old output k becomes new output
    ``offset_of(k)`` (default k), keeping its name, type and uses."""
    graph = old.graph
    assert graph is not None
    graph.insert_before(old, [*before, new])
    for k, out in enumerate(old.outputs):
        repl = new.outputs[k if offset_of is None else offset_of(k)]
        repl.type, repl.shape = out.type, out.shape
        if out in b._extra:
            b._extra[repl] = b._extra[out]
        name = out.name
        # (replace_value: composite marks naming ``out`` follow it to ``repl``.)
        replace_value(out, repl, replace_graph_outputs=True)
        out.name = None
        repl.name = name
    graph.remove(old, safe=True)


def _copy_meta(b: Backward, old: ir.Node, new: ir.Node) -> None:
    loc = old.meta.get("pyonnx.loc")
    if loc is not None:
        new.meta["pyonnx.loc"] = loc
    new.doc_string = old.doc_string


def _tape_typed(b: Backward, v: ir.Value, state: ir.Value) -> ir.Value:
    """Types ``v`` as a sequence of ``state``'s tensors (rank kept: dims that may change
    between iterations are unknown in the body input's declared shape)."""
    v.type = ir.SequenceType(_tensor_type(b, state))
    if state.shape is not None:
        v.shape = ir.Shape([d if isinstance(d, int) else None for d in state.shape])
    return v


def _empty_like(b: Backward, v: ir.Value) -> ir.Value:
    """A placeholder output standing for ``v`` in the branch that does not compute it: a
    constant of ``v``'s dtype and rank holding no element; for a sequence (the tape of a Loop
    run inside a branch), an empty sequence of its element type."""
    if isinstance(v.type, ir.SequenceType) and isinstance(v.type.elem_type, ir.TensorType):
        elem = v.type.elem_type.dtype
        empty = b.op("SequenceEmpty")
        # (b.op's dtype= records types: the dtype attribute is set here.)
        empty.producer().attributes["dtype"] = ir.AttrInt64("dtype", int(elem))
        empty.type = v.type
        b._extra[empty] = (elem, b._extra.get(v, (None, None))[1])
        return empty
    dt = b.dtype(v)
    if dt is None or not isinstance(v.type, (ir.TensorType, type(None))):
        raise b.error(f"the gradient of If needs '{v.name}' to be a tensor or a sequence of "
                      "tensors of known dtype")
    dims = b.dims(v)
    if not dims:
        return b.const(np.zeros((), dt.numpy()))
    # Empty along the first axis, the known sizes of the others kept: the If's output then
    # keeps them (a recorded shape vector's length is what a Reshape to it needs to give its
    # result a rank for a second differentiation, seed 42000176).
    return b.const(np.zeros((0, *(d if isinstance(d, int) else 0 for d in dims[1:])),
                            dt.numpy()))

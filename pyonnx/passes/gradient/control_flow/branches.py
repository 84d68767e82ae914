"""The VJP of ``If`` (see the package docstring)."""

from __future__ import annotations

import onnx_ir as ir

from pyonnx.passes.gradient.backward import Backward
from pyonnx.passes.gradient.control_flow.common import (
    _all_nodes,
    _copy_meta,
    _empty_like,
    _outputs,
    _replace_node,
    _rewire,
    _tensor_type,
    _typed,
)
from pyonnx.passes.gradient.graphs import _inputs
from pyonnx.passes.gradient.registry import vjp

__all__: list[str] = []


# ------------------------------------------------------------------ If
def _placeholder(b: Backward, r: ir.Value) -> ir.Value:
    """The output standing for residual ``r`` in the branch that does not compute it: empty,
    of ``r``'s type and rank; its declared dims unknown (they are not ``r``'s: the ONNX
    checker's full check compares them)."""
    v = _typed(b, b.op("Identity", _empty_like(b, r)), r)
    if v.shape is not None:
        v.shape = ir.Shape([None] * len(v.shape))
    return v


@vjp("If")
def _if(b: Backward, node: ir.Node, gs):
    caps = b.captures(node)
    wanted = [c for c in caps if b.needs_capture(c)]
    if not wanted:
        return [None] * (len(node.inputs) + len(caps))
    branches = [node.attributes["then_branch"].value, node.attributes["else_branch"].value]
    backward: list[tuple[list[ir.Node], list[ir.Value], list[ir.Value]]] = []
    for g in branches:
        with b.subgraph() as nodes:
            seeds = [(out, ct) for out, ct in zip(g.outputs, gs) if ct is not None]
            cts = b.backward(g, seeds, wanted)
            b.node = node
            outs = [ct if ct is not None else b.zeros_like(c) for c, ct in zip(wanted, cts)]
            outs = _outputs(b, outs, nodes)
            for c, out in zip(wanted, outs):
                _typed(b, out, c)
        # Residuals: values computed in the forward branch that its VJP uses (composite
        # marks' values included: a second derivative reads them).
        residuals: dict[ir.Value, None] = {}
        for n in _all_nodes(nodes):
            for v in _inputs(n):
                if v.producer() is not None and v.producer().graph is g:
                    residuals[v] = None
        backward.append((nodes, outs, list(residuals)))
    res_then, res_else = backward[0][2], backward[1][2]
    if res_then or res_else:
        # The forward If also outputs the residuals (the other branch: empty placeholders).
        extra = []
        for k, g in enumerate(branches):
            with b.subgraph() as added:
                b.node = node
                outs = []
                for j, rs in enumerate((res_then, res_else)):
                    for r in rs:
                        outs.append(r if j == k else _placeholder(b, r))
                taken = set(g.outputs)
                for i, v in enumerate(outs):
                    if v in taken:
                        outs[i] = _typed(b, b.op("Identity", v), v)
                    taken.add(outs[i])
            g.extend(added)
            extra.append(outs)
        for g, outs in zip(branches, extra):
            g.outputs.extend(outs)
        n_out = len(node.outputs)
        new = ir.Node("", "If", [node.inputs[0]],
                      [ir.Attr("then_branch", ir.AttributeType.GRAPH, branches[0]),
                       ir.Attr("else_branch", ir.AttributeType.GRAPH, branches[1])],
                      num_outputs=n_out + len(res_then) + len(res_else),
                      name=b.fresh(f"{node.name or 'If'}_"))
        _copy_meta(b, node, new)
        for r, out in zip([*res_then, *res_else], new.outputs[n_out:]):
            out.name = b.fresh(f"{r.name or 'res'}_out")
            out.type = r.type if isinstance(r.type, ir.SequenceType) else _tensor_type(b, r)
            b._extra[out] = (b.dtype(r), b.dims(r))
        # The backward branches read the residuals from the new If's outputs.
        for (nodes, _, rs), outs in zip(backward, (new.outputs[n_out:n_out + len(res_then)],
                                                   new.outputs[n_out + len(res_then):])):
            inside = set(_all_nodes(nodes))
            for r, out in zip(rs, outs):
                _rewire(r, out, inside)
        _replace_node(b, node, new)
        node = new
    bodies = [ir.Graph([], outs, nodes=nodes, name=b.fresh(f"{node.name}_{side}_vjp"))
              for (nodes, outs, _), side in zip(backward, ("then", "else"))]
    b.node = node
    results = b.op("If", node.inputs[0], then_branch=bodies[0], else_branch=bodies[1],
                   outputs=len(wanted))
    results = results if len(wanted) > 1 else (results,)
    found = dict(zip(wanted, (_typed(b, r, c) for r, c in zip(results, wanted))))
    return [None] * len(node.inputs) + [found.get(c) for c in caps]

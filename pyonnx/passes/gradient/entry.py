"""Entry points of reverse-mode differentiation: :class:`GradientPass`, :func:`differentiate`,
:func:`differentiate_jacobian` (see the package docstring for the method)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx_ir as ir

from pyonnx.errors import ConversionError
from pyonnx.loc import SourceLoc
from pyonnx.passes.gradient import control_flow, rules  # noqa: F401  (their registrations)
from pyonnx.passes.gradient.backward import Backward
from pyonnx.passes.gradient.types import FLOAT_TYPES

__all__ = ["GradientPass", "differentiate", "differentiate_jacobian"]


# ------------------------------------------------------------------ the pass
class GradientPass(ir.passes.InPlacePass):
    """Appends the cotangents of graph inputs ``wrt`` as new graph outputs.

    Attributes:
        wrt: indices of the graph inputs to differentiate with respect to (float inputs).
        of: indices of the graph outputs to differentiate (default: all).
        cotangents: one new graph input per differentiated output, holding its cotangent
            (appended to the graph inputs); None seeds each output with 1 (it must be a float
            scalar).
        keep_outputs: keep the original outputs first (value_and_grad); else only gradients.
        names: output names for the gradients (default ``grad_<input name>``).
    """

    def __init__(self, wrt: Sequence[int], *, of: Sequence[int] | None = None,
                 cotangents: Sequence[ir.Value] | None = None, keep_outputs: bool = False,
                 names: Sequence[str] | None = None):
        super().__init__()
        self.wrt = list(wrt)
        self.of = None if of is None else list(of)
        self.cotangents = None if cotangents is None else list(cotangents)
        self.keep_outputs = keep_outputs
        self.names = None if names is None else list(names)

    def requires(self, model: ir.Model) -> None:
        for node in ir.traversal.RecursiveGraphIterator(model.graph):
            if node.domain == "pyonnx":
                raise ir.passes.PreconditionError(
                    f"GradientPass needs lowered pseudo-ops; found pyonnx.{node.op_type}")

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        grads = differentiate(model, self.wrt, of=self.of, cotangents=self.cotangents,
                              keep_outputs=self.keep_outputs, names=self.names)
        del grads
        return ir.passes.PassResult(model, modified=True)


def differentiate(model: ir.Model, wrt: Sequence[int], *, of: Sequence[int] | None = None,
                  cotangents: Sequence[ir.Value] | None = None, keep_outputs: bool = False,
                  names: Sequence[str] | None = None, nested: bool = False,
                  out_loc: SourceLoc | None = None) -> list[ir.Value]:
    """The work of :class:`GradientPass`; returns the gradient output values. ``nested``:
    the result is differentiated again (:attr:`Backward.nested`). ``out_loc``: where the
    function returns its result (the refusals of an output that is no float scalar).

    Raises:
        ConversionError: an output is not a float scalar (seeded with 1), an input is not
            float, or an active op has no VJP rule.
    """
    graph = model.graph
    b = Backward(model)
    b.nested = nested
    outs = list(graph.outputs)
    of = list(range(len(outs))) if of is None else list(of)
    seeds: list[tuple[ir.Value, ir.Value]] = []
    if cotangents is None:
        for k in of:
            v = outs[k]
            dt, dims = b.dtype(v), b.dims(v)
            if dt not in FLOAT_TYPES:
                raise ConversionError(f"grad requires real-valued outputs (a float dtype), "
                                      f"but output {k} has dtype "
                                      f"{dt.numpy() if dt is not None else 'unknown'}",
                                      out_loc)
            if dims != ():
                raise ConversionError(
                    f"grad requires a scalar output (shape ()), but output {k} has "
                    f"{'rank ' + str(len(dims)) if dims is not None else 'unknown rank'}; "
                    "reduce it (e.g. np.sum) or use pyonnx.vjp / pyonnx.jacobian", out_loc)
            seeds.append((v, b.const(np.ones((), dt.numpy()))))
    else:
        for k, ct in zip(of, cotangents, strict=True):
            graph.inputs.append(ct)
            seeds.append((outs[k], ct))
    wrt_values = [graph.inputs[i] for i in wrt]
    for v in wrt_values:
        if not b.is_float(v):
            dt = b.dtype(v)
            raise ConversionError(
                f"can only differentiate with respect to float inputs, but '{v.name}' has dtype "
                f"{dt.numpy() if dt is not None else 'unknown'} (integer and bool inputs have "
                "no gradient; pass floats, e.g. x.astype(np.float64))")
    grads = b.backward(graph, seeds, wrt_values)
    b.node = None
    results = []
    for v, g in zip(wrt_values, grads):
        results.append(g if g is not None else b.zeros_like(v))
    for node in b.nodes:
        graph.append(node)
    # The backward pass may replace a forward If/Loop (to add its tape outputs), which moves
    # the graph outputs to the new node's values: read them again, not the list from before.
    new_outputs = list(graph.outputs) if keep_outputs else []
    final: list[ir.Value] = []
    taken = set(new_outputs)
    for k, (v, g) in enumerate(zip(wrt_values, results)):
        # A graph output must be produced by a node of the graph, once.
        if g.producer() is None or g in taken or g.is_graph_output():
            ident = ir.Node("", "Identity", [g], num_outputs=1, name=b.fresh("grad_out_"))
            graph.append(ident)
            g = ident.outputs[0]
        taken.add(g)
        name = names[k] if names is not None else f"grad_{v.name}"
        while name in b._names and g.name != name:
            name += "_"
        b._names.add(name)
        g.name = name
        g.type = v.type
        g.shape = v.shape
        final.append(g)
    graph.outputs.clear()
    graph.outputs.extend([*new_outputs, *final])
    return final


def differentiate_jacobian(model: ir.Model, wrt: Sequence[int],
                           names: Sequence[str] | None = None,
                           nested: bool = False,
                           out_loc: SourceLoc | None = None) -> list[ir.Value]:
    """Replaces the single graph output ``y`` by its Jacobians ``dy/dx`` (shape
    ``y.shape + x.shape``) for the graph inputs ``wrt``: reverse mode, one VJP per element of
    ``y``, run by a ``Loop`` whose body seeds a one-hot cotangent and stacks the cotangents as
    scan outputs. Returns the new output values.

    Raises:
        ConversionError: the output is not float, an input is not float, or an active op has
            no VJP rule.
    """
    graph = model.graph
    if len(graph.outputs) != 1:
        raise ConversionError("jacobian needs a function returning one array, not a tuple",
                              out_loc)
    y = graph.outputs[0]
    b = Backward(model)
    b.nested = nested
    dt = b.dtype(y)
    if dt not in FLOAT_TYPES:
        raise ConversionError(f"jacobian requires real-valued outputs (a float dtype), but the "
                              f"output has dtype {dt.numpy() if dt is not None else 'unknown'}",
                              out_loc)
    wrt_values = [graph.inputs[i] for i in wrt]
    for v in wrt_values:
        if not b.is_float(v):
            vdt = b.dtype(v)
            raise ConversionError(
                f"can only differentiate with respect to float inputs, but '{v.name}' has dtype "
                f"{vdt.numpy() if vdt is not None else 'unknown'}")
    i64, boolean = ir.TensorType(ir.DataType.INT64), ir.TensorType(ir.DataType.BOOL)
    size = b.op("Size", y)
    # The body: cotangent = one-hot(iteration) in y's shape; the VJP; one scan output per x.
    it = ir.Value(name=b.fresh("jac_iter"), type=i64, shape=ir.Shape([]))
    cond = ir.Value(name=b.fresh("jac_cond"), type=boolean, shape=ir.Shape([]))
    with b.subgraph() as body_nodes:
        positions = b.op("Range", b.const(np.int64(0)), size, b.const(np.int64(1)))
        hot = b.op("Cast", b.op("Equal", positions, it), to=dt)
        ct = b.op("Reshape", hot, b.op("Shape", y), dtype=dt, dims=b.dims(y))
        grads = b.backward(graph, [(y, ct)], wrt_values)
        b.node = None
        scans = []
        for v, g in zip(wrt_values, grads):
            g = g if g is not None else b.zeros_like(v)
            if g.producer() is None or g.producer() not in body_nodes or g in scans:
                g = b.op("Identity", g)
            scans.append(g)
        cond_out = b.op("Identity", cond)
    body = ir.Graph([it, cond], [cond_out, *scans], nodes=body_nodes,
                    name=b.fresh("jacobian_body"))
    loop = b.op("Loop", size, b.const(np.array(True)), body=body, outputs=len(scans))
    stacked = loop if len(scans) > 1 else (loop,)
    # The walk may have replaced y's producer (a Loop or If VJP rebuilds the forward node and
    # moves the graph output): read it again, the old value is no longer in the model.
    y = graph.outputs[0]
    results = []
    for k, (v, s) in enumerate(zip(wrt_values, stacked)):
        target = b.op("Concat", b.op("Shape", y), b.op("Shape", v), axis=0)
        jac = b.op("Reshape", s, target)
        name = names[k] if names is not None else f"jacobian_{v.name}"
        while name in b._names:
            name += "_"
        b._names.add(name)
        jac.name = name
        jac.type = v.type
        y_dims = list(y.shape) if y.shape is not None else [None] * (b.rank(y) or 0)
        v_dims = list(v.shape) if v.shape is not None else []
        jac.shape = ir.Shape(y_dims + v_dims)
        results.append(jac)
    for node in b.nodes:
        graph.append(node)
    graph.outputs.clear()
    graph.outputs.extend(results)
    return results

"""Reverse-mode differentiation on onnx-ir: a model → the model with its gradients as outputs.

Input: an ``ir.Model`` as the frontend and the optimization pipeline leave it (unique value
names; no ``pyonnx``-domain pseudo-ops left). Output: the same model with new graph outputs,
the cotangents of chosen graph inputs, computed by nodes appended after the forward nodes.

How (JAX's ``backward_pass`` in ``interpreters/ad.py``, on a graph instead of a jaxpr):

1. ONNX shape inference gives every value a dtype and, where known, a rank and dims
   (symbolic dims by name: equal names are equal sizes). Rules need ranks (MatMul, Einsum) and
   use known dims to skip work (no reduction where an operand did not broadcast).
2. Activity: a value is *varied* when it is float and depends on a differentiated input; it is
   *useful* when a seeded output depends on it. Only nodes with useful outputs and varied inputs
   are differentiated, so integer, boolean and shape computations (comparisons, ``Shape``,
   ``ArgMax``, index arithmetic) stop the gradient by construction.
3. A reverse walk over the nodes calls each node's VJP rule (:mod:`pyonnx.passes.vjp_rules`,
   ``@vjp("Mul")``) with its output cotangents, ``None`` being the symbolic zero; a rule returns
   one cotangent per input (``None`` for zero or not needed). Cotangents of a value used several
   times are summed with ``Add`` (fan-out). Broadcasting is undone by ``ReduceSum`` over the
   broadcast axes (:meth:`Backward.sum_to`).
4. An active node whose op has no rule is a ConversionError naming the op and the Python line
   that produced it (``meta["pyonnx.loc"]``, or the ``doc_string`` a serialized model keeps).
5. A node marked ``meta["pyonnx.derivative"] = (name, inputs)`` ends a multi-node construction
   of a numpy function (the frontend's float64 math): it is differentiated as that function
   with respect to those inputs (``vjp_rules.COMPOSITE_RULES``), not node by node.

:func:`differentiate_jacobian` runs the same walk inside a ``Loop`` body, once per output
element with a one-hot cotangent, for reverse-mode Jacobians.

New nodes copy the forward node's ``meta["pyonnx.loc"]`` and ``doc_string`` (errors and run-time
failures point at the user's line) and are named after it. The gradient model is itself
differentiable (every op a rule emits has a rule), so applying the pass twice gives second
derivatives. Run the optimization pipeline afterwards (folding, CSE, dead code).

Control flow (``If``, ``Loop``: :mod:`pyonnx.passes.vjp_control_flow`) goes through the same
table. The walk counts a node's implicit captures (outer values its bodies use) as inputs for
activity, and takes a rule's results past the node's inputs as the captures' cotangents
(:meth:`Backward.captures` order). Those rules build backward bodies with
:meth:`Backward.subgraph` and :meth:`Backward.backward` on the body graph, and may replace
the forward node (a Loop that also stacks its states, an If that also outputs what its
branch's backward pass needs): rules run during the reverse walk, whose results then point at
the replacement's outputs. ``Scan`` and the sequence ops have no rule (a ConversionError).
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import onnx
import onnx_ir as ir

from pyonnx.errors import ConversionError
from pyonnx.loc import SourceLoc

__all__ = ["GradientPass", "Backward", "differentiate", "differentiate_jacobian", "infer_types",
           "loc_of", "FLOAT_TYPES"]

logger = logging.getLogger(__name__)

FLOAT_TYPES = frozenset({ir.DataType.FLOAT16, ir.DataType.FLOAT, ir.DataType.DOUBLE,
                         ir.DataType.BFLOAT16})
_LOC = "pyonnx.loc"
_DERIVATIVE = "pyonnx.derivative"   # set by the frontend on composite math (see vjp_rules)
_GRAPH_ATTRS = (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS)
_SEQUENCE_OPS = frozenset({"SequenceInsert", "SequenceAt", "SequenceConstruct", "SequenceErase",
                           "ConcatFromSequence", "SplitToSequence", "SequenceEmpty"})
_DOC_LOC = re.compile(r"^(.*):(\d+):(\d+): ")

Dims = tuple  # of int (known size), str (symbolic size: equal names, equal sizes) or None


# ------------------------------------------------------------------ locations and types
def loc_of(node: ir.Node) -> SourceLoc | None:
    """The Python source location of ``node``: its ``meta["pyonnx.loc"]``, else parsed from the
    ``doc_string`` pyonnx writes (``file:line:col: source``), which survives serialization."""
    loc = node.meta.get(_LOC)
    if loc is not None:
        return loc
    doc = node.doc_string or ""
    m = _DOC_LOC.match(doc)
    if m is None:
        return None
    import linecache

    filename, line, col = m.group(1), int(m.group(2)), int(m.group(3)) - 1
    return SourceLoc(filename, line, col, "", linecache.getline(filename, line))


def infer_types(model: ir.Model) -> dict[str, tuple[ir.DataType | None, Dims | None]]:
    """Value name → (dtype, dims) from ONNX shape inference, without changing the model.

    dims is None when the rank is unknown; a dim is an int, a symbol name, or None.
    Inference failures leave the values it could not type out (rules then fall back to
    run-time shapes or say what they need).
    """
    from pyonnx.passes.serialize import serialize_model

    proto = serialize_model(model)
    _constants_into_subgraphs(proto)
    inferred = None
    for strict in (True, False):
        try:
            inferred = onnx.shape_inference.infer_shapes(proto, strict_mode=strict,
                                                         data_prop=True)
            break
        except Exception as e:  # noqa: BLE001 - inference is an optimization here
            logger.debug("shape inference (strict=%s) failed: %s", strict, e)
    info: dict[str, tuple[ir.DataType | None, Dims | None]] = {}
    if inferred is None:
        return info

    def read(vi) -> None:
        t = vi.type
        if not t.HasField("tensor_type"):
            return
        tt = t.tensor_type
        dtype = ir.DataType(tt.elem_type) if tt.elem_type else None
        dims = None
        if tt.HasField("shape"):
            dims = tuple(d.dim_value if d.HasField("dim_value")
                         else (d.dim_param or None) for d in tt.shape.dim)
        info[vi.name] = (dtype, dims)

    def walk(g: onnx.GraphProto) -> None:
        for vi in (*g.input, *g.value_info, *g.output):
            read(vi)
        for init in g.initializer:
            info[init.name] = (ir.DataType(init.data_type), tuple(init.dims))
        for node in g.node:
            for attr in node.attribute:
                if attr.HasField("g"):
                    walk(attr.g)
                for sub in attr.graphs:
                    walk(sub)

    walk(inferred.graph)
    return info


def _constants_into_subgraphs(proto: onnx.ModelProto, limit: int = 64) -> None:
    """Copies the small main-graph initializers that If/Loop bodies use into those bodies (in
    this copy of the model, made for inference only): ONNX shape inference does not read outer
    constants' values inside subgraphs, so it lost ranks there (``Unsqueeze`` axes, ``Reshape``
    targets) that the rules need."""
    small = {t.name: t for t in proto.graph.initializer
             if int(np.prod(t.dims, dtype=np.int64)) <= limit}

    def walk(g: onnx.GraphProto, top: bool) -> None:
        if not top:
            defined = {t.name for t in g.initializer} | {v.name for v in g.input}
            used = {name for n in g.node for name in n.input}
            for name in sorted(used - defined):
                if name in small:
                    g.initializer.append(small[name])
        for n in g.node:
            for attr in n.attribute:
                if attr.HasField("g"):
                    walk(attr.g, False)
                for sub in attr.graphs:
                    walk(sub, False)

    walk(proto.graph, True)


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


# ------------------------------------------------------------------ the builder rules use
class Backward:
    """One reverse walk's state, and the builder VJP rules emit through.

    Rules see ``b.node`` (the forward node), ``b.needs(i)`` (whether input i wants a
    cotangent), emit with :meth:`op` and :meth:`const`, and read types with :meth:`dtype`,
    :meth:`dims`, :meth:`rank`. Emitted nodes go to ``self.nodes`` (the caller places them:
    appended to the main graph, or into a Loop body for Jacobians).

    Attributes:
        model: the model being differentiated (constants become its initializers).
        info: value name → (dtype, dims), from :func:`infer_types`.
        nodes: the emitted nodes, in order.
    """

    def __init__(self, model: ir.Model, info: dict[str, tuple[Any, Any]] | None = None,
                 names: set[str] | None = None):
        self.model = model
        self.info = info if info is not None else infer_types(model)
        self.nodes: list[ir.Node] = []
        self.node: ir.Node | None = None
        self._needs: list[bool] = []
        self._names = names if names is not None else _all_names(model)
        self._counter = 0
        self._consts: dict[tuple, ir.Value] = {}
        self._shapes: dict[tuple, ir.Value] = {}
        self._extra: dict[ir.Value, tuple[Any, Any]] = {}  # types of values made here
        # The current walk's activity (read by the control-flow rules).
        self._varied: set[ir.Value] = set()
        self._wanted_captures: set[ir.Value] = set()

    # ---------------------------------------------------------------- names
    def fresh(self, base: str = "grad") -> str:
        while True:
            self._counter += 1
            name = f"{base}{self._counter}"
            if name not in self._names:
                self._names.add(name)
                return name

    # ---------------------------------------------------------------- emitting
    def op(self, op_type: str, *inputs: ir.Value | None, outputs: int = 1,
           copy_attrs: ir.Node | None = None, dtype: ir.DataType | None = None,
           dims: Dims | None = None, **attrs: Any) -> Any:
        """Emits one node (attributes: Python values; ``copy_attrs``: a node whose attributes
        are copied first). ``dtype``/``dims`` record the result's type when the rule knows it.
        Returns the output value, or a tuple of them."""
        if op_type == "Reshape" and "allowzero" not in attrs and inputs[1] is not None:
            target = inputs[1].const_value
            if target is None or -1 not in target.numpy():
                # Targets here are shapes of real values: a 0 is an empty dim, not "copy".
                attrs["allowzero"] = 1
        attributes = []
        if copy_attrs is not None:
            attributes += [a for name, a in copy_attrs.attributes.items() if name not in attrs]
        attributes += ir.convenience.convert_attributes(
            {k: v for k, v in attrs.items() if v is not None})
        inputs_ = list(inputs)
        while inputs_ and inputs_[-1] is None:    # omitted trailing optional inputs
            inputs_.pop()
        fwd = self.node
        base = fwd.name if fwd is not None and fwd.name else "grad"
        node = ir.Node("", op_type, inputs_, attributes, num_outputs=outputs,
                       name=self.fresh(f"{base}_vjp_{op_type}_"))
        if fwd is not None:
            loc = fwd.meta.get(_LOC)
            if loc is not None:
                node.meta[_LOC] = loc
            if fwd.doc_string:
                node.doc_string = fwd.doc_string
        for out in node.outputs:
            out.name = self.fresh()
        if dtype is not None or dims is not None:
            for out in node.outputs:
                self._extra[out] = (dtype, dims)
                if dtype is not None:
                    out.type = ir.TensorType(dtype)
        self.nodes.append(node)
        return node.outputs[0] if outputs == 1 else tuple(node.outputs)

    def const(self, array: Any, dtype: Any = None) -> ir.Value:
        """A main-graph initializer holding ``array`` (shared by value)."""
        arr = np.asarray(array, dtype=dtype)
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        value = self._consts.get(key)
        if value is None:
            value = ir.Value(name=self.fresh("grad_const"), shape=ir.Shape(arr.shape),
                             type=ir.TensorType(ir.DataType.from_numpy(arr.dtype)),
                             const_value=ir.tensor(arr))
            self.model.graph.register_initializer(value)
            self._consts[key] = value
            self._extra[value] = (ir.DataType.from_numpy(arr.dtype), arr.shape)
        return value

    def ints(self, values: Sequence[int]) -> ir.Value:
        return self.const(np.asarray(list(values), np.int64))

    def scalar(self, x: float, like: ir.Value) -> ir.Value:
        """A 0-d constant ``x`` of ``like``'s dtype (CastLike when the dtype is unknown)."""
        dt = self.dtype(like)
        if dt is None:
            return self.op("CastLike", self.const(np.float64(x)), like)
        return self.const(np.asarray(x, dtype=dt.numpy()))

    # ---------------------------------------------------------------- types
    def dtype(self, v: ir.Value) -> ir.DataType | None:
        extra = self._extra.get(v)
        if extra is not None and extra[0] is not None:
            return extra[0]
        if v.dtype is not None:
            return v.dtype
        found = self.info.get(v.name) if v.name else None
        return found[0] if found else None

    def dims(self, v: ir.Value) -> Dims | None:
        extra = self._extra.get(v)
        if extra is not None and extra[1] is not None:
            return tuple(extra[1])
        found = self.info.get(v.name) if v.name else None
        if found is not None and found[1] is not None:
            return found[1]
        if v.shape is not None:
            return tuple(d if isinstance(d, int) else (d.value if d.value else None)
                         for d in v.shape)
        return None

    def rank(self, v: ir.Value) -> int | None:
        d = self.dims(v)
        return None if d is None else len(d)

    def need_rank(self, v: ir.Value) -> int:
        r = self.rank(v)
        if r is None:
            raise self.error(f"the gradient of {self.node.op_type} needs the rank of its "
                             f"operand '{v.name}', which shape inference could not find")
        return r

    def is_float(self, v: ir.Value) -> bool:
        return self.dtype(v) in FLOAT_TYPES

    # ---------------------------------------------------------------- rule context
    def needs(self, i: int) -> bool:
        """Whether input ``i`` of the current node wants a cotangent."""
        return i < len(self._needs) and self._needs[i]

    def error(self, message: str) -> ConversionError:
        return ConversionError(message, loc_of(self.node) if self.node is not None else None)

    def needs_capture(self, v: ir.Value) -> bool:
        """Whether the captured outer value ``v`` of the current node wants a cotangent."""
        return v in self._wanted_captures

    def is_varied(self, v: ir.Value) -> bool:
        """Whether ``v`` (a value of the graph being walked) depends on a differentiated input."""
        return v in self._varied

    @contextlib.contextmanager
    def subgraph(self) -> Iterator[list[ir.Node]]:
        """Emits into a new node list (yielded) for a subgraph body: a Loop running VJPs
        (Jacobians), the bodies of the If/Loop rules. Shapes memoized inside stay inside."""
        saved = (self.nodes, self._shapes, self.node, self._needs, self._varied,
                 self._wanted_captures)
        self.nodes, self._shapes = [], dict(self._shapes)
        try:
            yield self.nodes
        finally:
            (self.nodes, self._shapes, self.node, self._needs, self._varied,
             self._wanted_captures) = saved

    def clone_graph(self, graph: ir.Graph) -> tuple[ir.Graph, dict[ir.Value, ir.Value]]:
        """A copy of ``graph`` (subgraphs included; outer values it uses are shared) with fresh
        names, and the map original value → copy. Copies keep the originals' types (for the
        rules), locations and composite marks (pointing at the copies)."""
        copy = graph.clone(allow_outer_scope_values=True)
        mapping: dict[ir.Value, ir.Value] = {}
        pairs: list[tuple[ir.Node, ir.Node]] = []

        def pair(g0: ir.Graph, g1: ir.Graph) -> None:
            mapping.update(zip(g0.inputs, g1.inputs))
            for n0, n1 in zip(g0, g1):
                pairs.append((n0, n1))
                mapping.update(zip(n0.outputs, n1.outputs))
                for a0, a1 in zip(n0.attributes.values(), n1.attributes.values()):
                    if a0.type == ir.AttributeType.GRAPH:
                        pair(a0.value, a1.value)
                    elif a0.type == ir.AttributeType.GRAPHS:
                        for s0, s1 in zip(a0.value, a1.value):
                            pair(s0, s1)

        pair(graph, copy)
        for orig, new in mapping.items():
            self._extra[new] = (self.dtype(orig), self.dims(orig))
            new.name = self.fresh(f"{orig.name or 'v'}_r")
        for n0, n1 in pairs:
            n1.name = self.fresh(f"{n0.name or n0.op_type}_r")
            mark = n1.meta.get(_DERIVATIVE)
            if mark is not None:
                n1.meta[_DERIVATIVE] = (mark[0], [mapping.get(x, x) for x in mark[1]])
        return copy, mapping

    def captures(self, node: ir.Node) -> list[ir.Value]:
        """The outer values ``node``'s subgraphs use. A rule for a node with subgraphs returns
        one cotangent per input, then one per captured value, in this order."""
        return _captures(node)

    # ---------------------------------------------------------------- helpers
    def shape(self, v: ir.Value, start: int = 0, end: int | None = None,
              rank: int | None = None) -> ir.Value:
        """``Shape(v)`` (dims ``start:end`` of a rank-``rank`` value), emitted once per value."""
        if end is not None and start == 0 and end == rank:
            end = None
        key = (v, start, end)
        s = self._shapes.get(key)
        if s is None:
            s = self._shapes[key] = self.op("Shape", v, start=start or None, end=end)
        return s

    def zeros_like(self, v: ir.Value) -> ir.Value:
        dt = self.dtype(v)
        if dt is None:
            return self.op("Mul", v, self.scalar(0.0, v))  # pragma: no cover - typed models
        return self.op("ConstantOfShape", self.shape(v),
                       value=ir.tensor(np.zeros(1, dt.numpy())), dtype=dt, dims=self.dims(v))

    def add(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return self.op("Add", a, b)

    def iota(self, x: ir.Value) -> ir.Value:
        """int64 positions 0..size-1 in ``x``'s shape: gathering ops applied to it tell which
        element of ``x`` each output element came from."""
        n = self.op("Size", x)
        flat = self.op("Range", self.const(np.int64(0)), n, self.const(np.int64(1)))
        return self.op("Reshape", flat, self.shape(x))

    def scatter_add_flat(self, g: ir.Value, positions: ir.Value, x: ir.Value,
                         extra_slot: bool = False) -> ir.Value | tuple[ir.Value, ir.Value]:
        """The cotangent of ``x`` for an op that moved element ``positions[j]`` of ``x`` to
        position j (``positions`` from the op applied to :meth:`iota`): ``g`` summed into a
        zero array of ``x``'s shape. With ``extra_slot`` one more slot (index ``size(x)``)
        collects the cotangent of a fill value; returns (cotangent of x, of the fill)."""
        dt = self.dtype(x)
        if dt is None:
            raise self.error(f"the gradient of {self.node.op_type} needs the dtype of "
                             f"'{x.name}'")
        # onnxruntime has no float16 scatter-add: accumulate in float32.
        run = ir.DataType.FLOAT if dt in (ir.DataType.FLOAT16, ir.DataType.BFLOAT16) else dt
        n = self.op("Size", x)
        size = self.op("Add", n, self.const(np.int64(1))) if extra_slot else n
        zeros = self.op("ConstantOfShape", self.op("Reshape", size, self.ints([1])),
                        value=ir.tensor(np.zeros(1, run.numpy())))
        gv = self.op("Reshape", g, self.ints([-1]))
        if run != dt:
            gv = self.op("Cast", gv, to=run)
        flat = self.op("ScatterElements", zeros, self.op("Reshape", positions, self.ints([-1])),
                       gv, axis=0, reduction="add")
        if run != dt:
            flat = self.op("Cast", flat, to=dt)
        if not extra_slot:
            return self.op("Reshape", flat, self.shape(x), dtype=dt, dims=self.dims(x))
        body = self.op("Slice", flat, self.ints([0]), self.op("Reshape", n, self.ints([1])))
        fill = self.op("Gather", flat, n)
        return self.op("Reshape", body, self.shape(x), dtype=dt, dims=self.dims(x)), fill

    def sum_to(self, g: ir.Value, x: ir.Value, g_dims: Any = ...,
               x_dims: Any = ...) -> ir.Value:
        """``g`` (the shape of a broadcast result) summed down to ``x``'s shape: over the
        leading axes ``x`` lacks, and over the axes where ``x`` has size 1 and the result not.

        Uses known dims to decide axes at conversion time; a dim that may or may not be 1 is
        decided at run time (``Compress`` of the candidate axes). Without ranks, everything is
        decided at run time. ``g_dims`` defaults to the dims of the current node's output,
        ``x_dims`` to those of ``x``; None means unknown.
        """
        if g_dims is ...:
            g_dims = self.dims(self.node.outputs[0]) if self.node is not None else None
        if x_dims is ...:
            x_dims = self.dims(x)
        if g_dims is None or x_dims is None:
            return self._sum_to_dynamic(g, x)
        lead = len(g_dims) - len(x_dims)
        if lead < 0:
            return self._sum_to_dynamic(g, x)
        static: list[int] = []
        dynamic: list[int] = []
        for i, d in enumerate(x_dims):
            o = g_dims[lead + i]
            if d is not None and d == o:
                continue
            if d == 1:
                static.append(lead + i)
            elif isinstance(d, int):
                continue            # a known size other than 1 never broadcasts
            else:
                dynamic.append(i)
        r = g
        if static or dynamic:
            axes = self.ints(static) if static else None
            if dynamic:
                if dynamic == list(range(dynamic[0], dynamic[-1] + 1)):
                    # Contiguous: Shape's start/end slice them (one op less than a Gather).
                    x_sizes = self.shape(x, dynamic[0], dynamic[-1] + 1, len(x_dims))
                else:
                    x_sizes = self.op("Gather", self.shape(x), self.ints(dynamic))
                ones = self.op("Equal", x_sizes, self.const(np.int64(1)))
                picked = self.op("Compress", self.ints([lead + i for i in dynamic]), ones,
                                 axis=0)
                axes = picked if axes is None else self.op("Concat", axes, picked, axis=0)
            r = self.op("ReduceSum", r, axes, keepdims=1, noop_with_empty_axes=1)
        if lead:
            r = self.op("ReduceSum", r, self.ints(range(lead)), keepdims=0)
        if r is g:
            return g
        self._extra[r] = (self.dtype(x), x_dims)
        return r

    def _sum_to_dynamic(self, g: ir.Value, x: ir.Value) -> ir.Value:
        # Ranks unknown: compare the shapes at run time (x's padded with leading 1s).
        gs, xs = self.shape(g), self.shape(x)
        rg = self.op("Size", gs)
        lead = self.op("Sub", rg, self.op("Size", xs))
        pad = self.op("ConstantOfShape", self.op("Reshape", lead, self.ints([1])),
                      value=ir.tensor(np.ones(1, np.int64)))
        padded = self.op("Concat", pad, xs, axis=0)
        differ = self.op("Not", self.op("Equal", padded, gs))
        axes = self.op("Compress", self.op("Range", self.const(np.int64(0)), rg,
                                           self.const(np.int64(1))), differ, axis=0)
        r = self.op("ReduceSum", g, axes, keepdims=1, noop_with_empty_axes=1)
        return self.op("Reshape", r, xs)

    # ---------------------------------------------------------------- the walk
    def backward(self, graph: ir.Graph, seeds: Sequence[tuple[ir.Value, ir.Value]],
                 wrt: Sequence[ir.Value]) -> list[ir.Value | None]:
        """Cotangents of ``wrt`` given ``seeds`` (value, cotangent) on values of ``graph``.

        Returns one value per ``wrt`` item, None where the cotangent is symbolically zero.

        Raises:
            ConversionError: an active node's op has no VJP rule (names the op and line).
        """
        from pyonnx.passes.vjp_rules import RULES

        nodes = list(graph)
        captures = {node: self.captures(node) for node in nodes
                    if any(a.type in _GRAPH_ATTRS for a in node.attributes.values())}
        varied: set[ir.Value] = {v for v in wrt if self.is_float(v)}
        for node in nodes:
            ins = node.inputs if node not in captures else (*node.inputs, *captures[node])
            if any(v is not None and v in varied for v in ins):
                for out in node.outputs:
                    if self.dtype(out) in FLOAT_TYPES or self.dtype(out) is None:
                        varied.add(out)
        self._varied = varied
        useful: set[ir.Value] = {v for v, _ in seeds if v in varied}
        for node in reversed(nodes):
            if any(out in useful for out in node.outputs):
                ins = node.inputs if node not in captures else (*node.inputs, *captures[node])
                useful.update(v for v in ins if v is not None and v in varied)
        cts: dict[ir.Value, ir.Value] = {}
        for v, ct in seeds:
            if v in useful:
                self._accumulate(cts, v, ct)
        for node in reversed(nodes):
            gs = [cts.get(out) for out in node.outputs]
            if all(g is None for g in gs):
                continue
            marked = self._composite(node, nodes)
            if marked is not None:
                rule, xs = marked
                self.node = node
                self._needs = []
                for v, r in zip(xs, rule(self, gs[0], xs, node.outputs[0])):
                    if r is not None and v in useful:
                        self._accumulate(cts, v, r)
                continue
            needs = [v is not None and v in useful for v in node.inputs]
            captured = [v for v in captures.get(node, ()) if v in useful]
            if not any(needs) and not captured:
                continue
            rule = RULES.get(node.op_type) if node.domain in ("", "ai.onnx") else None
            self.node = node
            if rule is None:
                what = node.op_type if node.domain in ("", "ai.onnx") else \
                    f"{node.domain}.{node.op_type}"
                hint = ""
                if node.op_type in _SEQUENCE_OPS and node.domain in ("", "ai.onnx"):
                    hint = ("; gradients through lists whose length is only known at run time "
                            "(ONNX sequences) are not supported: build the values with array "
                            "operations (np.stack of a fixed number of items, item assignment "
                            "into a preallocated array)")
                raise self.error(f"cannot differentiate through {what}: no gradient (VJP) rule "
                                 f"for the ONNX op {what} that this line produces{hint}")
            self._needs = needs
            self._wanted_captures = set(captured)
            self._varied = varied
            inputs = list(node.inputs)     # (a control-flow rule may replace the node)
            results = rule(self, node, gs)
            for i, (v, r) in enumerate(zip(inputs, results)):
                if r is None or not needs[i]:
                    continue
                self._accumulate(cts, v, r)
            if captured:
                extra = results[len(inputs):]
                for v, r in zip(captures[node], extra):
                    if r is not None and v in useful:
                        self._accumulate(cts, v, r)
        self.node = None
        return [cts.get(v) for v in wrt]


    def _accumulate(self, cts: dict[ir.Value, ir.Value], v: ir.Value, ct: ir.Value) -> None:
        """Adds ``ct`` to the cotangent of ``v`` (fan-out); cotangents have ``v``'s type."""
        total = ct if v not in cts else self.add(cts[v], ct)
        if total not in self._extra:
            self._extra[total] = (self.dtype(v), self.dims(v))
        cts[v] = total

    def _composite(self, node: ir.Node, nodes: Sequence[ir.Node]):
        """(rule, inputs) when ``node`` ends a construction marked with the numpy function it
        computes (``meta["pyonnx.derivative"]``), its inputs still in the model; else None."""
        mark = node.meta.get(_DERIVATIVE)
        if mark is None or len(node.outputs) != 1:
            return None
        from pyonnx.passes.vjp_rules import COMPOSITE_RULES

        name, xs = mark
        rule = COMPOSITE_RULES.get(name)
        if rule is None or not all(_alive(x) for x in xs):
            return None
        return rule, xs


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
                  names: Sequence[str] | None = None) -> list[ir.Value]:
    """The work of :class:`GradientPass`; returns the gradient output values.

    Raises:
        ConversionError: an output is not a float scalar (seeded with 1), an input is not
            float, or an active op has no VJP rule.
    """
    graph = model.graph
    b = Backward(model)
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
                                      f"{dt.numpy() if dt is not None else 'unknown'}")
            if dims != ():
                raise ConversionError(
                    f"grad requires a scalar output (shape ()), but output {k} has "
                    f"{'rank ' + str(len(dims)) if dims is not None else 'unknown rank'}; "
                    "reduce it (e.g. np.sum) or use pyonnx.vjp / pyonnx.jacobian")
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
                           names: Sequence[str] | None = None) -> list[ir.Value]:
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
        raise ConversionError("jacobian needs a function returning one array, not a tuple")
    y = graph.outputs[0]
    b = Backward(model)
    dt = b.dtype(y)
    if dt not in FLOAT_TYPES:
        raise ConversionError(f"jacobian requires real-valued outputs (a float dtype), but the "
                              f"output has dtype {dt.numpy() if dt is not None else 'unknown'}")
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

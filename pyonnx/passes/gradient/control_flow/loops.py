"""VJP rules for ONNX control flow: ``If`` and ``Loop`` as the frontend emits them.

Input: the :class:`~pyonnx.passes.gradient.backward.Backward` builder, the forward ``If``/``Loop`` node
(in the graph being walked), and the cotangents of its outputs. Output: one cotangent per input
(none for conditions and trip counts), then one per captured outer value in
:meth:`Backward.captures` order. Registered in :data:`pyonnx.passes.gradient.rules.elementwise.RULES`.

``If`` (the branch's backward pass, run on the same condition): each branch's body is
differentiated where it is, giving a backward branch that uses values computed inside the
forward branch (residuals). The forward ``If`` is replaced by one that also outputs those
residuals (the branch not taken outputs an empty placeholder of the same dtype and rank), and
the backward ``If`` on the same condition runs the taken branch's VJP on them. A branch that
does not use a captured value gives it a zero cotangent.

``Loop`` (``for`` and ``while`` alike; breaks, continues and early returns are flags in the
body's condition, so only the run tells how many iterations ran): the forward ``Loop`` is
replaced by one that also records, per iteration, the state each iteration starts from and
the body values the backward pass reads (residuals), as scan outputs (stacked along a new
first axis). The number of iterations run is the length of that record (a loop that ran 0
times records nothing, and the reverse loop runs 0 times). The backward ``Loop`` runs that
many iterations, iteration k replaying forward iteration ``t = trips-1-k``: it reads
iteration t's state and residuals from the records (``Gather``) and runs the body's VJP,
carrying the cotangents of the loop states from one iteration to the previous one, and
summing those of captured outer values (their cotangents add up over iterations).

Scan outputs need one shape on every iteration. ONNX shape inference on the body
(:class:`_BodyShapes`) decides which states and residuals keep theirs; a state whose shape
settles after the first iteration is recorded as it leaves each iteration instead. What cannot
be recorded is recomputed: the backward body starts with a copy of the forward body (from the
recorded states), pruned to what the VJP still reads; a state whose shape may change from one
iteration to the next (an array growing by concatenation) is recorded in an ONNX sequence.

Cotangents flow only through float states that depend on a differentiated value
(fixed points over the body), so integer counters, flags and constant states cost nothing but
their recording when the recomputation needs them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import onnx_ir as ir

from pyonnx.passes.gradient.backward import FLOAT_TYPES, Backward, _captures
from pyonnx.passes.gradient.rules.elementwise import vjp

__all__: list[str] = []

_GRAPH_ATTRS = (ir.AttributeType.GRAPH, ir.AttributeType.GRAPHS)


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
    """A node's inputs and the outer values its subgraphs capture."""
    ins = [v for v in node.inputs if v is not None]
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
    moved: dict[ir.Value, ir.Value] = {}
    for k, out in enumerate(old.outputs):
        repl = new.outputs[k if offset_of is None else offset_of(k)]
        moved[out] = repl
        repl.type, repl.shape = out.type, out.shape
        if out in b._extra:
            b._extra[repl] = b._extra[out]
        name = out.name
        out.replace_all_uses_with(repl, replace_graph_outputs=True)
        out.name = None
        repl.name = name
    graph.remove(old, safe=True)
    # Composite marks downstream point at the new outputs (a later differentiation reads them).
    for n in ir.traversal.RecursiveGraphIterator(graph):
        mark = n.meta.get("pyonnx.derivative")
        if mark is not None and any(x in moved for x in mark[1]):
            n.meta["pyonnx.derivative"] = (mark[0], [moved.get(x, x) for x in mark[1]])


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
    """A constant of ``v``'s dtype and rank holding no element (a placeholder output)."""
    dt = b.dtype(v)
    if dt is None or not isinstance(v.type, (ir.TensorType, type(None))):
        raise b.error(f"the gradient of If needs '{v.name}' to be a tensor of known dtype")
    rank = b.rank(v)
    return b.const(np.zeros((0,) * (rank or 0), dt.numpy()))


# ------------------------------------------------------------------ If
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
        # Residuals: values computed in the forward branch that its VJP uses.
        residuals: dict[ir.Value, None] = {}
        for n in _all_nodes(nodes):
            for v in n.inputs:
                if v is not None and v.producer() is not None and v.producer().graph is g:
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
                        outs.append(r if j == k else _typed(b, b.op("Identity", _empty_like(b, r)),
                                                             r))
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
            out.type = _tensor_type(b, r)
            b._extra[out] = (b.dtype(r), b.dims(r))
        # The backward branches read the residuals from the new If's outputs.
        for (nodes, _, rs), outs in zip(backward, (new.outputs[n_out:n_out + len(res_then)],
                                                   new.outputs[n_out + len(res_then):])):
            inside = set(_all_nodes(nodes))
            for r, out in zip(rs, outs):
                for use in r.uses():
                    if use.node in inside:
                        use.node.replace_input_with(use.idx, out)
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


# ------------------------------------------------------------------ Loop
class _BodyShapes:
    """Shapes in a Loop body that hold on every iteration.

    ONNX shape inference runs on the body alone, each state input declared with the shape of
    its initial value (unknown dims as fresh symbols) and captured values with theirs
    (constants with their values). A state whose output comes back with the same dims keeps
    that shape on every iteration (by induction): ``invariant[j]``. A state whose output has
    other dims is declared with those and the body inferred again: if they come back, the
    state keeps them from iteration 1 on (``eventual[j]``: an RNN's ``h = tanh(W @ h + ...)``
    has ``W``'s rows after the first iteration, whatever ``h0``'s symbolic size was).

    When every state is one or the other, a body value inferred with the same dims both ways,
    made only of ints and declared symbols, has that shape on every iteration (``fixed(v)``);
    a data-dependent size is a new symbol and does not qualify.
    """

    def __init__(self, b: Backward, node: ir.Node):
        body: ir.Graph = node.attributes["body"].value
        n = len(node.inputs) - 2
        self.invariant = [body.outputs[1 + j] is body.inputs[2 + j] for j in range(n)]
        self.eventual = [False] * n
        self.symbols: set[str] = set()
        self.dims: dict[str, tuple] = {}
        self._second: dict[str, tuple] | None = None
        inits = list(node.inputs[2:])
        first = [b.dims(v) for v in inits]
        self.dims = self._infer(b, node, body, first) or {}
        outs = [self.dims.get(body.outputs[1 + j].name or "") for j in range(n)]
        again = list(self._declared)
        for j in range(n):
            if self.invariant[j] or self._declared[j] is None or outs[j] is None:
                continue
            if outs[j] == self._declared[j]:
                self.invariant[j] = True
            elif all(d is not None for d in outs[j]):
                # Symbols inference made up are renamed: the second run makes up its own.
                again[j] = tuple(d if isinstance(d, int) or d in self.symbols
                                 else f"__eventual{j}_{d}" for d in outs[j])
        if again != self._declared:
            declared = self._declared
            second = self._infer(b, node, body, again) or {}
            self._second = second
            for j in range(n):
                if again[j] != declared[j] and again[j] is not None:
                    self.eventual[j] = second.get(body.outputs[1 + j].name or "") == again[j]
            self._declared = declared

    def fixed(self, v: ir.Value) -> bool:
        if not all(i or e for i, e in zip(self.invariant, self.eventual)):
            return False
        dims = self.dims.get(v.name or "")
        if dims is None or not all(isinstance(d, int) or d in self.symbols for d in dims):
            return False
        return self._second is None or self._second.get(v.name or "") == dims

    def _infer(self, b: Backward, node: ir.Node, body: ir.Graph,
               state_dims: list) -> dict[str, tuple] | None:
        """Body value name → inferred dims, the states declared with ``state_dims``."""
        import onnx

        n = len(state_dims)
        self._declared: list[tuple | None] = [None] * n
        try:
            proto = ir.serde.serialize_graph(body)
        except Exception:  # noqa: BLE001 - an optimization: records fall back to sequences
            return None

        def declare(vi, dims, fresh: str) -> tuple:
            dims = tuple(d if d is not None else f"{fresh}{k}" for k, d in enumerate(dims))
            tt = vi.type.tensor_type
            tt.ClearField("shape")
            tt.shape.SetInParent()
            for d in dims:
                dim = tt.shape.dim.add()
                if isinstance(d, int):
                    dim.dim_value = d
                else:
                    dim.dim_param = d
                    self.symbols.add(d)
            return dims

        for j in range(n):
            vi = proto.input[2 + j]
            if state_dims[j] is not None and vi.type.HasField("tensor_type"):
                self._declared[j] = declare(vi, state_dims[j], f"__state{j}_")
        for c in _captures(node):
            if c.const_value is not None:
                tensor = ir.serde.serialize_tensor(c.const_value)
                tensor.name = c.name
                proto.initializer.append(tensor)
                continue
            dt = b.dtype(c)
            if dt is None or not isinstance(c.type, (ir.TensorType, type(None))):
                continue
            vi = onnx.helper.make_tensor_value_info(c.name, int(dt), None)
            dims = b.dims(c)
            if dims is not None:
                declare(vi, dims, f"__capture_{c.name}_")
            proto.input.append(vi)
        opsets = [onnx.helper.make_opsetid(domain, version)
                  for domain, version in b.model.opset_imports.items()]
        model = onnx.helper.make_model(proto, opset_imports=opsets,
                                       ir_version=b.model.ir_version)
        try:
            inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False,
                                                         data_prop=True)
        except Exception:  # noqa: BLE001 - an optimization: records fall back to sequences
            return None
        dims: dict[str, tuple] = {}
        for vi in (*inferred.graph.value_info, *inferred.graph.output):
            tt = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
            if tt is not None and tt.HasField("shape"):
                dims[vi.name] = tuple(
                    d.dim_value if d.HasField("dim_value") else (d.dim_param or None)
                    for d in tt.shape.dim)
        return dims


# Ops cheaper to recompute in the backward body than to record per iteration.
_CHEAP = frozenset({"Identity", "Reshape", "Unsqueeze", "Squeeze", "Flatten", "Transpose",
                    "Shape", "Size", "Cast", "CastLike"})
_SHAPE_OPS = frozenset({"Shape", "Size"})


def _record_residuals(b: Backward, node: ir.Node, body: ir.Graph, copy: ir.Graph,
                      pre: set[ir.Node], vjp_nodes: list[ir.Node],
                      mapping: dict[ir.Value, ir.Value], shapes: _BodyShapes,
                      t: ir.Value) -> list[tuple[ir.Value, ir.Value]]:
    """Makes the VJP read recorded values instead of recomputing them where that is valid.

    A value of the body copy that the VJP nodes read (a residual) is replaced by
    ``Gather(record, t)`` of the same value of the forward body, recorded per iteration, when
    its shape is the same on every iteration (:meth:`_BodyShapes.fixed`) and it is not a cheap
    function of the recorded states (:data:`_CHEAP`). ``Shape``/``Size`` of a residual are
    recorded instead of the residual (a rank-long vector). The copy's nodes that no longer feed
    anything are pruned afterwards. Emits the Gathers into ``copy``; returns (forward body
    value to record, placeholder for its record) pairs (nodes it adds to the forward body, the
    recorded ``Shape``s, are appended to ``body``).
    """
    clones = {n for n in copy if n not in pre}
    inverse = {c: o for o, c in mapping.items()}
    inside = set(_all_nodes(vjp_nodes))

    def available(v: ir.Value, depth: int) -> bool:
        p = v.producer()
        if p is None or p not in clones:
            return True
        if p.op_type not in _CHEAP or p.domain not in ("", "ai.onnx") or depth == 0:
            return False
        return all(available(i, depth - 1) for i in p.inputs if i is not None)

    residuals: dict[ir.Value, None] = {}
    for n in _all_nodes(vjp_nodes):
        for v in n.inputs:
            if v is not None and v.producer() in clones:
                residuals[v] = None
    records: list[tuple[ir.Value, ir.Value]] = []
    with b.subgraph() as gathers, b.subgraph() as forward:
        b.node = node
        for r in residuals:
            orig = inverse.get(r)
            if orig is None or orig.producer() is None or orig.producer().graph is not body \
                    or not isinstance(orig.type, (ir.TensorType, type(None))):
                continue
            if available(r, 3):
                continue
            uses = [u for u in r.uses() if u.node in inside]
            shape_uses = [u for u in uses if u.node.op_type in _SHAPE_OPS and
                          u.node.domain in ("", "ai.onnx") and u.node in vjp_nodes]
            if len(shape_uses) < len(uses) and shapes.fixed(orig):
                b.nodes = gathers
                ph = ir.Value(name=b.fresh("rev_record"))
                got = b.op("Gather", ph, t, axis=0, dtype=b.dtype(r), dims=b.dims(r))
                for u in uses:
                    u.node.replace_input_with(u.idx, got)
                records.append((orig, ph))
                continue
            for u in shape_uses:
                # Only the shape (or size) is read, or the value cannot be recorded: record
                # that, computed in the forward body.
                user = u.node
                b.nodes = forward
                fwd = b.op(user.op_type, orig, copy_attrs=user, dtype=ir.DataType.INT64,
                           dims=b.dims(user.outputs[0]))
                b.nodes = gathers
                ph = ir.Value(name=b.fresh("rev_record"))
                got = b.op("Gather", ph, t, axis=0, dtype=ir.DataType.INT64,
                           dims=b.dims(user.outputs[0]))
                user.outputs[0].replace_all_uses_with(got)
                records.append((fwd, ph))
        b.nodes = gathers
    for fwd_node in forward:
        fwd_node.outputs[0].type = ir.TensorType(ir.DataType.INT64)
    body.extend(forward)
    copy.extend(gathers)
    return records


@vjp("Loop")
def _loop(b: Backward, node: ir.Node, gs):
    body: ir.Graph = node.attributes["body"].value
    inits = list(node.inputs[2:])
    n = len(inits)
    n_scan = len(node.outputs) - n
    it_in, states_in = body.inputs[0], list(body.inputs[2:])
    states_out = list(body.outputs[1:1 + n])
    scans_out = list(body.outputs[1 + n:])
    caps = b.captures(node)
    wanted = [c for c in caps if b.needs_capture(c)]
    body_nodes = list(body)
    nothing = [None] * (len(node.inputs) + len(caps))

    # States whose cotangent can be non-zero: varied (forward fixed point) and useful
    # (backward fixed point) float states.
    varied = {j for j in range(n) if b.is_varied(inits[j])}
    varied_caps = {c for c in caps if b.is_varied(c)}
    while True:
        reach = _reach_forward(body_nodes, {states_in[j] for j in varied} | varied_caps, b)
        more = {j for j in range(n) if states_out[j] in reach}
        if more <= varied:
            break
        varied |= more
    scan_seeds = {s for s in range(n_scan) if gs[n + s] is not None}
    useful = {j for j in range(n) if gs[j] is not None}
    while True:
        back = _reach_backward(body_nodes, {states_out[j] for j in useful}
                               | {scans_out[s] for s in scan_seeds})
        more = {j for j in range(n) if states_in[j] in back}
        if more <= useful:
            break
        useful |= more
    carried = sorted(j for j in varied & useful if b.dtype(states_in[j]) in FLOAT_TYPES)
    if not carried and not (wanted and (useful or scan_seeds)):
        return nothing
    shapes = _BodyShapes(b, node)
    invariant = dict(enumerate(shapes.invariant))
    eventual = {j: not invariant[j] and shapes.eventual[j] for j in range(n)}
    used = [j for j in range(n) if states_in[j].uses() or states_in[j] in body.outputs
            or (j in carried and not invariant[j])]

    # ---- the backward body: recompute iteration t from its recorded state, then its VJP
    i64, boolean = ir.TensorType(ir.DataType.INT64), ir.TensorType(ir.DataType.BOOL)
    k_in = ir.Value(name=b.fresh("rev_iter"), type=i64, shape=ir.Shape([]))
    c_in = ir.Value(name=b.fresh("rev_cond"), type=boolean, shape=ir.Shape([]))
    ct_ins = [_typed(b, ir.Value(name=b.fresh("rev_ct")), states_in[j]) for j in carried]
    acc_ins = [_typed(b, ir.Value(name=b.fresh("rev_acc")), c) for c in wanted]
    last_ph = ir.Value(name=b.fresh("rev_last"))         # trips - 1, made after the body
    record_ph = {j: ir.Value(name=b.fresh("rev_record")) for j in used}
    with b.subgraph() as pre:
        b.node = node
        t = b.op("Sub", last_ph, k_in, dtype=ir.DataType.INT64, dims=())
        state_at = {}
        for j in used:
            if not isinstance(states_in[j].type, (ir.TensorType, type(None))):
                # A list (sequence) state cannot be recorded: fine if the VJP does not read it.
                state_at[j] = ir.Value(name=b.fresh("unrecorded"), type=states_in[j].type)
                continue
            dt, dims = b.dtype(states_in[j]), b.dims(states_in[j])
            if invariant[j]:
                state_at[j] = b.op("Gather", record_ph[j], t, axis=0, dtype=dt, dims=dims)
            elif eventual[j]:
                # Recorded after each iteration (one shape from iteration 1 on): iteration t
                # starts from record[t - 1], iteration 0 from the initial value.
                with b.subgraph() as first:
                    start = _typed(b, b.op("Identity", inits[j]), states_in[j])
                with b.subgraph() as later:
                    before = b.op("Sub", t, b.const(np.int64(1)))
                    prev = _typed(b, b.op("Gather", record_ph[j], before, axis=0), states_in[j])
                state_at[j] = b.op(
                    "If", b.op("Equal", t, b.const(np.int64(0))),
                    then_branch=ir.Graph([], [start], nodes=first, name=b.fresh("first_iter")),
                    else_branch=ir.Graph([], [prev], nodes=later, name=b.fresh("later_iter")),
                    dtype=dt, dims=dims)
                _typed(b, state_at[j], states_in[j])
            else:
                state_at[j] = b.op("SequenceAt", record_ph[j], t, dtype=dt, dims=dims)
    copy, mapping = b.clone_graph(body)
    # The copy's inputs become the recorded state, t, and true (iterations that ran saw a
    # true condition).
    rewire = {copy.inputs[0]: t, copy.inputs[1]: b.const(np.array(True))}
    rewire.update((copy.inputs[2 + j], state_at[j]) for j in used)
    copy_outs = [rewire.get(v, v) for v in copy.outputs]
    copy.outputs.clear()
    for old, value in rewire.items():
        old.replace_all_uses_with(value)
    for cloned in ir.traversal.RecursiveGraphIterator(copy):
        mark = cloned.meta.get("pyonnx.derivative")
        if mark is not None and any(x in rewire for x in mark[1]):
            cloned.meta["pyonnx.derivative"] = (mark[0], [rewire.get(x, x) for x in mark[1]])
    copy_states_out = copy_outs[1:1 + n]
    copy_scans_out = copy_outs[1 + n:]
    copy.inputs.clear()
    copy.inputs.extend([k_in, c_in, *ct_ins, *acc_ins])
    first = next(iter(copy), None)
    if first is None:
        copy.extend(pre)
    else:
        copy.insert_before(first, pre)
    with b.subgraph() as vjp_nodes:
        seeds = [(copy_states_out[j], ct) for j, ct in zip(carried, ct_ins)]
        for s in scan_seeds:
            seeds.append((copy_scans_out[s], b.op("Gather", gs[n + s], t, axis=0)))
        unused = {j: ir.Value(name=b.fresh("unused")) for j in carried if j not in state_at}
        wrt = [state_at[j] if j in state_at else unused[j] for j in carried]
        cts = b.backward(copy, seeds, [*wrt, *wanted])
        b.node = node
        outs = [b.op("Identity", c_in)]
        for j, ct, ct_in in zip(carried, cts, ct_ins):
            if ct is None:
                ct = b.zeros_like(ct_in if invariant[j] else state_at[j])
            outs.append(ct)
        for c, ct, acc in zip(wanted, cts[len(carried):], acc_ins):
            outs.append(acc if ct is None else b.add(acc, ct))
        outs = _outputs(b, outs, [*copy, *vjp_nodes])
    extra_records = _record_residuals(b, node, body, copy, set(pre), vjp_nodes, mapping, shapes, t)
    copy.extend(vjp_nodes)
    copy.outputs.extend(outs)
    outs[0].type, outs[0].shape = boolean, ir.Shape([])
    for out, like in zip(outs[1:], [*(states_in[j] for j in carried), *wanted]):
        _typed(b, out, like)
    copy.name = b.fresh(f"{body.name or 'loop'}_vjp")
    _prune(copy)
    for j in used:
        if state_at[j].producer() is None and state_at[j].uses():
            raise b.error("cannot differentiate through this loop: its gradient needs a list "
                          "it builds, whose length is only known at run time (an ONNX "
                          "sequence); build the values with array operations instead (item "
                          "assignment into a preallocated array)")
    needed = [j for j in used if record_ph[j].uses()]
    extra_records = [(v, ph) for v, ph in extra_records if ph.uses()]

    # ---- the forward Loop, also recording the states (and residuals) the backward body reads
    stacked = [j for j in needed if invariant[j] or eventual[j]]
    taped = [j for j in needed if not invariant[j] and not eventual[j]]
    with b.subgraph() as added:
        b.node = node
        # (Invariant states are recorded as they enter an iteration, eventual ones as they
        # leave it.)
        scan_vals = [_typed(b, b.op("Identity", states_in[j] if invariant[j] else states_out[j]),
                            states_in[j]) for j in stacked]
        taken = set(body.outputs)
        for v, _ in extra_records:
            scan_vals.append(v if v not in taken else _typed(b, b.op("Identity", v), v))
            taken.add(scan_vals[-1])
        if not scan_vals and not taped:      # nothing to read, but the trip count
            scan_vals = [b.op("Identity", it_in, dtype=ir.DataType.INT64, dims=())]
            scan_vals[0].type, scan_vals[0].shape = i64, ir.Shape([])
        tape_ins, tape_outs = [], []
        for j in taped:
            tin = _tape_typed(b, ir.Value(name=b.fresh("tape_in")), states_in[j])
            tout = _tape_typed(b, b.op("SequenceInsert", tin, states_in[j]), states_in[j])
            tape_ins.append(tin)
            tape_outs.append(tout)
    body.extend(added)
    for k, (tin, tout) in enumerate(zip(tape_ins, tape_outs)):
        body.inputs.insert(2 + n + k, tin)
        body.outputs.insert(1 + n + k, tout)
    body.outputs.extend(scan_vals)
    with b.subgraph() as before:
        b.node = node
        tape_inits = []
        for j in taped:
            # (b.op's dtype= records types: SequenceEmpty's dtype attribute is set here.)
            empty = b.op("SequenceEmpty")
            empty.producer().attributes["dtype"] = ir.AttrInt64(
                "dtype", _tensor_type(b, states_in[j]).dtype)
            tape_inits.append(_tape_typed(b, empty, states_in[j]))
    n_tape = len(taped)
    new = ir.Node("", "Loop", [*node.inputs, *tape_inits],
                  [ir.Attr("body", ir.AttributeType.GRAPH, body)],
                  num_outputs=n + n_tape + n_scan + len(scan_vals),
                  name=b.fresh(f"{node.name or 'Loop'}_"))
    _copy_meta(b, node, new)
    _replace_node(b, node, new, before, offset_of=lambda k: k if k < n else k + n_tape)
    outs_new = list(new.outputs)
    tapes = outs_new[n:n + n_tape]
    records = outs_new[n + n_tape + n_scan:]
    for j, tape in zip(taped, tapes):
        tape.name = b.fresh("tape")
        _tape_typed(b, tape, states_in[j])
    for j, rec in zip(stacked, records):
        rec.name = b.fresh("record")
        _typed(b, rec, states_in[j], leading=True)
    for (v, ph), rec in zip(extra_records, records[len(stacked):]):
        rec.name = b.fresh("record")
        _typed(b, rec, v, leading=True)
        ph.replace_all_uses_with(rec)
    if not stacked and not taped and not extra_records:
        records[0].name = b.fresh("record")
        records[0].type, records[0].shape = i64, ir.Shape([None])
        b._extra[records[0]] = (ir.DataType.INT64, (None,))
    for j, rec in zip(stacked, records):
        record_ph[j].replace_all_uses_with(rec)
    for j, tape in zip(taped, tapes):
        record_ph[j].replace_all_uses_with(tape)

    # ---- the backward Loop, after the forward one
    b.node = new
    if records:
        trips = b.op("Squeeze", b.op("Shape", records[0], start=0, end=1), b.ints([0]),
                     dtype=ir.DataType.INT64, dims=())
    else:
        trips = b.op("SequenceLength", tapes[0], dtype=ir.DataType.INT64, dims=())
    last_ph.replace_all_uses_with(b.op("Sub", trips, b.const(np.int64(1))))
    ct_inits = [gs[j] if gs[j] is not None else b.zeros_like(new.outputs[j]) for j in carried]
    acc_inits = [b.zeros_like(c) for c in wanted]
    results = b.op("Loop", trips, b.const(np.array(True)), *ct_inits, *acc_inits, body=copy,
                   outputs=len(carried) + len(wanted))
    if len(carried) + len(wanted) == 1:
        results = (results,)
    for r, like in zip(results, [*(inits[j] for j in carried), *wanted]):
        _typed(b, r, like)
    grads: list[ir.Value | None] = [None] * len(node.inputs)
    for j, r in zip(carried, results):
        grads[2 + j] = r
    found = dict(zip(wanted, results[len(carried):]))
    return grads + [found.get(c) for c in caps]

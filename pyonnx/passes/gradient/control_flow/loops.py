"""The VJP of ``Loop`` (see the package docstring)."""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.passes.gradient.backward import Backward
from pyonnx.passes.gradient.control_flow.body_shapes import _BodyShapes
from pyonnx.passes.gradient.control_flow.common import (
    _all_nodes,
    _copy_meta,
    _outputs,
    _prune,
    _reach_backward,
    _reach_forward,
    _replace_node,
    _rewire,
    _tape_typed,
    _tensor_type,
    _typed,
)
from pyonnx.passes.gradient.registry import vjp
from pyonnx.passes.gradient.types import FLOAT_TYPES, TAPE
from pyonnx.passes.marks import replace_value

__all__: list[str] = []


# ------------------------------------------------------------------ Loop
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
                _rewire(r, got, inside)
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
    # Differentiated again (b.nested): a state whose shape shape inference cannot fix is
    # recorded as an eventual one (stacked after each iteration) rather than in an ONNX
    # sequence, which has no VJP rules; the forward body checks at run time that its shape
    # does not change after the first iteration (ONNX cannot stack it otherwise).
    checked = {j for j in range(n) if b.nested and not invariant[j] and not eventual[j]
               and isinstance(states_in[j].type, (ir.TensorType, type(None)))}
    eventual.update((j, True) for j in checked)
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
                state_at[j].producer().meta[TAPE] = True
    copy, mapping = b.clone_graph(body)
    # The copy's inputs become the recorded state, t, and true (iterations that ran saw a
    # true condition).
    rewire = {copy.inputs[0]: t, copy.inputs[1]: b.const(np.array(True))}
    rewire.update((copy.inputs[2 + j], state_at[j]) for j in used)
    copy_outs = [rewire.get(v, v) for v in copy.outputs]
    copy.outputs.clear()
    for old, value in rewire.items():
        replace_value(old, value)     # (composite marks naming ``old`` follow it)
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
        # (not through ``pre``: the state of iteration 0 read from the loop's initial value,
        # an eventual state's If, is the loop input the carried cotangent reaches; through it,
        # a captured initial value got that cotangent twice: fuzz grad seed 29008207)
        cts = b.backward(copy, seeds, [*wrt, *wanted], stop=frozenset(pre))
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
        scan_vals = [_typed(b, b.op("Identity", states_in[j] if invariant[j] else
                                    _same_shape_check(b, it_in, states_in[j], states_out[j])
                                    if j in checked else states_out[j]),
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
            tout.producer().meta[TAPE] = True
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


def _same_shape_check(b: Backward, it: ir.Value, before: ir.Value, after: ir.Value) -> ir.Value:
    """``after``, made to fail at run time (a Gather out of range, its node named
    "refused_...") when an iteration after the first changes the state's shape: its records
    are stacked, which needs one shape (see :attr:`Backward.nested`)."""
    dt = b.dtype(after)
    rank = b.rank(after) if hasattr(b, "rank") else None
    if dt not in FLOAT_TYPES or rank == 0:
        return after
    i64 = ir.DataType.INT64
    same = b.op("Equal", b.op("Shape", after, dtype=i64, dims=(None,)),
                b.op("Shape", before, dtype=i64, dims=(None,)), dtype=ir.DataType.BOOL,
                dims=(None,))
    differs = b.op("Not", same, dtype=ir.DataType.BOOL, dims=(None,))
    count = b.op("ReduceMax", b.op("Cast", differs, to=int(i64), dtype=i64, dims=(None,)),
                 b.ints([0]), keepdims=0, dtype=i64, dims=())
    later = b.op("Cast", b.op("Greater", it, b.const(np.int64(0)), dtype=ir.DataType.BOOL,
                              dims=()), to=int(i64), dtype=i64, dims=())
    index = b.op("Mul", count, later, dtype=i64, dims=())
    zero = b.op("Gather", b.const(np.zeros(1, dt.numpy())), index, dtype=dt, dims=())
    zero.producer().name = b.fresh("refused_loop_state_changes_shape_for_second_derivatives_")
    # (runtime/session.py raises this message, at the loop's line, instead of onnxruntime's)
    zero.producer().metadata_props["pyonnx.raises"] = (
        "ExecutionError: a loop state changes its shape after the first iteration; "
        "gradients of gradients (jacobian(grad(f)), hessian) through such a loop are not "
        "supported: keep the state's shape fixed in the loop, or take one derivative")
    return b.op("Add", after, zero, dtype=dt, dims=b.dims(after))

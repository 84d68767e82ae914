"""The loop rewrite of ``LowerSetItemPass``: a ``Loop`` writing row ``i`` of an array on
iteration ``i`` emits the rows as a scan output and writes them once after the loop.

Input: a ``Loop`` node whose body may hold ``pyonnx.SetItem(kind="row")`` writes. Output: the
rewritten loop (see :mod:`pyonnx.passes.lower_setitem` for the exact patterns), or the loop
unchanged. Each iteration then no longer copies the whole array: a loop writing n rows costs
O(n), not O(n²) (benchmarks/setitem_loops.py).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import onnx_ir as ir

from pyonnx.passes.setitem_forms import DOMAIN, Builder, Emitter, attr, replace_uses

__all__ = ["rewrite_loop"]


def rewrite_loop(b: Builder, loop: ir.Node) -> int:
    """The loop rewrite (see the module docstring); returns how many states it dropped."""
    loop = carry_previous_row(b, loop)
    body_attr = loop.attributes.get("body")
    if body_attr is None or body_attr.is_ref() or body_attr.type != ir.AttributeType.GRAPH:
        return 0
    body = body_attr.as_graph()
    n_state = len(loop.inputs) - 2
    if n_state <= 0 or len(body.inputs) != n_state + 2 or len(body.outputs) < n_state + 1:
        return 0
    matches = [m for k in range(n_state) if (m := _row_write_of_iteration(body, k))]
    if not matches:
        return 0
    graph = loop.graph
    assert graph is not None
    # Each matched state's row (and, for a conditional write, whether it was written)
    # becomes a scan output, appended after the existing ones in state order: the new
    # Loop's outputs follow the same order.
    for m in matches:
        x_in = body.inputs[2 + m.k]
        row_shape = None if x_in.shape is None else ir.Shape(list(x_in.shape.dims[1:]))
        if m.branch is None:
            row = _own_value(b, m.write, body)
            body.outputs.append(row)
        else:
            row, flag = _unconditional_branch(b, m, loop)
            body.outputs.extend([row, flag])
        row.type = x_in.type or row.type
        if row.shape is None or m.branch is not None:
            row.shape = row_shape
    for m in reversed(matches):  # indices of later states stay valid
        body.outputs.pop(1 + m.k)
        if m.branch is None:
            body.remove(m.write, safe=True)
        body.inputs.pop(2 + m.k)
    matched = {m.k for m in matches}
    old = loop.outputs
    kept = [k for k in range(n_state) if k not in matched]
    n_scans = sum(1 if m.branch is None else 2 for m in matches)
    new_loop = ir.Node(
        "", "Loop", [loop.inputs[0], loop.inputs[1], *(loop.inputs[2 + k] for k in kept)],
        list(loop.attributes.values()), num_outputs=len(old) - len(matches) + n_scans,
        name=loop.name, doc_string=loop.doc_string)
    new_loop.meta.update(loop.meta)
    graph.insert_before(loop, new_loop)
    new = new_loop.outputs
    mapping = [*kept, *range(n_state, len(old))]  # old output index of each new output
    for out, i in zip(new, mapping):
        replace_uses(old[i], out)
    # After the loop: x_entry with the rows written replaced by the stacked values.
    last = [new_loop]

    def after(node: ir.Node) -> None:
        graph.insert_after(last[0], node)
        last[0] = node

    c = b.const
    scans = iter(new[len(mapping):])
    rows_at = len(body.outputs) - n_scans
    for m in matches:
        e = Emitter(b, m.write, after)
        scan = next(scans)
        scan.name = b.value_name(f"{e.base}_rows")
        scan.type = old[m.k].type or m.write.outputs[0].type
        row_shape = body.outputs[rows_at].shape
        if row_shape is not None:
            scan.shape = ir.Shape([None, *row_shape.dims])
        rows_at += 1
        x_entry = loop.inputs[2 + m.k]
        trips = e("Shape", scan, start=0, end=1)
        # A Loop run 0 times makes its scan outputs (0,) or (0, 0...): give it x's row shape.
        rows = e("Reshape", scan, e("Concat", trips, e("Shape", x_entry, start=1), axis=0),
                 allowzero=1)
        first = m.offset
        count = e("Squeeze", trips, c(np.array([0], np.int64)))
        indices = e("Range", c(np.array(first, np.int64)),
                    count if not first else e("Add", count, c(np.array(first, np.int64))),
                    c(np.array(1, np.int64)))
        if m.branch is not None:  # only the iterations that wrote
            written = next(scans)
            written.name = b.value_name(f"{e.base}_written")
            written.type, written.shape = ir.TensorType(ir.DataType.BOOL), ir.Shape([None])
            rows_at += 1
            # (1-D already; onnx's reference evaluator stacks 0-d scan outputs as (n, 1))
            written = e("Reshape", written, c(np.array([-1], np.int64)))
            indices = e("Compress", indices, written, axis=0)
            rows = e("Compress", rows, written, axis=0)
        indices = e("Unsqueeze", indices, c(np.array([1], np.int64)))
        replace_uses(old[m.k], e("ScatterND", x_entry, indices, rows))
    graph.remove(loop, safe=True)
    return len(matches)

def carry_previous_row(b: Builder, loop: ir.Node) -> ir.Node:
    """A recurrence ``x[i + c] = f(x[i + c - 1], ...)`` (``c >= 0`` constant): the reads of the
    previous row come from a new loop state carrying the row written last (``x_entry[c - 1]``
    on the first iteration, as a 1-row slice so that a loop run 0 times reads nothing), so
    that ``x`` is then only written and the scan-output rewrite applies. Returns the Loop
    (a new node when one state was added)."""
    body_attr = loop.attributes.get("body")
    if body_attr is None or body_attr.is_ref() or body_attr.type != ir.AttributeType.GRAPH:
        return loop
    body = body_attr.as_graph()
    n_state = len(loop.inputs) - 2
    if n_state <= 0 or len(body.inputs) != n_state + 2 or len(body.outputs) < n_state + 1:
        return loop
    it = body.inputs[0]
    for k in range(n_state):
        x_in, out = body.inputs[2 + k], body.outputs[1 + k]
        if x_in.is_graph_output() or out.uses() or sum(o is out for o in body.outputs) != 1:
            continue
        writes = [u.node for u in x_in.uses() if u.node.op_type == "SetItem"]
        reads = [u.node for u in x_in.uses() if u.node.op_type == "Gather"]
        if len(writes) != 1 or not reads or len(writes) + len(reads) != len(list(x_in.uses())):
            continue
        s = writes[0]
        c = _offset(s.inputs[1], it) if _writes_row(s, it) else None
        if c is None or s.graph is not body or s.outputs[0] is not out or \
                s.inputs[0] is not x_in or any(
                    g.graph is not body or g.inputs[0] is not x_in or len(g.inputs) != 2
                    or _gather_axis(g) != 0 or not _previous(g.inputs[1], s.inputs[1], it, c)
                    for g in reads):
            continue
        return _add_previous_state(b, loop, body, k, s, reads, c)
    return loop


def _gather_axis(node: ir.Node) -> int:
    return int(attr(node, "axis", 0))


def _add_previous_state(b: Builder, loop: ir.Node, body: ir.Graph, k: int, s: ir.Node,
                        reads: list[ir.Node], c: int) -> ir.Node:
    graph = loop.graph
    assert graph is not None
    const = b.const
    i64 = np.int64
    x_entry = loop.inputs[2 + k]
    outer = Emitter(b, s, lambda node: graph.insert_before(loop, node))
    start, end = (c - 1, c) if c >= 1 else (-1, 2**62)
    init = outer("Slice", x_entry, const(np.array([start], i64)), const(np.array([end], i64)),
                 const(np.array([0], i64)))
    x_in = body.inputs[2 + k]
    prev_in = ir.Value(name=b.value_name(f"{x_in.name or 'x'}_previous"), type=x_in.type)
    n_state = len(loop.inputs) - 2
    body.inputs.append(prev_in)
    first = body.node(0)
    row = Emitter(b, s, lambda node: body.insert_before(first, node))(
        "Gather", prev_in, const(np.array(0, i64)), axis=0)
    for g in reads:
        replace_uses(g.outputs[0], row)
        body.remove(g, safe=True)
    prev_out = Emitter(b, s, body.append)("Unsqueeze", s.inputs[2], const(np.array([0], i64)))
    prev_out.type = x_in.type
    body.outputs.insert(1 + n_state, prev_out)
    old = loop.outputs
    new_loop = ir.Node("", "Loop", [*loop.inputs, init], list(loop.attributes.values()),
                       num_outputs=len(old) + 1, name=loop.name, doc_string=loop.doc_string)
    new_loop.meta.update(loop.meta)
    graph.insert_before(loop, new_loop)
    for i, out in enumerate(old):
        replace_uses(out, new_loop.outputs[i if i < n_state else i + 1])
    new_loop.outputs[n_state].name = b.value_name(f"{prev_in.name}_last")
    graph.remove(loop, safe=True)
    return new_loop


def _unconditional_branch(b: Builder, m: _RowWrite, loop: ir.Node) -> tuple[ir.Value, ir.Value]:
    """Turns ``If(c) {x[i] = v} else {x}`` into ``If(c) {v, True} else {zeros, False}``;
    returns the If's (row, written) outputs."""
    assert m.branch is not None and m.keep is not None
    writes, keeps = m.write.graph, m.keep.graph
    assert isinstance(writes, ir.Graph) and isinstance(keeps, ir.Graph)
    graph = loop.graph
    assert graph is not None
    c = b.const
    x_entry = loop.inputs[2 + m.k]
    # A row of zeros in x's dtype and row shape, made once before the loop.
    e = Emitter(b, m.write, lambda node: graph.insert_before(loop, node))
    zeros = e("Expand", e("CastLike", c(np.array(0, np.int64)), x_entry),
              e("Shape", x_entry, start=1))
    x_in = m.write.inputs[0]
    assert x_in is not None
    row_type = x_in.type
    row_shape = None if x_in.shape is None else ir.Shape(list(x_in.shape.dims[1:]))
    bool_type, scalar = ir.TensorType(ir.DataType.BOOL), ir.Shape([])
    row = _own_value(b, m.write, writes)
    written = Emitter(b, m.write, writes.append)("Identity", c(np.array(True)))
    emit = Emitter(b, m.write, keeps.append)
    kept_row, kept = emit("Identity", zeros), emit("Identity", c(np.array(False)))
    for value, type_, shape in ((row, row_type, row_shape), (kept_row, row_type, row_shape),
                                (written, bool_type, scalar), (kept, bool_type, scalar)):
        value.type = value.type or type_
        value.shape = value.shape or shape
    writes.outputs[m.j] = row
    writes.outputs.append(written)
    writes.remove(m.write, safe=True)
    keeps.outputs[m.j] = kept_row
    keeps.outputs.append(kept)
    keeps.remove(m.keep, safe=True)
    node = m.branch
    n = len(node.outputs)
    node.resize_outputs(n + 1)
    flag = node.outputs[n]
    flag.name = b.value_name(f"{node.outputs[m.j].name or 'setitem'}_written")
    flag.type, flag.shape = ir.TensorType(ir.DataType.BOOL), ir.Shape([])
    return node.outputs[m.j], flag


@dataclasses.dataclass


class _RowWrite:
    """A loop state ``k`` whose only change is ``x[i] = v`` on iteration ``i``: ``write`` is
    the SetItem; for ``if c: x[i] = v`` it sits in a branch of the If ``branch`` (output ``j``
    carries x) whose other branch is ``keep = Identity(x_in)``."""

    k: int
    write: ir.Node
    branch: ir.Node | None = None
    j: int = 0
    keep: ir.Node | None = None
    offset: int = 0  # the row written on iteration i is i + offset


def _row_write_of_iteration(body: ir.Graph, k: int) -> _RowWrite | None:
    """How state ``k`` is changed, when that is all the body does with it: row ``i`` (the
    iteration number) written by a ``SetItem(kind="row")``, directly or in one branch of an
    If whose other branch keeps x. Else None."""
    x_in = body.inputs[2 + k]
    out = body.outputs[1 + k]
    if (x_in.is_graph_output() or out.uses() or sum(o is out for o in body.outputs) != 1
            or out.producer() is None):
        return None
    it = body.inputs[0]
    uses = list(x_in.uses())
    if len(uses) == 1:
        s, index = uses[0]
        if index == 0 and s.graph is body and _writes_row(s, it) and s.outputs[0] is out:
            return _RowWrite(k, s, offset=_offset(s.inputs[1], it) or 0)
        return None
    if len(uses) != 2 or uses[0].idx != 0 or uses[1].idx != 0:
        return None
    s, d = uses[0].node, uses[1].node
    if not _writes_row(s, it):
        s, d = d, s
    node = out.producer()
    if (not _writes_row(s, it) or d.op_type != "Identity" or d.domain != ""
            or node is None or node.op_type != "If" or node.domain != "" or node.graph is not body):
        return None
    branches = []
    for name in ("then_branch", "else_branch"):
        graph_attr = node.attributes.get(name)
        if graph_attr is None or graph_attr.is_ref() or graph_attr.type != ir.AttributeType.GRAPH:
            return None
        branches.append(graph_attr.as_graph())
    if not ((s.graph is branches[0] and d.graph is branches[1])
            or (s.graph is branches[1] and d.graph is branches[0])):
        return None
    j = out.index()
    assert j is not None
    for value in (s.outputs[0], d.outputs[0]):
        graph = value.graph
        assert graph is not None
        if (value.uses() or len(graph.outputs) <= j or graph.outputs[j] is not value
                or sum(o is value for o in graph.outputs) != 1):
            return None
    return _RowWrite(k, s, node, j, d, offset=_offset(s.inputs[1], it) or 0)


def _writes_row(node: ir.Node, iteration: ir.Value) -> bool:
    return (node.domain == DOMAIN and node.op_type == "SetItem" and len(node.inputs) == 3
            and attr(node, "kind", None) == "row" and node.inputs[2] is not None
            and _offset(node.inputs[1], iteration) is not None)


def _offset(index: ir.Value | None, iteration: ir.Value) -> int | None:
    """``c`` when ``index`` is ``iteration + c`` for a constant ``c >= 0`` (the row of
    ``for i in range(c, ...)``), else None."""
    if index is iteration:
        return 0
    node = None if index is None else index.producer()
    if node is None or node.op_type != "Add" or node.domain != "" or len(node.inputs) != 2:
        return None
    a, c = node.inputs
    if c is iteration:
        a, c = c, a
    if a is not iteration or c is None or c.const_value is None or c.is_graph_input():
        return None
    arr = c.const_value.numpy()
    if arr.shape != () or arr.dtype != np.int64 or int(arr) < 0:
        return None
    return int(arr)


def _previous(read: ir.Value | None, index: ir.Value, iteration: ir.Value, c: int) -> bool:
    """Whether ``read`` is ``index - 1`` (``index`` being ``iteration + c``)."""
    node = None if read is None else read.producer()
    if c == 1 and read is iteration:
        return True
    if node is None or node.domain != "" or len(node.inputs) != 2 or \
            node.op_type not in ("Sub", "Add"):
        return None
    base, k = node.inputs
    if k is None or k.const_value is None or k.is_graph_input():
        return False
    arr = k.const_value.numpy()
    if arr.shape != () or arr.dtype != np.int64:
        return False
    step = int(arr) if node.op_type == "Add" else -int(arr)
    return (base is index and step == -1) or \
        (base is iteration and step == c - 1 and c >= 1)


def _own_value(lowering: Builder, write: ir.Node, graph: ir.Graph) -> ir.Value:
    """The value ``write`` stores, as a value ``graph`` may output: an outer value, an input or
    an existing output gets an Identity (a graph output needs its own producer)."""
    value = write.inputs[2]
    assert value is not None
    producer = value.producer()
    if producer is None or producer.graph is not graph or value.is_graph_output():
        value = Emitter(lowering, write, graph.append)("Identity", value)
    return value

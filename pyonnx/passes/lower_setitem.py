"""Lowers the ``pyonnx.SetItem`` pseudo-op (item assignment) to ONNX, with the loop rewrite.

Input: an ``ir.Model`` whose graphs may hold ``pyonnx.SetItem`` nodes (domain ``"pyonnx"``,
version 1; the model must import that domain: without the import the pass does nothing, so
models without item assignment cost nothing). Output: the same model with every ``SetItem``
replaced by ONNX ops, and the ``"pyonnx"`` opset import removed when no ``pyonnx`` node is
left. onnxruntime cannot run the pseudo-op, so this pass runs first in the pipeline (folding,
CSE, dead-code removal and renaming run after it). Requires nothing else.

The two forms of ``SetItem(...) -> y`` (``y`` is the updated copy of ``x``), by the string
attribute ``kind``:

``kind="row"``, inputs ``(x, index, value)``: ``y = x.copy(); y[index] = value``. ``x`` of rank
>= 1 and any dtype, ``index`` an int64 0-d (negative counts from the end, out of range fails at
run time), ``value`` of x's dtype and shape ``x.shape[1:]``. Lowered to one ``ScatterND``: its
indices may be negative within ``[-n, n)`` (ONNX spec) and onnxruntime rejects anything else.

``kind="point"``, inputs ``(x, indices, value)``: ``y[i0, ..., ik-1] = value`` for an int64
vector ``indices`` of length k <= rank (each entry negative-from-the-end as numpy's, out of
range fails at run time) and ``value`` of x's dtype and shape ``x.shape[k:]``. Lowered to one
``ScatterND`` with a ``[1, k]`` index (``M[i, j] = v`` in a loop costs no index arithmetic).

``kind="flat"``, inputs ``(x, positions, values)``: ``y.reshape(-1)[positions] = values``, with
``positions`` int64 of any shape S already in ``[0, x.size)`` and ``values`` of x's dtype and
shape S. Int attribute ``unique`` (1: positions distinct; 0, the default: they may repeat, and
then the last occurrence in C order wins, as in numpy) and optional string attribute
``reduction`` (``"add"``: duplicates accumulate, as ``np.add.at``; ``"mul"`` likewise). Lowered on
the flattened array with ``ScatterElements``, not ``ScatterND``: onnxruntime's CPU ScatterND
splits the updates across threads (with ``intra_op_num_threads > 1`` duplicate updates race and
``add`` loses some: measured), its ScatterElements applies them one by one in order. Repeated
positions without reduction are made deterministic whatever the runtime: ``ScatterElements``
with ``reduction="max"`` of ``arange`` over an int64 "owner" array finds each position's last
writer, ``Compress`` keeps those, then a plain scatter. onnxruntime has no float16 add/mul
reduction: float16 applies ``Cast`` to float32, the op, ``Cast`` back per update, as numpy's
float16 loops do (so bit-equal), in rounds when positions may repeat (a ``Loop``: round r applies
every position's r-th occurrence, in C order, as ``np.add.at`` does).

The loop rewrite (``scan_outputs=True``): inside a ``Loop`` body, a loop-carried ``x_in`` used
only by one ``SetItem(kind="row")`` whose index is the body's iteration number and whose result
is the body output carrying that state (used nowhere else) is dropped from the loop state; its
``value`` becomes a new scan output, and after the Loop ``x_entry`` gets rows ``[0, trips)``
replaced by the stacked values (``trips``: the scan output's length, so a loop stopped early by
its condition, or run 0 times, is right). A conditional write, ``If(c) {x[i] = v} else {x}``
(an ``Identity(x_in)`` branch; how the frontend lowers ``if c: x[i] = v`` and the rest of a body
after a ``break``), is rewritten too: the If outputs ``v`` or a row of zeros (made once before
the loop) and whether it wrote, both scan outputs; after the loop ``Compress`` keeps the rows
written. Each iteration no longer copies the whole array: a loop writing n rows costs O(n), not
O(n²) (benchmarks/setitem_loops.py). A row beyond ``x`` still fails, in the ``ScatterND`` after
the loop. Anything else (x read in the body, another index, the result used) is lowered in
place.

Replacement nodes copy the ``SetItem``'s ``doc_string`` and ``meta["pyonnx.loc"]`` and are named
``<SetItem name>_<Op>`` (the name carries the source line), so run-time errors point at the
assignment. Names stay unique in the model (value and node names are checked against all
existing ones); constants are main-graph initializers, shared within one run.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx_ir as ir

__all__ = ["LowerSetItemPass"]

logger = logging.getLogger(__name__)

_DOMAIN = "pyonnx"
_LOC = "pyonnx.loc"
_REDUCTIONS = {"add": "Add", "mul": "Mul"}
# Measured on onnxruntime 1.31.1's CPU provider (tests/passes/test_lower_setitem.py runs every
# dtype through them): ScatterElements/ScatterND run "add" and "mul" for bool, every int and
# uint, float32 and float64, not float16 ("MLFloat16 data type is not supported"). Plain
# scatter, Gather, Compress, Reshape and Unsqueeze run every dtype.
_NO_NATIVE_REDUCTION = frozenset({ir.DataType.FLOAT16})
_INT64_MAX = np.iinfo(np.int64).max


class LowerSetItemPass(ir.passes.InPlacePass):
    """Replaces ``pyonnx.SetItem`` nodes by ONNX ops, rewriting row writes in loops.

    Attributes:
        scan_outputs: rewrite ``x[i] = v`` on iteration ``i`` of a ``Loop`` into a scan output
            and one write after the loop (the default); False lowers those in place (one full
            copy of ``x`` per iteration: the "before" model of the benchmark).
    """

    def __init__(self, *, scan_outputs: bool = True):
        super().__init__()
        self.scan_outputs = scan_outputs

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        if _DOMAIN not in model.opset_imports:
            return ir.passes.PassResult(model, modified=False)
        nodes = list(ir.traversal.RecursiveGraphIterator(model.graph))
        setitems = [n for n in nodes if n.domain == _DOMAIN and n.op_type == "SetItem"]
        others = any(n.domain == _DOMAIN and n.op_type != "SetItem" for n in nodes)
        lowering = _Lowering(model)
        rewritten = 0
        if self.scan_outputs and setitems:
            for node in nodes:
                if node.op_type == "Loop" and node.domain == "" and node.graph is not None:
                    rewritten += lowering.rewrite_loop(node)
        for node in setitems:
            if node.graph is not None:  # (not taken out by a loop rewrite)
                lowering.lower(node)
        if not others:
            del model.opset_imports[_DOMAIN]
        logger.debug("lowered %d SetItem nodes (%d as loop scan outputs)", len(setitems),
                     rewritten)
        return ir.passes.PassResult(model, modified=bool(setitems) or not others)


class _Lowering:
    """The state of one run of the pass (single-use): taken names and shared constants."""

    def __init__(self, model: ir.Model):
        self.main = model.graph
        self._values: set[str] | None = None
        self._nodes: set[str] = set()
        self._consts: dict[tuple, ir.Value] = {}

    # ------------------------------------------------------------------- names
    def _collect_names(self) -> set[str]:
        values: set[str] = set()

        def enter(graph) -> None:
            values.update(v.name for v in graph.inputs if v.name)
            values.update(graph.initializers)

        enter(self.main)
        for node in ir.traversal.RecursiveGraphIterator(self.main, enter_graph=enter):
            if node.name:
                self._nodes.add(node.name)
            values.update(o.name for o in node.outputs if o.name)
        return values

    def value_name(self, base: str) -> str:
        if self._values is None:
            self._values = self._collect_names()
        return _fresh(base, self._values)

    def node_name(self, base: str) -> str:
        if self._values is None:
            self._values = self._collect_names()
        return _fresh(base, self._nodes)

    def const(self, arr: np.ndarray) -> ir.Value:
        """A main-graph initializer holding ``arr`` (one per distinct value in this run)."""
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        value = self._consts.get(key)
        if value is None:
            name = self.value_name("setitem_const")
            tensor = ir.Tensor(np.array(arr, order="C", copy=True), name=name)
            value = ir.Value(name=name, shape=ir.Shape(arr.shape),
                             type=ir.TensorType(tensor.dtype), const_value=tensor)
            self.main.register_initializer(value)
            self._consts[key] = value
        return value

    # ---------------------------------------------------------------- lowering
    def lower(self, node: ir.Node) -> None:
        """Replaces one ``SetItem`` by ONNX nodes inserted before it, then removes it."""
        graph = node.graph
        assert graph is not None
        e = _Emitter(self, node, lambda new: graph.insert_before(node, new))
        kind = _attr(node, "kind", None)
        if len(node.inputs) != 3 or any(v is None for v in node.inputs):
            raise ir.passes.PreconditionError(
                f"pyonnx.SetItem {node.name!r} needs 3 inputs (x, index or positions, value)")
        if kind == "row":
            result = _lower_row(e, node)
        elif kind == "point":
            result = _lower_point(e, node)
        elif kind == "flat":
            result = _lower_flat(e, node)
        else:
            raise ir.passes.PreconditionError(
                f"pyonnx.SetItem {node.name!r} has kind {kind!r}; expected 'row', 'point' or "
                "'flat'")
        _replace(node.outputs[0], result)
        graph.remove(node, safe=True)

    def rewrite_loop(self, loop: ir.Node) -> int:
        """The loop rewrite (see the module docstring); returns how many states it dropped."""
        attr = loop.attributes.get("body")
        if attr is None or attr.is_ref() or attr.type != ir.AttributeType.GRAPH:
            return 0
        body = attr.as_graph()
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
                row = _own_value(self, m.write, body)
                body.outputs.append(row)
            else:
                row, flag = self._unconditional_branch(m, loop)
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
            _replace(old[i], out)
        # After the loop: x_entry with the rows written replaced by the stacked values.
        last = [new_loop]

        def after(node: ir.Node) -> None:
            graph.insert_after(last[0], node)
            last[0] = node

        c = self.const
        scans = iter(new[len(mapping):])
        rows_at = len(body.outputs) - n_scans
        for m in matches:
            e = _Emitter(self, m.write, after)
            scan = next(scans)
            scan.name = self.value_name(f"{e.base}_rows")
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
            indices = e("Range", c(np.array(0, np.int64)),
                        e("Squeeze", trips, c(np.array([0], np.int64))),
                        c(np.array(1, np.int64)))
            if m.branch is not None:  # only the iterations that wrote
                written = next(scans)
                written.name = self.value_name(f"{e.base}_written")
                written.type, written.shape = ir.TensorType(ir.DataType.BOOL), ir.Shape([None])
                rows_at += 1
                indices = e("Compress", indices, written, axis=0)
                rows = e("Compress", rows, written, axis=0)
            indices = e("Unsqueeze", indices, c(np.array([1], np.int64)))
            _replace(old[m.k], e("ScatterND", x_entry, indices, rows))
        graph.remove(loop, safe=True)
        return len(matches)

    def _unconditional_branch(self, m: _RowWrite, loop: ir.Node) -> tuple[ir.Value, ir.Value]:
        """Turns ``If(c) {x[i] = v} else {x}`` into ``If(c) {v, True} else {zeros, False}``;
        returns the If's (row, written) outputs."""
        assert m.branch is not None and m.keep is not None
        writes, keeps = m.write.graph, m.keep.graph
        assert isinstance(writes, ir.Graph) and isinstance(keeps, ir.Graph)
        graph = loop.graph
        assert graph is not None
        c = self.const
        x_entry = loop.inputs[2 + m.k]
        # A row of zeros in x's dtype and row shape, made once before the loop.
        e = _Emitter(self, m.write, lambda node: graph.insert_before(loop, node))
        zeros = e("Expand", e("CastLike", c(np.array(0, np.int64)), x_entry),
                  e("Shape", x_entry, start=1))
        x_in = m.write.inputs[0]
        assert x_in is not None
        row_type = x_in.type
        row_shape = None if x_in.shape is None else ir.Shape(list(x_in.shape.dims[1:]))
        bool_type, scalar = ir.TensorType(ir.DataType.BOOL), ir.Shape([])
        row = _own_value(self, m.write, writes)
        written = _Emitter(self, m.write, writes.append)("Identity", c(np.array(True)))
        emit = _Emitter(self, m.write, keeps.append)
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
        flag.name = self.value_name(f"{node.outputs[m.j].name or 'setitem'}_written")
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
            return _RowWrite(k, s)
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
        attr = node.attributes.get(name)
        if attr is None or attr.is_ref() or attr.type != ir.AttributeType.GRAPH:
            return None
        branches.append(attr.as_graph())
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
    return _RowWrite(k, s, node, j, d)


def _writes_row(node: ir.Node, iteration: ir.Value) -> bool:
    return (node.domain == _DOMAIN and node.op_type == "SetItem" and len(node.inputs) == 3
            and _attr(node, "kind", None) == "row" and node.inputs[1] is iteration
            and node.inputs[2] is not None)


def _own_value(lowering: _Lowering, write: ir.Node, graph: ir.Graph) -> ir.Value:
    """The value ``write`` stores, as a value ``graph`` may output: an outer value, an input or
    an existing output gets an Identity (a graph output needs its own producer)."""
    value = write.inputs[2]
    assert value is not None
    producer = value.producer()
    if producer is None or producer.graph is not graph or value.is_graph_output():
        value = _Emitter(lowering, write, graph.append)("Identity", value)
    return value


def _lower_row(e: _Emitter, node: ir.Node) -> ir.Value:
    x, index, value = node.inputs
    c = e.lowering.const
    indices = e("Reshape", index, c(np.array([1, 1], np.int64)))
    updates = e("Unsqueeze", value, c(np.array([0], np.int64)))
    return e("ScatterND", x, indices, updates)


def _lower_point(e: _Emitter, node: ir.Node) -> ir.Value:
    x, indices, value = node.inputs
    c = e.lowering.const
    index = e("Unsqueeze", indices, c(np.array([0], np.int64)))
    updates = e("Unsqueeze", value, c(np.array([0], np.int64)))
    return e("ScatterND", x, index, updates)


def _lower_flat(e: _Emitter, node: ir.Node) -> ir.Value:
    x, positions, values = node.inputs
    assert x is not None and positions is not None and values is not None
    c = e.lowering.const
    unique = bool(_attr(node, "unique", 0))
    reduction = _attr(node, "reduction", None)
    if reduction == "none":
        reduction = None
    if reduction is not None and reduction not in _REDUCTIONS:
        raise ir.passes.PreconditionError(
            f"pyonnx.SetItem {node.name!r}: reduction {reduction!r} is not one of "
            f"{sorted(_REDUCTIONS)}")
    minus_one = c(np.array([-1], np.int64))
    flat = x if _rank(x) == 1 else e("Reshape", x, minus_one)
    p = positions if _rank(positions) == 1 else e("Reshape", positions, minus_one)
    v = values if _rank(values) == 1 else e("Reshape", values, minus_one)
    if reduction is not None:
        dtype = _dtype(node)
        if dtype is None:
            raise ir.passes.PreconditionError(
                f"pyonnx.SetItem {node.name!r} with a reduction needs the dtype of x: set the "
                f"type of its output (or of x or values)")
        if dtype in _NO_NATIVE_REDUCTION:
            y = _widened(e, flat, p, v, _REDUCTIONS[reduction], dtype, unique)
        else:
            y = e("ScatterElements", flat, p, v, axis=0, reduction=reduction)
    elif unique:
        y = e("ScatterElements", flat, p, v, axis=0)
    else:
        # The last occurrence of each position wins: owner[q] = the largest k with p[k] == q.
        ar = e("Range", c(np.array(0, np.int64)), e("Size", p), c(np.array(1, np.int64)))
        nobody = e("ConstantOfShape", e("Shape", flat), value=np.array([-1], np.int64))
        owner = e("ScatterElements", nobody, p, ar, axis=0, reduction="max")
        wins = e("Equal", e("Gather", owner, p, axis=0), ar)
        y = e("ScatterElements", flat, e("Compress", p, wins, axis=0),
              e("Compress", v, wins, axis=0), axis=0)
    return y if _rank(x) == 1 else e("Reshape", y, e("Shape", x))


def _widened(e: _Emitter, flat: ir.Value, p: ir.Value, v: ir.Value, op: str,
             dtype: ir.DataType, unique: bool) -> ir.Value:
    """``flat[p] op= v`` computed per update in float32 and rounded back to ``dtype`` (numpy's
    float16 loops do exactly this); with repeats, one round per occurrence rank."""
    f32 = ir.DataType.FLOAT
    v32 = e("Cast", v, to=f32)
    if unique:
        return _apply_round(e, flat, p, v32, op, dtype)
    c = e.lowering.const
    ar = e("Range", c(np.array(0, np.int64)), e("Size", p), c(np.array(1, np.int64)))
    pending = e("ConstantOfShape", e("Shape", p), value=np.array([True]))
    go = e("Greater", e("Size", p), c(np.array(0, np.int64)))
    # The body: apply each position's first pending occurrence; loop while any is pending.
    names = e.lowering.value_name
    i = ir.Value(name=names("setitem_round"), type=ir.TensorType(ir.DataType.INT64),
                 shape=ir.Shape([]))
    cond = ir.Value(name=names("setitem_cond"), type=ir.TensorType(ir.DataType.BOOL),
                    shape=ir.Shape([]))
    acc = ir.Value(name=names("setitem_acc"), type=ir.TensorType(dtype), shape=ir.Shape([None]))
    todo = ir.Value(name=names("setitem_pending"), type=ir.TensorType(ir.DataType.BOOL),
                    shape=ir.Shape([None]))
    body = ir.Graph([i, cond, acc, todo], [], nodes=[], name=names("setitem_rounds"))
    b = e.into(body.append)
    first = b("Equal", b("Gather", b("ScatterElements",
                                     b("ConstantOfShape", b("Shape", acc),
                                       value=np.array([_INT64_MAX], np.int64)),
                                     p, b("Where", todo, ar, c(np.array(_INT64_MAX, np.int64))),
                                     axis=0, reduction="min"), p, axis=0), ar)
    acc_out = _apply_round(b, acc, b("Compress", p, first, axis=0),
                           b("Compress", v32, first, axis=0), op, dtype)
    todo_out = b("And", todo, b("Not", first))
    go_out = b("Greater", b("ReduceSum", b("Cast", todo_out, to=ir.DataType.INT64),
                            keepdims=0), c(np.array(0, np.int64)))
    go_out.type, go_out.shape = ir.TensorType(ir.DataType.BOOL), ir.Shape([])
    acc_out.type, acc_out.shape = ir.TensorType(dtype), ir.Shape([None])
    todo_out.type, todo_out.shape = ir.TensorType(ir.DataType.BOOL), ir.Shape([None])
    body.outputs.extend([go_out, acc_out, todo_out])
    result, _ = e("Loop", None, go, flat, pending, outputs=2, body=body)
    return result


def _apply_round(e: _Emitter, flat: ir.Value, p: ir.Value, v32: ir.Value, op: str,
                 dtype: ir.DataType) -> ir.Value:
    """``flat[p] = dtype(float32(flat[p]) op v32)`` for distinct positions ``p``."""
    current = e("Cast", e("Gather", flat, p, axis=0), to=ir.DataType.FLOAT)
    return e("ScatterElements", flat, p, e("Cast", e(op, current, v32), to=dtype), axis=0)


class _Emitter:
    """Makes the nodes that replace ``origin``: named ``<origin name>_<Op>``, with its
    ``doc_string`` and location, each handed to ``place`` (which puts it in a graph)."""

    def __init__(self, lowering: _Lowering, origin: ir.Node, place: Callable[[ir.Node], Any]):
        self.lowering = lowering
        self.origin = origin
        self.place = place
        self.base = origin.outputs[0].name or origin.name or "setitem"

    def into(self, place: Callable[[ir.Node], Any]) -> _Emitter:
        return _Emitter(self.lowering, self.origin, place)

    def __call__(self, op_type: str, *inputs: ir.Value | None, outputs: int = 1,
                 **attributes: Any) -> Any:
        origin = self.origin
        lowering = self.lowering
        node = ir.Node("", op_type, inputs, _attributes(attributes), num_outputs=outputs,
                       name=lowering.node_name(f"{origin.name or 'SetItem'}_{op_type}"),
                       doc_string=origin.doc_string)
        if _LOC in origin.meta:
            node.meta[_LOC] = origin.meta[_LOC]
        tag = op_type.lower()
        for out in node.outputs:
            out.name = lowering.value_name(f"{self.base}_{tag}")
        self.place(node)
        return node.outputs[0] if outputs == 1 else node.outputs


def _attributes(attributes: dict[str, Any]) -> list[ir.Attr]:
    out = []
    for name, value in attributes.items():
        if isinstance(value, bool | int):
            out.append(ir.AttrInt64(name, int(value)))
        elif isinstance(value, str):
            out.append(ir.AttrString(name, value))
        elif isinstance(value, np.ndarray):
            out.append(ir.AttrTensor(name, ir.Tensor(value)))
        elif isinstance(value, ir.Graph):
            out.append(ir.AttrGraph(name, value))
        else:
            raise TypeError(f"attribute {name}: {type(value).__name__}")
    return out


def _replace(old: ir.Value, new: ir.Value) -> None:
    """Every use of ``old`` (graph outputs too) becomes ``new``, which takes its name, type
    and shape (a graph output keeps its name)."""
    name = old.name
    new.type = old.type or new.type
    if old.shape is not None:
        new.shape = old.shape
    old.replace_all_uses_with(new, replace_graph_outputs=True)
    old.name = None
    new.name = name


def _attr(node: ir.Node, name: str, default: Any) -> Any:
    attr = node.attributes.get(name)
    if attr is None or attr.is_ref():
        return default
    return attr.value


def _rank(value: ir.Value) -> int | None:
    return None if value.shape is None else len(value.shape)


def _dtype(node: ir.Node) -> ir.DataType | None:
    """x's dtype: from a declared type on the output, x or values, else from their producers
    (the frontend types graph inputs, subgraph inputs/outputs and constants, not every value)."""
    for value in (node.outputs[0], node.inputs[0], node.inputs[2]):
        if value is not None and value.dtype is not None:
            return value.dtype
    for value in (node.inputs[0], node.inputs[2]):
        dtype = _traced_dtype(value, 64)
        if dtype is not None:
            return dtype
    return None


# Ops whose outputs have the dtype of their first input.
_SAME_DTYPE = frozenset({
    "Identity", "Reshape", "Expand", "Gather", "GatherElements", "GatherND", "Slice", "Squeeze",
    "Unsqueeze", "Transpose", "Flatten", "Concat", "Split", "Tile", "Compress", "ScatterND",
    "ScatterElements", "Pad", "Neg", "Abs", "Add", "Sub", "Mul", "Div", "Mod", "Pow", "Max",
    "Min", "Sum", "Mean", "Floor", "Ceil", "Round", "Sqrt", "Exp", "Log", "Sin", "Cos", "Tanh",
    "Sigmoid", "Relu", "Sign", "Reciprocal", "Clip", "CumSum", "ReduceSum", "ReduceMax",
    "ReduceMin", "ReduceProd", "ReduceMean", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
    "BitwiseNot", "BitShift", "Trilu", "SetItem",
})


def _traced_dtype(value: ir.Value | None, depth: int) -> ir.DataType | None:
    """The dtype of ``value`` from its producers (None when it cannot be told exactly)."""
    while value is not None and depth > 0:
        if value.dtype is not None:
            return value.dtype
        node = value.producer()
        if node is None or node.domain not in ("", _DOMAIN):
            return None
        depth -= 1
        op = node.op_type
        if op in _SAME_DTYPE and node.inputs:
            value = node.inputs[0]
        elif op == "Where" and len(node.inputs) == 3:
            value = node.inputs[1]
        elif op == "CastLike" and len(node.inputs) == 2:
            value = node.inputs[1]
        elif op == "Cast":
            to = _attr(node, "to", None)
            return None if to is None else ir.DataType(to)
        elif op in ("Constant", "ConstantOfShape"):
            attr = node.attributes.get("value")
            if attr is None or attr.is_ref() or attr.type != ir.AttributeType.TENSOR:
                return ir.DataType.FLOAT if op == "ConstantOfShape" else None
            return attr.as_tensor().dtype
        elif op in ("If", "Loop"):
            # The body output that makes this output: index + 1 in a Loop body (after the
            # condition), the same index in an If branch.
            attr = node.attributes.get("then_branch" if op == "If" else "body")
            if attr is None or attr.is_ref() or attr.type != ir.AttributeType.GRAPH:
                return None
            outputs = attr.as_graph().outputs
            k = value.index() + (op == "Loop")  # type: ignore[operator]
            value = outputs[k] if k < len(outputs) else None
        else:
            return None
    return None


def _fresh(base: str, taken: set[str]) -> str:
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name

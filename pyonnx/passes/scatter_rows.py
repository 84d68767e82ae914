"""Whole-row writes by ``ScatterND``: reads of a written row forwarded, a full cover concatenated.

Input: an ``ir.Model`` about to be serialized (an execution-only rewrite, run from
``pipeline.finish``; main graph only). Output: the same model where

1. ``Gather(ScatterND(data, I, U), i, axis=0)`` with a constant ``I`` of shape (k, 1) (k whole
   rows along axis 0, no reduction) and a constant non-negative scalar ``i``, all below the
   length of axis 0 known at conversion time (else the ScatterND, perhaps left dead, would
   fail the run as numpy's write raises), reads ``U``'s row
   j where ``I[j] == i`` (exactly one such j), or ``data`` where no row of ``I`` is ``i`` (all
   of ``I`` non-negative: a negative index would need the length to compare);
   A ``Slice`` on axis 0 with constant bounds that reads none of the rows is forwarded the
   same way, to ``data``;
2. a chain ``ScatterND(...ScatterND(F, I1, U1)..., In, Un)`` whose intermediate results have
   no other use and whose rows cover every row of axis 0 of ``F`` (its length known: a static
   dimension, or a constant entry of the shape of a ``ConstantOfShape`` fill, through a
   ``Transpose``) becomes ``Concat`` of the rows of the last write of each row, in order:
   ``F`` is not read;
3. ``Transpose(Concat(Transpose(a_1, p), ..., axis=k), q)`` with ``q`` undoing ``p`` becomes
   ``Concat(a_1, ..., axis=p[k])``.

Why: the frontend lowers ``z[:, :, c] = v`` (a column of the last axis) as a Transpose of
``z`` to the front, a ``ScatterND`` of the row, a Transpose back. A fresh grid filled column
by column (``z = np.empty((n, n, 3)); z[:, :, 0] = ...; z[:, :, 1] = ...``) then copies the
whole array once per column and reads the columns back through Gathers of the scattered
array; after 1-3 it is one ``Concat`` of the columns along the last axis, each read taking
the written value itself.

Exact: ScatterND with unique indices replaces exactly the listed rows, so a read of a listed
row is that update row and of another row the data's; when every row is written, the result
is the updates' rows in row order, whatever ``F`` held (``U``'s trailing dimensions equal
``F``'s: ScatterND requires it, and pyonnx builds both from the same shape). Duplicate rows in
one ``I`` (undefined for ScatterND) are left alone; across writes the last one wins, as
ScatterND applies them in order.
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.passes.setitem_forms import Builder
from pyonnx.passes.static_dims import infer

__all__ = ["ScatterRowsPass"]



def _producer(value: ir.Value | None, op: str) -> ir.Node | None:
    node = None if value is None else value.producer()
    if node is None or node.op_type != op or node.domain not in ("", "ai.onnx"):
        return None
    return node


def _const_ints(value: ir.Value | None) -> np.ndarray | None:
    if value is None or value.const_value is None:
        return None
    arr = value.const_value.numpy()
    return arr if arr.dtype.kind in "iu" else None


def _rows(node: ir.Node) -> list[int] | None:
    """The rows a ``ScatterND`` writes: its constant (k, 1) indices, all non-negative and
    distinct; None for any other ScatterND."""
    reduction = node.attributes.get("reduction")
    if reduction is not None and not reduction.is_ref() and reduction.value != "none":
        return None
    idx = _const_ints(node.inputs[1])
    if idx is None or idx.ndim != 2 or idx.shape[1] != 1 or idx.shape[0] == 0:
        return None
    rows = [int(r) for r in idx[:, 0]]
    if min(rows) < 0 or len(set(rows)) != len(rows):
        return None
    return rows


def _replace(old: ir.Value, new: ir.Value) -> None:
    """Every use of ``old`` reads ``new``; a graph output keeps its name, type and shape."""
    if old.is_graph_output():
        name, old.name = old.name, None
        new.name = name
        new.type, new.shape = old.type, old.shape
    old.replace_all_uses_with(new, replace_graph_outputs=True)


def _axis(node: ir.Node, default: int = 0) -> int:
    attr = node.attributes.get("axis")
    return default if attr is None or attr.is_ref() else int(attr.value)


class ScatterRowsPass(ir.passes.InPlacePass):
    """Forwards reads of scattered rows, concatenates fully covering row writes (module
    docstring)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        graph = model.graph
        if not any(n.op_type == "ScatterND" for n in graph):
            return ir.passes.PassResult(model, modified=False)
        self.graph = graph
        self.b = Builder(model)
        modified = False
        self.dims = infer(graph)
        for node in list(graph):
            if node.op_type == "Gather" and node.domain in ("", "ai.onnx"):
                modified |= self._forward(node)
            elif node.op_type == "Slice" and node.domain in ("", "ai.onnx"):
                modified |= self._forward_slice(node)
        self.dims = infer(graph)
        for node in list(graph):
            if node.op_type == "ScatterND" and node.graph is graph:
                modified |= self._concat(node)
        for node in list(graph):
            if node.op_type == "Transpose" and node.graph is graph:
                modified |= self._transposes(node)
        return ir.passes.PassResult(model, modified=modified)

    # ------------------------------------------------------------------ emission
    def _node(self, origin: ir.Node, op: str, inputs: list, attrs=(), like=None) -> ir.Value:
        return self.b.insert_before(origin, op, inputs, attrs, like, "scatter_rows")

    # ------------------------------------------------------------------ 1: reads
    def _forward(self, gather: ir.Node) -> bool:
        if _axis(gather) != 0 or len(gather.inputs) != 2:
            return False
        i = _const_ints(gather.inputs[1])
        if i is None or i.ndim != 0 or int(i) < 0:
            return False
        i = int(i)
        data, source, row = gather.inputs[0], None, None
        while True:
            scatter = _producer(data, "ScatterND")
            rows = None if scatter is None else _rows(scatter)
            if rows is None:
                break
            # Only rows known to be in range: the ScatterND (perhaps dead afterwards) would
            # fail on another, as numpy's write would.
            length = self._length(scatter.inputs[0])
            if length is None or max(rows) >= length or i >= length:
                break
            if i in rows:
                source, row = scatter.inputs[2], rows.index(i)
                break
            data = scatter.inputs[0]
        if source is None:
            if data is gather.inputs[0]:
                return False
            gather.replace_input_with(0, data)
            return True
        gather.replace_input_with(0, source)
        gather.replace_input_with(1, self.b.const(np.array(row, np.int64)))
        return True

    def _forward_slice(self, node: ir.Node) -> bool:
        """``Slice(ScatterND(data, I, U), ...)`` on axis 0 alone, constant bounds, reading no
        row of ``I`` (all below the static length) → the Slice of ``data`` (clip_boxes's
        ``boxes[..., 1::2]`` after ``boxes[..., 0::2] = ...``)."""
        ins = node.inputs
        if len(ins) < 4 or ins[3] is None or _const_ints(ins[3]) is None or \
                [int(a) for a in _const_ints(ins[3]).reshape(-1)] != [0]:
            return False
        bounds = [_const_ints(v) for v in ins[1:3]]
        step = _const_ints(ins[4]) if len(ins) > 4 and ins[4] is not None else np.ones(1)
        if any(b is None or b.size != 1 for b in bounds) or step is None or step.size != 1 \
                or int(step.reshape(-1)[0]) == 0:
            return False
        data, moved = ins[0], False
        while True:
            scatter = _producer(data, "ScatterND")
            rows = None if scatter is None else _rows(scatter)
            length = None if rows is None else self._length(scatter.inputs[0])
            if rows is None or length is None or max(rows) >= length:
                break
            read = range(*slice(int(bounds[0].reshape(-1)[0]), int(bounds[1].reshape(-1)[0]),
                                int(step.reshape(-1)[0])).indices(length))
            if set(read) & set(rows):
                break
            data, moved = scatter.inputs[0], True
        if moved:
            node.replace_input_with(0, data)
        return moved

    # ------------------------------------------------------------------ 2: covers
    def _length(self, value: ir.Value) -> int | None:
        """Axis 0's length of ``value`` when known at conversion time."""
        while _producer(value, "ScatterND") is not None:  # (its data's shape)
            value = value.producer().inputs[0]
        d = self.dims.get(id(value))
        if d and isinstance(d[0], int):
            return d[0]
        axis = 0
        t = _producer(value, "Transpose")
        if t is not None:
            perm = t.attributes.get("perm")
            if perm is None or perm.is_ref():
                return None
            axis, value = int(perm.value[0]), t.inputs[0]
        fill = _producer(value, "ConstantOfShape")
        return None if fill is None else self._entry(fill.inputs[0], axis)

    def _entry(self, shape: ir.Value | None, k: int) -> int | None:
        """Entry ``k`` of a 1-D int64 shape vector: a constant, or a Concat of pieces of known
        lengths whose piece holding ``k`` is constant."""
        arr = _const_ints(shape)
        if arr is not None:
            return int(arr.reshape(-1)[k]) if arr.ndim == 1 and k < arr.size else None
        cat = _producer(shape, "Concat")
        if cat is None:
            return None
        start = 0
        for piece in cat.inputs:
            d = self.dims.get(id(piece)) if piece is not None else None
            if not d or len(d) != 1 or not isinstance(d[0], int):
                return None
            if k < start + d[0]:
                return self._entry(piece, k - start)
            start += d[0]
        return None

    def _concat(self, last: ir.Node) -> bool:
        out = last.outputs[0]
        if any(u.node.op_type == "ScatterND" and u.idx == 0 for u in out.uses()):
            return False  # not the end of its chain
        writes = []
        node = last
        while True:
            rows = _rows(node)
            if rows is None:
                return False
            writes.append((rows, node.inputs[2]))
            base = node.inputs[0]
            inner = _producer(base, "ScatterND")
            if inner is None or base.is_graph_output() or len(list(base.uses())) != 1:
                break
            node = inner
        length = self._length(base)
        if length is None or length < 1 or length > 1024:
            return False
        source: dict[int, tuple[ir.Value, int]] = {}
        for rows, updates in writes:  # last write first: the first one seen wins
            for j, r in enumerate(rows):
                source.setdefault(r, (updates, j))
        if sorted(source) != list(range(length)):
            return False
        pieces, r = [], 0
        while r < length:
            updates, j = source[r]
            run = 1
            while r + run < length and source[r + run] == (updates, j + run):
                run += 1
            rows_total = next(len(rw) for rw, u in writes if u is updates)
            if j == 0 and run == rows_total:
                pieces.append(updates)
            else:
                pieces.append(self._node(last, "Slice", [
                    updates, self.b.const(np.array([j], np.int64)),
                    self.b.const(np.array([j + run], np.int64)),
                    self.b.const(np.array([0], np.int64))], like=updates))
            r += run
        cat = self._node(last, "Concat", pieces, [ir.AttrInt64("axis", 0)], like=out)
        _replace(out, cat)
        return True

    # -------------------------------------------------------------- 3: transposes
    def _transposes(self, outer: ir.Node) -> bool:
        cat = _producer(outer.inputs[0], "Concat")
        q = outer.attributes.get("perm")
        if cat is None or q is None or q.is_ref():
            return False
        q = list(q.value)
        inners = [_producer(v, "Transpose") for v in cat.inputs]
        if not inners or any(t is None for t in inners):
            return False
        perms = [t.attributes.get("perm") for t in inners]
        if any(p is None or p.is_ref() for p in perms):
            return False
        p = list(perms[0].value)
        if any(list(x.value) != p for x in perms) or len(p) != len(q) or \
                [p[i] for i in q] != list(range(len(p))):
            return False
        k = _axis(cat)
        k = k + len(p) if k < 0 else k
        new = self._node(outer, "Concat", [t.inputs[0] for t in inners],
                         [ir.AttrInt64("axis", p[k])], like=outer.outputs[0])
        _replace(outer.outputs[0], new)
        return True

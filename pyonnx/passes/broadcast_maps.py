"""Elementwise math on a broadcast array runs on the array before the broadcast.

Input: an ``ir.Model`` about to be serialized (an execution-only rewrite, run from
``pipeline.finish`` after :mod:`scatter_rows`; main graph, and the ``If`` branches that read
the broadcast values). Output: the same model where, for ``E = Expand(w, S)`` (``w`` of E's
rank), the elementwise nodes computing from ``E`` (unary math, broadcasting binary ops,
``Where``, ``Cast``, the ``If`` nodes of pyonnx's float64 sin/cos and the scalar range tests
they branch on) read ``w`` instead, and ``Expand(r, S)`` is inserted where such a result ``r``
leaves that region (a reshape, a concat, a graph output...).

Before that, reads that hide an Expand are exposed: ``Gather(Transpose(X, p), i)`` reads
``X`` on axis ``p[a]`` (a Transpose of the rest where it is not the identity), and
``Gather(Expand(w, S), i, axis=a)`` with ``w``'s axis ``a`` statically 1 and ``S[a]`` a
constant above ``i`` is ``Expand(Squeeze(w, a), S without a)``.

Why: ``z = np.empty((n, n, 3)); z[:, :, 0] = x.reshape(-1, 1); ...; np.sin(z[:, :, 0])``
computes the sine of n*n copies of n values (create_grid: float64 sin and cos, ~50 nodes each,
over 160,000 elements where 400 differ); numpy does the same, so this is where the compiled
model can be faster than numpy.

Exact: every node moved is elementwise with numpy broadcasting, so ``f(Expand(w, S), b) ==
Expand(f(w, b), S)`` for operands ``b`` that broadcast with ``E``, and an ``If`` whose
branches are such computations gives the Expand of what it gave. The only non-elementwise
nodes allowed are whole-array ``ReduceMax``/``ReduceMin`` whose results only steer ``If``
conditions through scalar arithmetic, and a whole-array ``ReduceSum`` only multiplied by 0
(pyonnx's sin/cos NaN test): ``E`` holds exactly ``w``'s values, each at least once, so the
maximum, the minimum and the NaN/inf status agree whenever ``E`` is not empty; when it is,
every result of the region is expanded to an empty array, whichever branch computed it.
Anything else reading a region value (a reduction along an axis, a shape, an index) reads the
re-expanded value.
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.passes.setitem_forms import Builder
from pyonnx.passes.static_dims import infer

__all__ = ["BroadcastMapsPass"]

_ELEMENTWISE = frozenset({
    "Abs", "Neg", "Sin", "Cos", "Tan", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil",
    "Round", "Sign", "Tanh", "Sigmoid", "Relu", "Erf", "IsNaN", "IsInf", "Not", "Cast",
    "Identity", "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "Equal", "Less",
    "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Where"})
_MAX_REGION = 4096


def _default(node: ir.Node) -> bool:
    return node.domain in ("", "ai.onnx")


def _ints(value: ir.Value | None) -> list[int] | None:
    if value is None or value.const_value is None:
        return None
    arr = value.const_value.numpy()
    return [int(v) for v in arr.reshape(-1)] if arr.dtype.kind in "iu" else None


def _attr(node: ir.Node, name: str, default=None):
    attr = node.attributes.get(name)
    return default if attr is None or attr.is_ref() else attr.value


def _whole(node: ir.Node) -> bool:
    """A reduction over every axis to a 0-d value."""
    if _attr(node, "keepdims", 1) != 0 or _attr(node, "noop_with_empty_axes", 0):
        return False
    return len(node.inputs) < 2 or node.inputs[1] is None


class BroadcastMapsPass(ir.passes.InPlacePass):
    """Moves elementwise nodes before the Expand they read (module docstring)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        graph = model.graph
        if not any(n.op_type == "Expand" for n in graph):
            return ir.passes.PassResult(model, modified=False)
        self.graph = graph
        self.b = Builder(model)
        self.dims = infer(graph)
        modified = False
        for node in list(graph):
            if node.op_type == "Gather" and _default(node) and node.graph is graph:
                modified |= self._expose(node)
        if modified:
            self.dims = infer(graph)
        for node in list(graph):
            if not _default(node) or node.graph is not graph:
                continue
            # (Not np.broadcast_to's Reshape(Expand(w, S), S): the Reshape checks the size,
            # and a region value grown by another operand could not be reshaped back.)
            if node.op_type == "Expand":
                modified |= self._region(node.outputs[0], *node.inputs)
        return ir.passes.PassResult(model, modified=modified)

    # ------------------------------------------------------------------ emission
    def _emit(self, before: ir.Node, op: str, inputs: list, attrs=(), like=None) -> ir.Value:
        return self.b.insert_before(before, op, inputs, attrs, like, "broadcast_maps")

    def _c(self, values: list[int]) -> ir.Value:
        return self.b.const(np.array(values, np.int64))

    # ------------------------------------------------------------------ exposing
    def _expose(self, gather: ir.Node) -> bool:
        if not self._hides_expand(gather.inputs[0]):
            # (a Gather on the first axis of a transposed copy is a contiguous read; moved
            # through the Transpose it would be a strided one: 4-10x slower in onnxruntime)
            return False
        changed = False
        while True:
            i = _ints(gather.inputs[1]) if len(gather.inputs) == 2 else None
            if i is None or gather.inputs[1].const_value.numpy().ndim != 0 or i[0] < 0:
                return changed
            data = gather.inputs[0]
            producer = None if data is None else data.producer()
            if producer is None or not _default(producer) or producer.graph is not self.graph:
                return changed
            rank = self._rank(data)
            a = _attr(gather, "axis", 0)
            if rank is None:
                return changed
            a = a + rank if a < 0 else a
            if producer.op_type == "Transpose" and _attr(producer, "perm") is not None:
                moved = self._through_transpose(gather, producer, a)
                if moved is None:
                    return changed
                if not moved:
                    return True  # replaced by a new Gather and Transpose
            elif producer.op_type == "Expand":
                if not self._through_expand(gather, producer, a, i[0], rank):
                    return changed
                return True  # the Gather is gone
            else:
                return changed
            changed = True

    def _hides_expand(self, data: ir.Value | None) -> bool:
        """Whether ``data`` is an ``Expand``, perhaps behind Transposes of this graph."""
        while data is not None:
            producer = data.producer()
            if producer is None or not _default(producer) or producer.graph is not self.graph:
                return False
            if producer.op_type == "Expand":
                return True
            if producer.op_type != "Transpose":
                return False
            data = producer.inputs[0]
        return False

    def _through_transpose(self, gather: ir.Node, t: ir.Node, a: int) -> bool | None:
        """Reads ``t``'s input: True (the Gather rewired), False (replaced), None (left)."""
        p = list(_attr(t, "perm"))
        axis = p[a]
        rest = [r - (r > axis) for k, r in enumerate(p) if k != a]
        out = gather.outputs[0]
        if rest == list(range(len(rest))):
            gather.replace_input_with(0, t.inputs[0])
            gather.attributes["axis"] = ir.AttrInt64("axis", axis)
            return True
        if out.is_graph_output():
            return None
        new = self._emit(gather, "Gather", [t.inputs[0], gather.inputs[1]],
                         [ir.AttrInt64("axis", axis)], like=out)
        moved = self._emit(gather, "Transpose", [new], [ir.AttrInt64s("perm", rest)], like=out)
        out.replace_all_uses_with(moved)
        return False  # the old Gather is dead; the new one is exposed on the next walk

    def _through_expand(self, gather: ir.Node, e: ir.Node, a: int, i: int, rank: int) -> bool:
        w, s = e.inputs
        wd = self.dims.get(id(w))
        if wd is None or len(wd) != rank or self._length(s) != rank or wd[a] != 1 \
                or gather.outputs[0].is_graph_output():
            return False
        length = self._entry(s, a)
        if length is None or length <= i:
            return False
        squeezed = self._emit(gather, "Squeeze", [w, self._c([a])], like=w)
        pieces = []
        if a > 0:
            pieces.append(self._emit(gather, "Slice", [s, self._c([0]), self._c([a])], like=s))
        if a + 1 < rank:
            pieces.append(self._emit(gather, "Slice", [s, self._c([a + 1]), self._c([rank])],
                                     like=s))
        if not pieces:
            return False
        shape = pieces[0] if len(pieces) == 1 else self._emit(
            gather, "Concat", pieces, [ir.AttrInt64("axis", 0)], like=s)
        new = self._emit(gather, "Expand", [squeezed, shape], like=gather.outputs[0])
        gather.outputs[0].replace_all_uses_with(new)
        return True

    def _rank(self, value: ir.Value) -> int | None:
        d = self.dims.get(id(value))
        if d is not None:
            return len(d)
        node = value.producer()
        if node is None or not _default(node):
            return None
        if node.op_type == "Transpose" and _attr(node, "perm") is not None:
            return len(_attr(node, "perm"))
        if node.op_type == "Expand":
            wd, n = self.dims.get(id(node.inputs[0])), self._length(node.inputs[1])
            return None if wd is None or n is None else max(len(wd), n)
        return None

    def _length(self, vector: ir.Value | None) -> int | None:
        """The length of a 1-D int64 value: known dims, a constant-bounds Slice of one, a
        Concat of such."""
        if vector is None:
            return None
        d = self.dims.get(id(vector))
        if d is not None and (len(d) != 1 or isinstance(d[0], int)):
            return d[0] if len(d) == 1 else None
        node = vector.producer()
        if node is None or not _default(node):
            return None
        if node.op_type == "Concat":
            parts = [self._length(v) for v in node.inputs]
            return None if any(p is None for p in parts) else sum(parts)  # type: ignore[misc]
        if node.op_type == "Slice" and len(node.inputs) == 3:
            n, lo, hi = self._length(node.inputs[0]), _ints(node.inputs[1]), _ints(node.inputs[2])
            if n is None or lo is None or hi is None or len(lo) != 1 or len(hi) != 1:
                return None
            return len(range(n)[lo[0]:hi[0]])
        return None

    def _entry(self, shape: ir.Value | None, k: int) -> int | None:
        arr = _ints(shape)
        if arr is not None:
            return arr[k] if k < len(arr) else None
        cat = None if shape is None else shape.producer()
        if cat is None or cat.op_type != "Concat" or not _default(cat):
            return None
        start = 0
        for piece in cat.inputs:
            n = self._length(piece)
            if n is None:
                return None
            if k < start + n:
                return self._entry(piece, k - start)
            start += n
        return None

    # ------------------------------------------------------------------ regions
    def _region(self, e: ir.Value, w: ir.Value | None, s: ir.Value | None) -> bool:
        """Moves the region computing from ``e = Expand(w, s)`` onto ``w``."""
        wd = self.dims.get(id(w))
        rank = self._length(s)
        if w is None or s is None or wd is None or rank is None or rank < len(wd):
            return False
        region: list[ir.Node] = []     # nodes that will read the small values
        seen: set[int] = set()
        values = {id(e): e}            # values whose Expand to S is the original value
        pending = [e]
        ifs = [n for n in ir.traversal.RecursiveGraphIterator(self.graph)
               if n.op_type == "If" and _default(n)]
        # The branches of np.maximum/minimum's signed-zero If stay as they are: re-expanding
        # there made models onnxruntime's constant folding breaks ("Node input 'v6' is not a
        # graph input": grad fuzz seed 29116957, jacobian of np.maximum of a broadcast value)
        kept = {id(a.value) for n in ifs if n.meta.get("pyonnx.zero_sign_only")
                for a in n.attributes.values() if a.type == ir.AttributeType.GRAPH}
        while pending:
            while pending:
                v = pending.pop()
                for use in list(v.uses()):
                    node = use.node
                    if id(node) in seen or node.graph is None:  # (a detached node)
                        continue
                    kind = self._kind(node)
                    if kind is None:
                        continue  # a boundary: this use reads the re-expanded value
                    if kind == "fail" or id(node.graph) in kept:
                        return False
                    seen.add(id(node))
                    region.append(node)
                    if len(region) > _MAX_REGION:
                        return False
                    if kind == "map":
                        for out in node.outputs:
                            values[id(out)] = out
                            pending.append(out)
            for node in ifs:  # an If whose branches all give region values gives one
                branches = [node.attributes[k].as_graph() for k in ("then_branch", "else_branch")]
                for k, out in enumerate(node.outputs):
                    if id(out) not in values and all(id(g.outputs[k]) in values
                                                     for g in branches):
                        values[id(out)] = out
                        pending.append(out)
        if not any(n.op_type not in ("Identity", "Cast") for n in region if n.graph is not None):
            return False
        # Every region value leaving the region is re-expanded: uses by other nodes, graph
        # outputs (a branch output whose If output is not a region value included).
        boundary = [(use.node, use.idx, v) for v in values.values() if v is not e
                    for use in list(v.uses())
                    if id(use.node) not in seen and use.node.graph is not None]
        leaving = []
        for v in values.values():
            if v is e or not v.is_graph_output():
                continue
            graph = v.graph
            if graph is not self.graph:
                owner = next((n for n in ifs if any(
                    n.attributes[k].as_graph() is graph for k in ("then_branch", "else_branch"))),
                    None)
                if owner is None:
                    return False
                k = list(graph.outputs).index(v)
                if id(owner.outputs[k]) in values:
                    continue
            if v.producer() is None:
                return False
            leaving.append(v)
        if rank > len(wd):  # numpy aligns w to the right: its leading axes are new ones
            expand = e.producer()
            assert expand is not None
            w = self._emit(expand, "Unsqueeze", [w, self._c(list(range(rank - len(wd))))],
                           like=w)
        for node in region:
            if node.op_type == "If":
                continue
            for idx, inp in enumerate(node.inputs):
                if inp is e:
                    node.replace_input_with(idx, w)
        declared = {id(v): v.shape for v in leaving}
        for v in values.values():
            if v is not e and v.shape is not None:
                v.shape = ir.Shape([None] * len(v.shape))
        shared: dict[tuple[int, int], ir.Value] = {}  # one Expand per value and graph
        for node, idx, r in boundary:
            key = (id(r), id(node.graph))
            big = shared.get(key)
            if big is None:
                big = shared[key] = self._emit(self._first_use(r, node), "Expand", [r, s],
                                               like=r)
            node.replace_input_with(idx, big)
        for r in leaving:
            self._reexpand_output(r, s, declared[id(r)])
        return True

    @staticmethod
    def _first_use(r: ir.Value, node: ir.Node) -> ir.Node:
        """The first node of ``node``'s graph that uses ``r`` (where a shared Expand of ``r``
        goes: before every such use)."""
        graph = node.graph
        users = {id(u.node) for u in r.uses() if u.node.graph is graph}
        return next((n for n in graph if id(n) in users), node) if graph is not None else node

    def _kind(self, node: ir.Node) -> str | None:
        """How a node reading a region value joins: "map" (elementwise: its outputs are region
        values), "steer" (a whole-array reduction steering Ifs), None (a boundary: it reads the
        re-expanded value) or "fail" (give up)."""
        if not _default(node):
            return None
        op = node.op_type
        if op in _ELEMENTWISE:
            return "map"
        if op in ("ReduceMax", "ReduceMin") and _whole(node):
            return "steer" if self._only_steers(node.outputs[0]) else None
        if op == "ReduceSum" and _whole(node):
            uses = list(node.outputs[0].uses())
            if len(uses) == 1 and uses[0].node.op_type == "Mul" and \
                    self._is_zero(uses[0].node.inputs[1 - uses[0].idx]) and \
                    self._only_steers(uses[0].node.outputs[0]):
                return "steer"
            return None
        if op == "If":
            return "fail"  # a region value as an If condition
        return None

    @staticmethod
    def _is_zero(v: ir.Value | None) -> bool:
        if v is None or v.const_value is None:
            return False
        arr = v.const_value.numpy()
        return arr.size == 1 and arr.dtype.kind == "f" and float(arr.reshape(-1)[0]) == 0.0

    def _only_steers(self, v: ir.Value, depth: int = 6) -> bool:
        """Whether the 0-d ``v`` only reaches If conditions through scalar elementwise ops."""
        if v.is_graph_output() or depth == 0:
            return False
        for use in v.uses():
            node = use.node
            if node.op_type == "If" and use.idx == 0:
                continue
            if node.op_type not in _ELEMENTWISE or not _default(node):
                return False
            if not all(self._only_steers(o, depth - 1) for o in node.outputs):
                return False
        return True

    def _reexpand_output(self, r: ir.Value, s: ir.Value, shape) -> None:
        """The graph output ``r`` becomes ``Expand(r, S)`` under its name (type and declared
        ``shape`` kept)."""
        graph = r.graph
        producer = r.producer()
        assert graph is not None and producer is not None
        node = ir.Node("", "Expand", [r, s], [],
                       name=self.b.node_name(f"{producer.name or 'broadcast_maps'}_Expand"))
        graph.insert_after(producer, node)
        out = node.outputs[0]
        name, r.name = r.name, self.b.value_name("broadcast_maps")
        out.name, out.type, out.shape = name, r.type, shape
        for k, o in enumerate(graph.outputs):
            if o is r:
                graph.outputs[k] = out

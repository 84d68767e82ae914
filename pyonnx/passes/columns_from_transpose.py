"""Column reads taken from a transposed copy that the graph already has.

Input: an ``ir.Model`` after ``LowerSetItemPass`` and ``FoldConstantsPass``, before
``RewriteIdiomsPass`` (which turns the last-axis Gathers left here into strided Slices).
Output: the same model with these reads rewritten (the column reads in the main graph only):

* ``Gather(x, k, axis=a)`` (a constant 0-d ``k``) where the same graph also computes
  ``xt = Transpose(x, perm)`` with ``perm[0] == a`` and the other axes in their order →
  ``Gather(xt, k, axis=0)``: the same elements in the same order (exact); the node keeps its
  name, whose ``_numpy_index_axis<a>`` suffix still tells the runtime numpy's axis for an
  out-of-range ``k``.
* ``Slice(x, starts, ends, [a], steps)`` (one constant axis, ``a`` not 0) with such an ``xt``
  → ``Transpose(Slice(xt, starts, ends, [0], steps), inverse(perm))``; and ``Slice(y, ...,
  [a], ...)`` of ``y = Transpose(t, p)`` with ``p[a] == 0`` → ``Transpose(Slice(t, ..., [0],
  ...), p)`` (the same elements: slicing commutes with moving axes).

Why: a column write ``b[:, k] = v`` is lowered with its axis moved to the front
(``Transpose`` → ``ScatterND`` → ``Transpose``: setitem_basic), and consecutive writes share
the transposed array (their Transposes cancel in folding). The reads of the box converters
(``x[:, 0] + x[:, 2]``, ``boxes[..., 0::2]``) were strided copies on the last axis (7 µs for a
column of (8400, 4) float32 as a strided Slice, 25 µs for ``[..., 0::2]``); from the transposed
array they are contiguous rows (under 1 µs; the Transpose of the two-column result 1-2 µs).
xyxy2xywh on (8400, 4) float32: 51 → 26 µs (a hand-built graph, onnxruntime 1.32).

``Shape(Transpose(t, p), start, end)`` reads the same dims of ``t`` when they are consecutive
there (the shape reads of the next write of a chain kept a full Transpose alive: color map's
``rgb[:, :, k] = ...``).

Then ``Transpose(E(...(Transpose(r))), p)`` with the two perms cancelling and ``E`` a chain of
single-use elementwise ops whose other operands are 0-d (``coords[:, :4] /= gain``: the Slice's
Transpose back, the Div, the write's Transpose of the value) → ``E(...(r))``.

Each rewrite moves the ``Transpose`` it reads from before the read when it came after it (its
only input, ``x``, is defined before the read). New nodes copy ``meta["pyonnx.loc"]`` and
``doc_string`` from the read they replace and are named after it.
"""

from __future__ import annotations

import logging

import numpy as np
import onnx_ir as ir

__all__ = ["ColumnsFromTransposePass"]

logger = logging.getLogger(__name__)

_LOC = "pyonnx.loc"


class ColumnsFromTransposePass(ir.passes.InPlacePass):
    """Rewrites column Gathers and Slices to read a transposed copy (see the module
    docstring)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        count = 0
        for node in list(ir.traversal.RecursiveGraphIterator(model.graph)):
            if node.graph is None or node.domain != "":
                continue
            if node.graph is not model.graph and node.op_type in ("Gather", "Slice"):
                # (column reads in the main graph only: inside If/Loop bodies a rewrite made
                # the model invalid, an output name used twice, fuzz seed 26004079; box
                # converters are straight code)
                continue
            if node.op_type == "Gather":
                count += _gather(node)
            elif node.op_type == "Slice":
                count += _slice(node, model.graph)
            elif node.op_type == "Shape":
                count += _shape(node)
        # After the Slices: their Transposes back meet the write's Transpose of the value.
        for node in list(ir.traversal.RecursiveGraphIterator(model.graph)):
            if node.graph is not None and node.domain == "" and node.op_type == "Transpose":
                count += _cancel_around(node)
        if count:
            logger.debug("read %d columns from transposed copies", count)
        return ir.passes.PassResult(model, modified=bool(count))


# ------------------------------------------------------------------ matching
def _const(value: ir.Value | None) -> np.ndarray | None:
    if value is None or value.const_value is None:
        return None
    return value.const_value.numpy()


def _perm(node: ir.Node) -> list[int] | None:
    attr = node.attributes.get("perm")
    if attr is None or attr.is_ref():
        return None
    return [int(p) for p in attr.as_ints()]


def _front(perm: list[int], a: int) -> bool:
    """``perm`` moves axis ``a`` to the front and keeps the others in order."""
    return perm[0] == a and perm[1:] == [p for p in range(len(perm)) if p != a]


def _transposed(x: ir.Value, a: int, graph: ir.Graph) -> tuple[ir.Node, list[int]] | None:
    """A ``Transpose`` of ``x`` in ``graph`` moving axis ``a`` (normalized by its rank, >= 2)
    to the front, and its perm; None when there is none."""
    for use in x.uses():
        t = use.node
        if t.op_type != "Transpose" or t.domain != "" or t.graph is not graph:
            continue
        perm = _perm(t)
        if perm is None or len(perm) < 2:
            continue
        axis = a + len(perm) if a < 0 else a
        if 0 < axis < len(perm) and _front(perm, axis):
            return t, perm
    return None


def _before(t: ir.Node, node: ir.Node, graph: ir.Graph) -> None:
    """Moves ``t`` (one input, defined before ``node``) before ``node`` when it is after it."""
    for n in graph:
        if n is t:
            return
        if n is node:
            graph.remove(t)
            graph.insert_before(node, t)
            return


def _axis(node: ir.Node) -> int:
    attr = node.attributes.get("axis")
    return 0 if attr is None or attr.is_ref() else attr.as_int()


# ------------------------------------------------------------------ rewrites
def _gather(node: ir.Node) -> bool:
    if len(node.inputs) != 2 or node.inputs[0] is None:
        return False
    k = _const(node.inputs[1])
    if k is None or k.ndim != 0:
        return False
    graph = node.graph
    assert graph is not None
    found = _transposed(node.inputs[0], _axis(node), graph)
    if found is None:
        return False
    t, _ = found
    _before(t, node, graph)
    node.replace_input_with(0, t.outputs[0])
    node.attributes["axis"] = ir.AttrInt64("axis", 0)
    return True


def _slice(node: ir.Node, main: ir.Graph) -> bool:
    if len(node.inputs) < 4 or node.inputs[0] is None:
        return False
    axes = _const(node.inputs[3])
    if axes is None or axes.size != 1:
        return False
    a = int(axes.reshape(-1)[0])
    graph = node.graph
    assert graph is not None
    x = node.inputs[0]
    found = _transposed(x, a, graph)
    if found is not None:
        t, perm = found
        _before(t, node, graph)
        source, back = t.outputs[0], [perm.index(i) for i in range(len(perm))]
    else:
        producer = x.producer()
        if producer is None or producer.op_type != "Transpose" or producer.domain != "":
            return False
        p = _perm(producer)
        if p is None or len(p) < 2 or producer.inputs[0] is None:
            return False
        axis = a + len(p) if a < 0 else a
        if not 0 < axis < len(p) or p[axis] != 0:
            return False
        source, back = producer.inputs[0], p
    zero = ir.Value(name=f"{node.name}_axis0", shape=ir.Shape([1]),
                    type=ir.TensorType(ir.DataType.INT64),
                    const_value=ir.Tensor(np.array([0], np.int64)))
    while zero.name in main.initializers:
        zero.name += "_"
    main.register_initializer(zero)  # (a subgraph reads it as an outer value)
    inputs = [source, node.inputs[1], node.inputs[2], zero, *node.inputs[4:]]
    moved = ir.Node("", "Slice", inputs, name=f"{node.name}_rows", doc_string=node.doc_string)
    trans = ir.Node("", "Transpose", [moved.outputs[0]], [ir.AttrInt64s("perm", back)],
                    name=f"{node.name}_back", doc_string=node.doc_string)
    for new in (moved, trans):
        if _LOC in node.meta:
            new.meta[_LOC] = node.meta[_LOC]
    graph.insert_before(node, [moved, trans])
    out, result = node.outputs[0], trans.outputs[0]
    result.type, result.shape = out.type, out.shape
    out.replace_all_uses_with(result, replace_graph_outputs=True)
    name = out.name
    out.name = None
    result.name = name
    graph.remove(node, safe=True)
    return True



# Ops computing each element from the same element of their inputs (rank-0 operands broadcast
# alike in any layout).
_ELEMENTWISE = frozenset({"Add", "Sub", "Mul", "Div", "Neg", "Abs", "Sqrt", "Exp", "Log",
                          "Max", "Min", "Cast", "Floor", "Ceil", "Round", "Relu", "Sign",
                          "Reciprocal", "Pow", "Not", "IsNaN", "IsInf", "Clip", "Where",
                          "Sin", "Cos", "Tanh", "Sigmoid", "Erf", "Equal", "Less",
                          "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor"})


def _single_use(value: ir.Value, node: ir.Node) -> bool:
    uses = list(value.uses())
    return len(uses) == 1 and uses[0].node is node and not value.is_graph_output()


def _cancel_around(outer: ir.Node) -> bool:
    """``Transpose(E_k(...E_1(Transpose(r, q))...), p)`` with ``p`` undoing ``q``, each ``E``
    elementwise with its other operands 0-d and used once (or also by ``Shape`` nodes, which
    are made to read the same dims in the new layout) → ``E_k(...E_1(r)...)``."""
    perm = _perm(outer)
    if perm is None or outer.inputs[0] is None:
        return False
    chain: list[tuple[ir.Node, int]] = []  # (node, index of the chained input), top first
    shapes: list[tuple[ir.Node, int, int]] = []  # Shape reads of chain values, re-pointed
    value, user = outer.inputs[0], outer
    while True:
        node = value.producer()
        if node is None or node.domain != "" or node.graph is not outer.graph:
            return False
        if value.is_graph_output():
            return False
        if node.op_type != "Transpose" and not _single_use(value, user):
            # Shape reads of a chain value (a column write's Expand target) read the same
            # dims of the value in its new layout; anything else keeps the chain. (Other
            # readers of the inner Transpose keep reading it.)
            for use in value.uses():
                if use.node is user:
                    continue
                dims = _shape_dims(use.node, perm)
                if dims is None:
                    return False
                shapes.append((use.node, *dims))
        if node.op_type == "Transpose":
            q = _perm(node)
            if q is None or len(q) != len(perm) or [q[p] for p in perm] != \
                    list(range(len(perm))) or not chain or node.inputs[0] is None:
                return False
            break
        if node.op_type not in _ELEMENTWISE or len(node.outputs) != 1:
            return False
        chained = [k for k, v in enumerate(node.inputs) if v is not None and
                   not _scalar(v)]
        if len(chained) != 1:
            return False
        chain.append((node, chained[0]))
        value, user = node.inputs[chained[0]], node
    bottom, k = chain[-1]
    bottom.replace_input_with(k, node.inputs[0])
    for shape, start, end in shapes:
        shape.attributes["start"] = ir.AttrInt64("start", start)
        shape.attributes["end"] = ir.AttrInt64("end", end)
    for n, _ in chain:
        n.outputs[0].shape = None  # (now in the other layout)
    top = chain[0][0].outputs[0]
    out = outer.outputs[0]
    top.shape = out.shape
    if top.type is None:
        top.type = out.type
    if out.is_graph_output():  # (the output keeps its name)
        out.replace_all_uses_with(top, replace_graph_outputs=True)
        name, out.name = out.name, None
        top.name = name
    else:
        out.replace_all_uses_with(top)
    return True


def _shape_dims(node: ir.Node, perm: list[int]) -> tuple[int, int] | None:
    """For ``Shape(v, start, end)`` of a value ``v`` that is to take the layout
    ``Transpose(v, perm)``: ``(start, end)`` reading the same dims there, when they stay
    consecutive and in order; None for any other node."""
    if node.op_type != "Shape" or node.domain != "" or node.graph is None:
        return None
    return _moved_range(node, [perm.index(j) for j in range(len(perm))])


def _moved_range(shape: ir.Node, where: list[int]) -> tuple[int, int] | None:
    """The dims ``[start, end)`` a ``Shape`` node reads, moved to positions ``where[d]``:
    ``(start, end)`` there when they stay consecutive and in order, else None."""
    rank = len(where)
    bounds = []
    for key, default in (("start", 0), ("end", rank)):
        attr = shape.attributes.get(key)
        v = default if attr is None or attr.is_ref() else attr.as_int()
        bounds.append(min(max(v + rank if v < 0 else v, 0), rank))
    dims = where[bounds[0]:bounds[1]]
    if not dims or dims != list(range(dims[0], dims[0] + len(dims))):
        return None
    return dims[0], dims[0] + len(dims)


def _scalar(value: ir.Value, depth: int = 4) -> bool:
    """``value`` is 0-d (known: its shape, a constant, or elementwise ops of 0-d values such
    as clip's ``where(isnan(bound), NaN, -0.0)``), so it broadcasts the same in every layout."""
    if value.shape is not None:
        return len(value.shape) == 0
    if value.const_value is not None:
        return len(value.const_value.shape) == 0
    node = value.producer()
    return depth > 0 and node is not None and node.domain == "" and \
        node.op_type in _ELEMENTWISE and \
        all(v is not None and _scalar(v, depth - 1) for v in node.inputs)


def _shape(node: ir.Node) -> bool:
    """``Shape(Transpose(t, p), start, end)`` whose dims are consecutive in ``t`` →
    ``Shape(t, ...)`` of those dims: the Transpose (a full copy) may then go unused (the
    shape reads of the next column write in a chain, ``z[:, :, 1] = ...``)."""
    x = node.inputs[0] if node.inputs else None
    t = None if x is None else x.producer()
    if t is None or t.op_type != "Transpose" or t.domain != "" or t.inputs[0] is None:
        return False
    perm = _perm(t)
    moved = None if perm is None else _moved_range(node, perm)
    if moved is None:
        return False
    node.replace_input_with(0, t.inputs[0])
    node.attributes["start"] = ir.AttrInt64("start", moved[0])
    node.attributes["end"] = ir.AttrInt64("end", moved[1])
    return True

"""Run-time lists of numbers built by ``append`` in a loop: carried as a 1-D tensor, not a sequence.

Input: an ``ir.Model`` about to be serialized (an execution-only rewrite, run from
:func:`pyonnx.passes.pipeline.finish` before ``LoopToScanPass``, which can then turn such a
``for`` loop into a ``Scan``). Output: the same model where each ``Loop`` state that

* enters as an empty sequence (``SequenceEmpty``) or as a list this pass already made a tensor
  (``SplitToSequence(t, axis=0, keepdims=0)``, e.g. the previous loop of an unrolled
  ``for c in range(3): while ...: keep.append(i)``), and
* is, in the body, only appended to: a chain of ``SequenceInsert(s, v)`` without a position
  (``keep.append(i)``), each ``v`` a 0-d tensor of the sequence's dtype, nothing else reading
  the sequence in the body,

is carried as a 1-D tensor ``t`` instead, each append ``Concat(t, Reshape(v, [1]))``; with
exactly one append per iteration the state goes and ``v`` becomes a scan output of the Loop
instead (nothing copied per iteration; the list on entry, if any, is concatenated in front
after the loop). After the loop ``SplitToSequence(t, axis=0, keepdims=0)`` gives the same list
back (one 0-d tensor per item, in order). Then the reads of such a list that have a tensor form read ``t``:
``ConcatFromSequence(new_axis=1)`` (``np.array(keep)``, ``boxes[keep]``) is ``t``,
``SequenceLength`` is ``Size(t)``, ``SequenceAt(i)`` is ``Gather(t, i)`` (both fail out of
range), and a later append is a ``Concat`` again.

Why: onnxruntime's ``SequenceInsert`` copies the whole sequence, one tensor object per item,
on every append, so a loop appending k items costs O(k²) tensor allocations: the classic NMS
keeping 762 of 1000 boxes spent 25 of its 52 ms there (a bare loop of 762 appends: 8.6 ms).
The ``Concat`` copies k numbers with one memcpy. The values are the same items in the same
order (exact).
"""

from __future__ import annotations

import logging

import numpy as np
import onnx_ir as ir

from pyonnx.passes.marks import replace_value
from pyonnx.passes.setitem_forms import Builder, attr, replace_uses

__all__ = ["SequenceAppendsPass"]

logger = logging.getLogger(__name__)

_SUBGRAPH_OPS = frozenset({"If", "Loop", "Scan", "SequenceMap"})
_LOC = "pyonnx.loc"
# The dtypes onnxruntime 1.32's CPU SplitToSequence runs (measured; int8/16, uint8-64 have no
# kernel): other lists stay sequences.
_SPLITTABLE = frozenset({ir.DataType.FLOAT, ir.DataType.DOUBLE, ir.DataType.FLOAT16,
                         ir.DataType.INT32, ir.DataType.INT64, ir.DataType.BOOL})


class SequenceAppendsPass(ir.passes.InPlacePass):
    """Carries appended-to lists of numbers as tensors (see the module docstring)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        b = Builder(model)
        count = _graph(b, model.graph)
        # Every list split from a tensor (this pass's, and the frontend's own for a slice of
        # a run-time list, keep[:k]): its reads with a tensor form read the tensor.
        for node in list(ir.traversal.RecursiveGraphIterator(model.graph)):
            if node.graph is not None and _as_list(node.outputs[0]) is not None:
                _reads(b, node)
        if count:
            logger.debug("carried %d appended lists as tensors", count)
        return ir.passes.PassResult(model, modified=bool(count))


def _graph(b: Builder, graph: ir.Graph) -> int:
    count = 0
    for node in list(graph):
        if node.graph is not graph or node.op_type not in _SUBGRAPH_OPS or node.domain:
            continue
        for a in node.attributes.values():  # inner loops first
            if a.is_ref():
                continue
            if a.type == ir.AttributeType.GRAPH:
                count += _graph(b, a.as_graph())
            elif a.type == ir.AttributeType.GRAPHS:
                for g in a.as_graphs():
                    count += _graph(b, g)
        j = 0
        while node.op_type == "Loop" and j < len(node.inputs) - 2:
            done = _convert(b, graph, node, j)
            if done is None:
                j += 1
                continue
            count += 1
            if done is node:  # still a state (a tensor now)
                j += 1
            node = done  # a new Loop without state j (a scan output): j is the next state
    return count


def _elem(value: ir.Value | None) -> ir.DataType | None:
    """The element type of a sequence-of-tensors value, else None."""
    t = None if value is None else value.type
    if isinstance(t, ir.SequenceType) and isinstance(t.elem_type, ir.TensorType):
        return t.elem_type.dtype
    return None


def _op(value: ir.Value | None, op: str) -> ir.Node | None:
    node = None if value is None else value.producer()
    return node if node is not None and node.op_type == op and not node.domain else None


def _as_list(value: ir.Value) -> ir.Value | None:
    """``t`` when ``value`` is ``SplitToSequence(t, axis=0, keepdims=0)`` of a 1-D ``t``."""
    node = _op(value, "SplitToSequence")
    if node is None or len(node.inputs) != 1 or attr(node, "axis", 0) != 0 or \
            attr(node, "keepdims", 1) != 0:
        return None
    t = node.inputs[0]
    return t if _rank(t, 8) == 1 else None


def _scalar_of(value: ir.Value | None, dtype: ir.DataType) -> bool:
    """``value`` is a 0-d tensor of ``dtype`` (a sequence holds one dtype: ONNX checks that
    a ``SequenceInsert``'s item has the sequence's, so an unknown type is that one)."""
    if value is None or (value.type is not None and value.type != ir.TensorType(dtype)):
        return False
    return _rank(value, 8) == 0


_ELEMENTWISE = frozenset({
    "Identity", "Cast", "Neg", "Abs", "Floor", "Ceil", "Round", "Sqrt", "Exp", "Log", "Sign",
    "Not", "IsNaN", "IsInf", "Add", "Sub", "Mul", "Div", "Mod", "Max", "Min", "And", "Or",
    "Xor", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Where", "BitwiseAnd",
    "BitwiseOr", "BitwiseXor", "BitwiseNot",
})


def _rank(value: ir.Value | None, depth: int) -> int | None:
    """The rank of ``value``: declared, or from its producer (the frontend does not declare
    the shape of every value; a few ops suffice for the items appended in practice)."""
    if value is None:
        return None
    if value.shape is not None:
        return len(value.shape)
    if value.const_value is not None:
        return len(value.const_value.shape)
    node = value.producer()
    if node is None or node.domain or depth <= 0 or not node.inputs:
        return None
    op = node.op_type
    if op == "Constant":
        a = node.attributes.get("value")
        return None if a is None or a.is_ref() or a.type != ir.AttributeType.TENSOR \
            else len(a.as_tensor().shape)
    ranks = [_rank(v, depth - 1) for v in node.inputs]
    if op == "Gather" and len(ranks) == 2 and None not in ranks:
        return ranks[0] + ranks[1] - 1
    if op in ("Size", "SequenceLength"):
        return 0
    if op in ("Slice", "Concat", "CumSum") and ranks[0] is not None:
        return ranks[0]
    if op == "Shape":
        return 1
    if op in ("Squeeze", "Unsqueeze") and len(node.inputs) == 2 and ranks[0] is not None:
        axes = node.inputs[1].const_value if node.inputs[1] is not None else None
        if axes is not None:
            k = axes.numpy().size
            return ranks[0] - k if op == "Squeeze" else ranks[0] + k
    if op == "Reshape" and len(node.inputs) == 2 and node.inputs[1] is not None and \
            node.inputs[1].const_value is not None:
        return int(node.inputs[1].const_value.numpy().size)
    if op in _ELEMENTWISE and None not in ranks:
        return max(ranks)
    if op in ("ReduceMax", "ReduceMin", "ReduceSum", "ArgMax", "ArgMin") and \
            attr(node, "keepdims", 1) == 0 and ranks[0] is not None:
        if op.startswith("Arg"):
            return ranks[0] - 1
        return 0 if len(node.inputs) == 1 and ranks[0] >= 1 else None
    return None


def _appends(s_in: ir.Value, s_out: ir.Value, dtype: ir.DataType) -> list[ir.Node] | None:
    """The chain of appends leading from body input ``s_in`` to body output ``s_out`` (in
    order), or None when the body does anything else with the list."""
    chain: list[ir.Node] = []
    if list(s_out.uses()):  # read in the body after the last append (len(keep) >= k: break)
        return None
    v = s_out
    while v is not s_in:
        node = _op(v, "SequenceInsert")
        if node is None or len(node.inputs) != 2 or not _scalar_of(node.inputs[1], dtype):
            return None
        prev = node.inputs[0]
        uses = list(prev.uses()) if prev is not None else []
        if prev is None or len(uses) != 1 or prev.is_graph_output():
            return None
        chain.append(node)
        v = prev
    return chain[::-1] if chain else None


def _convert(b: Builder, graph: ir.Graph, loop: ir.Node, j: int) -> ir.Node | None:
    """Carries state ``j`` of ``loop`` as a tensor when it qualifies (module docstring).
    Returns the Loop afterwards (a new node when the state became a scan output), or None."""
    body_attr = loop.attributes.get("body")
    if body_attr is None or body_attr.is_ref():
        return None
    body = body_attr.as_graph()
    init, out = loop.inputs[2 + j], loop.outputs[j]
    s_in, s_out = body.inputs[2 + j], body.outputs[1 + j]
    empty = _op(init, "SequenceEmpty")
    start = _as_list(init) if empty is None else None
    if empty is None and start is None:
        return None
    # The element type, wherever it is declared (the values agree: ONNX checks the Loop).
    known = {_elem(v) for v in (init, out, s_in, s_out)} - {None}
    if empty is not None and attr(empty, "dtype", None) is not None:
        known.add(ir.DataType(attr(empty, "dtype", None)))
    if len(known) != 1:
        return None
    dtype = known.pop()
    if dtype not in _SPLITTABLE or (start is not None and start.type is not None and
                                       start.type != ir.TensorType(dtype)):
        return None
    chain = _appends(s_in, s_out, dtype)
    if chain is None:
        return None
    if len(chain) == 1:
        new = _as_scan_output(b, graph, loop, j, chain[0],
                              None if empty is not None else start, dtype)
        if empty is not None and empty.graph is not None and not list(init.uses()) and \
                not init.is_graph_output():
            empty.graph.remove(empty, safe=True)
        return new

    def emit(g: ir.Graph, before: ir.Node, origin: ir.Node, op: str, *inputs, **attrs):
        node = ir.Node("", op, inputs, [_attr(k, v) for k, v in attrs.items()],
                       name=b.node_name(f"{origin.name or 'append'}_{op}"),
                       doc_string=origin.doc_string)
        if _LOC in origin.meta:
            node.meta[_LOC] = origin.meta[_LOC]
        node.outputs[0].name = b.value_name(f"{origin.name or 'append'}_{op.lower()}")
        g.insert_before(before, node)
        return node.outputs[0]

    tensor = ir.TensorType(dtype)
    if start is None:  # an empty list: an empty 1-D tensor
        start = b.const(np.zeros(0, dtype=dtype.numpy()))
    loop.replace_input_with(2 + j, start)
    for before in (empty, init.producer()):  # the list on entry, when nothing else reads it
        if before is not None and before.graph is not None and not list(init.uses()) and \
                not init.is_graph_output():
            before.graph.remove(before, safe=True)
            break
    t_in = ir.Value(name=b.value_name(f"{s_in.name or 'list'}_items"), type=tensor,
                    shape=ir.Shape([None]))
    body.inputs[2 + j] = t_in
    one = b.const(np.array([1], np.int64))
    t = t_in
    for node in chain:
        item = emit(body, node, node, "Reshape", node.inputs[1], one)
        t = emit(body, node, node, "Concat", t, item, axis=0)
        t.type, t.shape = tensor, ir.Shape([None])
    body.outputs[1 + j] = t
    for node in reversed(chain):
        body.remove(node, safe=True)
    # After the loop: the list again, for whoever reads it (the reads with a tensor form are
    # rewritten to read the tensor, below).
    out.type, out.shape = tensor, ir.Shape([None])
    split = ir.Node("", "SplitToSequence", [], [ir.AttrInt64("axis", 0),
                                                 ir.AttrInt64("keepdims", 0)],
                    name=b.node_name(f"{loop.name or 'Loop'}_SplitToSequence"),
                    doc_string=loop.doc_string)
    if _LOC in loop.meta:
        split.meta[_LOC] = loop.meta[_LOC]
    seq = split.outputs[0]
    seq.type = ir.SequenceType(tensor)
    name = out.name
    replace_value(out, seq, replace_graph_outputs=True)
    if seq.is_graph_output():  # a returned list keeps its output name
        out.name, seq.name = b.value_name(f"{name}_items"), name
    else:
        seq.name = b.value_name(f"{name}_list")
    split.resize_inputs(1)  # made without inputs: out's uses were redirected first
    split.replace_input_with(0, out)
    graph.insert_after(loop, split)
    return loop


def _as_scan_output(b: Builder, graph: ir.Graph, loop: ir.Node, j: int, append: ir.Node,
                    start: ir.Value | None, dtype: ir.DataType) -> ir.Node:
    """One append per iteration: the item becomes a scan output of the Loop (no state, no
    copy per iteration), the list after the loop ``start`` (the items on entry, None when
    empty) followed by the scan output's items."""
    body = loop.attributes["body"].as_graph()
    item = append.inputs[1]
    producer = item.producer()
    if producer is None or producer.graph is not body or item.is_graph_output():
        node = ir.Node("", "Identity", [item], name=b.node_name(f"{append.name}_Identity"))
        node.outputs[0].name = b.value_name(f"{append.name}_item")
        body.insert_before(append, node)
        item = node.outputs[0]
    item.type, item.shape = ir.TensorType(dtype), ir.Shape([])
    body.outputs.pop(1 + j)
    body.remove(append, safe=True)
    body.inputs.pop(2 + j)
    body.outputs.append(item)
    old = loop.outputs
    n_state = len(loop.inputs) - 2
    kept = [k for k in range(n_state) if k != j]
    new_loop = ir.Node("", "Loop", [loop.inputs[0], loop.inputs[1],
                                    *(loop.inputs[2 + k] for k in kept)],
                       list(loop.attributes.values()), num_outputs=len(old),
                       name=loop.name, doc_string=loop.doc_string)
    new_loop.meta.update(loop.meta)
    graph.insert_before(loop, new_loop)
    for out, k in zip(new_loop.outputs, [*kept, *range(n_state, len(old))]):
        replace_uses(old[k], out)
    scan = new_loop.outputs[-1]
    scan.name = b.value_name(f"{append.name}_items")
    scan.type, scan.shape = ir.TensorType(dtype), ir.Shape([None])
    last = [new_loop]

    def after(op: str, *inputs, **attrs) -> ir.Value:
        node = ir.Node("", op, inputs, [_attr(k, v) for k, v in attrs.items()],
                       name=b.node_name(f"{loop.name or 'Loop'}_{op}"),
                       doc_string=loop.doc_string)
        if _LOC in loop.meta:
            node.meta[_LOC] = loop.meta[_LOC]
        node.outputs[0].name = b.value_name(f"{scan.name}_{op.lower()}")
        graph.insert_after(last[0], node)
        last[0] = node
        return node.outputs[0]

    # (a 0-d scan output stacks as (n,); onnx's reference evaluator makes it (n, 1))
    items = after("Reshape", scan, b.const(np.array([-1], np.int64)))
    if start is not None:
        items = after("Concat", start, items, axis=0)
    items.type, items.shape = ir.TensorType(dtype), ir.Shape([None])
    seq = after("SplitToSequence", items, axis=0, keepdims=0)
    seq.type = ir.SequenceType(ir.TensorType(dtype))
    replace_uses(old[j], seq)
    graph.remove(loop, safe=True)
    return new_loop


def _reads(b: Builder, split: ir.Node, nonempty: bool = False) -> None:
    """Rewrites the reads of ``split``'s list that have a tensor form (module docstring).
    ``nonempty``: the list has an item (``np.array`` of an empty list fails: numpy makes it
    float64, which one model cannot; so that read is rewritten only then)."""
    seq, t = split.outputs[0], split.inputs[0]
    dtype = _elem(seq)
    if dtype is None:
        return
    for use in list(seq.uses()):
        node = use.node
        graph = node.graph  # this one or a subgraph (t is visible there too)
        if graph is None or node.domain or use.idx != 0:
            continue
        op = node.op_type
        res = node.outputs[0]
        if op == "ConcatFromSequence" and attr(node, "axis", None) == 0 and \
                attr(node, "new_axis", 0) == 1 and nonempty:
            new = _after(b, graph, node, "Identity", t)
        elif op == "SequenceLength":
            new = _after(b, graph, node, "Size", t)
        elif op == "SequenceAt" and len(node.inputs) == 2:
            new = _after(b, graph, node, "Gather", t, node.inputs[1], axis=0)
        elif op == "SequenceInsert" and len(node.inputs) == 2 and \
                _scalar_of(node.inputs[1], dtype):
            item = _after(b, graph, node, "Reshape", node.inputs[1],
                          b.const(np.array([1], np.int64)))
            joined = _after(b, graph, item.producer(), "Concat", t, item, axis=0)
            joined.type, joined.shape = ir.TensorType(dtype), ir.Shape([None])
            inner = ir.Node("", "SplitToSequence", [joined],
                            [ir.AttrInt64("axis", 0), ir.AttrInt64("keepdims", 0)],
                            name=b.node_name(f"{node.name or 'append'}_SplitToSequence"),
                            doc_string=node.doc_string)
            graph.insert_after(joined.producer(), inner)
            new = inner.outputs[0]
            new.type = res.type
            _swap(b, res, new)
            graph.remove(node, safe=True)
            _reads(b, inner, nonempty=True)
            continue
        else:
            continue
        new.type = res.type
        new.shape = res.shape
        _swap(b, res, new)
        graph.remove(node, safe=True)
    if not list(seq.uses()) and not seq.is_graph_output():
        split.graph.remove(split, safe=True)


def _swap(b: Builder, old: ir.Value, new: ir.Value) -> None:
    name = old.name
    replace_value(old, new, replace_graph_outputs=True)
    old.name = None
    new.name = name


def _after(b: Builder, graph: ir.Graph, origin: ir.Node, op: str, *inputs, **attrs) -> ir.Value:
    node = ir.Node("", op, inputs, [_attr(k, v) for k, v in attrs.items()],
                   name=b.node_name(f"{origin.name or 'list'}_{op}"),
                   doc_string=origin.doc_string)
    if _LOC in origin.meta:
        node.meta[_LOC] = origin.meta[_LOC]
    node.outputs[0].name = b.value_name(f"{origin.name or 'list'}_{op.lower()}")
    graph.insert_after(origin, node)
    return node.outputs[0]


def _attr(name: str, value) -> ir.Attr:
    return ir.AttrInt64(name, int(value))

"""Selections of a prefix or one part computed in full, narrowed to what is kept (exact).

Input: an ``ir.Model`` after constant folding. Output: the same model with these patterns
rewritten, in every graph and subgraph (the replaced nodes are left for ``RemoveUnusedPass``):

* ``topk_prefix``: ``Slice(TopK(x, K)[j], [0], [e], [axis])`` on TopK's own axis, step 1, with a
  constant ``e >= 1``, where every use of TopK's outputs is that same Slice
  (``np.argsort(x, axis=-1)[:, :5]``: the frontend sorts in full with ``TopK``) →
  ``TopK(x, min(K, e))``. ONNX breaks ties of ``TopK`` by the lower index, so the first ``e``
  of a full ``TopK`` are exactly the ``e``-element ``TopK``: the same values, the same order.
  onnxruntime's full ``TopK`` of (32, 1000) float64 took 1.47 ms, the 5-element one a few µs.
* ``slice_of_concat``: ``Slice(Concat(p0, .., pn), s, e, [axis])`` on the Concat axis, step 1,
  whose constant bounds select exactly one part ``pj`` (from the front when the lengths before
  ``pj`` are static, from the back when those from ``pj`` on are static)
  (``np.argpartition(x, -k)[-k:]``: the partition is ``Concat(rest, top k)``) → ``pj``. The
  same elements: the other parts (a ``Compress`` over every position, for argpartition) need
  not be computed.
"""

from __future__ import annotations

import logging

import numpy as np
import onnx_ir as ir

from pyonnx.passes.marks import replace_value
from pyonnx.passes.idiom_match import _const, _rank

__all__ = ["NarrowSelectsPass"]

logger = logging.getLogger(__name__)

_LOC = "pyonnx.loc"
_BIG = 2**62  # a Slice end at or beyond this reaches past any real length


class NarrowSelectsPass(ir.passes.InPlacePass):
    """Applies ``topk_prefix`` and ``slice_of_concat`` (see the module docstring)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        count = 0
        for node in list(ir.traversal.RecursiveGraphIterator(model.graph)):
            if node.graph is None or node.op_type != "Slice" or node.domain != "":
                continue
            for name, rewrite in (("topk_prefix", topk_prefix),
                                  ("slice_of_concat", slice_of_concat)):
                if rewrite(node):
                    logger.debug("rewrote %s at %s", name, node.name)
                    count += 1
                    break
        return ir.passes.PassResult(model, modified=bool(count))


def _one_axis_slice(node: ir.Node) -> tuple[int, int, int] | None:
    """(start, end, axis) of a Slice of one axis with step 1 and constant bounds, else None."""
    inputs = list(node.inputs)
    if len(inputs) < 3 or any(v is None for v in inputs[:3]):
        return None
    starts, ends = _const(inputs[1]), _const(inputs[2])
    axes = _const(inputs[3]) if len(inputs) > 3 and inputs[3] is not None else np.array([0])
    steps = _const(inputs[4]) if len(inputs) > 4 and inputs[4] is not None else np.array([1])
    if starts is None or ends is None or axes is None or steps is None:
        return None
    if not (starts.size == ends.size == axes.size == steps.size == 1) or int(steps[0]) != 1:
        return None
    return int(starts.reshape(-1)[0]), int(ends.reshape(-1)[0]), int(axes.reshape(-1)[0])


def _norm_axis(axis: int, rank: int | None) -> int | None:
    if axis >= 0:
        return axis
    return None if rank is None else axis + rank


def _same_slice(a: ir.Node, b: ir.Node) -> bool:
    return _one_axis_slice(a) == _one_axis_slice(b) and \
        _norm_axis(_one_axis_slice(a)[2], _rank(a.inputs[0])) == \
        _norm_axis(_one_axis_slice(b)[2], _rank(b.inputs[0]))


def _take_over(old: ir.Value, new: ir.Value) -> None:
    """Every use (and graph-output role) of ``old`` moved to ``new``, which takes its name,
    type and shape."""
    name, type_, shape = old.name, old.type, old.shape
    replace_value(old, new, replace_graph_outputs=True)
    old.name = None
    new.name, new.type, new.shape = name, type_, shape


def topk_prefix(node: ir.Node) -> bool:
    """Slice(TopK(x, K)[j], 0, e, axis) → TopK(x, min(K, e)) (see the module docstring)."""
    bounds = _one_axis_slice(node)
    topk = node.inputs[0].producer() if node.inputs[0] is not None else None
    if bounds is None or topk is None or topk.op_type != "TopK" or topk.domain != "":
        return False
    start, end, axis = bounds
    if start != 0 or end < 1 or len(topk.inputs) != 2 or topk.inputs[1] is None:
        return False
    rank = _rank(topk.inputs[0])
    attr = topk.attributes.get("axis")
    k_axis = -1 if attr is None else attr.as_int()
    if _norm_axis(axis, rank) is None or _norm_axis(axis, rank) != _norm_axis(k_axis, rank):
        return False
    users: list[ir.Node] = []
    for out in topk.outputs:
        if out.is_graph_output():
            return False
        for use in out.uses():
            if use.node.op_type != "Slice" or use.node.domain != "" or use.idx != 0 or \
                    not _same_slice(use.node, node):
                return False
            users.append(use.node)
    graph = topk.graph
    assert graph is not None
    k = _const(topk.inputs[1])
    end = min(end, _BIG)
    made: list[ir.Node] = []
    if k is not None:
        new_k = _constant(topk, np.array([min(int(k.reshape(-1)[0]), end)], np.int64), made)
    else:
        limit = _constant(topk, np.array([end], np.int64), made)
        made.append(_node(topk, "Min", [topk.inputs[1], limit]))
        new_k = made[-1].outputs[0]
    graph.insert_before(topk, made)
    topk.replace_input_with(1, new_k)
    for user in users:
        _take_over(user.outputs[0], topk.outputs[list(topk.outputs).index(user.inputs[0])])
        assert user.graph is not None
        user.graph.remove(user, safe=True)  # (a Slice in a Loop body: that body's graph)
    return True


def _node(like: ir.Node, op: str, inputs: list, attributes=()) -> ir.Node:
    new = ir.Node("", op, inputs, list(attributes), name=f"{like.name}_narrow_{op}",
                  doc_string=like.doc_string)
    if _LOC in like.meta:
        new.meta[_LOC] = like.meta[_LOC]
    return new


def _constant(like: ir.Node, array: np.ndarray, made: list[ir.Node]) -> ir.Value:
    node = _node(like, "Constant", [], [ir.AttrTensor("value", ir.Tensor(array))])
    node.name += f"_{len(made)}"
    made.append(node)
    out = node.outputs[0]
    out.type, out.shape = ir.TensorType(ir.DataType.INT64), ir.Shape(array.shape)
    return out


def _static_length(value: ir.Value | None, axis: int) -> int | None:
    """``value``'s static length on ``axis``: from its shape, else through its producer (a
    ``TopK`` with a constant K on that axis makes exactly K, as it fails for fewer; a Slice
    reversing that axis whole keeps its input's length)."""
    if value is None:
        return None
    if value.shape is not None and axis < len(value.shape) and \
            isinstance(value.shape[axis], int):
        return value.shape[axis]
    node = value.producer()
    if node is None or node.domain != "":
        return None
    rank = _rank(node.inputs[0]) if node.inputs else None
    if node.op_type == "TopK" and len(node.inputs) == 2:
        k = _const(node.inputs[1])
        attr = node.attributes.get("axis")
        k_axis = -1 if attr is None else attr.as_int()
        if k is not None and k.size == 1 and _norm_axis(k_axis, rank) == axis:
            return int(k.reshape(-1)[0])
    if node.op_type == "Slice" and len(node.inputs) == 5:
        starts, ends, axes, steps = (_const(v) for v in node.inputs[1:5])
        if starts is not None and ends is not None and axes is not None and \
                steps is not None and steps.size == 1 and int(steps[0]) == -1 and \
                _norm_axis(int(axes[0]), rank) == axis and int(starts[0]) in (-1,) and \
                int(ends[0]) <= -_BIG:
            return _static_length(node.inputs[0], axis)
    return None


def slice_of_concat(node: ir.Node) -> bool:
    """Slice(Concat(.., pj, ..), s, e, axis) selecting exactly pj → pj (see the module
    docstring)."""
    bounds = _one_axis_slice(node)
    concat = node.inputs[0].producer() if node.inputs[0] is not None else None
    if bounds is None or concat is None or concat.op_type != "Concat" or concat.domain != "":
        return False
    start, end, axis = bounds
    rank = _rank(node.inputs[0])
    attr = concat.attributes.get("axis")
    if attr is None or _norm_axis(axis, rank) is None or \
            _norm_axis(axis, rank) != _norm_axis(attr.as_int(), rank):
        return False
    axis = _norm_axis(axis, rank)
    parts = list(concat.inputs)
    lengths = [_static_length(p, axis) for p in parts]
    chosen = None
    if start >= 0:
        offset = 0
        for j, n in enumerate(lengths):
            if n is None:
                break
            last = all(m is not None for m in lengths) and j == len(parts) - 1
            if offset == start and n > 0 and (end == offset + n or (last and end >= offset + n)):
                chosen = j
                break
            offset += n
    else:
        offset = 0  # the parts' total length after part j, counted from the back
        for j in range(len(parts) - 1, -1, -1):
            n = lengths[j]
            if n is None:
                break
            offset += n
            after = offset - n
            if -offset == start and n > 0 and \
                    ((after == 0 and end >= _BIG) or (after > 0 and end == -after)):
                chosen = j
                break
    if chosen is None:
        return False
    part = parts[chosen]
    if part is None:
        return False
    graph = node.graph
    assert graph is not None
    out = node.outputs[0]
    if out.is_graph_output():  # the output keeps its name: through an Identity
        identity = _node(node, "Identity", [part])
        graph.insert_before(node, identity)
        _take_over(out, identity.outputs[0])
    else:
        replace_value(out, part)
        if part.shape is None:
            part.shape = out.shape
    graph.remove(node, safe=True)
    return True

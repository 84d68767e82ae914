"""A first-order difference with its first element kept, in three passes instead of five.

Input: an ``ir.Model`` about to be serialized (an execution-only rewrite, run first in
``pipeline.finish``: differentiation never sees it). Output: the same model where each
``Concat(head, Sub(Slice(s, 1:), Mul(c, Slice(s, :-1))), axis=0)`` of a 1-D ``s`` and a 0-d
``c`` (either operand order of the Mul), with ``head`` the first element of ``s``
(``Slice(s, 0:1)``, or ``Reshape``/``Unsqueeze`` of ``Gather(s, 0)``), reads
``Sub(s, Pad(Mul(c, s), [1, -1]))``. That is pre-emphasis as people write it:
``np.concatenate((s[:1], s[1:] - c * s[:-1]))`` and ``np.append(s[0], s[1:] - c * s[:-1])``.
The replaced nodes are removed when nothing else reads them (this runs after
``RemoveUnusedPass``).

Exact: element ``i >= 1`` is ``s[i] - (c * s[i-1])``, the same two roundings as numpy's;
element 0 is ``s[0] - 0``, which is ``s[0]`` for every value (``-0.0 - +0.0`` is ``-0.0``, NaN
stays NaN; integers unchanged). The ``Pad`` inserts a zero (+0.0) after the product, so the
coefficient never multiplies it (``inf * 0`` would be NaN). An empty ``s`` gives an empty
result, as numpy's; ``np.append(s[0], ...)`` of an empty ``s`` still fails in the ``Gather``
(kept as the check: numpy raises IndexError).

Why: onnxruntime's ``Slice`` copies (numpy's slices are views) and ``Concat`` copies again:
five full passes where numpy makes three (48,000 float32: 38 -> 25 µs, onnxruntime 1.32, one
thread, under load).
"""

from __future__ import annotations

import logging

import numpy as np
import onnx_ir as ir

__all__ = ["ShiftedDifferencesPass"]

logger = logging.getLogger(__name__)

_LOC = "pyonnx.loc"
_BIG = 2**62


class ShiftedDifferencesPass(ir.passes.InPlacePass):
    """Rewrites ``concatenate((s[:1], s[1:] - c * s[:-1]))`` (module docstring)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        count = 0
        for node in list(ir.traversal.RecursiveGraphIterator(model.graph)):
            if node.graph is not None and node.op_type == "Concat" and node.domain == "":
                count += _rewrite(node, model.graph)
        if count:
            logger.debug("rewrote %d shifted differences", count)
        return ir.passes.PassResult(model, modified=bool(count))


# ------------------------------------------------------------------ matching
def _const(value: ir.Value | None) -> np.ndarray | None:
    if value is None or value.const_value is None:
        return None
    return value.const_value.numpy()


def _producer(value: ir.Value | None, op: str) -> ir.Node | None:
    node = None if value is None else value.producer()
    if node is None or node.op_type != op or node.domain != "":
        return None
    return node


def _ints(value: ir.Value | None) -> list[int] | None:
    c = _const(value)
    return None if c is None or c.dtype.kind not in "iu" else [int(v) for v in c.reshape(-1)]


def _slice_of(value: ir.Value | None, start: int, stop_ok) -> ir.Value | None:
    """``s`` when ``value`` is ``Slice(s, [start], [stop])`` on axis 0 with step 1 and
    ``stop_ok(stop)``."""
    node = _producer(value, "Slice")
    if node is None or len(node.inputs) < 3:
        return None
    starts, ends = _ints(node.inputs[1]), _ints(node.inputs[2])
    axes = _ints(node.inputs[3]) if len(node.inputs) > 3 and node.inputs[3] is not None \
        else [0]
    steps = _ints(node.inputs[4]) if len(node.inputs) > 4 and node.inputs[4] is not None \
        else [1]
    if starts != [start] or ends is None or len(ends) != 1 or axes not in ([0], [-1]) or \
            steps != [1] or not stop_ok(ends[0]):
        return None
    return node.inputs[0]


def _first(value: ir.Value | None) -> ir.Value | None:
    """``s`` when ``value`` is its first element as a 1-element vector."""
    s = _slice_of(value, 0, lambda e: e == 1)
    if s is not None:
        return s
    node = value.producer() if value is not None else None
    if node is None or node.domain != "" or node.op_type not in ("Reshape", "Unsqueeze"):
        return None
    shape = _ints(node.inputs[1]) if len(node.inputs) > 1 else None
    if shape not in ([1], [-1], [0]) or (node.op_type == "Reshape" and shape == [0]):
        return None
    gather = _producer(node.inputs[0], "Gather")
    if gather is None or _ints(gather.inputs[1]) != [0] or \
            _const(gather.inputs[1]).ndim != 0:
        return None
    axis = gather.attributes.get("axis")
    if axis is not None and not axis.is_ref() and axis.as_int() not in (0, -1):
        return None
    return gather.inputs[0]


def _gathered(head: ir.Value) -> ir.Value | None:
    """The Gather output under the head (the np.append form), else None."""
    node = head.producer()
    if node is None or node.op_type not in ("Reshape", "Unsqueeze"):
        return None
    return node.inputs[0]


def _rank(value: ir.Value | None) -> int | None:
    return None if value is None or value.shape is None else len(value.shape)


def _match(node: ir.Node) -> tuple[ir.Value, ir.Node] | None:
    """``(s, mul)`` for a shifted difference (module docstring), else None."""
    axis = node.attributes.get("axis")
    if len(node.inputs) != 2 or axis is None or axis.is_ref() or axis.as_int() not in (0, -1):
        return None
    s = _first(node.inputs[0])
    sub = _producer(node.inputs[1], "Sub")
    if s is None or sub is None or _rank(s) != 1:
        return None
    if _slice_of(sub.inputs[0], 1, lambda e: e >= _BIG) is not s:
        return None
    mul = _producer(sub.inputs[1], "Mul")
    if mul is None:
        return None
    for k in (0, 1):
        c, shifted = mul.inputs[k], mul.inputs[1 - k]
        if _rank(c) == 0 and _slice_of(shifted, 0, lambda e: e == -1) is s:
            return s, mul
    return None


# ------------------------------------------------------------------ rewrite
def _rewrite(node: ir.Node, main: ir.Graph) -> bool:
    found = _match(node)
    if found is None:
        return False
    s, mul = found
    graph = node.graph
    assert graph is not None
    pads = ir.Value(name=f"{node.name}_shift_pads", shape=ir.Shape([2]),
                    type=ir.TensorType(ir.DataType.INT64),
                    const_value=ir.Tensor(np.array([1, -1], np.int64)))
    while pads.name in main.initializers:
        pads.name += "_"
    main.register_initializer(pads)  # (a subgraph reads it as an outer value)
    k = 0 if _rank(mul.inputs[0]) == 0 else 1
    inputs = [mul.inputs[k], s] if k == 0 else [s, mul.inputs[k]]
    made = [ir.Node("", "Mul", inputs, name=f"{node.name}_scaled")]
    gather = _gathered(node.inputs[0])
    if gather is not None:
        # The Gather of np.append(s[0], ...) is numpy's IndexError on an empty s: its value
        # stays in the data flow, as a zero added to the pads (onnxruntime folds a Shape of it
        # and then drops it as unused).
        zero = ir.Value(name=f"{node.name}_shift_zero", shape=ir.Shape([]),
                        type=ir.TensorType(ir.DataType.INT64),
                        const_value=ir.Tensor(np.array(0, np.int64)))
        while zero.name in main.initializers:
            zero.name += "_"
        main.register_initializer(zero)
        made.append(ir.Node("", "Cast", [gather], [ir.AttrInt64("to", ir.DataType.INT64)],
                            name=f"{node.name}_first"))
        made.append(ir.Node("", "Mul", [made[-1].outputs[0], zero],
                            name=f"{node.name}_first_zero"))
        made.append(ir.Node("", "Add", [pads, made[-1].outputs[0]], name=f"{node.name}_pads"))
        pads = made[-1].outputs[0]
    made.append(ir.Node("", "Pad", [made[0].outputs[0], pads],
                        [ir.AttrString("mode", "constant")], name=f"{node.name}_shifted"))
    made.append(ir.Node("", "Sub", [s, made[-1].outputs[0]], name=f"{node.name}_difference"))
    taken = {v.name for v in graph.inputs} | set(main.initializers) | {
        o.name for n in graph for o in n.outputs}
    for new in made:
        name = new.name
        while name in taken:
            name += "_"
        new.outputs[0].name = name
        taken.add(name)
        new.doc_string = node.doc_string
        if _LOC in node.meta:
            new.meta[_LOC] = node.meta[_LOC]
    graph.insert_before(node, made)
    out, result = node.outputs[0], made[-1].outputs[0]
    result.type, result.shape = out.type, out.shape
    if out.is_graph_output():
        out.replace_all_uses_with(result, replace_graph_outputs=True)
        name, out.name = out.name, None
        result.name = name
    else:
        out.replace_all_uses_with(result)
    _remove_dead(graph, node, main)
    return True


def _remove_dead(graph: ir.Graph, node: ir.Node, main: ir.Graph) -> None:
    """Removes ``node`` (unused), the producers only it kept alive in this graph, and the
    main graph's initializers only they read (onnxruntime warns about unused ones)."""
    todo, read = [node], []
    while todo:
        n = todo.pop()
        if n.graph is not graph or any(o.uses() or o.is_graph_output() for o in n.outputs):
            continue
        inputs = [v for v in n.inputs if v is not None]
        graph.remove(n, safe=True)
        read.extend(inputs)
        todo.extend(p for p in (v.producer() for v in inputs) if p is not None)
    for v in read:
        if v.name in main.initializers and main.initializers[v.name] is v and not v.uses():
            del main.initializers[v.name]

"""Whether an integer value is provably ``>= 0``, from the nodes that make it.

Input: an Array (or ``ir.Value``) of an integer dtype. Output: True when every element is
``>= 0`` at run time whatever the inputs are, False when that is not known.

Used by integer ``//`` and ``%`` (arithmetic.py): of non-negative operands the truncating
``Div`` is already numpy's floor and ``a - (a // b) * b`` its remainder, with no sign fix-ups
(``idx % w``, ``idx // w`` of an ``argmax`` by an array's width: heatmap decoding).

Known non-negative: ``ArgMax``/``ArgMin``/``Shape``/``Size``/``NonZero`` results and ``TopK``'s
indices; constants without negative elements; nodes marked ``meta[MARK]``; ``Cast`` to int32 or
int64 from bool, uint8 or uint16 (and uint32 to int64: a wider type holds them); data movement
of such values
(``Identity``, ``Reshape``, ``Squeeze``, ``Unsqueeze``, ``Expand``, ``Flatten``, ``Transpose``,
the first input of ``Slice``/``Gather``/``GatherElements``, every input of ``Concat``); ``Max``
with one such input; ``Where``/``If`` whose selectable values all are. Sums and products are
not followed (int64 wraps).
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph.values import Array

__all__ = ["nonnegative", "MARK"]

# A node whose output its maker proved >= 0.
MARK = "pyonnx.nonnegative"

_ALWAYS = frozenset({"ArgMax", "ArgMin", "Shape", "Size", "NonZero"})
_MOVE_FIRST = frozenset({"Identity", "Reshape", "Squeeze", "Unsqueeze", "Expand", "Flatten",
                         "Transpose", "Slice", "Gather", "GatherElements"})
# Cast targets, and the sources whose every value each holds as a non-negative number.
_HOLDS = {int(ir.DataType.INT32): frozenset(int(t) for t in (
              ir.DataType.BOOL, ir.DataType.UINT8, ir.DataType.UINT16)),
          int(ir.DataType.INT64): frozenset(int(t) for t in (
              ir.DataType.BOOL, ir.DataType.UINT8, ir.DataType.UINT16, ir.DataType.UINT32))}


def nonnegative(a: Array | ir.Value, depth: int = 8) -> bool:
    """Whether ``a`` is provably ``>= 0`` (module docstring)."""
    v = a.value if isinstance(a, Array) else a
    if v is None or depth <= 0:
        return False
    const = v.const_value
    if const is not None:
        arr = const.numpy()
        return arr.dtype.kind in "biu" and not bool(np.any(arr < 0))
    node = v.producer()
    if node is None or node.domain:
        return False
    op = node.op_type
    if op in _ALWAYS or node.meta.get(MARK):
        return True
    if op == "TopK":
        return len(node.outputs) > 1 and v is node.outputs[1]
    if op in _MOVE_FIRST:
        return nonnegative(node.inputs[0], depth - 1)
    if op == "Concat":
        return all(nonnegative(i, depth - 1) for i in node.inputs)
    if op == "Max":
        return any(nonnegative(i, depth - 1) for i in node.inputs)
    if op == "Where":
        return nonnegative(node.inputs[1], depth - 1) and nonnegative(node.inputs[2], depth - 1)
    if op == "Cast":
        src = node.inputs[0].type.dtype if node.inputs[0] is not None and \
            node.inputs[0].type is not None else None
        to = node.attributes.get("to")
        return src is not None and to is not None and not to.is_ref() and \
            int(src) in _HOLDS.get(int(to.value), ())
    if op == "If":
        return _branches_nonnegative(node, v, depth - 1)
    return False


def _branches_nonnegative(node: ir.Node, v: ir.Value, depth: int) -> bool:
    k = list(node.outputs).index(v)
    for name in ("then_branch", "else_branch"):
        attr = node.attributes.get(name)
        if attr is None or attr.is_ref() or attr.type != ir.AttributeType.GRAPH:
            return False
        graph = attr.as_graph()
        if len(graph.outputs) <= k or not nonnegative(graph.outputs[k], depth):
            return False
    return True

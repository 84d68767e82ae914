"""The ONNX that ``pyonnx.SetItem`` forms lower to, and the builder the lowering uses.

Input: one ``SetItem`` node (see :mod:`pyonnx.passes.lower_setitem` for its forms). Output:
ONNX nodes computing the written array, inserted where an :class:`Emitter` places them, named
after the ``SetItem`` (its name carries the source line) with its ``doc_string`` and location;
constants are main-graph initializers shared within one run (:class:`Builder`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.passes.marks import replace_value

__all__ = ["Builder", "Emitter", "lower_row", "lower_point", "lower_flat", "replace_uses",
           "attr", "DOMAIN"]

logger = logging.getLogger(__name__)

DOMAIN = "pyonnx"
_LOC = "pyonnx.loc"
_REDUCTIONS = {"add": "Add", "mul": "Mul"}
# Measured on onnxruntime 1.31.1's CPU provider (tests/passes/test_lower_setitem.py runs every
# dtype through them): ScatterElements/ScatterND run "add" and "mul" for bool, every int and
# uint, float32 and float64, not float16 ("MLFloat16 data type is not supported"). Plain
# scatter, Gather, Compress, Reshape and Unsqueeze run every dtype.
_NO_NATIVE_REDUCTION = frozenset({ir.DataType.FLOAT16})
_INT64_MAX = np.iinfo(np.int64).max


class Builder:
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

    def insert_before(self, origin: ir.Node, op: str, inputs: list, attrs=(), like=None,
                      tag: str = "node") -> ir.Value:
        """A new ``op`` node placed before ``origin`` in its graph, named after it (``tag``
        when it has no name) with its ``doc_string`` and location; its output (named from
        ``tag``, typed as ``like`` when given)."""
        node = ir.Node("", op, inputs, list(attrs),
                       name=self.node_name(f"{origin.name or tag}_{op}"),
                       doc_string=origin.doc_string)
        if _LOC in origin.meta:
            node.meta[_LOC] = origin.meta[_LOC]
        out = node.outputs[0]
        out.name = self.value_name(tag)
        if like is not None and like.type is not None:
            out.type = like.type
        assert origin.graph is not None
        origin.graph.insert_before(origin, node)
        return out

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


def lower_row(e: Emitter, node: ir.Node) -> ir.Value:
    x, index, value = node.inputs
    c = e.lowering.const
    indices = e("Reshape", index, c(np.array([1, 1], np.int64)))
    updates = e("Unsqueeze", value, c(np.array([0], np.int64)))
    return e("ScatterND", x, indices, updates)


def lower_point(e: Emitter, node: ir.Node) -> ir.Value:
    x, indices, value = node.inputs
    c = e.lowering.const
    index = e("Unsqueeze", indices, c(np.array([0], np.int64)))
    updates = e("Unsqueeze", value, c(np.array([0], np.int64)))
    return e("ScatterND", x, index, updates)


def lower_flat(e: Emitter, node: ir.Node) -> ir.Value:
    x, positions, values = node.inputs
    assert x is not None and positions is not None and values is not None
    c = e.lowering.const
    unique = bool(attr(node, "unique", 0))
    reduction = attr(node, "reduction", None)
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
    # allowzero: x's shape may hold 0-length dimensions (a (2, 0) target is not "copy dim 1").
    return y if _rank(x) == 1 else e("Reshape", y, e("Shape", x), allowzero=1)


def _widened(e: Emitter, flat: ir.Value, p: ir.Value, v: ir.Value, op: str,
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


def _apply_round(e: Emitter, flat: ir.Value, p: ir.Value, v32: ir.Value, op: str,
                 dtype: ir.DataType) -> ir.Value:
    """``flat[p] = dtype(float32(flat[p]) op v32)`` for distinct positions ``p``."""
    current = e("Cast", e("Gather", flat, p, axis=0), to=ir.DataType.FLOAT)
    return e("ScatterElements", flat, p, e("Cast", e(op, current, v32), to=dtype), axis=0)


class Emitter:
    """Makes the nodes that replace ``origin``: named ``<origin name>_<Op>``, with its
    ``doc_string`` and location, each handed to ``place`` (which puts it in a graph)."""

    def __init__(self, lowering: Builder, origin: ir.Node, place: Callable[[ir.Node], Any]):
        self.lowering = lowering
        self.origin = origin
        self.place = place
        self.base = origin.outputs[0].name or origin.name or "setitem"

    def into(self, place: Callable[[ir.Node], Any]) -> Emitter:
        return Emitter(self.lowering, self.origin, place)

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


def replace_uses(old: ir.Value, new: ir.Value) -> None:
    """Every use of ``old`` (graph outputs too) becomes ``new``, which takes its name, type
    and shape (a graph output keeps its name)."""
    name = old.name
    new.type = old.type or new.type
    if old.shape is not None:
        new.shape = old.shape
    replace_value(old, new, replace_graph_outputs=True)
    old.name = None
    new.name = name


def attr(node: ir.Node, name: str, default: Any) -> Any:
    found = node.attributes.get(name)
    if found is None or found.is_ref():
        return default
    return found.value


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
        if node is None or node.domain not in ("", DOMAIN):
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
            to = attr(node, "to", None)
            return None if to is None else ir.DataType(to)
        elif op in ("Constant", "ConstantOfShape"):
            value_attr = node.attributes.get("value")
            if value_attr is None or value_attr.is_ref() or \
                    value_attr.type != ir.AttributeType.TENSOR:
                return ir.DataType.FLOAT if op == "ConstantOfShape" else None
            return value_attr.as_tensor().dtype
        elif op in ("If", "Loop"):
            # The body output that makes this output: index + 1 in a Loop body (after the
            # condition), the same index in an If branch.
            sub = node.attributes.get("then_branch" if op == "If" else "body")
            if sub is None or sub.is_ref() or sub.type != ir.AttributeType.GRAPH:
                return None
            outputs = sub.as_graph().outputs
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

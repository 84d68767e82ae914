"""An ``Expand`` or ``Reshape`` to the shape its input already has is dropped.

Input: an ``ir.Model`` after folding (constants known). Output: the same model where each
``Expand(v, target)`` whose target provably equals v's shape on every run reads ``v`` itself
(the Expand and its shape arithmetic are left for ``RemoveUnusedPass``); the same for a
``Reshape`` (a write covering a whole array, ``coords[:, :4] /= gain`` on (N, 4), reshapes the
value to the target's shape: it kept the column writes' Transposes from cancelling across it).
Subgraphs too.

Why: onnxruntime's ``Expand`` copies its input even when nothing broadcasts, and the frontend
emits one wherever a value may broadcast into a selection whose shape is only known at run time
(every column write ``y[:, k] = expr`` on an (N, 4) array: ``Expand(expr[None], [1, N])``, a
copy of the column).

How: dimensions are followed forward symbolically, as tokens. A dimension is an ``int`` when
static, else ``(name, axis)`` of the graph input it is read from (never the symbolic dim's
name: onnxruntime does not check that two inputs' equally named dims agree), else unknown.
Tokens go through ``Transpose``, ``Gather`` (a 0-d index drops the axis), ``Slice`` (an axis it
names has a length when its own is static and the bounds constant), ``Unsqueeze`` and
``Squeeze`` (constant axes), ``ScatterND`` (the data's shape), ``Expand`` and elementwise ops
(numpy's broadcast: equal tokens or a static 1; anything else unknown), and the ``If`` of an
exact ``np.maximum``/``minimum`` (marked ``pyonnx.zero_sign_only``: its branches have the shape
of the plain value its else branch returns). Shape vectors are
followed the same way: ``Shape(x, start, end)`` gives x's tokens, integer constants their
values, ``Concat`` joins them. An Expand is dropped only when every dimension of both is known
and they are equal, so it could neither fail nor broadcast (exact).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.passes.static_dims import slice_dims
from pyonnx.passes.zero_signs import MARK, _plain

__all__ = ["DropSameShapeExpandsPass"]

logger = logging.getLogger(__name__)

Dim = Any  # int, (input name, axis), or None (unknown)

_SAME = frozenset({"Identity", "Cast", "Neg", "Abs", "Exp", "Log", "Sqrt", "Sin", "Cos",
                   "Tanh", "Sigmoid", "Relu", "Floor", "Ceil", "Round", "Sign", "Reciprocal",
                   "IsNaN", "IsInf", "Not", "Erf", "Clip"})
_BROADCAST = frozenset({"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "Equal",
                        "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or",
                        "Xor", "Where"})


class DropSameShapeExpandsPass(ir.passes.InPlacePass):
    """Drops Expands to their input's own shape (module docstring)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        if not any(n.op_type in ("Expand", "Reshape") for n in ir.traversal.RecursiveGraphIterator(
                model.graph)):
            return ir.passes.PassResult(model, modified=False)
        count = _Walk().graph(model.graph, top=True)
        if count:
            logger.debug("dropped %d Expands to their input's shape", count)
        return ir.passes.PassResult(model, modified=bool(count))


class _Walk:
    """Per-run state: ``dims[id(value)]`` (a tuple of Dim) and ``vecs[id(value)]`` (the
    entries of an int64 shape vector, as Dims)."""

    def __init__(self):
        self.dims: dict[int, tuple] = {}
        self.vecs: dict[int, tuple] = {}

    def graph(self, graph: ir.Graph, top: bool = False) -> int:
        for value in graph.inputs:
            if value.shape is not None:
                self.dims[id(value)] = tuple(
                    d if isinstance(d, int) else ((value.name, a) if top else None)
                    for a, d in enumerate(value.shape))
        count = 0
        for node in list(graph):
            for attr in node.attributes.values():
                if attr.is_ref():
                    continue
                if attr.type == ir.AttributeType.GRAPH:
                    count += self.graph(attr.as_graph())
                elif attr.type == ir.AttributeType.GRAPHS:
                    count += sum(self.graph(g) for g in attr.as_graphs())
            if node.domain == "":
                count += self.node(node)
        return count

    # -------------------------------------------------------------- facts
    def shape(self, value: ir.Value | None) -> tuple | None:
        if value is None:
            return None
        got = self.dims.get(id(value))
        if got is not None:
            return got
        if value.const_value is not None:
            return tuple(value.const_value.shape)
        return None

    def vec(self, value: ir.Value | None) -> tuple | None:
        if value is None:
            return None
        got = self.vecs.get(id(value))
        if got is not None:
            return got
        c = value.const_value
        if c is not None:
            arr = c.numpy()
            if arr.ndim == 1 and arr.dtype == np.int64:
                return tuple(int(v) for v in arr)
        return None

    # -------------------------------------------------------------- rules
    def node(self, node: ir.Node) -> int:
        op, out = node.op_type, node.outputs[0] if node.outputs else None
        if out is None:
            return 0
        x = self.shape(node.inputs[0]) if node.inputs else None
        result = None
        if op == "Expand":
            target = self.vec(node.inputs[1])
            if x is not None and target is not None and len(x) == len(target) and \
                    all(d is not None for d in x) and tuple(x) == tuple(target):
                if _replace(out, node.inputs[0]):
                    return 1
            if x is not None and target is not None:
                result = _broadcast([x, target])
        elif op == "Reshape" and len(node.inputs) == 2:
            target = self.vec(node.inputs[1])
            if target is not None and all(d is not None and d != -1 for d in target) and \
                    (_int_attr(node, "allowzero", 0) == 1 or 0 not in target):
                if x is not None and tuple(x) == tuple(target) and _replace(out, node.inputs[0]):
                    return 1
                result = target
        elif op in _SAME:
            result = x
        elif op in _BROADCAST:
            shapes = [self.shape(v) for v in node.inputs]
            if all(s is not None for s in shapes):
                result = _broadcast(shapes)
        elif op == "Transpose" and x is not None:
            perm = _ints_attr(node, "perm")
            perm = list(range(len(x)))[::-1] if perm is None else perm
            if len(perm) == len(x):
                result = tuple(x[p] for p in perm)
        elif op == "Gather" and x is not None and len(node.inputs) == 2:
            idx = self.shape(node.inputs[1])
            axis = _int_attr(node, "axis", 0)
            axis = axis + len(x) if axis < 0 else axis
            if idx is not None and 0 <= axis < len(x):
                result = x[:axis] + tuple(idx) + x[axis + 1:]
        elif op in ("Unsqueeze", "Squeeze") and x is not None and len(node.inputs) == 2:
            axes = self.vec(node.inputs[1])
            if axes is not None and all(isinstance(a, int) for a in axes):
                result = _unsqueeze(x, axes) if op == "Unsqueeze" else _squeeze(x, axes)
        elif op == "ScatterND":
            result = x
        elif op == "Slice" and x is not None:
            result = slice_dims(node, x)
        elif op == "If" and node.meta.get(MARK):
            # numpy's exact maximum/minimum behind a ±0 guard: the branches have the shape of
            # the plain value the else branch returns (frontend rare_case.only_if).
            plain = _plain(node)
            result = None if plain is None else self.shape(plain)
        elif op == "Shape" and x is not None:
            rank = len(x)
            lo, hi = _int_attr(node, "start", 0), _int_attr(node, "end", rank)
            lo, hi = (min(max(v + rank if v < 0 else v, 0), rank) for v in (lo, hi))
            self.vecs[id(out)] = x[lo:hi]
            result = (max(hi - lo, 0),)
        elif op == "Concat" and _int_attr(node, "axis", 0) == 0:
            parts = [self.vec(v) for v in node.inputs]
            if parts and all(p is not None for p in parts):
                self.vecs[id(out)] = tuple(d for p in parts for d in p)
                result = (len(self.vecs[id(out)]),)
        if result is not None:
            self.dims[id(out)] = tuple(result)
        return 0


def _broadcast(shapes: list[tuple]) -> tuple:
    """numpy's broadcast of token shapes: a dim is known when every shape has it equal or a
    static 1 (or lacks it); else unknown."""
    rank = max(len(s) for s in shapes)
    out = []
    for a in range(rank):
        dims = [s[a - rank + len(s)] for s in shapes if a - rank + len(s) >= 0]
        rest = [d for d in dims if d != 1]
        if not rest:
            out.append(1)
        elif all(d is not None and d == rest[0] for d in rest):
            out.append(rest[0])
        else:
            out.append(None)
    return tuple(out)


def _unsqueeze(x: tuple, axes) -> tuple | None:
    rank = len(x) + len(axes)
    norm = sorted(a + rank if a < 0 else a for a in axes)
    if any(not 0 <= a < rank for a in norm) or len(set(norm)) != len(norm):
        return None
    it = iter(x)
    return tuple(1 if a in norm else next(it) for a in range(rank))


def _squeeze(x: tuple, axes) -> tuple | None:
    norm = {a + len(x) if a < 0 else a for a in axes}
    if any(not 0 <= a < len(x) or x[a] != 1 for a in norm):
        return None
    return tuple(d for a, d in enumerate(x) if a not in norm)


def _ints_attr(node: ir.Node, name: str) -> list[int] | None:
    attr = node.attributes.get(name)
    return None if attr is None or attr.is_ref() else [int(v) for v in attr.as_ints()]


def _int_attr(node: ir.Node, name: str, default: int) -> int:
    attr = node.attributes.get(name)
    return default if attr is None or attr.is_ref() else attr.as_int()


def _replace(out: ir.Value, value: ir.Value) -> bool:
    if out.is_graph_output():
        return False  # (rare: the Expand itself is returned; it stays)
    out.replace_all_uses_with(value)
    return True

"""One reduction for both ``keepdims`` forms, and leading ``Unsqueeze`` nodes moved past the
elementwise ops that broadcast them away.

Input: an ``ir.Model`` after constant folding (reduction axes are constants). Output: the same
model where

1. of ``ReduceX(x, axes, keepdims=0)`` and ``ReduceX(x, axes, keepdims=1)`` (same op, input
   and constant axes, in one graph) one reduction remains: the keepdims=1 result becomes
   ``Unsqueeze(r0, axes)`` of the keepdims=0 one (the same axes mean the same dimensions:
   negative reduction axes count from the input's rank, negative Unsqueeze axes from the
   output's, which is that rank again);
2. an ``Unsqueeze`` that adds only leading dimensions (axes 0..k-1) moves below the
   elementwise op that uses it when the op's other operands have no more dimensions than
   its input (``E(Unsqueeze(a), s) = Unsqueeze(E(a, s))``: ``s`` broadcasts against ``a``
   alone), and goes away at an op whose other operand has at least as many dimensions as
   its output (numpy broadcasting adds the leading 1s itself: same values, same shape).

Why: ``(x - x.mean(axis=0)) / x.std(axis=0)`` lowers to two column sums (the std's mean
keeps its dims) and two ``x - mean`` passes; after this pass the common-subexpression pass
sees one of each (2 of 6 full passes over ``x`` saved). Values are unchanged: the same
reduction, the same elementwise ops on the same numbers.

Requires: ``FoldConstantsPass`` (constant axes). Run before
``EliminateCommonSubexpressionsPass``, which merges the duplicates this exposes; the dead
originals go with ``RemoveUnusedPass``.
"""

from __future__ import annotations

import onnx_ir as ir

from pyonnx.passes.subgraph_walk import SUBGRAPH_OPS, inner_graphs

__all__ = ["ShareReductionsPass"]

_LOC = "pyonnx.loc"
_REDUCE = frozenset({"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                     "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum",
                     "ReduceLogSumExp"})
# Elementwise ops with numpy broadcasting over all their inputs.
_BINARY = frozenset({"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Equal", "Less",
                     "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"})
_UNARY = frozenset({"Neg", "Abs", "Sqrt", "Exp", "Log", "Reciprocal", "Cast", "Floor", "Ceil",
                    "Round", "Sign", "Not", "IsNaN", "IsInf", "Identity", "Sin", "Cos", "Tanh",
                    "Sigmoid", "Erf"})


class ShareReductionsPass(ir.passes.InPlacePass):
    """Shares keepdims=0/1 twins of a reduction and sinks leading Unsqueezes (see module)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        count = _graph(model.graph)
        return ir.passes.PassResult(model, modified=bool(count))


def _graph(graph: ir.Graph) -> int:
    count = 0
    for node in list(graph):
        if node.op_type in SUBGRAPH_OPS and not node.domain:
            for g in inner_graphs(node):
                count += _graph(g)
    made = _share(graph)
    if made:
        count += len(made) + _sink(graph, made)
    return count


def _axes(node: ir.Node) -> tuple[int, ...] | None:
    if len(node.inputs) < 2 or node.inputs[1] is None:
        return None
    c = node.inputs[1].const_value
    return None if c is None else tuple(int(a) for a in c.numpy().reshape(-1))


def _share(graph: ir.Graph) -> list[ir.Node]:
    """Step 1: the keepdims=1 twin of a keepdims=0 reduction becomes an Unsqueeze of it;
    returns the Unsqueezes made."""
    firsts: dict[tuple, dict[int, ir.Node]] = {}
    order: dict[int, int] = {}
    for i, node in enumerate(graph):
        if node.op_type not in _REDUCE or node.domain or node.inputs[0] is None or \
                node.attributes.get_int("noop_with_empty_axes", 0):
            continue
        axes = _axes(node)
        if not axes:
            continue
        order[id(node)] = i
        key = (node.op_type, id(node.inputs[0]), axes)
        firsts.setdefault(key, {}).setdefault(node.attributes.get_int("keepdims", 1), node)
    made = []
    for twins in firsts.values():
        if len(twins) != 2:
            continue
        r0, r1 = twins[0], twins[1]
        if any(o.is_graph_output() for o in (*r0.outputs, *r1.outputs)):
            continue
        # Both results are made just before the earlier twin, from its inputs (the same
        # input and equal axes): defined before either twin's users.
        first = r0 if order[id(r0)] < order[id(r1)] else r1
        shared = _node(first, first.op_type, list(first.inputs), [ir.AttrInt64("keepdims", 0)])
        unsq = _node(first, "Unsqueeze", [shared.outputs[0], first.inputs[1]], [])
        graph.insert_before(first, [shared, unsq])
        r1.outputs[0].replace_all_uses_with(unsq.outputs[0])
        r0.outputs[0].replace_all_uses_with(shared.outputs[0])
        made.append(unsq)
    return made


def _node(like: ir.Node, op: str, inputs: list, attrs: list[ir.Attr]) -> ir.Node:
    new = ir.Node("", op, inputs, attrs, name=f"{like.name}_shared_{op}" if like.name else None,
                  doc_string=like.doc_string)
    if _LOC in like.meta:
        new.meta[_LOC] = like.meta[_LOC]
    return new


def _leading(node: ir.Node) -> int | None:
    """k when ``node`` is ``Unsqueeze(a, axes)`` with axes exactly 0..k-1, else None."""
    if node.op_type != "Unsqueeze" or node.domain or len(node.inputs) != 2:
        return None
    axes = _axes(node)
    if not axes or sorted(axes) != list(range(len(axes))):
        return None
    return len(axes)


def _sink(graph: ir.Graph, work: list[ir.Node]) -> int:
    """Step 2: the leading Unsqueezes in ``work`` below elementwise ops, dropped where
    broadcasting adds the dims anyway (each move makes a new Unsqueeze one op further down,
    which joins the work list)."""
    count = 0
    ranks: dict[int, int | None] = {}
    while work:
        node = work.pop()
        k = _leading(node)
        if k is None:
            continue
        a = node.inputs[0]
        ra = _rank(a, ranks)
        if ra is None:
            continue
        for use in list(node.outputs[0].uses()):
            got = _move(graph, node, use.node, use.idx, a, ra, k, ranks)
            if got is not None:
                count += 1
                if isinstance(got, ir.Node):
                    work.append(got)
    return count


def _move(graph: ir.Graph, unsq: ir.Node, user: ir.Node, idx: int, a: ir.Value, ra: int,
          k: int, ranks: dict[int, int | None]) -> ir.Node | bool | None:
    """Moves ``unsq`` (its use ``idx`` of ``user``) down or drops it: the new Unsqueeze, True
    when dropped, None when nothing changed."""
    if user.domain or user.graph is not graph or \
            any(o.is_graph_output() for o in user.outputs):
        return None
    if user.op_type in _UNARY and len(user.inputs) == 1:
        others: list[int | None] = []
    elif user.op_type in _BINARY and len(user.inputs) == 2:
        others = [_rank(v, ranks) for i, v in enumerate(user.inputs) if i != idx]
    else:
        return None
    if any(r is None for r in others):
        return None
    if others and all(r >= ra + k for r in others):  # type: ignore[operator]
        user.replace_input_with(idx, a)  # broadcasting adds the leading dims
        return True
    if not all(r <= ra for r in others):  # type: ignore[operator]
        return None
    inputs = list(user.inputs)
    inputs[idx] = a
    inner = _node(user, user.op_type, inputs, list(user.attributes.values()))
    outer = _node(unsq, "Unsqueeze", [inner.outputs[0], unsq.inputs[1]], [])
    graph.insert_before(user, [inner, outer])
    user.outputs[0].replace_all_uses_with(outer.outputs[0])
    return outer


def _rank(v: ir.Value | None, memo: dict[int, int | None], depth: int = 0) -> int | None:
    """The rank of ``v`` from its shape, constant or producer (None when not known)."""
    if v is None or depth > 40:
        return None
    key = id(v)
    if key not in memo:
        memo[key] = _rank_of(v, memo, depth)
    return memo[key]


def _rank_of(v: ir.Value, memo: dict[int, int | None], depth: int) -> int | None:
    if v.shape is not None:
        return len(v.shape)
    if v.const_value is not None:
        return len(v.const_value.shape)
    node = v.producer()
    if node is None or node.domain:
        return None
    op = node.op_type
    if op == "Constant":
        attr = node.attributes.get("value")
        return len(attr.as_tensor().shape) if attr is not None else None
    if op == "Shape":
        return 1
    if op == "Size":
        return 0
    if op in _UNARY:
        return _rank(node.inputs[0], memo, depth + 1)
    if op in _BINARY or op == "Where":
        ranks = [_rank(i, memo, depth + 1) for i in node.inputs]
        return None if any(r is None for r in ranks) else max(ranks)  # type: ignore[type-var]
    if op in _REDUCE:
        r = _rank(node.inputs[0], memo, depth + 1)
        axes = _axes(node)
        if r is None or node.attributes.get_int("keepdims", 1):
            return r
        if axes is None:
            return None if len(node.inputs) > 1 and node.inputs[1] is not None else 0
        return r - len({a % r for a in axes}) if r else None
    if op in ("Unsqueeze", "Squeeze"):
        r, axes = _rank(node.inputs[0], memo, depth + 1), _axes(node)
        if r is None or axes is None:
            return None
        return r + len(axes) if op == "Unsqueeze" else r - len(axes)
    return None

"""Ranks and statically known dimensions of a graph's values, inferred forward and cheaply.

Input: one ``ir.Graph`` (not its subgraphs). Output: :func:`infer` gives a dict from value id
to a tuple with one entry per dimension: an ``int`` when the dimension is the same for every
call, ``None`` when it is not known (a symbolic input dimension, a data-dependent length);
values whose rank is not known are absent. Graph inputs give their declared shapes (symbolic
dimensions → None), initializers and ``Constant`` nodes their tensors' shapes; the ops below
propagate, every other op leaves its outputs absent.

Conservative by construction: an entry is only ever an int when the dimension is that int on
every run, so a caller may rely on "statically 1" and "statically not 1". Cheap: one walk over
the graph's nodes, no serialization (onnx's shape inference costs 10-60 µs a small model and
returns the same facts for these ops).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx_ir as ir

__all__ = ["Dims", "infer", "broadcast", "slice_dims"]

Dims = tuple  # tuple[int | None, ...]

# Elementwise ops whose output has the broadcast shape of all their inputs.
_BROADCAST = frozenset({
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "Equal", "Less", "LessOrEqual",
    "Greater", "GreaterOrEqual", "And", "Or", "Xor", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
    "Where", "Sum", "Mean", "BitShift", "PRelu"})
# Ops whose output has the shape of their first input (a scatter: its data's).
_SAME = frozenset({
    "ScatterND", "ScatterElements",
    "Identity", "Cast", "CastLike", "Neg", "Abs", "Exp", "Log", "Sqrt", "Sin", "Cos", "Tan",
    "Tanh", "Sigmoid", "Relu", "Floor", "Ceil", "Round", "Sign", "Reciprocal", "IsNaN", "IsInf",
    "Not", "Erf", "Clip", "Softmax", "LogSoftmax", "CumSum", "BitwiseNot", "Asin", "Acos",
    "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Softplus", "LeakyRelu", "Elu",
    "HardSigmoid", "Trilu"})
_REDUCE = frozenset({"ReduceSum", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceProd",
                     "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp",
                     "ReduceLogSum"})


def broadcast(shapes: Sequence[Dims]) -> Dims:
    """numpy's broadcast of shapes whose dimensions may be unknown (None): a dimension is
    known when every shape has it 1 or absent but one known, or all known and equal."""
    rank = max(len(s) for s in shapes)
    out = []
    for a in range(rank):
        dims = [s[a - rank + len(s)] for s in shapes if a - rank + len(s) >= 0]
        known = [d for d in dims if d is not None and d != 1]
        if any(d is None for d in dims):
            out.append(known[0] if known else None)  # a valid broadcast: unknown is 1 or it
        else:
            out.append(known[0] if known else 1)
    return tuple(out)


def _declared(value: ir.Value) -> Dims | None:
    if value.const_value is not None:
        return tuple(int(d) for d in value.const_value.shape)
    if value.shape is None:
        return None
    return tuple(d if isinstance(d, int) else None for d in value.shape)


def _ints(value: ir.Value | None) -> list[int] | None:
    """The int64 constant ``value`` holds, as a list (None when not a constant)."""
    if value is None or value.const_value is None:
        return None
    arr = value.const_value.numpy()
    if arr.dtype.kind not in "iu":
        return None
    return [int(v) for v in np.asarray(arr).reshape(-1)]


def _attr_ints(node: ir.Node, name: str) -> list[int] | None:
    a = node.attributes.get(name)
    if a is None or a.is_ref():
        return None
    return [int(v) for v in a.value]


def _attr_int(node: ir.Node, name: str, default: int) -> int:
    a = node.attributes.get(name)
    return default if a is None or a.is_ref() else int(a.value)


def _shape_bounds(shape: ir.Node, rank: int) -> tuple[int, int]:
    """The ``[start, end)`` dims a ``Shape`` node of a rank-``rank`` value reads, clamped."""
    start, end = _attr_int(shape, "start", 0), _attr_int(shape, "end", rank)
    start, end = (start + rank if start < 0 else start), (end + rank if end < 0 else end)
    return max(0, min(start, rank)), max(0, min(end, rank))


def slice_dims(node: ir.Node, x: tuple) -> tuple:
    """The dims of ``Slice(x, starts, ends, axes, steps)`` for ``x``'s dims (any tokens): an
    axis the Slice does not name keeps its entry; a named axis has the length Python's slice
    gives when its length is an int and its bounds are constants, else None."""
    ins = node.inputs
    starts, ends = _ints(ins[1]) if len(ins) > 1 else None, _ints(ins[2]) if len(ins) > 2 else None
    axes = _ints(ins[3]) if len(ins) > 3 and ins[3] is not None else None
    steps = _ints(ins[4]) if len(ins) > 4 and ins[4] is not None else None
    rank = len(x)
    if starts is None or ends is None or len(starts) != len(ends):
        if axes is None:
            return (None,) * rank
        axes_set = {a + rank if a < 0 else a for a in axes}
        return tuple(None if a in axes_set else d for a, d in enumerate(x))
    axes = list(range(len(starts))) if axes is None else axes  # (omitted: the first axes)
    if len(axes) != len(starts):
        return (None,) * rank
    steps = [1] * len(starts) if steps is None else steps
    if len(steps) != len(starts) or 0 in steps:
        return (None,) * rank
    out = list(x)
    for a, lo, hi, st in zip(axes, starts, ends, steps):
        a = a + rank if a < 0 else a
        if not 0 <= a < rank:
            return (None,) * rank
        n = x[a]
        out[a] = len(range(*slice(lo, hi, st).indices(n))) if isinstance(n, int) else None
    return tuple(out)


def infer(graph: ir.Graph, outer: dict[int, Dims] | None = None) -> dict[int, Dims]:
    """The known ranks and dimensions of ``graph``'s values (module docstring); ``outer``: those
    of the enclosing graphs' values, which a subgraph may read (copied, not changed)."""
    known: dict[int, Dims] = dict(outer) if outer else {}
    for v in list(graph.inputs) + list(graph.initializers.values()):
        d = _declared(v)
        if d is not None:
            known[id(v)] = d
    for node in graph:
        if node.domain not in ("", "ai.onnx"):
            continue
        try:
            out = _one(node, known)
        except (ValueError, IndexError, TypeError):
            out = None  # an ill-formed constant operand: know nothing
        if out is not None and node.outputs:
            known[id(node.outputs[0])] = out
    return known


def _one(node: ir.Node, known: dict[int, Dims]) -> Dims | None:
    op = node.op_type
    ins = [None if v is None else known.get(id(v)) for v in node.inputs]
    if op == "Constant":
        value = node.attributes.get("value")
        if value is None or value.is_ref() or value.type != ir.AttributeType.TENSOR:
            return None
        return tuple(int(d) for d in value.as_tensor().shape)
    if op in _BROADCAST:
        if not ins or any(s is None for s in ins):
            return None
        return broadcast(ins)
    if op in _SAME:
        return ins[0] if ins else None
    if op == "Range":
        return (None,)
    if op == "Size":
        return ()
    if op == "NonZero":
        return None if ins[0] is None else (len(ins[0]), None)
    if op == "Shape":
        if ins[0] is None:
            return (None,)
        start, end = _shape_bounds(node, len(ins[0]))
        return (max(0, end - start),)
    x = ins[0] if ins else None
    if op == "Unsqueeze":
        axes = _ints(node.inputs[1]) if len(node.inputs) > 1 else _attr_ints(node, "axes")
        if x is None or axes is None:
            return None
        r = len(x) + len(axes)
        axes = sorted(a + r if a < 0 else a for a in axes)
        dims = list(x)
        for a in axes:
            dims.insert(a, 1)
        return tuple(dims)
    if op == "Squeeze":
        axes = _ints(node.inputs[1]) if len(node.inputs) > 1 and node.inputs[1] is not None \
            else _attr_ints(node, "axes")
        if x is None or axes is None:
            return None
        axes = {a + len(x) if a < 0 else a for a in axes}
        return tuple(d for a, d in enumerate(x) if a not in axes)
    if op == "Transpose":
        perm = _attr_ints(node, "perm")
        if x is None:
            return None
        perm = list(range(len(x)))[::-1] if perm is None else perm
        return tuple(x[p] for p in perm)
    if op == "Slice" and x is not None:
        return slice_dims(node, x)
    if op in ("Pad", "Resize", "Tile", "Compress", "Split"):
        if x is None or op in ("Compress", "Split"):
            return None
        return (None,) * len(x)  # same rank, lengths not tracked
    if op in _REDUCE:
        if x is None:
            return None
        axes = _ints(node.inputs[1]) if len(node.inputs) > 1 and node.inputs[1] is not None \
            else _attr_ints(node, "axes")
        keep = _attr_int(node, "keepdims", 1)
        if axes is None:
            if len(node.inputs) > 1 and node.inputs[1] is not None:
                return None  # run-time axes
            if _attr_int(node, "noop_with_empty_axes", 0):
                return x
            axes = list(range(len(x)))
        axes = {a + len(x) if a < 0 else a for a in axes}
        if keep:
            return tuple(1 if a in axes else d for a, d in enumerate(x))
        return tuple(d for a, d in enumerate(x) if a not in axes)
    if op in ("ArgMax", "ArgMin"):
        if x is None:
            return None
        a = _attr_int(node, "axis", 0)
        a = a + len(x) if a < 0 else a
        if _attr_int(node, "keepdims", 1):
            return tuple(1 if k == a else d for k, d in enumerate(x))
        return tuple(d for k, d in enumerate(x) if k != a)
    if op == "Reshape":
        target = _ints(node.inputs[1])
        if target is not None:  # (0: copied or zero, -1: inferred; not tracked)
            return tuple(None if t <= 0 else t for t in target)
        source = node.inputs[1].producer() if len(node.inputs) > 1 and \
            node.inputs[1] is not None else None
        if source is not None and source.op_type == "Shape" and \
                known.get(id(source.inputs[0])) is not None:
            # Reshape(x, Shape(y)): y's dims (a 0 in them copies x's unless allowzero)
            y = known[id(source.inputs[0])]
            start, end = _shape_bounds(source, len(y))
            y = y[start:end]
            zero = _attr_int(node, "allowzero", 0) == 1
            return tuple(d if d != 0 or zero else None for d in y)
        s = ins[1] if len(ins) > 1 else None
        return None if s is None or s[0] is None else (None,) * s[0]
    if op == "Expand":
        s = ins[1] if len(ins) > 1 else None
        if x is None or s is None or s[0] is None:
            return None
        target = _ints(node.inputs[1])
        shape = tuple(target) if target is not None else (None,) * s[0]
        return broadcast([x, shape]) if target is not None else \
            tuple(None for _ in range(max(len(x), s[0])))
    if op == "ConstantOfShape":
        target = _ints(node.inputs[0])
        if target is not None:
            return tuple(target)
        return None if x is None or x[0] is None else (None,) * x[0]
    if op == "Concat":
        if any(s is None for s in ins) or not ins:
            return None
        a = _attr_int(node, "axis", 0)
        rank = len(ins[0])
        a = a + rank if a < 0 else a
        dims = [None if k == a else broadcast([s[k:k + 1] for s in ins])[0]
                for k in range(rank)]
        if all(s[a] is not None for s in ins):
            dims[a] = sum(s[a] for s in ins)
        return tuple(dims)
    if op == "GatherElements":  # (the indices' shape)
        return ins[1] if len(ins) > 1 else None
    if op == "Gather":
        i = ins[1] if len(ins) > 1 else None
        if x is None or i is None:
            return None
        a = _attr_int(node, "axis", 0)
        a = a + len(x) if a < 0 else a
        return x[:a] + i + x[a + 1:]
    if op == "MatMul":  # (numpy's matmul: a 1-D operand's axis is added, then dropped)
        y = ins[1] if len(ins) > 1 else None
        if x is None or y is None or not x or not y:
            return None
        a, b = ((1,) + x if len(x) == 1 else x), (y + (1,) if len(y) == 1 else y)
        return broadcast([a[:-2], b[:-2]]) + (a[-2],) * (len(x) > 1) + (b[-1],) * (len(y) > 1)
    return None

"""Idiom rewriting: known op chains replaced by one cheaper op with numpy's results.

Input: an ``ir.Model`` (no ``pyonnx.SetItem`` left: runs after ``LowerSetItemPass``). Output:
the same model with each pattern of :data:`PATTERNS` rewritten, in every graph and subgraph.
The replaced nodes are left for ``RemoveUnusedPass`` when nothing else uses them; a pattern
only fires when its intermediate values have no other use (so nothing is computed twice).

The table (each rewrite keeps numpy's value within the tolerance the tests use; each has a test
on ONNX text in tests/passes/test_rewrite_idioms.py):

* ``reversed_cumsum``: ``Slice(reverse) → [Reshape(-1) of a 1-D tensor] → CumSum →
  Slice(reverse)`` on the cumulated axis (``np.cumsum(x[::-1])[::-1]``) →
  ``CumSum(reverse=1)``: the same additions in the same order (bit-identical), two full copies
  fewer.
* ``double_reverse``: ``Slice(reverse)`` of ``Slice(reverse)`` on the same axes
  (``x[::-1][::-1]``) → ``x`` (exact).
* ``sum_of_squares``: ``ReduceSum(Mul(x, x))`` (``x`` or ``Abs(x)``), also through the
  frontend's accumulation ``Cast`` (``np.sum(x * x)`` on float32 sums in float64) →
  ``ReduceSumSquare`` (of the cast ``x``): one pass fewer. Through the Cast the squares are
  computed in float64, closer to exact than numpy's float32 squares; the difference is within
  numpy's own rounding of the sum.
* ``l2_norm``: ``Sqrt(ReduceSumSquare(x))``, also with the Cast back to float32 between them
  (``np.sqrt(np.sum(x * x))``) → ``ReduceL2`` (then the Cast): a square root in float64 rounded
  once instead of a rounded sum's float32 root (at most one ulp apart).

* ``last_axis_gather``: ``Gather(x, k, axis=-1)`` with a constant 0-d ``k`` on x of rank >= 2
  (``b[:, k]``, ``boxes[..., 0]``) → a strided ``Slice`` of ``Reshape(x, [-1])`` from ``k`` with
  step ``x.shape[-1]`` (then ``Reshape`` to ``x.shape[:-1]``): the same elements (exact).
  onnxruntime's Gather copies one element at a time on the last axis (31 µs for a column of
  (8400, 4) float32, the strided Slice 7 µs; at (10, 4) 1.2 against 1.5 µs). ``k`` is checked
  and normalized by ``Gather(Range(0, n), k)``, which fails outside ``[-n, n)`` as the Gather
  did. Main graph only: in loop bodies the arrays are mostly small and the nodes more cost
  every iteration (NMS per class: 31 -> 70 ms).

* ``softmax`` (``exp(x - max) / sum(...)`` → ``Softmax``, float32) and ``square_power``
  (``Pow(x, 2)`` → ``Mul(x, x)``: ``x ** 2.0``; the frontend emits Mul for ``x ** 2`` itself):
  :mod:`pyonnx.passes.idiom_numeric`, which says why each keeps numpy's results. The matching
  helpers are :mod:`pyonnx.passes.idiom_match`.

Left out on purpose: ``log(sum(exp(x)))`` → ``ReduceLogSumExp`` (onnxruntime subtracts the
maximum, so it is finite where numpy overflows to ``inf``: not numpy's result; and it is slower:
12.7 ms against 3 ms for Exp on 2000x500 float64, 11.5 ms against 0.1 ms in float32).
Pairwise distances ``sqrt(sum((a[:, None] - b[None]) ** 2, -1))`` stay as they are (one Sub and
a ReduceL2, already about 2x numpy's speed), not the Gemm form ``|a|^2 + |b|^2 - 2 a.b``: its
cancellation is beyond the tests' 8-ulp tolerance even on unit normal points (relative error
2e-13 in float64; 2e-9 with an offset of 100; 2e-2 for near-duplicate points, measured).

Replacement nodes copy ``meta["pyonnx.loc"]``, ``doc_string`` and the name of the node whose
output they replace (names stay unique: that node goes).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np
import onnx_ir as ir

from pyonnx.passes.idiom_match import (
    _BIG,
    _LOC,
    _const,
    _only_use,
    _producer,
    _rank,
    _replace,
    _reversed_axes,
    _same_axes,
)
from pyonnx.passes.idiom_numeric import softmax, square_power

__all__ = ["RewriteIdiomsPass", "PATTERNS"]

logger = logging.getLogger(__name__)



class RewriteIdiomsPass(ir.passes.InPlacePass):
    """Applies :data:`PATTERNS` (see the module docstring) until none fires."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        count = 0
        for node in list(ir.traversal.RecursiveGraphIterator(model.graph)):
            if node.graph is None:  # removed by an earlier rewrite
                continue
            for name, rewrite in PATTERNS:
                if rewrite(node, model.graph) if name in _WITH_MAIN else rewrite(node):
                    logger.debug("rewrote %s at %s", name, node.name)
                    count += 1
                    break
        return ir.passes.PassResult(model, modified=bool(count))


# ----------------------------------------------------------------- patterns
def reversed_cumsum(node: ir.Node) -> bool:
    """Slice(rev) ∘ CumSum ∘ [Reshape(-1) of 1-D] ∘ Slice(rev) → CumSum(reverse=1-r)."""
    outer = _reversed_axes(node)
    if outer is None or len(outer) != 1:
        return False
    cumsum = _producer(node.inputs[0], "CumSum")
    if cumsum is None or not _only_use(cumsum.outputs[0], node):
        return False
    axis = _const(cumsum.inputs[1])
    if axis is None or axis.size != 1:
        return False
    source = cumsum.inputs[0]
    reshape = _producer(source, "Reshape")
    if reshape is not None:
        # np.cumsum without an axis flattens: a no-op on a 1-D array.
        shape = _const(reshape.inputs[1])
        if shape is None or shape.tolist() != [-1] or not _only_use(source, cumsum):
            return False
        source = reshape.inputs[0]
    inner = None if source is None else source.producer()
    inner_axes = None if inner is None else _reversed_axes(inner)
    if inner_axes is None or len(inner_axes) != 1 or not _only_use(source, reshape or cumsum):
        return False
    if reshape is not None and _rank(inner.inputs[0]) != 1:
        return False
    rank = _rank(inner.inputs[0]) if reshape is None else 1
    if rank is None and reshape is None:
        rank = _rank(cumsum.outputs[0])
    if not (_same_axes(inner_axes, outer, rank)
            and _same_axes(inner_axes, (int(axis.reshape(-1)[0]),), rank)):
        return False
    attrs = [a for k, a in cumsum.attributes.items() if k != "reverse"]
    attrs.append(ir.AttrInt64("reverse", 1 - cumsum.attributes.get_int("reverse", 0)))
    _replace(node, "CumSum", [inner.inputs[0], cumsum.inputs[1]], attrs)
    return True


def double_reverse(node: ir.Node) -> bool:
    """Slice(rev) ∘ Slice(rev) on the same axes → the input itself."""
    outer = _reversed_axes(node)
    if outer is None:
        return False
    inner = node.inputs[0].producer() if node.inputs[0] is not None else None
    inner_axes = None if inner is None else _reversed_axes(inner)
    if inner_axes is None or not _same_axes(inner_axes, outer, _rank(inner.inputs[0])):
        return False
    if len(set(inner_axes)) != len(inner_axes):
        return False
    _replace(node, "Identity", [inner.inputs[0]], [])
    return True


def _square_of(value: ir.Value | None, user: ir.Node) -> ir.Value | None:
    """``x`` when ``value`` is ``Mul(x, x)`` used only by ``user``."""
    mul = _producer(value, "Mul")
    if mul is None or mul.inputs[0] is not mul.inputs[1] or not _only_use(value, user):
        return None
    x = mul.inputs[0]
    # |x| * |x| == x * x bit for bit (pyonnx has no complex dtypes): np.abs(x) ** 2.
    absolute = _producer(x, "Abs")
    if absolute is not None and len(list(x.uses())) == 2 and not x.is_graph_output():
        return absolute.inputs[0]
    return x


def sum_of_squares(node: ir.Node) -> bool:
    """ReduceSum(Mul(x, x)) → ReduceSumSquare(x); ReduceSum(Cast(Mul(x, x))) →
    ReduceSumSquare(Cast(x))."""
    if node.op_type != "ReduceSum" or node.domain != "":
        return False
    x = _square_of(node.inputs[0], node)
    if x is not None:
        _replace(node, "ReduceSumSquare", [x, *node.inputs[1:]], list(node.attributes.values()))
        return True
    cast = _producer(node.inputs[0], "Cast")
    if cast is None or not _only_use(cast.outputs[0], node):
        return False
    x = _square_of(cast.inputs[0], cast)
    if x is None:
        return False
    graph = node.graph
    assert graph is not None
    widened = ir.Node("", "Cast", [x], list(cast.attributes.values()), name=f"{cast.name}_sq",
                      doc_string=cast.doc_string)
    if _LOC in cast.meta:
        widened.meta[_LOC] = cast.meta[_LOC]
    graph.insert_before(node, widened)
    out = widened.outputs[0]
    out.type = ir.TensorType(ir.DataType(cast.attributes.get_int("to", 0)))
    if x.shape is not None:
        out.shape = x.shape
    out.name = (cast.outputs[0].name or "cast") + "_sq"
    _replace(node, "ReduceSumSquare", [out, *node.inputs[1:]], list(node.attributes.values()))
    return True


def l2_norm(node: ir.Node) -> bool:
    """Sqrt(ReduceSumSquare(x)) → ReduceL2(x); Sqrt(Cast(ReduceSumSquare(x))) →
    Cast(ReduceL2(x))."""
    if node.op_type != "Sqrt" or node.domain != "":
        return False
    source = node.inputs[0]
    cast = _producer(source, "Cast")
    if cast is not None:
        if not _only_use(source, node):
            return False
        source = cast.inputs[0]
    reduce = _producer(source, "ReduceSumSquare")
    if reduce is None or not _only_use(source, cast or node):
        return False
    if cast is None:
        _replace(node, "ReduceL2", list(reduce.inputs), list(reduce.attributes.values()))
        return True
    # Cast(ReduceL2(x)) in the place of Sqrt(Cast(ReduceSumSquare(x))).
    _replace(reduce, "ReduceL2", list(reduce.inputs), list(reduce.attributes.values()))
    out, result = node.outputs[0], cast.outputs[0]
    name = out.name
    result.type, result.shape = out.type or result.type, out.shape or result.shape
    out.replace_all_uses_with(result, replace_graph_outputs=True)
    out.name = None
    result.name = name
    graph = node.graph
    assert graph is not None
    graph.remove(node, safe=True)
    return True


def last_axis_gather(node: ir.Node, main: ir.Graph) -> bool:
    """Gather(x, k, axis=-1) of rank >= 2 → Slice(Reshape(x, -1), k, BIG, 0, n) (see above);
    its constants are initializers of ``main``."""
    if node.op_type != "Gather" or node.domain != "" or len(node.inputs) != 2 or \
            node.graph is not main:
        # (Not in Loop/If bodies: arrays there are mostly small and each of the six nodes
        # more costs every iteration: NMS per class took 2.2x as long.)
        return False
    x, index = node.inputs
    k = _const(index)
    if x is None or k is None or k.ndim != 0 or k.dtype.kind not in "iu":
        return False
    from pyonnx.passes.fold_rules.range_facts import Facts  # (a leaf module: no cycle)

    rank = _rank(x) or Facts().rank(x)
    axis = node.attributes.get("axis")
    axis = 0 if axis is None or axis.is_ref() else axis.as_int()
    if rank is None or rank < 2 or axis not in (-1, rank - 1):
        return False
    graph = node.graph
    assert graph is not None
    made: list[ir.Node] = []

    def op(op_type: str, *inputs: ir.Value, **attrs) -> ir.Value:
        attributes = [ir.AttrInt64(n, v) if isinstance(v, int) else
                      ir.AttrTensor(n, ir.Tensor(v)) for n, v in attrs.items()]
        new = ir.Node("", op_type, inputs, attributes, name=f"{node.name}_{op_type}_{len(made)}",
                      doc_string=node.doc_string)
        if _LOC in node.meta:
            new.meta[_LOC] = node.meta[_LOC]
        made.append(new)
        return new.outputs[0]

    def const(arr: np.ndarray) -> ir.Value:
        name = f"{node.name}_const_{len(main.initializers)}"
        while name in main.initializers:
            name += "_"
        value = ir.Value(name=name, shape=ir.Shape(arr.shape),
                         type=ir.TensorType(ir.DataType.INT64), const_value=ir.Tensor(arr))
        main.register_initializer(value)
        return value

    n = op("Shape", x, start=rank - 1, end=rank)
    positions = op("Range", const(np.array(0, np.int64)),
                   op("Squeeze", n, const(np.array([0], np.int64))), const(np.array(1, np.int64)))
    start = op("Gather", positions, op("Cast", index, to=ir.DataType.INT64)
               if k.dtype != np.int64 else index, axis=0)
    flat = op("Reshape", x, const(np.array([-1], np.int64)))
    column = op("Slice", flat, op("Unsqueeze", start, const(np.array([0], np.int64))),
                const(np.array([_BIG], np.int64)), const(np.array([0], np.int64)), n)
    if rank > 2:
        column = op("Reshape", column, op("Shape", x, start=0, end=rank - 1), allowzero=1)
    graph.insert_before(node, made)
    out, result = node.outputs[0], column
    result.type, result.shape = out.type, out.shape
    out.replace_all_uses_with(result, replace_graph_outputs=True)
    name = out.name
    out.name = None
    result.name = name
    graph.remove(node, safe=True)
    return True


_WITH_MAIN = frozenset({"last_axis_gather"})  # (patterns that add initializers)
PATTERNS: list[tuple[str, Callable[..., bool]]] = [
    ("last_axis_gather", last_axis_gather),
    ("reversed_cumsum", reversed_cumsum),
    ("double_reverse", double_reverse),
    ("sum_of_squares", sum_of_squares),
    ("l2_norm", l2_norm),
    ("softmax", softmax),
    ("square_power", square_power),
]

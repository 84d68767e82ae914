"""The exact sign of a zero, computed only where something can see it.

Input: an ``ir.Model`` from the frontend, after folding (constants are known). The frontend
computes numpy's ``maximum``/``minimum`` of floats exactly, the sign of a ``±0`` tie included,
behind an ``If`` that runs the exact pick only when both operands hold a zero (a guard of four
to six nodes and an ``If``: about 5 µs in a loop body). It marks that ``If``
``meta["pyonnx.zero_sign_only"]``: its output differs from its ``else`` branch's value
(onnxruntime's plain ``Max``/``Min``) at most in the sign of zeros. Output: the same model where
each marked ``If`` whose output's zero signs nothing can observe is replaced by that plain
value (its guard is then dead, for ``RemoveUnusedPass``).

What can see a zero's sign, followed forward from the marked outputs (the "variant" values,
which may differ only in the sign of zeros from what numpy computes; NaN stays NaN):

* blind to it: comparisons (``-0.0 == 0.0``), ``IsNaN``/``IsInf``, ``Abs``, ``Exp``, ``Cos``,
  ``Cast`` to an integer or bool, and ``x ± c`` with ``c`` a constant without zeros (``c``
  exactly, either way);
* passing it on (the result is again variant): ``Add``/``Sub``/``Mul``/``Max``/``Min``/
  ``Neg``/``Sqrt``/``Relu``, reductions (a sum, maximum... of values differing only in zero
  signs), data movement (``Reshape``, ``Slice``, ``Gather``, ``Concat``, ``Where``...), a
  variant numerator of ``Div`` (``±0 / d`` is a zero or NaN either way), and a variant
  denominator ``s ± n`` of ``n / (s ± n)`` with ``s`` not variant (the denominator's zero sign
  can only change when ``n`` is zero and ``s`` is zero: then ``n / d`` is NaN either way; the
  IoU's ``inter / (area_a + area_b - inter)``);
* everything else sees it (a denominator, ``Pow``, ``Atan``, a graph output, a subgraph, an op
  not listed): the marked ``If`` whose variant values reach such a use is kept.

The analysis takes every marked ``If`` of a graph as variant at once (so one replaced ``If`` can
not hide another's zero), and replaces those whose own values reach no seeing use.
"""

from __future__ import annotations

import logging

import numpy as np
import onnx_ir as ir

from pyonnx.passes.marks import replace_value

__all__ = ["UnobservedZeroSignsPass", "MARK"]

logger = logging.getLogger(__name__)

MARK = "pyonnx.zero_sign_only"

_BLIND = frozenset({"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "IsNaN",
                    "IsInf", "Abs", "Exp", "Cos"})
_PASS_ON = frozenset({"Add", "Sub", "Mul", "Max", "Min", "Neg", "Sqrt", "Relu", "Identity",
                      "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Transpose", "Expand",
                      "Concat", "Tile", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceMean"})
# Ops passing on their first input only (the others are indices, shapes or bounds).
_PASS_ON_FIRST = frozenset({"Slice", "Gather", "GatherElements", "GatherND", "Compress"})
_INTEGER_CASTS = frozenset(int(t) for t in (
    ir.DataType.BOOL, ir.DataType.INT8, ir.DataType.INT16, ir.DataType.INT32, ir.DataType.INT64,
    ir.DataType.UINT8, ir.DataType.UINT16, ir.DataType.UINT32, ir.DataType.UINT64))


class UnobservedZeroSignsPass(ir.passes.InPlacePass):
    """Replaces marked ``If`` nodes whose zero signs nothing observes (module docstring)."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        count = _graph(model.graph)
        if count:
            logger.debug("dropped %d exact zero-sign picks nothing observes", count)
        return ir.passes.PassResult(model, modified=bool(count))


def _graph(graph: ir.Graph) -> int:
    count = 0
    marked = []
    for node in graph:
        for a in node.attributes.values():
            if a.is_ref():
                continue
            if a.type == ir.AttributeType.GRAPH:
                count += _graph(a.as_graph())
            elif a.type == ir.AttributeType.GRAPHS:
                count += sum(_graph(g) for g in a.as_graphs())
        if node.meta.get(MARK) and node.op_type in ("If", "Add") and _plain(node) is not None:
            marked.append(node)
    if not marked:
        return count
    variant = _variant_closure(graph, [n.outputs[0] for n in marked])
    # Last first: a dropped If's branches no longer read the values of the Ifs before it
    # (np.maximum(0, np.minimum(a, b) - np.maximum(c, d)): the inner picks feed the outer's).
    for node in reversed(marked):
        if _unseen(node.outputs[0], variant, set()):
            out, plain = node.outputs[0], _plain(node)
            replace_value(out, plain, replace_graph_outputs=False)
            _drop(graph, node)
            count += 1
    return count


def _drop(graph: ir.Graph, node: ir.Node) -> None:
    """Removes the unused ``node`` and the reads its branches make of outer values."""
    for a in node.attributes.values():
        if not a.is_ref() and a.type == ir.AttributeType.GRAPH:
            for inner in list(ir.traversal.RecursiveGraphIterator(a.as_graph())):
                for k in range(len(inner.inputs)):
                    inner.replace_input_with(k, None)
    for k in range(len(node.inputs)):
        node.replace_input_with(k, None)
    graph.remove(node, safe=True)


def _plain(node: ir.Node) -> ir.Value | None:
    """The value the ``else`` branch returns: ``Identity`` of a value from outside it; for an
    ``Add`` of ``+0.0`` (a float sum's identity, reductions/sums.py), its other input."""
    if node.op_type == "Add":
        c = _const(node.inputs[1]) if len(node.inputs) == 2 else None
        ok = c is not None and c.dtype.kind == "f" and c.size == 1 and \
            float(c.reshape(())) == 0.0 and not np.signbit(c.reshape(()))
        return node.inputs[0] if ok and len(node.outputs) == 1 else None
    a = node.attributes.get("else_branch")
    if a is None or a.is_ref() or a.type != ir.AttributeType.GRAPH or len(node.outputs) != 1:
        return None
    branch = a.as_graph()
    if len(branch.outputs) != 1 or len(branch) != 1:
        return None
    only = branch.node(0)
    if only.op_type != "Identity" or only.domain or only.outputs[0] is not branch.outputs[0]:
        return None
    inner = only.inputs[0]
    if inner is None or inner.graph is branch or (inner.producer() is not None and
                                                   inner.producer().graph is branch):
        return None
    return inner


def _const(value: ir.Value | None) -> np.ndarray | None:
    if value is None:
        return None
    if value.const_value is not None:
        return value.const_value.numpy()
    node = value.producer()
    if node is not None and node.op_type == "Constant" and not node.domain:
        a = node.attributes.get("value")
        if a is not None and not a.is_ref() and a.type == ir.AttributeType.TENSOR:
            return a.as_tensor().numpy()
    return None


def _nonzero_const(value: ir.Value | None) -> bool:
    c = _const(value)
    return c is not None and c.dtype.kind == "f" and c.size > 0 and bool(np.all(c != 0))


def _passes_on(node: ir.Node, idx: int) -> bool:
    """Whether ``node``'s output is variant (not seen) when its input ``idx`` is."""
    op = node.op_type
    if node.domain or len(node.outputs) != 1:
        return False
    if op in _PASS_ON:
        return True
    if op in _PASS_ON_FIRST:
        return idx == 0
    if op == "Where":
        return idx in (1, 2)
    if op == "Cast":
        return True
    return op == "Div" and idx == 0


def _blind(node: ir.Node, idx: int) -> bool:
    """Whether ``node`` gives the same result for either sign of its input ``idx``'s zeros."""
    op = node.op_type
    if node.domain:
        return False
    if op in _BLIND:
        return True
    if op == "Cast":
        to = node.attributes.get("to")
        return to is not None and not to.is_ref() and int(to.value) in _INTEGER_CASTS
    if op in ("Add", "Sub") and len(node.inputs) == 2:
        return _nonzero_const(node.inputs[1 - idx])
    return False


def _variant_closure(graph: ir.Graph, sources: list[ir.Value]) -> set[ir.Value]:
    """Every value of ``graph`` reached from ``sources`` through uses that are not blind to
    zero signs: a superset of the values that may differ in zero signs (what the
    ``n / (s ± n)`` rule needs to know ``s`` is not)."""
    seen: set[ir.Value] = set()
    stack = list(sources)
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        for use in v.uses():
            if use.node.graph is graph and not _blind(use.node, use.idx):
                stack.extend(use.node.outputs)
    return seen


def _shared_denominator(node: ir.Node, idx: int, variant: set[ir.Value]) -> bool:
    """``n / (s ± n)`` with the denominator (input ``idx`` 1) variant through ``n`` alone."""
    if node.op_type != "Div" or node.domain or idx != 1 or len(node.inputs) != 2:
        return False
    n, d = node.inputs
    producer = d.producer() if d is not None else None
    if producer is None or producer.op_type not in ("Add", "Sub") or producer.domain or \
            len(producer.inputs) != 2 or n not in producer.inputs:
        return False
    s = producer.inputs[1] if producer.inputs[0] is n else producer.inputs[0]
    return s is not n and s not in variant


def _unseen(value: ir.Value, variant: set[ir.Value], done: set[ir.Value]) -> bool:
    """Whether no use reached from ``value`` (through variant values) sees a zero's sign."""
    stack = [value]
    while stack:
        v = stack.pop()
        if v in done:
            continue
        done.add(v)
        if v.is_graph_output():
            return False
        for use in v.uses():
            node = use.node
            if node.graph is not _graph_of(v):
                return False  # read inside a subgraph
            if _blind(node, use.idx):
                continue
            if _passes_on(node, use.idx) or _shared_denominator(node, use.idx, variant):
                stack.append(node.outputs[0])
                continue
            return False
    return True


def _graph_of(v: ir.Value) -> ir.Graph | None:
    producer = v.producer()
    return producer.graph if producer is not None else v.graph

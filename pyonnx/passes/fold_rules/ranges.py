"""Folding of integer bound arithmetic by value ranges: what loop trip counts and slice bounds
compute when the frontend cannot know the lengths (``range(len(x))``, ``y[a:]``...).

Input: a node with non-constant inputs (the pass tries these rules after the op's own
:mod:`~pyonnx.passes.fold_rules` rule declined). Output, as any rule's: a constant, a value the
output *is*, or None. Facts (:class:`Fact`) are derived from producers, for int and bool values
only: the dtype, the static shape, an interval ``[lo, hi]`` that holds for every run (absent
when it cannot be bounded without int64 wrap-around), and a linear form ``base + off``
(``base``: a dimension of an array, or a computed value) for single-element values. A
dimension is in ``[0, 2**62]`` (no array is larger).

What is decided (each exact for every input the model accepts):

- a value whose interval is one point (``n - n``, ``(n - 1 >= n)``, ``And(c, False)``, a
  ``ReduceSum`` or ``Cast`` of such) → that constant, when its shape is static;
- comparisons whose operands' intervals are disjoint, or that share a base (``n - 1 < n``);
- ``Where`` with a decided condition, and ``Where(a > b, a, b)``/``Max``/``Min`` whose operands
  are ordered by their intervals (``max(n, 0)`` of a length) → the operand taken, when its
  shape is the output's;
- ``Slice`` of one axis from 0 to its length (or beyond) → the input; ``Concat`` whose inputs but
  one have length 0 on its axis (a ``Slice`` starting at the axis length or ending at 0) →
  that input.

``a - b`` with the same base is ``off_a - off_b`` even when ``base + off`` wraps (int64
arithmetic is modular), so the linear form needs no range; comparisons by base need both
operands' intervals (no wrap-around).
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.passes.fold_rules.common import _attr, _ints, _normalize_axes, const_of
from pyonnx.passes.fold_rules.range_facts import COMPARE, DIM_MAX, LOGIC, ONNX, Fact, Facts

__all__ = ["Fact", "Facts", "simplify", "OPS"]


# ---------------------------------------------------------------------- the rules
OPS = frozenset({"Add", "Sub", "Max", "Min", "Where", "Cast", "ReduceSum", "Not", "Slice",
                 "Concat", "Shape", "Gather", *COMPARE, *LOGIC})


def simplify(node: ir.Node, facts: Facts, limit: int, rewired=None) -> list | None:
    """A replacement for ``node``'s one output by its facts, or None (see the module
    docstring). ``rewired(old_input)`` is called when the node's input was changed in place."""
    if len(node.outputs) != 1 or node.op_type not in OPS:
        return None
    op, ins = node.op_type, node.inputs
    if op == "Shape":
        return _shape_source(node, facts, rewired)
    if op == "Gather":
        return _gather_through_transpose(node, rewired)
    if op == "Slice":
        return _slice(node, facts)
    if op == "Concat":
        return _concat(node, facts)
    out = facts.of(node.outputs[0])
    p = out.point
    if p is not None and out.static and out.dtype is not None and out.dtype.kind in "biu" \
            and int(np.prod(out.shape)) <= limit:
        return [np.full(out.shape, p, dtype=out.dtype)]
    taken = None
    if op == "Where" and len(ins) == 3:
        taken = facts.where_taken(ins)
    elif op in ("Max", "Min") and len(ins) == 2:
        first = facts.compare("GreaterOrEqual" if op == "Max" else "LessOrEqual", ins[0], ins[1])
        second = facts.compare("LessOrEqual" if op == "Max" else "GreaterOrEqual", ins[0], ins[1])
        taken = 0 if first == 1 else 1 if second == 1 else None
    if taken is not None:
        chosen = facts.of(ins[taken])
        if out.shape is not None and chosen.shape == out.shape and out.static:
            return [ins[taken]]
    return None


def _shape_source(node: ir.Node, facts: Facts, rewired) -> None:
    """``Shape(y, k, k + 1)`` of a value with the dims of another (a transposed or scattered
    copy, ``ConstantOfShape(Shape(x))``) reads that value instead: the copies it kept alive
    die, and equal Shapes of one value merge in CSE."""
    x = node.inputs[0] if node.inputs else None
    if x is None or rewired is None:
        return None
    rank = facts.rank(x)
    start, end = _attr(node, "start", 0), _attr(node, "end")
    if rank is None:
        return None
    lo, hi, _ = slice(start, end).indices(rank)
    if hi - lo != 1:
        return None
    key = facts.dim(x, lo)
    source, k = key[1], key[2]
    if source is x or facts.rank(source) is None:
        return None
    node.replace_input_with(0, source)
    node.attributes["start"] = ir.AttrInt64("start", k)
    node.attributes["end"] = ir.AttrInt64("end", k + 1)
    rewired(x)
    return None


def _gather_through_transpose(node: ir.Node, rewired) -> None:
    """``Gather(Transpose(v, perm), i, axis=a)`` with a 0-d ``i`` whose other axes keep their
    order (``b.T[k]`` of a column write) → ``Gather(v, i, axis=perm[a])``: the transposed
    copy dies when nothing else reads it."""
    ins = node.inputs
    if rewired is None or len(ins) != 2 or ins[0] is None or ins[1] is None:
        return None
    t = ins[0].producer()
    if t is None or t.op_type != "Transpose" or t.domain not in ONNX or not t.inputs:
        return None
    perm = _attr(t, "perm")
    idx = const_of(ins[1])
    axis = _attr(node, "axis", 0)
    if perm is None or idx is None or idx.ndim != 0 or not -len(perm) <= axis < len(perm):
        return None
    axis %= len(perm)
    rest = perm[:axis] + perm[axis + 1:]
    if rest != sorted(rest):
        return None  # the other axes would come out permuted
    old = ins[0]
    node.replace_input_with(0, t.inputs[0])
    node.attributes["axis"] = ir.AttrInt64("axis", perm[axis])
    rewired(old)
    return None


def _slice(node: ir.Node, facts: Facts) -> list | None:
    """``Slice(x, [0], [len or more], [axis])`` → ``x``."""
    ins = node.inputs
    if len(ins) < 4 or any(v is None for v in ins[:4]):
        return None
    if len(ins) > 4 and ins[4] is not None and _ints(const_of(ins[4])) != [1]:
        return None
    axes = _ints(const_of(ins[3]))
    rank = facts.rank(ins[0])
    if axes is None or len(axes) != 1 or rank is None:
        return None
    norm = _normalize_axes(axes, rank)
    if norm is None:
        return None
    start, end = facts.of(ins[1]), facts.of(ins[2])
    if start.point != 0 or end.shape != (1,):
        return None
    whole = (end.lo is not None and end.lo >= DIM_MAX) or (
        end.base is not None and end.base == facts.dim(ins[0], norm[0]) and end.off >= 0)
    return [ins[0]] if whole else None


def _empty_on(facts: Facts, value: ir.Value, axis: int) -> bool:
    """Whether ``value`` (a ``Slice`` output) has length 0 on ``axis``."""
    node = value.producer()
    if node is None or node.op_type != "Slice" or node.domain not in ONNX:
        return False
    ins = node.inputs
    if len(ins) < 4 or any(v is None for v in ins[:4]) or \
            (len(ins) > 4 and ins[4] is not None and _ints(const_of(ins[4])) != [1]):
        return False
    axes = _ints(const_of(ins[3]))
    rank = facts.rank(ins[0])
    if axes is None or len(axes) != 1 or rank is None:
        return False
    norm = _normalize_axes(axes, rank)
    if norm is None or norm[0] != axis:
        return False
    start, end = facts.of(ins[1]), facts.of(ins[2])
    if end.point == 0 and start.lo is not None and start.lo >= 0:
        return True  # [s:0] with s >= 0
    if start.base is not None and start.base == facts.dim(ins[0], axis) and \
            start.off >= 0 and end.lo is not None and end.lo >= 0:
        return True  # [len:e] with e >= 0: nothing left
    return False


def _concat(node: ir.Node, facts: Facts) -> list | None:
    """A ``Concat`` whose inputs but one have length 0 on its axis → that input."""
    axis = _attr(node, "axis")
    ins = list(node.inputs)
    if axis is None or axis < 0 or len(ins) < 2 or any(v is None for v in ins):
        return None
    keep = [v for v in ins if not _empty_on(facts, v, axis)]
    if len(keep) != 1 or len(ins) == 1:
        return None  # (dropping some of several would need a new node: rules make none)
    return [keep[0]]

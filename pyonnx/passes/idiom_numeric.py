"""Numeric idioms of :mod:`pyonnx.passes.rewrite_idioms`: softmax and squaring by ``Pow``.

Input: a node of a model (any graph); output: True when the node was replaced (its leftovers
are dead, for ``RemoveUnusedPass``). Each pattern keeps numpy's results within the tolerance the
differential tests use (8 float32 ulp relative and absolute, measured below).

* ``softmax``: ``Div(E, ReduceSum(E, [a], keepdims=1))`` with ``E = Exp(Sub(x, M))`` and ``M``
  the frontend's ``np.max(x, axis=a, keepdims=True)`` (a ``ReduceMax``, or the ``Where`` that
  makes it NaN where a NaN is in the row: onnxruntime's ReduceMax skips NaNs, possibly inside
  the ``If`` that runs the NaN check only when ``sum(x)`` is NaN), the sum possibly
  through the float64 accumulation Casts the frontend puts around float32 sums →
  ``Softmax(x, axis=a)``, float32 only. One node instead of eight to fifteen; onnxruntime's
  float32 Softmax is 5-10x faster than the composed graph. Measured against numpy's float32
  softmax on rows of 3 .. 100,000 elements, scales 1 .. 100, every axis: within 8 ulp
  (relative) + 8 ulp (absolute), the tolerance of ``tests/oracle.py``; NaN and ±inf rows give
  numpy's NaN rows, a row of one finite maximum and -inf numpy's values, empty arrays an empty
  result. Left out: float64 (onnxruntime's float64 Softmax is slower than the composed graph:
  8.6 against about 5 ms on 2000x500) and ``LogSoftmax`` (its values near 0 differ from numpy's
  relatively by up to 50%: the subtraction cancels differently).
* ``square_power``: ``Pow(x, 2)`` (a constant scalar 2, as ``x ** 2.0`` or ``np.power(x, 2)``
  lower) → ``Mul(x, x)``: numpy computes a power of 2 as ``x * x`` itself (its fast scalar
  power path), so this is numpy's result exactly, and a Mul is cheaper than a Pow.
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.passes.idiom_match import (
    _LOC,
    _const,
    _dtype,
    _only_use,
    _producer,
    _rank,
    _replace,
    _same_axes,
)

__all__ = ["softmax", "square_power"]

_NAN_MASK_OPS = frozenset({"Cast", "ReduceMax", "Slice", "Or"})


def _axis_of(node: ir.Node) -> int | None:
    """The single constant axis of a keepdims=1 reduction (``axes`` input), else None."""
    if node.attributes.get_int("keepdims", 1) != 1 or \
            node.attributes.get_int("noop_with_empty_axes", 0) != 0 or len(node.inputs) < 2:
        return None
    axes = _const(node.inputs[1])
    if axes is None or axes.size != 1:
        return None
    return int(axes.reshape(-1)[0])


def _row_nan_mask(value: ir.Value | None, root: ir.Value, axis: int, rank: int | None,
                  depth: int = 0) -> bool:
    """``value`` is computed from ``root`` = IsNaN(x) (and constants) by ``_NAN_MASK_OPS``
    alone, every ReduceMax and Slice on ``axis``: so it is False wherever the row of x along
    ``axis`` has no NaN."""
    if value is None or depth > 12:
        return False
    if value is root or _const(value) is not None:
        return True
    node = value.producer()
    if node is None or node.domain != "" or node.op_type not in _NAN_MASK_OPS:
        return False
    if node.op_type == "ReduceMax":
        own = _axis_of(node)
        if own is None or not _same_axes((own,), (axis,), rank):
            return False
        inputs = node.inputs[:1]
    elif node.op_type == "Slice":
        axes = _const(node.inputs[3]) if len(node.inputs) > 3 else None
        if axes is None or axes.size != 1 or \
                not _same_axes((int(axes.reshape(-1)[0]),), (axis,), rank):
            return False
        inputs = node.inputs[:1]
    else:
        inputs = node.inputs
    return all(i is not None and _row_nan_mask(i, root, axis, rank, depth + 1) for i in inputs)


def _nan_filled(where: ir.Node) -> tuple[ir.Value, ir.Value] | None:
    """(condition, other) of ``Where(cond, NaN, other)``, else None."""
    cond, fill, other = where.inputs
    fill_value = _const(fill)
    if cond is None or other is None or fill_value is None or fill_value.size != 1 or \
            not np.isnan(fill_value).all():
        return None
    return cond, other


def _peel_nan_wheres(m: ir.Value, conds: list[ir.Value]) -> ir.Value | None:
    """``m`` below any ``Where(cond, NaN, ...)``, their conditions appended to ``conds``."""
    while (where := _producer(m, "Where")) is not None:
        got = _nan_filled(where)
        if got is None:
            return None
        conds.append(got[0])
        m = got[1]
    return m


def _branch_output(node: ir.Node, name: str) -> ir.Value | None:
    attr = node.attributes.get(name)
    graph = attr.as_graph() if attr is not None else None
    return graph.outputs[0] if graph is not None and len(graph.outputs) == 1 else None


def _nan_guarded(m: ir.Value, conds: list[ir.Value]) -> ir.Value | None:
    """``R`` when ``m`` is the frontend's NaN guard of ``R`` (see ``nan_guard``):
    ``If(flag, then: Where(cond, NaN, R), else: Identity(R))`` (the flag only decides which
    branch pays; both give numpy's max when ``cond`` is a row NaN mask, appended to
    ``conds``); else ``m`` itself."""
    node = _producer(m, "If")
    if node is None:
        return m
    then_out, else_out = _branch_output(node, "then_branch"), _branch_output(node, "else_branch")
    ident = _producer(else_out, "Identity")
    if then_out is None or ident is None:
        return None
    r = _peel_nan_wheres(then_out, conds)
    return r if r is not None and r is ident.inputs[0] else None


def _row_nan_roots(x: ir.Value, axis: int, rank: int | None) -> list[ir.Value]:
    """``IsNaN(x)`` and ``IsNaN(Slice(x))`` along ``axis`` (the head of each row the empty
    check reads): values True only in rows of x that hold a NaN."""
    roots = []
    for use in x.uses():
        node = use.node
        if node.domain != "":
            continue
        if node.op_type == "IsNaN":
            roots.append(node.outputs[0])
        elif node.op_type == "Slice" and use.idx == 0 and len(node.inputs) > 3:
            axes = _const(node.inputs[3])
            if axes is None or axes.size != 1 or \
                    not _same_axes((int(axes.reshape(-1)[0]),), (axis,), rank):
                continue
            roots += [u.node.outputs[0] for u in node.outputs[0].uses()
                      if u.node.op_type == "IsNaN" and u.node.domain == ""]
    return roots


def _max_of(m: ir.Value, x: ir.Value) -> int | None:
    """The axis when ``m`` is ``np.max(x, axis, keepdims=True)`` as the frontend lowers it:
    ``ReduceMax(x)``, under ``Where(cond, NaN, ...)`` NaN fixes and the NaN guard's ``If``."""
    conds: list[ir.Value] = []
    m = _peel_nan_wheres(m, conds)
    m = _nan_guarded(m, conds) if m is not None else None
    m = _peel_nan_wheres(m, conds) if m is not None else None
    reduce = _producer(m, "ReduceMax")
    if reduce is None or reduce.inputs[0] is not x:
        return None
    axis = _axis_of(reduce)
    if axis is None or not conds:
        return axis
    # Each condition is a per-row function of IsNaN(x), False in rows without a NaN; rows with
    # one are NaN rows in numpy's softmax and in onnxruntime's alike.
    rank = _rank(x)
    roots = _row_nan_roots(x, axis, rank)
    if all(any(_row_nan_mask(c, root, axis, rank) for root in roots) for c in conds):
        return axis
    return None


def softmax(node: ir.Node) -> bool:
    """Div(E, [Cast] ReduceSum([Cast] E)) with E = Exp(x - max(x)) → Softmax(x) (float32)."""
    if node.op_type != "Div" or node.domain != "" or len(node.inputs) != 2:
        return False
    e, s = node.inputs
    exp = _producer(e, "Exp")
    if exp is None:
        return False
    sub = _producer(exp.inputs[0], "Sub")
    if sub is None or not _only_use(exp.inputs[0], exp):
        return False
    x, m = sub.inputs
    # (Intermediate values carry no types here: x's decides, Sub and Exp keep it.)
    if x is None or m is None or x.type is None or x.type.dtype != ir.DataType.FLOAT:
        return False
    narrow = _producer(s, "Cast")
    reduce = _producer(narrow.inputs[0] if narrow is not None else s, "ReduceSum")
    if reduce is None or not _only_use(reduce.outputs[0], narrow or node):
        return False
    summed = reduce.inputs[0]
    widen = _producer(summed, "Cast") if narrow is not None else None
    if narrow is not None:
        if widen is None or widen.inputs[0] is not e or not _only_use(summed, reduce):
            return False
        # float32 → float64 (an exact widening: the float64 sum the frontend accumulates) →
        # float32; any other Cast (to an integer...) changes the values.
        if narrow.attributes.get_int("to", 0) != ir.DataType.FLOAT or \
                widen.attributes.get_int("to", 0) != ir.DataType.DOUBLE:
            return False
        summer = widen
    else:
        if summed is not e:
            return False
        summer = reduce
    # E feeds the sum and this Div only (else Softmax would be computed on top of E).
    users = [u.node for u in e.uses()]
    if e.is_graph_output() or sorted(map(id, users)) != sorted(map(id, [summer, node])):
        return False
    axis = _axis_of(reduce)
    max_axis = _max_of(m, x)
    rank = _rank(x)
    if axis is None or max_axis is None or not _same_axes((axis,), (max_axis,), rank):
        return False
    if rank is None:
        return False
    axis %= rank
    nan_check = _producer(m, "Where") or _producer(m, "If")
    new = _replace(node, "Softmax", [x], [ir.AttrInt64("axis", axis)])
    dim = x.shape[axis] if x.shape is not None else None
    if nan_check is not None and not (isinstance(dim, int) and dim > 0):
        _fail_on_empty_axis(new, x, axis, nan_check)
    return True


def _fail_on_empty_axis(softmax_node: ir.Node, x: ir.Value, axis: int, origin: ir.Node) -> None:
    """Makes ``softmax_node``'s result fail at run time when x's ``axis`` is empty, as the
    frontend's ``np.max`` does (numpy: "zero-size array to reduction operation maximum"): a
    bool ReduceMax over ``x.shape[axis]`` False values (onnxruntime refuses an empty bool
    ReduceMax) feeds a zero into the shape of a Reshape of the result to its own shape. Seven
    nodes on tiny tensors, where the replaced NaN check made three passes over x. They carry
    the name and location of ``origin``, the np.max whose error they keep."""
    graph = softmax_node.graph
    assert graph is not None
    name = origin.name or "softmax"
    made: list[ir.Node] = []

    def op(op_type: str, inputs: list, attrs: list[ir.Attr]) -> ir.Value:
        new = ir.Node("", op_type, inputs, attrs, name=f"{name}_empty_check_{len(made)}",
                      doc_string=origin.doc_string)
        if _LOC in origin.meta:
            new.meta[_LOC] = origin.meta[_LOC]
        made.append(new)
        return new.outputs[0]

    shape = op("Shape", [x], [])
    length = op("Shape", [x], [ir.AttrInt64("start", axis), ir.AttrInt64("end", axis + 1)])
    flags = op("ConstantOfShape", [length],
               [ir.AttrTensor("value", ir.Tensor(np.array([False])))])
    any_flag = op("ReduceMax", [flags], [ir.AttrInt64("keepdims", 1)])
    zero = op("Cast", [any_flag], [ir.AttrInt64("to", ir.DataType.INT64)])
    same = op("Add", [shape, zero], [])
    result = softmax_node.outputs[0]
    out = op("Reshape", [result, same], [])
    graph.insert_after(softmax_node, made)
    out.type, out.shape = result.type, result.shape
    result.replace_all_uses_with(out, replace_graph_outputs=True)
    # (replace_all_uses_with also moved the Reshape's own input: point it back.)
    made[-1].replace_input_with(0, result)
    out.name, result.name = result.name, f"{result.name}_unchecked"


def square_power(node: ir.Node) -> bool:
    """Pow(x, 2) with a constant scalar 2 → Mul(x, x) (numpy's own x ** 2)."""
    if node.op_type != "Pow" or node.domain != "" or len(node.inputs) != 2:
        return False
    x, exponent = node.inputs
    value = _const(exponent)
    if x is None or value is None or value.size != 1 or value.reshape(-1)[0] != 2:
        return False
    # A [1]-shaped exponent broadcasts a 0-d x to [1]: keep the Pow unless the rank covers it.
    if value.ndim > 0 and (_rank(x) is None or _rank(x) < value.ndim):
        return False
    if _dtype(x) not in (ir.DataType.FLOAT, ir.DataType.DOUBLE, ir.DataType.FLOAT16):
        return False
    _replace(node, "Mul", [x, x], [])
    return True

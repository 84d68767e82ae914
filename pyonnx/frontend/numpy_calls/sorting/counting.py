"""numpy counting of non-negative integers: bincount.

Input: a 1-D array of non-negative integers, optional 1-D weights, ``minlength`` (static or a
0-d integer only known at run time).
Output: a 1-D Array (int64 counts, or float64 sums of weights) whose length is known only at
run time.

Supported syntax:

* ``np.bincount(x, weights=None, minlength=0)`` (with weights, an empty ``x`` gives float64
  zeros where numpy gives int64 zeros: the dtype cannot depend on the run-time size).
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.sorting.common import _I64, _ints


# -------------------------------------------------------------------------- bincount
def _minlength(ctx, minlength) -> ir.Value:
    """``minlength`` as a 1-element int64 value: a static non-negative int, or a 0-d integer
    only known at run time (``minlength=x.max() + 1``; a negative one fails the run, as numpy
    raises ValueError)."""
    if isinstance(minlength, Array):
        if minlength.ndim or minlength.dtype.kind not in "iu":
            raise ctx.error(f"np.bincount: minlength must be an integer, not an array of dtype "
                            f"{minlength.dtype} and shape {minlength.shape} (numpy raises "
                            "TypeError)")
        m = ctx.cast(minlength, _I64)
        m = runtime_check(ctx, Array(ctx.op("Less", m, ctx.const(np.array(0, np.int64))),
                                     np.dtype(np.bool_), ()), m, "minlength_must_be_non_negative",
                          "ValueError: 'minlength' must not be negative")
        return ctx.op("Reshape", m, _ints(ctx, 1))
    minlength = ctx.static(minlength, "minlength")
    if minlength is None:
        minlength = 0
    if not isinstance(minlength, (int, np.integer)) or isinstance(minlength, bool) or minlength < 0:
        raise ctx.error(f"np.bincount: minlength must be a non-negative integer, got {minlength!r}")
    return _ints(ctx, int(minlength))


def _is_0d(v: ir.Value | None, depth: int = 4) -> bool:
    """Whether ``v`` is provably 0-d: a 0-d constant or declared value, or elementwise
    arithmetic of such values."""
    if v is None:
        return False
    if v.const_value is not None:
        return v.const_value.shape.dims == ()
    if v.shape is not None:
        return len(v.shape) == 0
    node = v.producer()
    return node is not None and depth > 0 and not node.domain and \
        node.op_type in ("Add", "Sub", "Mul", "Cast", "Max", "Min", "Neg") and \
        all(_is_0d(i, depth - 1) for i in node.inputs)


def _nonnegative(v: ir.Value) -> bool:
    """``Max(a, c)`` with a constant ``c`` whose every element is >= 0."""
    node = v.producer()
    if node is None or node.domain or node.op_type != "Max":
        return False
    return any(i is not None and i.const_value is not None and
               bool(np.all(i.const_value.numpy() >= 0)) for i in node.inputs)


def _clip_bound(idx: ir.Value, minlength) -> ir.Value | None:
    """``b`` when ``idx = Min(a, b)`` with ``a`` non-negative, or ``Clip(v, c >= 0, b)``, and
    ``b = m - 1`` for the run-time ``minlength`` ``m`` (``np.clip(v, 0, m - 1)``), else None."""
    node = idx.producer()
    if not isinstance(minlength, Array) or node is None or node.domain:
        return None
    if node.op_type == "Clip" and len(node.inputs) == 3:
        lo, b = node.inputs[1], node.inputs[2]
        low = lo.const_value if lo is not None else None
        if low is None or not bool(np.all(low.numpy() >= 0)) or not _is_0d(b):
            return None
    elif node.op_type == "Min" and len(node.inputs) == 2:
        a, b = node.inputs
        if not (_nonnegative(a) and _is_0d(b)):
            return None
    else:
        return None
    sub = b.producer()
    if sub is None or sub.domain or sub.op_type != "Sub" or sub.inputs[0] is not minlength.value:
        return None
    one = sub.inputs[1].const_value if sub.inputs[1] is not None else None
    if one is None or one.numpy().size != 1 or int(one.numpy().reshape(-1)[0]) != 1 or \
            minlength.dtype != _I64:
        return None
    return b


@register(np.bincount)
def bincount(ctx, x, weights=None, minlength=0):
    """``np.bincount(x, weights=None, minlength=0)``: ``x`` 1-D non-negative integers (a
    negative value makes the run fail, as numpy raises); int64 counts or float64 sums of
    ``weights`` (added in index order, as numpy does). One difference: for an empty ``x``
    numpy returns int64 zeros even with weights; here the dtype is fixed at conversion time,
    so those zeros are float64."""
    xs = to_array(ctx, x)
    if xs.ndim != 1:
        raise ctx.error(f"np.bincount: x must be 1-D, got {xs.ndim}-D (numpy raises ValueError)")
    if xs.dtype.kind not in "biu" or xs.dtype == np.uint64:
        raise ctx.error(f"np.bincount: cannot cast {xs.dtype} to int64 safely (numpy raises "
                        "TypeError); pass non-negative integers")
    least = _minlength(ctx, minlength)
    idx = ctx.cast(xs, _I64).value
    size = ctx.op("Size", idx)
    nonempty = ctx.op("Greater", size, ctx.const(np.array(0, np.int64)))
    bound = _clip_bound(idx, minlength)
    if bound is not None:
        # idx = min(max(v, c >= 0), m - 1) with m the minlength (np.clip(v, 0, m - 1)): every
        # value lies in [0, m - 1] unless m - 1 < 0, where every value is m - 1 (negative).
        length = Array(least, _I64, (1,))
        negative = ctx.op("And", ctx.op("Less", bound, ctx.const(np.array(0, np.int64))),
                          nonempty)
    else:
        # Length: max(max(x) + 1, minlength), max(x) taken as -1 for an empty x (a scalar
        # Where on the size, not a Concat of -1: that copied the whole array). A negative x
        # makes the run fail, as numpy raises: ReduceMin (exact for int64 since onnxruntime
        # 1.32; int64's largest value for an empty x), one pass where Less, a Cast and a
        # reduction made three.
        top = ctx.op("ReduceMax", idx, keepdims=1)
        top = ctx.op("Where", ctx.op("Not", nonempty), _ints(ctx, -1), top)
        length = Array(ctx.op("Max", ctx.op("Add", top, _ints(ctx, 1)), least), _I64, (1,))
        negative = ctx.op("Less", ctx.op("ReduceMin", idx, keepdims=0),
                          ctx.const(np.array(0, np.int64)))
    length = runtime_check(ctx, Array(negative, np.dtype(np.bool_), ()), length,
                           "bincount_negative_value",
                           "ValueError: 'list' argument must have no negative elements").value
    if weights is None:
        return Array(_counts(ctx, idx, size, length), _I64, (None,))
    else:
        w = to_array(ctx, weights)
        if w.ndim != 1:
            raise ctx.error("np.bincount: weights must be 1-D like x")
        if w.dtype == np.uint64 or w.dtype.kind not in "biuf":
            raise ctx.error(f"np.bincount: weights of dtype {w.dtype} are not supported")
        out_dt = np.dtype(np.float64)
        updates = ctx.cast(w, out_dt).value
    zeros = ctx.op("ConstantOfShape", length, value=ir.tensor(np.zeros(1, out_dt)))
    out = ctx.op("ScatterElements", zeros, idx, updates, axis=0, reduction="add")
    return Array(out, out_dt, (None,))


# Counts are added in int32 below this many values (no count can overflow it), then cast:
# onnxruntime's ScatterElements(add) takes 2.2 ms into int32 against 2.9 ms into int64 for
# 1e6 indices into 100 bins (measured, one thread; np.bincount 1.0 ms).
_INT32_COUNTS = 2 ** 31 - 1


def _counts(ctx, idx: ir.Value, size: ir.Value, length: ir.Value) -> ir.Value:
    """int64 occurrence counts of the int64 ``idx`` (valid positions into ``length`` bins):
    an ``If`` on ``size`` below :data:`_INT32_COUNTS` adds int32 ones and casts the counts
    (exact: no count exceeds the size), else int64 ones."""
    branches = []
    for label, dtype in (("int32", np.dtype(np.int32)), ("int64", _I64)):
        with ctx.subgraph() as nodes:
            ones = ctx.op("ConstantOfShape", ctx.op("Shape", idx),
                          value=ir.tensor(np.ones(1, dtype)))
            zeros = ctx.op("ConstantOfShape", length, value=ir.tensor(np.zeros(1, dtype)))
            out = ctx.op("ScatterElements", zeros, idx, ones, axis=0, reduction="add")
            if dtype != _I64:
                out = ctx.op("Cast", out, to=ir.DataType.INT64)
        out.type = ir.TensorType(ir.DataType.INT64)
        out.shape = ir.Shape([None])
        branches.append(ir.Graph([], [out], nodes=nodes,
                                 name=f"{ctx.function_name}_bincount_{label}"))
    small = ctx.op("Less", size, ctx.const(np.array(_INT32_COUNTS, np.int64)))
    value = ctx.op("If", small, then_branch=branches[0], else_branch=branches[1])
    value.type = ir.TensorType(ir.DataType.INT64)
    value.shape = ir.Shape([None])
    return value

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
from pyonnx.frontend.numpy_calls.reductions.common import reduce_any
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
    # Length: max(max(x) + 1, minlength), max(x) taken as -1 for an empty x (a scalar Where on
    # the size, not a Concat of -1: that copied the whole array).
    top = ctx.op("ReduceMax", idx, keepdims=1)
    empty = ctx.op("Equal", ctx.op("Size", idx), ctx.const(np.array(0, np.int64)))
    top = ctx.op("Where", empty, _ints(ctx, -1), top)
    length = Array(ctx.op("Max", ctx.op("Add", top, _ints(ctx, 1)), least), _I64, (1,))
    # A negative x makes the run fail, as numpy raises: a flag reduced in uint8 guards the
    # length (one Less and one small reduction: a Where over x cost 20x an Add, measured).
    negative = reduce_any(ctx, Array(ctx.op("Less", idx, ctx.const(np.array(0, np.int64))),
                                     np.dtype(np.bool_), xs.shape), (0,), keepdims=False)
    length = runtime_check(ctx, negative, length, "bincount_negative_value",
                           "ValueError: 'list' argument must have no negative elements").value
    if weights is None:
        out_dt = _I64
        updates = ctx.op("ConstantOfShape", ctx.op("Shape", idx),
                         value=ir.tensor(np.ones(1, np.int64)))
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

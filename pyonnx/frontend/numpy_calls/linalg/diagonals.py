"""numpy diagonals: diagonal, trace, diag, and numpy 2's np.linalg.trace/diagonal.

Input: an array with a static offset and static axes. Output: the diagonal as the last axis (a
Gather on the two axes flattened into one), its sum in numpy's sum dtype (small integers →
int64/uint64, summed exactly), or a square matrix with a 1-D array on one diagonal.

Supported syntax:

* ``np.trace(a, offset, axis1, axis2, dtype)``, ``a.trace(...)``, ``np.diagonal``,
  ``a.diagonal(...)``, ``np.diag(v, k)`` (1-D → matrix, 2-D → diagonal),
  ``np.linalg.trace``, ``np.linalg.diagonal``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.linalg.common import (
    _F32, _finish, _product_dtype, _sum_trailing,
)
from pyonnx.frontend.numpy_calls.shape import (
    I64, axis_of, flatten_range, ints, reshape_dims, shape_slice, to_array, transpose_to,
)


# ------------------------------------------------------------------ diagonal / trace / diag
def _diagonal(ctx, a: Array, offset: Any, axis1: Any, axis2: Any) -> Array:
    if a.ndim < 2:
        raise ctx.error("diag requires an array of at least two dimensions")
    i = axis_of(ctx, axis1, a.ndim, "axis1")
    j = axis_of(ctx, axis2, a.ndim, "axis2")
    if i == j:
        raise ctx.error("axis1 and axis2 cannot be the same")
    k = operator.index(ctx.static(offset, "offset"))
    rest = [d for d in range(a.ndim) if d not in (i, j)]
    t = transpose_to(ctx, a, rest + [i, j])
    n, m = t.shape[-2], t.shape[-1]
    start = k if k >= 0 else -k * (m if m is not None else 0)
    flat = reshape_dims(ctx, t, [shape_slice(ctx, t, 0, t.ndim - 2),
                                 flatten_range(ctx, t, t.ndim - 2, t.ndim)[0]])
    if n is not None and m is not None:
        length = max(0, min(n, m - k) if k >= 0 else min(n + k, m))
        idx = ctx.const_array(np.arange(length, dtype=np.int64) * (m + 1) + start)
    else:
        # length = max(0, min(n, m - k)) (k ≥ 0) or max(0, min(n + k, m)); the flat index of
        # the i-th element is i * (m + 1) + (k if k ≥ 0 else -k * m).
        nm = shape_slice(ctx, t, t.ndim - 2, t.ndim)
        n_v = ctx.op("Gather", nm, ctx.const(np.int64(0)))
        m_v = ctx.op("Gather", nm, ctx.const(np.int64(1)))
        if k >= 0:
            length = ctx.op("Min", n_v, ctx.op("Sub", m_v, ctx.const(np.int64(k))))
            first = ctx.const(np.int64(k))
        else:
            length = ctx.op("Min", ctx.op("Add", n_v, ctx.const(np.int64(k))), m_v)
            first = ctx.op("Mul", m_v, ctx.const(np.int64(-k)))
        length = ctx.op("Max", length, ctx.const(np.int64(0)))
        steps = ctx.op("Range", ctx.const(np.int64(0)), length, ctx.const(np.int64(1)))
        idx = Array(ctx.op("Add", ctx.op("Mul", steps, ctx.op("Add", m_v, ctx.const(np.int64(1)))),
                           first), I64, (None,))
        length = None
    value = ctx.op("Gather", flat, idx, axis=flat.ndim - 1)
    return Array(value, a.dtype, flat.shape[:-1] + (length if isinstance(length, int) else None,))


@register(np.diagonal, methods=("diagonal",))
def diagonal(ctx, a, offset=0, axis1=0, axis2=1):
    """``np.diagonal(a, offset=0, axis1=0, axis2=1)``: the diagonal as the last axis."""
    return _diagonal(ctx, to_array(ctx, a), offset, axis1, axis2)


def _sum_last(ctx, x: Array, dtype: np.dtype) -> Array:
    """``x.sum(axis=-1, dtype=dtype)`` as numpy computes it."""
    x = ctx.cast(x, dtype)
    if dtype.kind in "biu":
        # Exact, wrapping integer sums (see _sum_trailing); a bool sum is a logical or.
        run = _product_dtype(ctx, "MatMul", dtype)
        return _finish(ctx, _sum_trailing(ctx, ctx.cast(x, run), x.ndim - 1), dtype)
    run = _F32 if dtype == np.float16 else dtype
    value = ctx.op("ReduceSum", ctx.cast(x, run), ints(ctx, [x.ndim - 1]), keepdims=0)
    return _finish(ctx, Array(value, run, x.shape[:-1]), dtype)


@register(np.trace, methods=("trace",))
def trace(ctx, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``np.trace(a, offset=0, axis1=0, axis2=1, dtype=None)``: the diagonal's sum with
    numpy's sum dtype (small ints → int64/uint64)."""
    if out is not None:
        raise ctx.error("np.trace(..., out=...) is not supported; assign the result")
    a = to_array(ctx, a)
    dt = None if dtype is None else np.dtype(ctx.static(dtype, "dtype"))
    out_dtype = np.trace(np.zeros((1, 1), a.dtype), dtype=dt).dtype
    return _sum_last(ctx, _diagonal(ctx, a, offset, axis1, axis2), out_dtype)


@register(np.diag)
def diag(ctx, v, k=0):
    """``np.diag(v, k=0)``: a 1-D ``v`` on the k-th diagonal of a square matrix; the k-th
    diagonal of a 2-D ``v``."""
    v = to_array(ctx, v)
    k = operator.index(ctx.static(k, "k"))
    if v.ndim == 2:
        return _diagonal(ctx, v, k, 0, 1)
    if v.ndim != 1:
        raise ctx.error("Input must be 1- or 2-d.")
    n = v.shape[0]
    off = abs(k)
    if n is not None:
        size = n + off
        pos = ctx.const_array(np.arange(n, dtype=np.int64) * (size + 1)
                              + (k if k >= 0 else -k * size))
        total = ints(ctx, [size * size])
        shape_vec = ints(ctx, [size, size])
        static = (size, size)
    else:
        n_v = ctx.op("Shape", v)
        size = ctx.op("Add", n_v, ints(ctx, [off]))
        steps = ctx.op("Range", ctx.const(np.int64(0)), ctx.op("Squeeze", n_v, ints(ctx, [0])),
                       ctx.const(np.int64(1)))
        first = ints(ctx, [k]) if k >= 0 else ctx.op("Mul", size, ints(ctx, [-k]))
        pos = Array(ctx.op("Add", ctx.op("Mul", steps, ctx.op("Add", size, ints(ctx, [1]))),
                           first), I64, (None,))
        total = ctx.op("Mul", size, size)
        shape_vec = ctx.op("Concat", size, size, axis=0)
        static = (None, None)
    run = kernels.compute_dtype("ScatterElements", v.dtype)
    zeros = ctx.op("ConstantOfShape", total, value=ir.tensor(np.zeros(1, run)))
    flat = ctx.op("ScatterElements", zeros, pos, ctx.cast(v, run), axis=0)
    return ctx.cast(Array(ctx.op("Reshape", flat, shape_vec, allowzero=1), run, static), v.dtype)


# ------------------------------------------------------------ numpy 2 array-API spellings
@register(np.linalg.trace)
def linalg_trace(ctx, x, /, *, offset=0, dtype=None):
    """``np.linalg.trace(x, offset=0, dtype=None)``: over the last two axes."""
    return trace(ctx, x, offset, -2, -1, dtype)


@register(np.linalg.diagonal)
def linalg_diagonal(ctx, x, /, *, offset=0):
    """``np.linalg.diagonal(x, offset=0)``: of the last two axes."""
    return _diagonal(ctx, to_array(ctx, x), offset, -2, -1)

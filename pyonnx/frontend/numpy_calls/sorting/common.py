"""Helpers shared by the sorting modules: int64 constants and vectors, axes, flags, and
:func:`emit_exact` (float16 arithmetic rounded after every step, as numpy does).

Input: the Lowering ``ctx`` and Arrays or static values. Output: Arrays, ``ir.Value`` int64
vectors, or static Python values. No registry entries live here.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.shapes import normalize_axis
from pyonnx.frontend.graph.values import Array

__all__ = ["emit_exact"]

_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
_INT64_MAX = np.iinfo(np.int64).max


def _ints(ctx, *values: int):
    return ctx.const(np.array(values, dtype=np.int64))


def _flatten(ctx, a: Array) -> Array:
    if a.ndim == 1:
        return a
    return Array(ctx.op("Reshape", a, _ints(ctx, -1)), a.dtype, (a.static_size,))


def _axis(ctx, axis, ndim: int, fname: str) -> int:
    axis = ctx.static(axis, "axis")
    if isinstance(axis, np.integer):
        axis = int(axis)
    try:
        return normalize_axis(axis, ndim)
    except ValueError as e:
        raise ctx.error(f"{fname}: {e}") from None


def _length(ctx, a: Array, axis: int):
    """Dimension ``axis`` of ``a`` as an int64 1-D tensor of one element."""
    if a.shape[axis] is not None:
        return _ints(ctx, a.shape[axis])
    return ctx.op("Shape", a, start=axis, end=axis + 1)


def _bool_flag(ctx, value, what: str) -> bool:
    value = ctx.static(value, what)
    if not isinstance(value, (bool, np.bool_, int, np.integer)):
        raise ctx.error(f"{what} must be True or False, got {value!r}")
    return bool(value)


def emit_exact(ctx, op: str, arrays, dtype, out_dtype=None) -> Array:
    """``kernels.emit``, but float16 math runs in float32 between explicit Casts.

    onnxruntime's CPU provider runs float16 Add/Sub/Mul/... by inserting Casts to float32
    around them and then merges an inner Cast(float32→float16)→Cast(float16→float32) pair: a
    chain (``(a - b) * t`` or ``Cast(a - b, float64)``) skips the float16 rounding numpy does
    after every operation. Explicit Casts on both sides are kept, and float32 holds every
    float16 sum, difference and product exactly rounded once, as numpy computes them.
    """
    dtype = np.dtype(dtype)
    out = np.dtype(out_dtype) if out_dtype is not None else dtype
    if dtype != np.float16:
        return kernels.emit(ctx, op, arrays, dtype, out_dtype=out)
    wide = [ctx.cast(a, np.float32) for a in arrays]
    result = kernels.emit(ctx, op, wide, np.dtype(np.float32),
                          out_dtype=_BOOL if out == _BOOL else np.float32)
    return result if out == _BOOL else ctx.cast(result, out)

"""Argument helpers shared by the creation functions.

Input: numpy's ``dtype``, ``order``/``like`` and integer arguments as frontend values. Output:
a supported ``np.dtype`` (or None), a Python int or an int64 0-d value, or a ConversionError
naming the function; ``_strong`` makes a weak (Python-scalar) Array strong, as numpy's
creation functions return arrays.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.values import Array


_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_F16 = np.dtype(np.float16)


def _strong(a: Array) -> Array:
    return Array(a.value, a.dtype, a.shape) if a.weak else a


def _i64(ctx, values) -> ir.Value:
    return ctx.const(np.asarray(values, dtype=np.int64))


def _dtype(ctx, name: str, dtype, default=None) -> np.dtype | None:
    if dtype is None:
        return default
    try:
        dt = np.dtype(ctx.static(dtype, "dtype"))
    except TypeError as e:
        raise ctx.error(f"{name}: invalid dtype: {e}") from None
    if dt not in dtypes.SUPPORTED_DTYPES:
        raise ctx.error(f"{name}: dtype {dt} is not supported")
    return dt


def _refuse_order(ctx, name: str, order, like=None) -> None:
    order = ctx.static(order, "order")
    if order not in ("C", "K", "A", None, "F"):
        raise ctx.error(f"{name}: order must be one of 'C', 'F', 'A', 'K' (got {order!r})")
    if like is not None:
        raise ctx.error(f"{name}(..., like=...) is not supported")


def _scalar_i64(ctx, name: str, v: Any, what: str) -> ir.Value | int:
    """An integer argument: a Python int (static) or an int64 0-d value."""
    if isinstance(v, Array):
        if v.ndim != 0 or v.dtype.kind not in "iub":
            raise ctx.error(f"{name}: {what} must be an integer scalar, not an array of "
                            f"{v.dtype} with {v.ndim} dimensions")
        return ctx.cast(v, _I64).value
    try:
        return operator.index(ctx.static(v, what))
    except TypeError:
        raise ctx.error(f"{name}: '{type(v).__name__}' object cannot be interpreted as an "
                        f"integer ({what})") from None

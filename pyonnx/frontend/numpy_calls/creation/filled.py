"""Filled arrays: zeros, ones, empty, full and their ``*_like`` versions.

Input: numpy's ``shape`` (an int, a 0-d integer Array, a tuple or list mixing both such as
``(x.shape[0], 3)``, or a 1-D integer Array of known length) or a prototype array, a fill value
and ``dtype``. Output: an Array of numpy's dtype with the static dims known at conversion time
(None for the others). ``np.empty`` gives zeros (numpy's values are arbitrary, so zeros are one
correct choice). A fill value is converted as ``np.copyto(..., casting='unsafe')`` does and
broadcast one way onto the shape.

Supported syntax::

    np.zeros / np.ones / np.empty(shape, dtype=float)
    np.full(shape, fill_value, dtype=None)
    np.zeros_like / np.ones_like / np.empty_like(a, dtype=None, shape=None)
    np.full_like(a, fill_value, dtype=None, shape=None)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.creation.common import (
    _F64,
    _I64,
    _dtype,
    _i64,
    _refuse_order,
    _scalar_i64,
    _strong,
)

__all__ = ["shape_arg"]


def shape_arg(ctx, name: str, shape: Any) -> tuple[ir.Value, tuple[int | None, ...]]:
    """numpy's ``shape`` argument as an int64 1-D value and its static dims.

    Raises:
        ConversionError: a dimension is not an integer, is negative, or the rank is unknown.
    """
    if isinstance(shape, Array) and shape.ndim == 1:
        n = shape.shape[0]
        if n is None or shape.dtype.kind not in "iu":
            raise ctx.error(f"{name}: a shape array must be 1-D of integers with a length known "
                            "at conversion time; pass a tuple such as (x.shape[0], 3)")
        return ctx.cast(shape, _I64).value, (None,) * n
    if isinstance(shape, Array) and shape.ndim > 1:
        raise ctx.error(f"{name}: the shape must be an int or a sequence of ints")
    items = list(shape) if isinstance(shape, (tuple, list)) else [shape]
    pieces: list[ir.Value] = []
    run: list[int] = []
    dims: list[int | None] = []
    for d in items:
        if isinstance(d, Array):
            v = _scalar_i64(ctx, name, d, "a dimension")
            const = d.value.const_value
            if const is not None:
                run.append(int(const.numpy()))
                dims.append(run[-1])
                continue
            if run:
                pieces.append(_i64(ctx, run))
                run = []
            pieces.append(ctx.op("Unsqueeze", v, _i64(ctx, [0])))
            dims.append(None)
        else:
            d = _scalar_i64(ctx, name, d, "a dimension")
            if d < 0:
                raise ctx.error(f"{name}: negative dimensions are not allowed")
            run.append(d)
            dims.append(d)
    if not pieces:
        return _i64(ctx, np.array(run, dtype=np.int64).reshape(len(run))), tuple(dims)
    if run:
        pieces.append(_i64(ctx, run))
    value = pieces[0] if len(pieces) == 1 else ctx.op("Concat", *pieces, axis=0)
    return value, tuple(dims)


def _constant_of_shape(ctx, shape_value: ir.Value, dims: tuple, fill: np.ndarray) -> Array:
    """An array of ``dims`` filled with the 0-d ``fill``."""
    tensor = ir.tensor(np.asarray(fill).reshape(1))
    return Array(ctx.op("ConstantOfShape", shape_value, value=tensor), fill.dtype, dims)


def _broadcast_fill(ctx, name: str, fill: Array, shape_value: ir.Value,
                    dims: tuple) -> Array:
    """``np.copyto(empty(dims), fill)``: ``fill`` broadcast one way onto ``dims``."""
    if fill.ndim > len(dims):
        raise ctx.error(f"{name}: could not broadcast the fill value of rank {fill.ndim} into "
                        f"shape of rank {len(dims)}")
    out = list(dims)
    guard = False
    for i, f in enumerate(fill.shape):
        j = len(dims) - fill.ndim + i
        t = dims[j]
        if f is not None and f != 1 and t is not None and f != t:
            raise ctx.error(f"{name}: could not broadcast the fill value of shape "
                            f"{fill.shape} into shape {dims}")
        if t is None and f is not None and f != 1:
            out[j] = f
        # Expand broadcasts both ways: where the fill could be larger, check the result's shape.
        guard = guard or (f != 1 and (f is None or t is None))
    if fill.ndim == 0 and fill.value.const_value is not None:
        return _constant_of_shape(ctx, shape_value, dims, fill.value.const_value.numpy())
    value = ctx.op("Expand", fill, shape_value)
    if guard:
        value = ctx.op("Reshape", value, shape_value)
    return Array(value, fill.dtype, tuple(out))


def _static_fill(ctx, name: str, fill_value: Any, dtype: np.dtype | None) -> Array:
    """A static fill value converted as ``np.copyto(..., casting='unsafe')`` does."""
    try:
        arr = np.asarray(fill_value)
        dt = dtype or arr.dtype
        out = np.empty(arr.shape, dt)
        np.copyto(out, fill_value, casting="unsafe")
    except (TypeError, ValueError, OverflowError) as e:
        raise ctx.error(f"{name}: {type(e).__name__}: {e}") from None
    if out.dtype not in dtypes.SUPPORTED_DTYPES:
        raise ctx.error(f"{name}: dtype {out.dtype} is not supported")
    return ctx.const_array(out)


def _fill(ctx, name: str, shape_value, dims, fill_value, dtype: np.dtype | None) -> Array:
    if isinstance(fill_value, Array):
        fill = _strong(fill_value)
        fill = ctx.cast(fill, dtype) if dtype is not None else fill
    elif is_static(fill_value):
        fill = _static_fill(ctx, name, fill_value, dtype)
    else:
        fill = _strong(ctx.asarray(fill_value))
        fill = ctx.cast(fill, dtype) if dtype is not None else fill
    return _broadcast_fill(ctx, name, fill, shape_value, dims)


def _filled(ctx, name, shape, dtype, value) -> Array:
    dt = _dtype(ctx, name, dtype, _F64)
    shape_value, dims = shape_arg(ctx, name, shape)
    return _constant_of_shape(ctx, shape_value, dims, np.array(value, dt))


@register(np.zeros)
def zeros(ctx, shape, dtype=float, order="C", *, device=None, like=None):
    _refuse_order(ctx, "np.zeros", order, like)
    return _filled(ctx, "np.zeros", shape, dtype, 0)


@register(np.empty)
def empty(ctx, shape, dtype=float, order="C", *, device=None, like=None):
    # numpy leaves the values arbitrary; zeros are one of them.
    _refuse_order(ctx, "np.empty", order, like)
    return _filled(ctx, "np.empty", shape, dtype, 0)


@register(np.ones)
def ones(ctx, shape, dtype=None, order="C", *, device=None, like=None):
    _refuse_order(ctx, "np.ones", order, like)
    return _filled(ctx, "np.ones", shape, dtype, 1)


@register(np.full)
def full(ctx, shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    _refuse_order(ctx, "np.full", order, like)
    dt = _dtype(ctx, "np.full", dtype)
    shape_value, dims = shape_arg(ctx, "np.full", shape)
    return _fill(ctx, "np.full", shape_value, dims, fill_value, dt)


def _like(ctx, name: str, a, dtype, shape) -> tuple[np.dtype, ir.Value, tuple]:
    x = _strong(ctx.asarray(a))
    dt = _dtype(ctx, name, dtype, x.dtype)
    if shape is None:
        return dt, ctx.shape_of(x), x.shape
    shape_value, dims = shape_arg(ctx, name, shape)
    return dt, shape_value, dims


@register(np.zeros_like)
def zeros_like(ctx, a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dt, shape_value, dims = _like(ctx, "np.zeros_like", a, dtype, shape)
    return _constant_of_shape(ctx, shape_value, dims, np.zeros((), dt))


@register(np.empty_like)
def empty_like(ctx, prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dt, shape_value, dims = _like(ctx, "np.empty_like", prototype, dtype, shape)
    return _constant_of_shape(ctx, shape_value, dims, np.zeros((), dt))


@register(np.ones_like)
def ones_like(ctx, a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dt, shape_value, dims = _like(ctx, "np.ones_like", a, dtype, shape)
    return _constant_of_shape(ctx, shape_value, dims, np.ones((), dt))


@register(np.full_like)
def full_like(ctx, a, fill_value, dtype=None, order="K", subok=True, shape=None, *,
              device=None):
    dt, shape_value, dims = _like(ctx, "np.full_like", a, dtype, shape)
    return _fill(ctx, "np.full_like", shape_value, dims, fill_value, dt)

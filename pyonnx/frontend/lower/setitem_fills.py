"""Slice writes into a freshly filled array (``np.zeros``, ``np.empty``, ``np.full`` of a
scalar: a ``ConstantOfShape``): the regions a write leaves are made anew at their own shapes.

Input: the array ``x`` written to by :mod:`setitem_basic`'s concat form and the normalized
bounds of a region of it. Output: the region's values without slicing ``x`` (``filled_piece``),
and x's dimensions read from the fill's shape vector, not ``Shape(x)`` (``length``), so that
``y = np.zeros(3 * n); y[n:] = v`` never materializes the whole zeros array (it was 0.34 ms of
a 1e6-element write, and kept alive only by the slices and shape reads). Where onnxruntime's
``Pad`` runs the dtype, the whole write is one ``Pad`` of the value with the fill value
(``padded``), for fills and for constants of one value (``np.full`` of a static shape).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes

from pyonnx.frontend.graph.values import Array

__all__ = ["filled", "filled_piece", "length", "can_pad", "padded", "large",
           "padded_unless_broadcast"]

# dtypes onnxruntime's CPU Pad (opset 19 and 21) runs (measured, onnxruntime 1.32: int16 and
# uint16 have no kernel, fuzz seed 24006591 failed to load): the others take the Concat form.
_PAD_DTYPES = frozenset(np.dtype(t) for t in (
    np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.uint32, np.uint64,
    np.bool_))


def length(ctx, x: Array, a: int) -> Any:
    """Dimension ``a`` of ``x``: an int when known, else an int64 (1,) value (from the fill's
    shape vector when ``x`` is a fill: Shape(x) would keep x alive)."""
    d = x.shape[a]
    if d is not None:
        return d
    fill = filled(x)
    if fill is not None:
        return ctx.op("Slice", fill.inputs[0], ctx.const(np.array([a], np.int64)),
                      ctx.const(np.array([a + 1], np.int64)))
    return ctx.op("Shape", x, start=a, end=a + 1)


def filled(x: Array):
    """The ``ConstantOfShape`` node that made ``x`` (``np.zeros(n)``, ``np.empty``, ``np.full``
    with a scalar), or None."""
    producer = x.value.producer()
    if producer is None or producer.op_type != "ConstantOfShape" or producer.domain != "":
        return None
    return producer


def filled_piece(ctx, b, x: Array, fill, bounds: list, end_marker: int) -> Any:
    """A region of a filled array made anew at its own shape, not sliced out of the whole one
    (``y = np.zeros(3 * n); y[n:] = v``: the whole array is then never materialized).

    Args:
        b: setitem_basic's bound arithmetic (``sub``, ``value``).
        x: the filled array; ``fill`` its ConstantOfShape node (:func:`filled`).
        bounds: ``(axis, lo, hi)`` of the region's restricted axes, normalized
            (0 <= lo <= hi <= length; ``hi`` may be ``end_marker``: to the end).
    """
    dims: list[Any] = []
    for axis in range(x.ndim):
        d: Any = x.shape[axis] if isinstance(x.shape[axis], int) else None
        for a, lo, hi in bounds:
            if a == axis:
                end = d if isinstance(hi, int) and hi == end_marker else hi
                if end is None:
                    end = length(ctx, x, axis)
                d = b.sub(end, lo)
        dims.append(length(ctx, x, axis) if d is None else d)
    shape = ctx.const(np.array(dims, np.int64)) if all(isinstance(d, int) for d in dims) else \
        ctx.op("Concat", *[b.value(d) for d in dims], axis=0)
    value = fill.attributes.get("value")
    attrs = {} if value is None else {"value": value.value}
    return ctx.op("ConstantOfShape", shape, **attrs)


def can_pad(dtype: np.dtype) -> bool:
    """Whether :func:`padded` may write an array of ``dtype``."""
    return np.dtype(dtype) in _PAD_DTYPES


def fill_value(x: Array) -> np.ndarray | None:
    """The one value every element of ``x`` holds, as a 0-d array of x's dtype, when ``x`` is a
    fill (:func:`filled`) or a constant whose elements are bit-identical (``np.full((640, 640,
    3), 114, np.uint8)`` of a static shape is folded to one); else None."""
    fill = filled(x)
    if fill is not None:
        value = fill.attributes.get("value")
        if value is None:
            return np.zeros((), x.dtype)
        return np.asarray(value.value.numpy()).reshape(()).astype(x.dtype)
    const = x.value.const_value
    if const is None:
        return None
    arr = np.asarray(const.numpy())
    if arr.size == 0 or arr.dtype != x.dtype or arr.dtype.itemsize not in (1, 2, 4, 8):
        return None
    bits = np.ascontiguousarray(arr).reshape(-1).view(f"u{arr.dtype.itemsize}")
    if not (bits == bits[0]).all():  # bit-identical: -0.0 is not 0.0, any NaN is itself
        return None
    return np.array(arr.reshape(-1)[0], dtype=arr.dtype)


def _pads(ctx, b, x: Array, spans: list) -> Any:
    begin: list[Any] = [0] * x.ndim
    end: list[Any] = [0] * x.ndim
    for a, lo, hi in spans:
        begin[a] = lo
        end[a] = b.sub(length(ctx, x, a), hi)
    parts = begin + end
    return ctx.const(np.array(parts, np.int64)) if all(isinstance(p, int) for p in parts) \
        else ctx.op("Concat", *[b.value(p) for p in parts], axis=0)


def padded(ctx, b, x: Array, cv: np.ndarray, spans: list, inner: Array) -> Any:
    """``x`` (every element ``cv``: :func:`fill_value`) after ``x[region] = inner`` as one
    ``Pad`` of ``inner`` with ``cv``: one pass over the result, where the nested ``Concat``
    form writes it once per partial axis (letterbox, 480x640x3 into 640x640x3: 47 µs against
    about 100).

    Args:
        b: setitem_basic's bound arithmetic.
        spans: ``(axis, lo, hi)`` of the written region's partial axes, normalized
            (0 <= lo <= hi <= length).
        inner: the written values, of the region's shape (checked before).
    """
    return ctx.op("Pad", inner, _pads(ctx, b, x, spans), ctx.const(cv), mode="constant")


def large(x: Array) -> bool:
    """``x`` has a static shape of at least :data:`_LARGE` elements: worth an ``If`` (1-3 µs)
    to skip a copy of the value (:func:`padded_unless_broadcast`)."""
    return None not in x.shape and int(np.prod(x.shape, dtype=np.int64)) >= _LARGE


_LARGE = 1 << 16


def padded_unless_broadcast(ctx, b, x: Array, cv: np.ndarray, spans: list, v: Array,
                            sel: Any, checked: Callable[[Any], Array]) -> Any:
    """:func:`padded` of ``v`` (aligned to x's rank, its shape unknown now) when its run-time
    shape is the selection's ``sel`` (an int64 vector), else of ``checked(ctx)`` (``v``
    expanded to ``sel`` and checked, emitted in the branch): ``If(Shape(v) == sel, Pad(v),
    Pad(checked))``. The ``Expand`` a broadcast needs is a full copy of the value even when
    nothing broadcasts (letterbox 480x640x3: 19 µs of 53); the branches' Pads make the result
    (no copy out of the If)."""
    pads, fill = _pads(ctx, b, x, spans), ctx.const(cv)
    same = ctx.op("Equal", ctx.op("Shape", v), sel)
    flag = ctx.op("Cast", ctx.op("ReduceMin", ctx.op("Cast", same, to=ir.DataType.INT64),
                                 keepdims=0), to=ir.DataType.BOOL)
    branches = []
    for label, make in (("then", lambda ctx: v), ("else", checked)):
        with ctx.subgraph() as nodes:
            out = ctx.op("Pad", make(ctx), pads, fill, mode="constant")
        out.type = ir.TensorType(dtypes.to_ir(x.dtype))
        branches.append(ir.Graph([], [out], nodes=nodes,
                                 name=f"{ctx.function_name}_pad_{label}"))
    value = ctx.op("If", flag, then_branch=branches[0], else_branch=branches[1])
    value.type = ir.TensorType(dtypes.to_ir(x.dtype))
    value.shape = ir.Shape(list(x.shape))
    return value

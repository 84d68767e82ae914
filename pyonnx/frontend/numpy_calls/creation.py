"""Array creation: ``np.array``/``np.asarray`` from nested lists and tuples of values and arrays.

Supported syntax: ``np.array(obj, dtype=None, copy=True)`` and ``np.asarray(obj, dtype=None)``
where ``obj`` is an Array, a static value, or nested lists/tuples mixing both (the elements are
stacked along a new leading axis, as numpy does; their shapes must agree). In ``np.array``,
Python scalars are not weak: ``np.array([np.float32(1), 2.0])`` is float64, as in numpy.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.lower.values import Array, is_static
from pyonnx.frontend.numpy_calls import register


def _strong(ctx, a: Array) -> Array:
    return Array(a.value, a.dtype, a.shape) if a.weak else a


def _build(ctx, obj) -> Array:
    if isinstance(obj, Array):
        return _strong(ctx, obj)
    if not isinstance(obj, (list, tuple)) or is_static(obj):
        try:
            arr = np.array(obj)
        except ValueError as e:
            raise ctx.error(f"np.array: {e}") from None
        return ctx.const_array(arr)
    if len(obj) == 0:
        return ctx.const_array(np.array([], dtype=np.float64))
    items = [_build(ctx, o) for o in obj]
    ranks = {a.ndim for a in items}
    if len(ranks) != 1:
        raise ctx.error("np.array: the nested sequences have different ranks (an inhomogeneous "
                        "shape, which numpy refuses)")
    dtype = np.result_type(*(a.dtype for a in items))
    axis0 = np.array([0], dtype=np.int64)
    parts = [ctx.op("Unsqueeze", ctx.cast(a, dtype), ctx.const(axis0)) for a in items]
    first = items[0].shape
    shape = tuple(d if all(a.shape[i] == d for a in items) else None for i, d in enumerate(first))
    value = parts[0] if len(parts) == 1 else ctx.op("Concat", *parts, axis=0)
    return Array(value, dtype, (len(items),) + shape)


@register(np.array, np.asarray, np.asanyarray, np.ascontiguousarray)
def array(ctx, obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, like=None):
    dt = np.dtype(ctx.static(dtype, "dtype")) if dtype is not None else None
    out = _build(ctx, obj)
    if dt is not None:
        out = ctx.cast(out, dt)
    ndmin = ctx.static(ndmin, "ndmin")
    if ndmin > out.ndim:
        extra = ndmin - out.ndim
        out = Array(ctx.op("Unsqueeze", out, ctx.const(np.arange(extra, dtype=np.int64))),
                    out.dtype, (1,) * extra + out.shape)
    return out

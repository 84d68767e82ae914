"""Arrays from data: ``np.array``, ``np.asarray``, ``np.asanyarray``, ``np.ascontiguousarray``.

Input: ``obj`` as an Array, a static value, or nested lists/tuples mixing both, and ``dtype``,
``copy``, ``ndmin`` static. Output: a strong Array: the elements of nested sequences are stacked
along new leading axes as numpy does (their shapes must agree); with ``dtype=`` each element is
converted to it directly, as numpy does. ``copy=True`` always makes a new array, ``copy=None``
(``np.asarray``) returns an Array that needs no conversion as it is, ``copy=False`` refuses
where a copy is needed (numpy raises ValueError).

Supported syntax::

    np.array(obj, dtype=None, copy=True, ndmin=0), np.asarray / np.asanyarray(a, dtype=None,
    copy=None), np.ascontiguousarray(a, dtype=None)
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import dtypes, scalar_kinds, sequences
from pyonnx.frontend.graph.values import Array, Seq, is_static
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.creation.common import _dtype, _i64, _refuse_order


def _build(ctx, obj, dtype: np.dtype | None) -> Array:
    """``np.array(obj, dtype)`` for an Array, a static value, or nested sequences of both."""
    if isinstance(obj, Array):
        out = Array(obj.value, obj.dtype, obj.shape)   # strong, and a new array object
        return ctx.cast(out, dtype) if dtype is not None else out
    if not isinstance(obj, (list, tuple)) or is_static(obj):
        try:
            arr = np.array(obj, dtype=dtype)
        except (ValueError, TypeError, OverflowError) as e:
            raise ctx.error(f"np.array: {type(e).__name__}: {e}") from None
        if arr.dtype not in dtypes.SUPPORTED_DTYPES:
            raise ctx.error(f"np.array: arrays of dtype {arr.dtype} are not supported")
        return ctx.const_array(arr)
    items = [_build(ctx, o, dtype) for o in obj]
    ranks = {a.ndim for a in items}
    if len(ranks) != 1:
        raise ctx.error("np.array: the nested sequences have different ranks (an inhomogeneous "
                        "shape, which numpy refuses)")
    first = items[0].shape
    for a in items[1:]:
        for p, q in zip(a.shape, first):
            if p is not None and q is not None and p != q:
                raise ctx.error("np.array: the nested sequences have different lengths (an "
                                "inhomogeneous shape, which numpy refuses)")
    dt = dtype if dtype is not None else np.result_type(*(a.dtype for a in items))
    axis0 = _i64(ctx, [0])
    parts = [ctx.op("Unsqueeze", ctx.cast(a, dt), axis0) for a in items]
    shape = tuple(next((a.shape[i] for a in items if a.shape[i] is not None), None)
                  for i in range(len(first)))
    value = parts[0] if len(parts) == 1 else ctx.op("Concat", *parts, axis=0)
    return Array(value, dt, (len(items),) + shape)


def _array(ctx, name: str, obj, dtype, ndmin=0, copy=True) -> Array:
    """``np.array``: ``copy`` True always makes a new array; None returns ``obj`` itself when
    it needs no conversion (``np.asarray``); False also, and refuses when it would need one."""
    dt = _dtype(ctx, name, dtype)
    if hasattr(type(obj), "__pyonnx_array__"):  # np.poly1d: numpy's __array__, its coeffs
        obj = obj.__pyonnx_array__()
    if isinstance(obj, Seq):  # a list built at run time
        # With a dtype, a list of numbers is exact even when empty (np.array([], np.int64) has
        # shape (0,)); without one numpy makes an empty list float64, which fails the run.
        obj = sequences.stacked(ctx, obj, name) if dt is not None and not obj.shape \
            else sequences.to_array(ctx, obj)
    ndmin = ctx.static(ndmin, "ndmin")
    copy = ctx.static(copy, "copy")
    if copy is not True:
        # not 'dt in (None, ...)': np.dtype('float64') == None is True
        same = isinstance(obj, Array) and not obj.weak and (dt is None or dt == obj.dtype) \
            and ndmin <= obj.ndim
        if same and obj.ndim == 0 and scalar_kinds.scalar_kind(ctx, obj) == "unknown":
            # numpy returns the array itself on the paths where it is one, a new 0-d array
            # where it is a numpy scalar (np.asarray's result: view_calls.after_call makes
            # writes through either refused or seen)
            if name not in ("np.asarray", "np.asanyarray"):
                raise ctx.error(
                    f"{name}(..., copy=None/False) of a 0-d value that is a 0-d array on some "
                    "paths of a run-time 'if' or loop and a numpy scalar on others: numpy "
                    "returns the array itself on the first and a new array on the second; "
                    "use np.array(v) for a copy")
            return Array(ctx.op("Identity", obj), obj.dtype, ())
        if same and obj.ndim == 0 and not scalar_kinds.is_array0d(ctx, obj):
            # a numpy scalar: numpy makes a new 0-d array of it (view_calls marks the result)
            return Array(ctx.op("Identity", obj), obj.dtype, ())
        if same:
            return obj
        if copy is False:
            raise ctx.error(f"{name}(..., copy=False): a copy is needed here (numpy raises "
                            "ValueError); use copy=None")
    out = _build(ctx, obj, dt)
    if ndmin > out.ndim:
        extra = ndmin - out.ndim
        out = Array(ctx.op("Unsqueeze", out, _i64(ctx, list(range(extra)))),
                    out.dtype, (1,) * extra + out.shape)
    return out


@register(np.array)
def array(ctx, object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    _refuse_order(ctx, "np.array", order, like)
    return _array(ctx, "np.array", object, dtype, ndmin, copy)


@register(np.asarray, np.asanyarray)
def asarray(ctx, a, dtype=None, order=None, *, device=None, copy=None, like=None):
    _refuse_order(ctx, "np.asarray", order, like)
    return _array(ctx, "np.asarray", a, dtype, 0, copy)


@register(np.ascontiguousarray)
def ascontiguousarray(ctx, a, dtype=None, *, like=None):
    _refuse_order(ctx, "np.ascontiguousarray", None, like)
    return _array(ctx, "np.ascontiguousarray", a, dtype, 1, None)

"""Cumulative reductions: ``np.cumsum``, ``np.cumprod``, ``np.maximum.accumulate`` and
``np.minimum.accumulate``.

Input: an Array (or anything ``np.asarray`` takes), ``axis`` and ``dtype`` static (``axis=None``
flattens). Output: an Array of numpy's accumulation dtype. Integers accumulate exactly in int64,
wrapping like numpy (``cumprod`` is a Hillis-Steele scan in a ``Loop``, see :mod:`.exact`).

Not bit for bit (float rounding order only, within a few ulps): float ``cumprod`` (computed one
dtype wider) and float16 ``cumsum`` (numpy rounds every partial sum to float16).

``np.maximum.accumulate``/``np.minimum.accumulate`` are exact (a doubling scan of
``np.maximum``, blocked for 1-d arrays, NaN propagating as numpy's: :mod:`.doubling`).

Supported syntax::

    np.cumsum / np.cumprod(a, axis=None, dtype=None)                    a.cumsum(...)
    np.maximum.accumulate / np.minimum.accumulate(a, axis=0)
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.reductions.common import (
    _BOOL,
    _F16,
    _F32,
    _I64,
    _SUM_ACC,
    _arr,
    _axis1,
    _flatten,
    _i64,
    _refuse,
    _static_dtype,
)
from pyonnx.frontend.numpy_calls.reductions.doubling import numpy_extreme_accumulate
from pyonnx.frontend.numpy_calls.reductions.exact import _cumprod_along
from pyonnx.frontend.numpy_calls.reductions.sums import _sum_dtype


def _cum(ctx, name: str, a, axis, dtype, out, product: bool) -> Array:
    _refuse(ctx, name, out)
    x = _arr(ctx, a)
    axis = ctx.static(axis, "axis")
    if axis is None or (x.ndim == 0 and type(axis) is int and axis in (0, -1)):
        x, k = _flatten(ctx, x), 0
    else:
        k = _axis1(ctx, name, x, axis)
    t = _static_dtype(ctx, dtype) or _sum_dtype(x.dtype)
    if t.kind == "b":
        raise ctx.error(f"{name} with dtype=bool is not supported; use np.logical_or.accumulate "
                        "semantics explicitly")
    if t.kind in "iu":
        wide = ctx.cast(ctx.cast(x, t), _I64)  # int64 arithmetic wraps like numpy's
        if product:
            r = _cumprod_along(ctx, wide, k)
        else:
            r = Array(ctx.op("CumSum", wide, _i64(ctx, k)), _I64, x.shape)
        return ctx.cast(r, t)
    xt = ctx.cast(x, t)
    if product:
        # Float products scan in a wider dtype: the scan multiplies in another order than
        # numpy's running product, so rounding is kept below numpy's own.
        return ctx.cast(_cumprod_along(ctx, ctx.cast(xt, _SUM_ACC[t]), k), t)
    # float16 runs in float32 (numpy rounds each partial sum to float16: a few ulps apart).
    run = _F32 if t == _F16 else kernels.compute_dtype("CumSum", t)
    r = Array(ctx.op("CumSum", ctx.cast(xt, run), _i64(ctx, k)), run, x.shape)
    return ctx.cast(r, t)


@register(np.cumsum, methods=("cumsum",))
def cumsum(ctx, a, axis=None, dtype=None, out=None):
    return _cum(ctx, "np.cumsum", a, axis, dtype, out, False)


@register(np.cumprod, methods=("cumprod",))
def cumprod(ctx, a, axis=None, dtype=None, out=None):
    return _cum(ctx, "np.cumprod", a, axis, dtype, out, True)


def _bool_extreme_accumulate(ctx, x: Array, k: int, is_max: bool) -> Array:
    """np.maximum.accumulate of bools is a running ``or`` (True from the first True on), the
    minimum's a running ``and``: a count of the Trues (of the Falses) seen so far, compared
    with 0."""
    seen = x if is_max else Array(ctx.op("Not", x.value), _BOOL, x.shape)
    count = ctx.op("CumSum", ctx.cast(seen, _I64).value, _i64(ctx, k))
    zero = ctx.const(np.array(0, np.int64))
    hit = ctx.op("Greater", count, zero) if is_max else ctx.op("Equal", count, zero)
    return Array(hit, _BOOL, x.shape)


def _extreme_accumulate(is_max: bool):
    name = f"np.{'maximum' if is_max else 'minimum'}.accumulate"

    def lower(ctx, array, axis=0, dtype=None, out=None):
        _refuse(ctx, name, out)
        if dtype is not None:
            raise ctx.error(f"{name} with dtype= is not supported; cast the array first")
        x = _arr(ctx, array)
        if x.ndim == 0:
            raise ctx.error(f"{name} of a 0-d array (numpy raises ValueError)")
        if x.dtype.kind not in "biuf":
            raise ctx.error(f"{name} of {x.dtype} is not supported")
        k = _axis1(ctx, name, x, ctx.static(axis, "axis"))
        if x.dtype.kind == "b":
            return _bool_extreme_accumulate(ctx, x, k, is_max)
        return numpy_extreme_accumulate(ctx, x, k, is_max)

    lower.__name__ = f"{'maximum' if is_max else 'minimum'}_accumulate"
    return lower


register(np.maximum.accumulate, name="numpy.maximum.accumulate")(_extreme_accumulate(True))
register(np.minimum.accumulate, name="numpy.minimum.accumulate")(_extreme_accumulate(False))

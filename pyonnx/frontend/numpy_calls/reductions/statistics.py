"""Statistics: mean, nanmean, var, std, median and average.

Input: an Array (or anything ``np.asarray`` takes) and numpy's keywords, ``axis``, ``keepdims``,
``ddof`` and ``dtype`` static. Output: an Array of numpy's result dtype (float64 for integer and
bool inputs) and static shape. ``mean``/``var`` divide in float64 by the element count and cast
back, as numpy's ``true_divide(ret, intp(count), out=ret, casting='unsafe')`` does; ``median`` is
the mean of the middle one or two values from TopK (NaN if any NaN). ``np.average`` with weights
summing to zero fails at run time (numpy raises ZeroDivisionError).

Supported syntax::

    np.mean(a, axis=None, dtype=None, keepdims=False)                   a.mean(...)
    np.var / np.std(a, axis=None, dtype=None, ddof=0, keepdims=False, mean=..., correction=...)
    np.nanmean(a, axis=None, dtype=None, keepdims=False)
    np.median(a, axis=None, keepdims=False)
    np.average(a, axis=None, weights=None, returned=False, keepdims=False)
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph.shapes import broadcast_shapes, normalize_axis
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.reductions.common import (
    _BOOL,
    _F16,
    _F32,
    _F64,
    _I64,
    _NOVALUE,
    _arr,
    _as_f64,
    _axes,
    _binary,
    _count,
    _div_f64,
    _flatten,
    _i64,
    _ordered,
    _refuse,
    _static_bool,
    _static_dtype,
    _unsqueeze,
    binary_ufunc,
    emit,
    reduce_any,
    select,
    widen_f16,
)
from pyonnx.frontend.numpy_calls.reductions.masked import has_where, mask, masked
from pyonnx.frontend.numpy_calls.reductions.sums import _zero_nans, reduce_sum


def _is_result_scalar(shape: tuple, keepdims: bool) -> bool:
    # numpy's reductions return a numpy scalar (not an array) for 0-d results without keepdims;
    # its mean/var then round once from float64 instead of through the array's dtype.
    return len(shape) == 0 and not keepdims


def _mean(ctx, x: Array, axes: tuple[int, ...], dtype: np.dtype | None,
          keepdims: bool, count: Array | None = None) -> Array:
    """numpy's ``_methods._mean``; ``count``: the number of elements each result combines
    (``where=``), else the size of the reduced axes."""
    f16_result = False
    t = dtype
    if t is None:
        if x.dtype.kind in "biu":
            t = _F64
        elif x.dtype == _F16:
            t, f16_result = _F32, True
        else:
            t = x.dtype
    total = reduce_sum(ctx, x, axes, keepdims, t)
    q = _div_f64(ctx, total, _count(ctx, x, axes) if count is None else count)
    if f16_result:
        if not _is_result_scalar(total.shape, keepdims):
            q = ctx.cast(q, t)  # true_divide(..., out=ret) stores float32 first
        return ctx.cast(q, _F16)
    return ctx.cast(q, t)


@register(np.mean, methods=("mean",))
def mean(ctx, a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    _refuse(ctx, "np.mean", out)
    x = _arr(ctx, a)
    axes = _axes(ctx, "np.mean", x, axis, False)
    kd = _static_bool(ctx, keepdims, "keepdims")
    if not has_where(where):
        return _mean(ctx, x, axes, _static_dtype(ctx, dtype), kd)
    # numpy's _count_reduce_items with where: the selected elements per result
    count = reduce_sum(ctx, mask(ctx, "np.mean", x, where), axes, kd, np.dtype(np.int64))
    return _mean(ctx, masked(ctx, "np.mean", x, where, 0), axes, _static_dtype(ctx, dtype), kd,
                 count)


@register(np.nanmean, limits={"where": "refused (mask with np.where first)"})
def nanmean(ctx, a, axis=None, dtype=None, out=None, keepdims=_NOVALUE, *, where=_NOVALUE):
    _refuse(ctx, "np.nanmean", out, where)
    x = _arr(ctx, a)
    axes = _axes(ctx, "np.nanmean", x, axis, False)
    dt = _static_dtype(ctx, dtype)
    kd = _static_bool(ctx, keepdims, "keepdims")
    if x.dtype.kind != "f":
        return _mean(ctx, x, axes, dt, kd)
    if dt is not None and dt.kind != "f":
        raise ctx.error("np.nanmean: if a is inexact, then dtype must be inexact")
    isnan = ctx.op("IsNaN", widen_f16(ctx, x))
    valid = Array(ctx.op("Not", isnan), _BOOL, x.shape)
    cnt = reduce_sum(ctx, valid, axes, kd, _I64)
    tot = reduce_sum(ctx, _zero_nans(ctx, x), axes, kd, dt or x.dtype)
    # _divide_by_count: divide(tot, cnt, out=tot, casting='unsafe'), a float64 loop.
    q = _binary(ctx, "Div", ctx.cast(tot, _F64), ctx.cast(cnt, _F64))
    return ctx.cast(q, tot.dtype)


def _var(ctx, name: str, a, axis, dtype, out, ddof, keepdims, where, mean_, correction,
         std: bool) -> Array:
    """numpy's ``_methods._var`` (and ``_std``: its square root)."""
    _refuse(ctx, name, out, where)
    x = _arr(ctx, a)
    if x.dtype.kind not in "biuf":
        raise ctx.error(f"{name} of {x.dtype} is not supported")
    axes = _axes(ctx, name, x, axis, False)
    kd = _static_bool(ctx, keepdims, "keepdims")
    ddof = ctx.static(ddof, "ddof")
    if correction is not _NOVALUE:
        correction = ctx.static(correction, "correction")
        if ddof != 0:
            raise ctx.error(f"{name}: ddof and correction can't be provided simultaneously")
        ddof = correction
    if not isinstance(ddof, (int, float, np.integer, np.floating)) or isinstance(ddof, bool):
        raise ctx.error(f"{name}: ddof must be a number, not {ddof!r}")
    t = _static_dtype(ctx, dtype)
    if t is None and x.dtype.kind in "biu":
        t = _F64
    count = _count(ctx, x, axes)
    if mean_ is not _NOVALUE:
        arrmean = ctx.asarray(mean_)
    else:
        total = reduce_sum(ctx, x, axes, True, t or x.dtype)
        # true_divide(arrmean, intp(count), out=arrmean, casting='unsafe')
        arrmean = ctx.cast(_div_f64(ctx, total, count), total.dtype)
    dev = binary_ufunc(ctx, np.subtract, x, arrmean)
    sq = binary_ufunc(ctx, np.multiply, dev, dev)
    ret = reduce_sum(ctx, sq, axes, kd, t or sq.dtype)
    # rcount = maximum(rcount - ddof, 0), then true_divide in float64 (rcount is an intp).
    if isinstance(count, int):
        rcount: int | float | Array = max(count - ddof, 0)
    else:
        diff = _binary(ctx, "Sub", ctx.cast(count, _F64), ctx.const_array(np.float64(ddof)))
        rcount = _binary(ctx, "Max", diff, ctx.const_array(np.float64(0)))
    r = ctx.cast(_div_f64(ctx, ret, rcount), ret.dtype)
    if std:
        if r.dtype.kind != "f":
            raise ctx.error(f"{name} with an integer dtype= is not supported; use a float dtype")
        r = emit(ctx, "Sqrt", [r], r.dtype)
    return r


@register(np.var, methods=("var",), limits={"where": "refused (mask with np.where first)"})
def var(ctx, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=_NOVALUE, correction=_NOVALUE):
    return _var(ctx, "np.var", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                False)


@register(np.std, methods=("std",), limits={"where": "refused (mask with np.where first)"})
def std(ctx, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=_NOVALUE, correction=_NOVALUE):
    return _var(ctx, "np.std", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                True)


@register(np.median)
def median(ctx, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """numpy's ``_median``: the mean of the middle one or two sorted values (NaN if any NaN).

    The smallest ``n // 2 + 1`` values come from TopK, so the middle ones are its last one or
    two; their mean follows ``np.mean``'s dtypes and rounding exactly.
    """
    _refuse(ctx, "np.median", out)
    x = _arr(ctx, a)
    kd = _static_bool(ctx, keepdims, "keepdims")
    axes = _axes(ctx, "np.median", x, axis, False)
    if x.ndim == 0:
        # A 0-d input stays 0-d, keepdims or not.
        x, axes, kd = _flatten(ctx, x), (0,), False
    nd = x.ndim
    kept = [i for i in range(nd) if i not in axes]
    # The reduced axes merged into the last one (numpy's _ureduce does the same).
    perm = kept + list(axes)
    if perm != list(range(nd)):
        x = Array(ctx.op("Transpose", x, perm=perm), x.dtype, tuple(x.shape[p] for p in perm))
    if len(axes) > 1:
        count = _count(ctx, x, tuple(range(len(kept), nd)))
        kept_shape = x.shape[:len(kept)]
        tail = _i64(ctx, [count]) if isinstance(count, int) else \
            ctx.op("Unsqueeze", count.value, _i64(ctx, [0]))
        target = ctx.op("Concat", ctx.op("Shape", x, start=0, end=len(kept)), tail, axis=0)
        x = Array(ctx.op("Reshape", x, target, allowzero=1), x.dtype,
                  kept_shape + (count if isinstance(count, int) else None,))
    k = x.ndim - 1
    n_static = x.shape[k]
    out_shape = x.shape[:k]
    if n_static == 0:
        # numpy: the mean of an empty slice, nan (with a RuntimeWarning).
        nan_dt = _F64 if x.dtype.kind in "biu" else x.dtype
        r = Array(ctx.op("ConstantOfShape", ctx.shape_of(Array(x.value, x.dtype, out_shape))
                         if all(d is not None for d in out_shape) else
                         ctx.op("Shape", x, start=0, end=k),
                         value=ir.tensor(np.array([np.nan], nan_dt))), nan_dt, out_shape)
        return _unsqueeze(ctx, r, list(axes)) if kd else r
    fwd, back = _ordered(ctx, x.dtype)
    xm = fwd(x)
    n = _i64(ctx, n_static) if n_static is not None else \
        ctx.op("Squeeze", ctx.op("Shape", x, start=k, end=k + 1), _i64(ctx, [0]))
    if n_static is None:
        # Append the largest value, so TopK has an element even when n is 0 (the result is
        # then NaN, as numpy's mean of an empty slice) and the smallest n//2 + 1 are unchanged.
        big = np.inf if xm.dtype.kind == "f" else np.iinfo(xm.dtype).max
        shape = ctx.op("Concat", ctx.op("Shape", xm, start=0, end=k), _i64(ctx, [1]), axis=0)
        column = ctx.op("ConstantOfShape", shape, value=ir.tensor(np.array([big], xm.dtype)))
        xm = Array(ctx.op("Concat", xm, column, axis=k), xm.dtype, xm.shape)
    half = ctx.op("Div", n, _i64(ctx, 2))
    count_k = ctx.op("Unsqueeze", ctx.op("Add", half, _i64(ctx, 1)), _i64(ctx, [0]))
    smallest, _ = ctx.op("TopK", xm, count_k, axis=k, largest=0, sorted=1, outputs=2)
    lo_i = ctx.op("Unsqueeze", ctx.op("Div", ctx.op("Sub", n, _i64(ctx, 1)), _i64(ctx, 2)),
                  _i64(ctx, [0]))
    hi_i = ctx.op("Unsqueeze", half, _i64(ctx, [0]))
    col_shape = x.shape[:k] + (1,)
    lo = back(Array(ctx.op("Gather", smallest, lo_i, axis=k), xm.dtype, col_shape))
    hi = back(Array(ctx.op("Gather", smallest, hi_i, axis=k), xm.dtype, col_shape))
    odd = _mean(ctx, lo, (k,), None, False)
    pair = Array(ctx.op("Concat", lo, hi, axis=k), x.dtype, x.shape[:k] + (2,))
    even = _mean(ctx, pair, (k,), None, False)
    if n_static is not None:
        r = odd if n_static % 2 else even
    else:
        is_odd = ctx.op("Equal", ctx.op("Mod", n, _i64(ctx, 2)), _i64(ctx, 1))
        r = select(ctx, is_odd, odd, even, out_shape)
        empty = ctx.op("Equal", n, _i64(ctx, 0))
        r = select(ctx, empty, ctx.const_array(np.array(np.nan, r.dtype)), r, out_shape)
    if x.dtype.kind == "f":
        # numpy's _median_nancheck: any NaN makes the median NaN.
        nan = reduce_any(ctx, Array(ctx.op("IsNaN", widen_f16(ctx, x)), _BOOL, x.shape), (k,),
                         False)
        r = select(ctx, nan.value, ctx.const_array(np.array(np.nan, r.dtype)), r, out_shape)
    return _unsqueeze(ctx, r, list(axes)) if kd else r


@register(np.average)
def average(ctx, a, axis=None, weights=None, returned=False, *, keepdims=_NOVALUE):
    x = _arr(ctx, a)
    axis_s = ctx.static(axis, "axis")
    axes = _axes(ctx, "np.average", x, axis_s, False)
    kd = _static_bool(ctx, keepdims, "keepdims")
    returned = _static_bool(ctx, returned, "returned")
    if weights is None:
        avg = _mean(ctx, x, axes, None, kd)
        if not returned:
            return avg
        # scl = avg.dtype.type(a.size / avg.size): the reduced element count.
        count = _count(ctx, x, axes)
        scl = ctx.cast(_as_f64(ctx, count), avg.dtype)
        return avg, _broadcast_to(ctx, scl, avg)
    w = _arr(ctx, weights)
    if w.ndim != x.ndim or any(p is not None and q is not None and p != q
                               for p, q in zip(w.shape, x.shape)):
        if axis_s is None:
            raise ctx.error("np.average: axis must be specified when shapes of a and weights "
                            "differ")
        wanted = tuple(x.shape[ax] for ax in _axes_in_order(ctx, x, axis_s))
        if w.ndim != len(wanted) or any(p is not None and q is not None and p != q
                                        for p, q in zip(w.shape, wanted)):
            raise ctx.error("np.average: shape of weights must be consistent with shape of a "
                            "along specified axis")
        order = _axes_in_order(ctx, x, axis_s)
        perm = [int(p) for p in np.argsort(order)]
        if perm != list(range(len(perm))):
            w = Array(ctx.op("Transpose", w, perm=perm), w.dtype, tuple(w.shape[p] for p in perm))
        w = _unsqueeze(ctx, w, [i for i in range(x.ndim) if i not in axes])
    if x.dtype.kind in "biu":
        rt = np.result_type(x.dtype, w.dtype, np.float64)
    else:
        rt = np.result_type(x.dtype, w.dtype)
    scl = reduce_sum(ctx, w, axes, kd, rt)
    # numpy raises ZeroDivisionError when a weight sum is 0: fail at run time there too.
    sclw = widen_f16(ctx, scl)
    zero = ctx.op("Equal", sclw, ctx.const(np.array(0, sclw.dtype)))
    bad = reduce_any(ctx, Array(zero, _BOOL, scl.shape), tuple(range(scl.ndim)), False)
    ok = ctx.cast(Array(ctx.op("Not", bad), _BOOL, ()), _I64)
    check = ctx.op("Range", _i64(ctx, 0), _i64(ctx, 1), ok)
    axes_value = ctx.op("Add", _i64(ctx, axes), check) if axes else None
    # np.multiply(a, wgt, dtype=result_dtype): both operands cast, multiplied in result_dtype.
    prod_ = emit(ctx, "Mul", [ctx.cast(x, rt), ctx.cast(w, rt)], rt)
    total = reduce_sum(ctx, prod_, axes, kd, rt, axes_value=axes_value)
    avg = binary_ufunc(ctx, np.true_divide, total, scl)
    if not returned:
        return avg
    return avg, _broadcast_to(ctx, scl, avg)


def _axes_in_order(ctx, x: Array, axis) -> tuple[int, ...]:
    axis = axis if isinstance(axis, tuple) else (axis,)
    try:
        return tuple(normalize_axis(int(a), x.ndim) for a in axis)
    except ValueError as e:
        raise ctx.error(f"np.average: {e}") from None


def _broadcast_to(ctx, v: Array, like: Array) -> Array:
    if v.shape == like.shape:
        return v
    shape = broadcast_shapes(v.shape, like.shape)
    return Array(ctx.op("Expand", v, ctx.shape_of(like)), v.dtype, shape)

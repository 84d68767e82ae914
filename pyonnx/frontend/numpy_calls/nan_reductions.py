"""The NaN-ignoring reductions: ``np.nanprod``, ``nanmax``, ``nanmin``, ``nanargmax``,
``nanargmin``, ``nanvar``, ``nanstd``, ``nancumsum``, ``nancumprod`` (``nansum`` and
``nanmean`` live with ``sum`` and ``mean`` in :mod:`.reductions`).

Input: an Array (or anything ``np.asarray`` takes) and numpy's keywords, ``axis``,
``keepdims``, ``ddof`` and ``dtype`` known at conversion time. Output: numpy's result, value,
dtype and shape. Each follows numpy's own implementation (``numpy/lib/_nanfunctions_impl.py``)
step by step on top of the plain reductions, so dtypes and rounding are theirs:

* arrays that cannot hold NaN (bool, integers) go to the plain reduction, as numpy's do;
* ``nanprod``/``nancumsum``/``nancumprod``: NaN replaced by 1, 0, 1;
* ``nanmax``/``nanmin``: numpy's ``fmax.reduce``/``fmin.reduce``: NaN replaced by -inf/+inf,
  and NaN where every element of a slice is NaN (without ``initial``); an empty reduction
  without ``initial`` is numpy's ValueError (at conversion when the shapes say so, else at
  run time);
* ``nanargmax``/``nanargmin``: NaN replaced by -inf/+inf; an all-NaN slice, where numpy raises
  ValueError, fails at run time (ExecutionError at the line);
* ``nanvar``/``nanstd``: the mean of the non-NaN elements, squared deviations with NaN as 0,
  divided by ``count - ddof`` (NaN where that is <= 0).

Supported syntax::

    np.nanprod(a, axis=None, dtype=None, keepdims=False, initial=..., where=...)
    np.nanmax / np.nanmin(a, axis=None, keepdims=False, initial=..., where=...)
    np.nanargmax / np.nanargmin(a, axis=None, keepdims=False)
    np.nanvar / np.nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False, correction=...)
    np.nancumsum / np.nancumprod(a, axis=None, dtype=None)

``out=`` is refused; ``where=`` and ``mean=`` of nanvar/nanstd are refused (declared in the
registry).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.common import where_
from pyonnx.frontend.numpy_calls.reductions.common import (
    _BOOL,
    _I64,
    _NOVALUE,
    _arr,
    _axes,
    _refuse,
    _static_bool,
    _static_dtype,
    reduce_any,
    widen_f16,
)
from pyonnx.frontend.numpy_calls.registry import lookup, register

__all__: list[str] = []


def _call(fn: Any, ctx, *args, **kwargs) -> Any:
    """The registered lowering of numpy function ``fn``."""
    return lookup(fn).fn(ctx, *args, **kwargs)


def _nan_mask(ctx, x: Array) -> Array:
    return Array(ctx.op("IsNaN", widen_f16(ctx, x)), _BOOL, x.shape)


def _replace_nan(ctx, x: Array, value: float) -> tuple[Array, Array | None]:
    """numpy's ``_replace_nan``: ``x`` with NaN replaced by ``value``, and the NaN mask (None
    for dtypes without NaN)."""
    if x.dtype.kind != "f":
        return x, None
    mask = _nan_mask(ctx, x)
    fill = ctx.const_array(np.array(value, x.dtype))
    # x in the second branch: onnxruntime's Where keeps a selected -0.0 there only.
    return where_(ctx, mask, Array(fill.value, fill.dtype, fill.shape), x, x.dtype), mask


@register(np.nanprod)
def nanprod(ctx, a, axis=None, dtype=None, out=None, keepdims=_NOVALUE, initial=_NOVALUE,
            where=_NOVALUE):
    _refuse(ctx, "np.nanprod", out)
    x, _ = _replace_nan(ctx, _arr(ctx, a), 1)
    return _call(np.prod, ctx, x, axis, dtype, None, keepdims, initial,
                 True if where is _NOVALUE else where)


@register(np.nancumsum)
def nancumsum(ctx, a, axis=None, dtype=None, out=None):
    _refuse(ctx, "np.nancumsum", out)
    x, _ = _replace_nan(ctx, _arr(ctx, a), 0)
    return _call(np.cumsum, ctx, x, axis, dtype)


@register(np.nancumprod)
def nancumprod(ctx, a, axis=None, dtype=None, out=None):
    _refuse(ctx, "np.nancumprod", out)
    x, _ = _replace_nan(ctx, _arr(ctx, a), 1)
    return _call(np.cumprod, ctx, x, axis, dtype)


def _nanextreme(ctx, name: str, is_max: bool, a, axis, out, keepdims, initial, where):
    """numpy's ``fmax.reduce``/``fmin.reduce`` as nanmax/nanmin call it."""
    _refuse(ctx, name, out)
    x = _arr(ctx, a)
    plain = np.max if is_max else np.min
    kd = False if keepdims is _NOVALUE else keepdims
    wh = True if where is _NOVALUE else where
    if x.dtype.kind != "f":
        return _call(plain, ctx, x, axis, None, kd, initial, wh)
    y, mask = _replace_nan(ctx, x, -np.inf if is_max else np.inf)
    r = _call(plain, ctx, y, axis, None, kd, initial, wh)
    if initial is not _NOVALUE:
        return r  # fmax(initial, NaN...) is initial: the replaced values never win
    axes = _axes(ctx, name, x, axis)
    every = _call(np.all, ctx, mask, axis, None, kd, where=wh) if axes else mask
    nan = ctx.const_array(np.array(np.nan, r.dtype))
    return where_(ctx, every, Array(nan.value, nan.dtype, nan.shape), r, r.dtype)


@register(np.nanmax)
def nanmax(ctx, a, axis=None, out=None, keepdims=_NOVALUE, initial=_NOVALUE, where=_NOVALUE):
    return _nanextreme(ctx, "np.nanmax", True, a, axis, out, keepdims, initial, where)


@register(np.nanmin)
def nanmin(ctx, a, axis=None, out=None, keepdims=_NOVALUE, initial=_NOVALUE, where=_NOVALUE):
    return _nanextreme(ctx, "np.nanmin", False, a, axis, out, keepdims, initial, where)


def _nanarg(ctx, name: str, is_max: bool, a, axis, out, keepdims):
    _refuse(ctx, name, out)
    x = _arr(ctx, a)
    plain = np.argmax if is_max else np.argmin
    y, mask = _replace_nan(ctx, x, -np.inf if is_max else np.inf)
    r = _call(plain, ctx, y, axis, keepdims=keepdims)
    if mask is None or 0 in x.shape:
        return r  # numpy checks non-empty masks only (argmax of an empty array raises)
    every = _call(np.all, ctx, mask, axis)
    bad = reduce_any(ctx, every, tuple(range(every.ndim)), False)
    return runtime_check(ctx, bad, r, "All_NaN_slice_encountered",
                         "ValueError: All-NaN slice encountered")


@register(np.nanargmax)
def nanargmax(ctx, a, axis=None, out=None, *, keepdims=_NOVALUE):
    return _nanarg(ctx, "np.nanargmax", True, a, axis, out, keepdims)


@register(np.nanargmin)
def nanargmin(ctx, a, axis=None, out=None, *, keepdims=_NOVALUE):
    return _nanarg(ctx, "np.nanargmin", False, a, axis, out, keepdims)


def _nanvar(ctx, name: str, a, axis, dtype, out, ddof, keepdims, where, mean, correction,
            std: bool) -> Array:
    """numpy's ``nanvar`` (and ``nanstd``: its square root)."""
    _refuse(ctx, name, out, where)
    if mean is not _NOVALUE:
        raise ctx.error(f"{name}(..., mean=...) is not supported; leave it out (the mean is "
                        "computed)")
    x = _arr(ctx, a)
    if x.dtype.kind != "f":
        plain = np.std if std else np.var
        return _call(plain, ctx, x, axis, dtype, None, ddof, False if keepdims is _NOVALUE
                     else keepdims, correction=correction)
    dt = _static_dtype(ctx, dtype)
    if dt is not None and dt.kind != "f":
        raise ctx.error(f"{name}: If a is inexact, then dtype must be inexact (numpy raises "
                        "TypeError)")
    ddof = ctx.static(ddof, "ddof")
    if correction is not _NOVALUE:
        if ddof != 0:
            raise ctx.error(f"{name}: ddof and correction can't be provided simultaneously "
                            "(numpy raises ValueError)")
        ddof = ctx.static(correction, "correction")
    kd = _static_bool(ctx, keepdims, "keepdims")
    arr, mask = _replace_nan(ctx, x, 0)
    valid = Array(ctx.op("Not", mask), _BOOL, mask.shape)
    cnt = _call(np.sum, ctx, valid, axis, _I64, None, True)
    avg = _call(np.sum, ctx, arr, axis, dt, None, True)
    avg = ctx.cast(_call(np.true_divide, ctx, avg, cnt), avg.dtype)  # out=avg, unsafe
    dev = ctx.cast(_call(np.subtract, ctx, arr, avg), arr.dtype)      # out=arr, unsafe
    zero = ctx.const_array(np.array(0, arr.dtype))
    dev = where_(ctx, mask, Array(zero.value, zero.dtype, zero.shape), dev, arr.dtype)
    sqr = _call(np.multiply, ctx, dev, dev)
    var = _call(np.sum, ctx, sqr, axis, dt, None, kd)
    if not kd:
        cnt = _call(np.sum, ctx, valid, axis, _I64, None, False)
    dof = _call(np.subtract, ctx, cnt, ddof)
    var = ctx.cast(_call(np.true_divide, ctx, var, dof), var.dtype)
    bad = _call(np.less_equal, ctx, dof, 0)
    nan = ctx.const_array(np.array(np.nan, var.dtype))
    var = where_(ctx, bad, Array(nan.value, nan.dtype, nan.shape), var, var.dtype)
    var = Array(var.value, var.dtype, var.shape)
    return _call(np.sqrt, ctx, var) if std else var


_WHERE_LIMIT = {"where": "refused (mask with np.where first)", "mean": "refused"}


@register(np.nanvar, limits=_WHERE_LIMIT)
def nanvar(ctx, a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NOVALUE, *,
           where=_NOVALUE, mean=_NOVALUE, correction=_NOVALUE):
    return _nanvar(ctx, "np.nanvar", a, axis, dtype, out, ddof, keepdims, where, mean,
                   correction, False)


@register(np.nanstd, limits=_WHERE_LIMIT)
def nanstd(ctx, a, axis=None, dtype=None, out=None, ddof=0, keepdims=_NOVALUE, *,
           where=_NOVALUE, mean=_NOVALUE, correction=_NOVALUE):
    return _nanvar(ctx, "np.nanstd", a, axis, dtype, out, ddof, keepdims, where, mean,
                   correction, True)

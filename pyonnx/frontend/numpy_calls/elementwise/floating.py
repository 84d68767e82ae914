"""Floating-point classification, sign, exponent and neighbour functions.

Input: operands in numpy's loop dtypes. Output: numpy's Arrays (bool for the predicates,
``(fraction, whole)`` for modf, ``(mantissa, int32 exponent)`` for frexp). isnan/isinf/isfinite
of integers and bools are constants; modf, frexp, ldexp, spacing and nextafter are exact (built
from the float64 exponent split in :mod:`.precise`).

The sign bit of a NaN (``np.signbit``, ``np.copysign(x, nan)``) is read with ``BitCast``: a model
using them is raised to opset 26, the first with a bitcast.

Supported: ``np.isnan isinf isfinite signbit copysign heaviside modf frexp ldexp spacing
nextafter``; ``np.nan_to_num(x, copy, nan, posinf, neginf)`` (replacement values known at
conversion time), ``np.isposinf(x)``, ``np.isneginf(x)``.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import lookup, register
from pyonnx.frontend.numpy_calls.elementwise import precise as pm
from pyonnx.frontend.numpy_calls.elementwise.common import (
    _BOOL,
    _F64,
    _I64,
    _cmp,
    _const,
    _emit,
    _flip,
    _full_like,
    _isnan,
    _logic,
    _max_min,
    where_,
)
from pyonnx.frontend.numpy_calls.elementwise.rounding import _trunc_arr
from pyonnx.frontend.numpy_calls.elementwise.ufunc import _register, _strong


def _isnan_u(ctx, arrays, ins, outs):
    return _isnan(ctx, arrays[0])


def _isinf(ctx, arrays, ins, outs):
    (a,) = arrays
    if a.dtype.kind != "f":
        return _full_like(ctx, a, False, _BOOL)
    return _emit(ctx, "IsInf", [a], a.dtype, _BOOL)


def _isfinite(ctx, arrays, ins, outs):
    (a,) = arrays
    if a.dtype.kind != "f":
        return _full_like(ctx, a, True, _BOOL)
    # finite <=> x - x == 0 (inf - inf and nan - x are nan)
    d = _emit(ctx, "Sub", [a, a], a.dtype)
    return _cmp(ctx, "Equal", d, _const(ctx, 0, a.dtype))


def _signbit_arr(ctx, a: Array) -> Array:
    dt = a.dtype
    zero = _const(ctx, 0, dt)
    neg = _cmp(ctx, "Less", a, zero)
    inv = _emit(ctx, "Div", [_const(ctx, 1, dt), a], dt)   # -inf for -0.0
    negzero = _logic(ctx, "And", _cmp(ctx, "Equal", a, zero), _cmp(ctx, "Less", inv, zero))
    return _logic(ctx, "Or", neg, negzero)


_BITS = {2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}


def _signbit(ctx, arrays, ins, outs):
    """``np.signbit``, NaNs included (see :func:`_exact_signbit`)."""
    return _exact_signbit(ctx, arrays[0])


def _exact_signbit(ctx, a: Array) -> Array:
    """The sign bits of ``a``. A NaN's sign bit shows in no arithmetic (``inf - inf`` is a
    negative NaN on x86), only in its bits: ONNX reads them with ``BitCast`` from opset 26,
    so a model using it is raised to opset 26 (``Lowering.opset``)."""
    if a.dtype.kind != "f":
        return _signbit_arr(ctx, a)
    bits = _BITS[a.dtype.itemsize]
    ctx.opset = max(ctx.opset, 26)
    raw = Array(ctx.op("BitCast", a, to=dtypes.to_ir(bits)), bits, a.shape)
    return _cmp(ctx, "Less", raw, _const(ctx, 0, bits))


def _copysign(ctx, arrays, ins, outs):
    a, b = arrays
    dt = ins[0]
    mag = _emit(ctx, "Abs", [a], dt)
    neg = _exact_signbit(ctx, b)
    # -|a| (maybe -0.0) in Where's second branch, which keeps it.
    return where_(ctx, _flip(ctx, neg), mag, _emit(ctx, "Neg", [mag], dt), dt)


def _heaviside(ctx, arrays, ins, outs):
    x, h0 = arrays
    dt = ins[0]
    zero = _const(ctx, 0, dt)
    res = where_(ctx, _cmp(ctx, "Less", x, zero), zero, _const(ctx, 1, dt), dt)
    res = where_(ctx, _flip(ctx, _cmp(ctx, "Equal", x, zero)), res, h0, dt)
    return where_(ctx, _isnan(ctx, x), x, res, dt)


def _modf(ctx, arrays, ins, outs):
    (a,) = arrays
    dt = ins[0]
    whole = _trunc_arr(ctx, a)
    frac = _emit(ctx, "Sub", [a, whole], dt)
    # the fraction keeps x's sign (-0.0 for negative integers) and is 0 for ±inf
    inf = _emit(ctx, "IsInf", [a], dt, _BOOL)
    frac = where_(ctx, inf, _const(ctx, 0, dt), frac, dt)
    frac = _copysign(ctx, [frac, a], (dt, dt), (dt,))
    return frac, whole


def _frexp(ctx, arrays, ins, outs):
    (a,) = arrays
    dt = ins[0]
    m, e = pm.frexp(ctx, ctx.cast(a, _F64))
    return ctx.cast(m, dt), e


def _ldexp(ctx, arrays, ins, outs):
    x, n = arrays
    dt = ins[0]
    # n clamped to ±2200 (beyond, every result is 0 or ±inf anyway), as float64.
    n64 = ctx.cast(_max_min(ctx, "Max", _max_min(ctx, "Min", ctx.cast(n, _I64),
                                                   _const(ctx, 2200, _I64), _I64),
                            _const(ctx, -2200, _I64), _I64), _F64)
    if dt == _F64:
        return pm.ldexp(ctx, x, n64)
    # float16/float32 values times a power of two are exact in float64 (two steps keep each
    # power finite); the cast rounds once, as numpy's ldexpf.
    r = pm.scale2(pm.Ex.of(ctx, ctx.cast(x, _F64)), pm.Ex.of(ctx, n64))
    return ctx.cast(r.array(), dt)


def _spacing(ctx, arrays, ins, outs):
    dt = ins[0]
    return ctx.cast(pm.spacing(ctx, ctx.cast(arrays[0], _F64), dt.name), dt)


def _nextafter(ctx, arrays, ins, outs):
    dt = ins[0]
    x, y = (ctx.cast(a, _F64) for a in arrays)
    return ctx.cast(pm.nextafter(ctx, x, y, dt.name), dt)


@register(np.nan_to_num)
def nan_to_num(ctx, x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``np.nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None)`` for real arrays;
    the replacement values must be known at conversion time."""
    x = ctx.asarray(x)
    if x.dtype.kind != "f":
        return Array(ctx.op("Identity", x), x.dtype, x.shape)
    dt = x.dtype
    info = np.finfo(dt)
    values = []
    for v, default in ((nan, 0.0), (posinf, info.max), (neginf, info.min)):
        v = ctx.static(v, "nan_to_num's replacement value")
        with np.errstate(over="ignore"):
            values.append(np.asarray(default if v is None else v).astype(dt))
    res = where_(ctx, _isnan(ctx, x), _const(ctx, values[0], dt), x, dt)
    inf = _emit(ctx, "IsInf", [x], dt, _BOOL)
    pos = _logic(ctx, "And", inf, _cmp(ctx, "Greater", x, _const(ctx, 0, dt)))
    neg = _logic(ctx, "And", inf, _cmp(ctx, "Less", x, _const(ctx, 0, dt)))
    res = where_(ctx, pos, _const(ctx, values[1], dt), res, dt)
    return where_(ctx, neg, _const(ctx, values[2], dt), res, dt)


@register(np.isposinf)
def isposinf(ctx, x, out=None):
    """``np.isposinf(x)``."""
    if out is not None:
        raise ctx.error("np.isposinf(..., out=...) is not supported; assign the result instead")
    call = lambda f, *a: lookup(f).fn(ctx, *a)  # noqa: E731
    # not via np.signbit, which fails on a NaN before opset 26 (see _signbit)
    return _strong(call(np.logical_and, call(np.isinf, x), call(np.greater, x, 0)))


@register(np.isneginf)
def isneginf(ctx, x, out=None):
    """``np.isneginf(x)``."""
    if out is not None:
        raise ctx.error("np.isneginf(..., out=...) is not supported; assign the result instead")
    call = lambda f, *a: lookup(f).fn(ctx, *a)  # noqa: E731
    return _strong(call(np.logical_and, call(np.isinf, x), call(np.less, x, 0)))


def _register_all() -> None:
    reg = _register
    reg(np.isnan, _isnan_u)
    reg(np.isinf, _isinf)
    reg(np.isfinite, _isfinite)
    reg(np.signbit, _signbit)
    reg(np.copysign, _copysign)
    reg(np.heaviside, _heaviside)
    reg(np.modf, _modf)
    reg(np.frexp, _frexp)
    reg(np.ldexp, _ldexp)
    reg(np.spacing, _spacing)
    reg(np.nextafter, _nextafter)


_register_all()

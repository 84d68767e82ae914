"""arctan, arctan2, arcsin, arccos in float64: Cephes atan and IEEE's quadrant rules."""

from __future__ import annotations

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.precise.ex import (
    Ex,
    _horner,
    _horner1,
    _signbit,
    where,
)
from pyonnx.frontend.numpy_calls.elementwise.precise.trig import _PIO4


# ------------------------------------------------------------------------ arctan family
# Cephes atan.c
_ATAN_P = (-8.750608600031904122785e-01, -1.615753718733365076637e+01,
           -7.500855792314704667340e+01, -1.228866684490136173410e+02,
           -6.485021904942025371773e+01)
_ATAN_Q = (2.485846490142306297962e+01, 1.650270098316988542046e+02,
           4.328810604912902668951e+02, 4.853903996359136964868e+02,
           1.945506571482613964425e+02)
_T3P8 = 2.41421356237309504880
_MOREBITS = 6.123233995736765886130e-17
_PIO2 = 1.57079632679489661923
_PI = 3.14159265358979311600e+00
_PI_LO = 1.2246467991473532e-16


def _atan_pos(a: Ex) -> Ex:
    """atan(a) for a >= 0 (or nan), Cephes' reduction and rational approximation."""
    big = a.gt(_T3P8)
    mid = a.gt(0.66) & ~big
    x = where(big, -1.0 / a, where(mid, (a - 1.0) / (a + 1.0), a))
    y = where(big, _PIO2, where(mid, _PIO4, 0.0))
    more = where(big, _MOREBITS, where(mid, 0.5 * _MOREBITS, 0.0))
    z = x * x
    z = z * _horner(z, _ATAN_P) / _horner1(z, _ATAN_Q)
    z = x * z + x
    return y + (z + more)


def _odd(e: Ex, r: Ex) -> Ex:
    """Applies the sign of ``e`` to ``r`` = f(|e|) for an odd f, keeping ±0 and nan.

    onnxruntime's Where turns a selected -0.0 into +0.0 in its first branch, so values that
    may be -0.0 are always placed in the second one (see :func:`where`).
    """
    r = where(e.ge(0.0) | e.isnan(), r, -r)
    return where(~e.eq(0.0), r, e)


def arctan(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    return _odd(e, _atan_pos(e.abs())).array()


def _atan2(y: Ex, x: Ex) -> Ex:
    ay, ax = y.abs(), x.abs()
    t = _atan_pos(ay / ax)
    t = where(ay.eq(0.0), 0.0, t)                       # 0/0 and 0/x
    t = where(ay.isinf() & ax.isinf(), _PIO4, t)        # inf/inf
    r = where(_signbit(x), (_PI - t) + _PI_LO, t)
    r = where(~_signbit(y), r, -r)
    return where(y.isnan() | x.isnan(), x + y, r)


def arctan2(ctx, y: Array, x: Array) -> Array:
    return _atan2(Ex.of(ctx, y), Ex.of(ctx, x)).array()


def arcsin(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    a = e.abs()
    s = ((1.0 - a) * (1.0 + a)).sqrt()                  # nan for |x| > 1
    return _odd(e, _atan_pos(a / s)).array()


def arccos(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    s = ((1.0 - e) * (1.0 + e)).sqrt()
    t = _atan_pos(s / e.abs())
    r = where(e.lt(0.0), (_PI - t) + _PI_LO, t)
    return where(e.isnan(), e, r).array()

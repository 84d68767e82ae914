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
    """atan(a) for a >= 0 (or nan), Cephes' reduction and rational approximation.

    The three ranges are selected by arithmetic, not ``Where`` (onnxruntime's float64 Where
    costs about ten Muls per element): with the 0.0/1.0 masks ``mb`` (a > tan(3pi/8)), ``mm``
    (tan(3pi/8) >= a > 0.66) and ``ml`` (the rest), each sum below has one nonzero term, so it
    is that term exactly. ``a`` is first clamped to 1e300 (a NaN stays: onnxruntime's Min
    propagates it, measured) so that no inf meets a 0.0 mask; atan(1e300) and atan(inf) are
    the same double (pi/2 + the MOREBITS correction swamps -1/a either way).
    """
    a = a.binary_min(1e300)
    mb = a.gt(_T3P8).to_float()
    mm = a.gt(0.66).to_float() - mb
    ml = (1.0 - mb) - mm
    num = a * (1.0 - mb) - mm - mb                     # -1, a - 1, a
    den = mb * a + mm * (a + 1.0) + ml                 # a, a + 1, 1
    x = num / den
    y = mb * _PIO2 + mm * _PIO4
    more = mb * _MOREBITS + mm * (0.5 * _MOREBITS)
    z = x * x
    z = z * _horner(z, _ATAN_P) / _horner1(z, _ATAN_Q)
    z = x * z + x
    return y + (z + more)


def _odd(e: Ex, r: Ex) -> Ex:
    """Applies the sign of ``e`` to ``r`` = f(|e|) >= 0 (or nan) for an odd f with f(0) = +0.0:
    r times -1.0 where e's sign bit is set (-0.0 included, so f(-0.0) = -0.0), exactly."""
    negative = (e.lt(0.0) | (1.0 / e).lt(0.0)).to_float()   # the sign bit (a nan: False)
    return r * (1.0 - negative * 2.0)


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

"""expm1, log1p, log2, log10 in float64 (fdlibm), and the exact exponent split they share with
float_bits.py."""

from __future__ import annotations

import math

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.precise.ex import Ex, _select, _split_hi, where


# ------------------------------------------------------------------------ exp and log
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INVLN2 = 1.44269504088896338700e+00
_O_THRESHOLD = 7.09782712893383973096e+02
_EXPM1_Q = (-3.33333333333331316428e-02, 1.58730158725481460165e-03,
            -7.93650757867487942473e-05, 4.00821782732936239552e-06,
            -2.01099218183624371326e-07)


def _expm1(x: Ex) -> Ex:
    """fdlibm s_expm1.c, every branch computed and selected by k."""
    k = (x * _INVLN2).round()
    hi = x - k * _LN2_HI
    lo = k * _LN2_LO
    r = hi - lo
    c = (hi - r) - lo
    hfx = 0.5 * r
    hxs = r * hfx
    q = _EXPM1_Q
    r1 = 1.0 + hxs * (q[0] + hxs * (q[1] + hxs * (q[2] + hxs * (q[3] + hxs * q[4]))))
    t = 3.0 - r1 * hfx
    e = hxs * ((r1 - t) / (6.0 - r * t))
    res_k0 = r - (r * e - hxs)
    e = (r * (e - c) - c) - hxs
    res_m1 = 0.5 * (r - e) - 0.5
    res_p1 = where(r.lt(-0.25), -2.0 * (e - (r + 0.5)), 1.0 + 2.0 * (r - e))
    # One Pow (the slowest op here): 2**k for k <= 1023, its exact reciprocal 2**-k, and
    # k == 1024 (x just below the overflow threshold) as 2 * 2**1023. Below k = -38 the
    # result is -1 (selected below), so 2**k never underflows where it matters.
    twopk = where(k.gt(1023.0), 1023.0, k).rpow(2.0)
    twomk = 1.0 / twopk
    res_far = (1.0 - (e - r)) * twopk * where(k.gt(1023.0), 2.0, 1.0) - 1.0
    res_mid = ((1.0 - twomk) - (e - r)) * twopk
    res_hi = ((r - (e + twomk)) + 1.0) * twopk
    res = _select(res_far, (k.eq(0.0), res_k0), (k.eq(-1.0), res_m1), (k.eq(1.0), res_p1),
                  (k.ge(2.0) & k.lt(20.0), res_mid), (k.ge(20.0) & k.le(56.0), res_hi))
    res = where(x.gt(_O_THRESHOLD), math.inf, res)
    res = where(x.lt(-38.0), -1.0, res)
    return where(x.abs().ge(2.0 ** -54) | x.isnan(), res, x)


def expm1(ctx, x: Array) -> Array:
    return _expm1(Ex.of(ctx, x)).array()


def _log1p(x: Ex) -> Ex:
    u = 1.0 + x
    c = (u - 1.0) - x                   # exact: 1 + x == u - c
    r = u.log() - c / u
    r = where(x.eq(-1.0), -math.inf, r)
    r = where(x.eq(math.inf), math.inf, r)
    return where(~x.eq(0.0), r, x)


def log1p(ctx, x: Array) -> Array:
    return _log1p(Ex.of(ctx, x)).array()


_SQRT2 = 1.41421356237309514547
_LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
       2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
       1.479819860511658591e-01)


def _split_exponent(x: Ex) -> tuple[Ex, Ex]:
    """x = m * 2**k for finite x > 0 with m in [sqrt(2)/2, sqrt(2)), k an integer (float64)."""
    # Subnormals are first scaled up by 2**100 (exactly), so one power of two, 2**-k with
    # k in [-1000, 1024], does the rest.
    sub = x.lt(2.0 ** -1000)
    x = where(sub, x * 2.0 ** 100, x)
    k = (x.log() * _INVLN2).floor()     # off by at most one near powers of two
    m = x * (-k).rpow(2.0)
    k = where(sub, k - 100.0, k)
    up = m.ge(2.0)
    m, k = where(up, m * 0.5, m), where(up, k + 1.0, k)
    down = m.lt(1.0)
    m, k = where(down, m * 2.0, m), where(down, k - 1.0, k)
    center = m.gt(_SQRT2)
    return where(center, m * 0.5, m), where(center, k + 1.0, k)


def _log_parts(x: Ex) -> tuple[Ex, Ex, Ex]:
    """fdlibm k_log.h: (k, hi, lo) with log(x) = k*ln2 + hi + lo, hi short (20 bits)."""
    m, k = _split_exponent(x)
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG[1] + w * (_LG[3] + w * _LG[5]))
    t2 = z * (_LG[0] + w * (_LG[2] + w * (_LG[4] + w * _LG[6])))
    hfsq = 0.5 * f * f
    r = s * (hfsq + (t2 + t1))
    hi = _split_hi(f - hfsq, 33)
    lo = ((f - hi) - hfsq) + r
    return k, hi, lo


def _log_special(x: Ex, r: Ex) -> Ex:
    r = where(x.eq(0.0), -math.inf, r)
    r = where(x.eq(math.inf), math.inf, r)
    return where(x.lt(0.0) | x.isnan(), math.nan, r)


def log2(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    k, hi, lo = _log_parts(e)
    val_hi = hi * 1.44269504072144627571e+00
    val_lo = (lo + hi) * 1.67517131648865118353e-10 + lo * 1.44269504072144627571e+00
    w = k + val_hi
    val_lo = val_lo + ((k - w) + val_hi)
    return _log_special(e, val_lo + w).array()


def log10(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    k, hi, lo = _log_parts(e)
    val_hi = hi * 4.34294481878168880939e-01
    y2 = k * 3.01029995663611771306e-01
    val_lo = (k * 3.69423907715893078616e-13 + (lo + hi) * 2.50829467116452752298e-11
              + lo * 4.34294481878168880939e-01)
    w = y2 + val_hi
    val_lo = val_lo + ((y2 - w) + val_hi)
    return _log_special(e, val_lo + w).array()

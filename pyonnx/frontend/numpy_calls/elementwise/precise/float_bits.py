"""frexp, ldexp, spacing, nextafter: exact, from the exponent split."""

from __future__ import annotations

import math

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.precise.ex import Ex, _F64, _signbit, where
from pyonnx.frontend.numpy_calls.elementwise.precise.exp_log import _split_exponent


def frexp(ctx, x: Array) -> tuple[Array, Array]:
    """numpy's frexp for float64: mantissa in [0.5, 1) with x's sign, int32 exponent."""
    e = Ex.of(ctx, x)
    a = e.abs()
    m, k = _split_exponent(where(a.eq(0.0) | a.isinf() | a.isnan(), 1.0, a))
    # [sqrt(2)/2, sqrt(2)) -> [0.5, 1)
    low = m.lt(1.0)
    m, k = where(low, m, m * 0.5), where(low, k, k + 1.0)
    special = a.eq(0.0) | a.isinf() | a.isnan()
    mant = where(~special, where(e.lt(0.0), -m, m), e)
    k = where(special, 0.0, k)
    return mant.array(), Array(ctx.op("Cast", k.value, to=6), np.dtype(np.int32), k.shape)


# (mantissa bits, minimum normal exponent, largest finite) per float format
_FORMATS = {"float64": (52, -1022, float(np.finfo(np.float64).max)),
            "float32": (23, -126, float(np.finfo(np.float32).max)),
            "float16": (10, -14, float(np.finfo(np.float16).max))}


def _binade(a: Ex) -> tuple[Ex, Ex]:
    """(e, is_pow2) for finite a > 0: a = m * 2**e with m in [1, 2), exactly."""
    m, k = _split_exponent(a)
    low = m.lt(1.0)
    return where(low, k - 1.0, k), m.eq(1.0) | m.eq(0.5)


def spacing(ctx, x: Array, fmt: str) -> Array:
    """numpy's spacing for values of float format ``fmt`` held exactly in float64 ``x``:
    ``nextafter(x, -inf if x < 0 else inf) - x``; numpy's float16 version steps toward +inf
    always (its bit-level ``npy_half_spacing``)."""
    e = Ex.of(ctx, x)
    target = Ex(ctx, ctx.const(np.array(math.inf)), _F64, ()) if fmt == "float16" else \
        where(e.lt(0.0), -math.inf, math.inf)           # -0.0 steps up, as numpy's
    nxt = Ex.of(ctx, nextafter(ctx, x, target.array(), fmt))
    return where(e.isinf(), math.nan, nxt - e).array()


def nextafter(ctx, x: Array, y: Array, fmt: str) -> Array:
    """numpy's nextafter(x, y) for values of float format ``fmt`` held exactly in float64."""
    p, emin, fmax = _FORMATS[fmt]
    a, b = Ex.of(ctx, x), Ex.of(ctx, y)
    mag = a.abs()
    safe = where(mag.eq(0.0) | mag.isinf() | mag.isnan(), 1.0, mag)
    exp, pow2 = _binade(safe)
    up = b.gt(a)
    away = up.eq(a.gt(0.0))                  # moving away from zero
    # toward zero from a power of two, the binade below has half the spacing
    exp_toward = where(pow2 & exp.gt(float(emin)), exp - 1.0, exp)
    step_exp = where(away, exp, exp_toward)
    step = (where(step_exp.lt(float(emin)), float(emin), step_exp) - float(p)).rpow(2.0)
    r = a + where(up, step, -step)
    # Past the format's largest: ±inf, selected as constants: not r * inf, whose derivative
    # (inf) would turn the zero cotangent of the branch not taken into NaN (0 * inf).
    r = where(r.abs().gt(fmax), where(r.gt(0.0), math.inf, -math.inf), r)
    # a result of zero keeps a's sign (nextafter(-tiny, 1) is -0.0)
    r = where(~(r.eq(0.0) & a.lt(0.0)), r, -0.0)
    tiny = 2.0 ** (emin - p)
    r = where(a.eq(0.0), where(up, tiny, -tiny), r)
    r = where(a.isinf(), where(a.gt(0.0), fmax, -fmax), r)
    r = where(~a.eq(b), r, a if fmt == "float16" else b)   # C gives y, numpy's float16 x
    return where(a.isnan() | b.isnan(), math.nan, r).array()


def ldexp(ctx, x: Array, n: Array) -> Array:
    """``x * 2**n`` for float64 ``x`` and integer-valued float64 ``n``, rounded once.

    x = ±m * 2**e (m in [1, 2)) is split exactly, so the product is a single multiplication by
    2**(e+n), which rounds once even when the result is subnormal; 2**-1075 (representable
    only as 0) is handled by hand: it rounds to the smallest subnormal when m > 1.
    """
    a, k = Ex.of(ctx, x), Ex.of(ctx, n)
    mag = a.abs()
    special = mag.eq(0.0) | mag.isinf() | mag.isnan()
    m, e = _split_exponent(where(special, 1.0, mag))
    low = m.lt(1.0)
    m, e = where(low, m * 2.0, m), where(low, e - 1.0, e)
    t = e + k
    t = where(t.gt(1100.0), 1100.0, where(t.lt(-1100.0), -1100.0, t))
    r = m * t.rpow(2.0)
    r = where(t.eq(-1075.0), where(m.gt(1.0), 2.0 ** -1074, 0.0), r)
    r = where(t.lt(-1075.0), 0.0, r)
    r = where(~_signbit(a), r, -r)
    return where(~special, r, a).array()

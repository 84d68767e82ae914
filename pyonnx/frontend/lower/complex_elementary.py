"""exp, log (log2, log10), sqrt, sin/cos, sinh/cosh and sign of complex values, as numpy
computes them.

Input: the real and imaginary parts (real Arrays of one float dtype, one shape). Output: the
parts of the result, built from the real lowerings of the registry (:class:`complex_arith.R`).
Formulas are numpy's (``npy_math_complex``) with C99 Annex G's special values for the infinite,
NaN and signed-zero arguments the plain formulas get wrong (each an elementwise ``Where``).
The rest of the elementary functions (tan, the inverse functions, log1p, expm1) are in
:mod:`complex_math`.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.lower.complex_arith import R, hypot

__all__ = ["exp", "log", "log2", "log10", "sqrt", "sin", "cos", "sinh", "cosh", "sign"]


def log(ctx, ar, ai):
    r = R(ctx)
    return r.log(hypot(ctx, ar, ai)), r.arctan2(ai, ar)


def exp(ctx, ar, ai):
    r = R(ctx)
    e = r.exp(ar)
    # exp(x + 0j) is exp(x) + 0j (numpy keeps the imaginary zero, and inf*0 would be nan);
    # C99's cexp(-inf + i inf/nan) = 0 + 0i, cexp(+inf + i inf/nan) = inf + i nan
    zero = r.equal(ai, 0.0)
    re = r.where(zero, e, r.multiply(e, r.cos(ai)))
    im = r.where(zero, ai, r.multiply(e, r.sin(ai)))
    edge = r.logical_and(r.isinf(ar), r.logical_not(r.isfinite(ai)))
    neg = r.less(ar, 0.0)
    neg_im = r.copysign(0.0, ai)  # glibc: the sign of an infinite or NaN imaginary part
    return r.where(edge, r.where(neg, 0.0, np.inf), re), \
        r.where(edge, r.where(neg, neg_im, np.nan), im)


def sqrt(ctx, ar, ai):
    """Principal square root (numpy's csqrt: the result's real part is >= 0)."""
    r = R(ctx)
    m = hypot(ctx, ar, ai)
    t = r.sqrt(r.multiply(r.add(r.absolute(ar), m), 0.5))
    zero = r.logical_and(r.equal(ar, 0.0), r.equal(ai, 0.0))
    safe_t = r.where(zero, 1.0, t)
    pos = r.greater_equal(ar, 0.0)
    re = r.where(pos, t, r.divide(r.absolute(ai), r.multiply(safe_t, 2.0)))
    im = r.where(pos, r.divide(ai, r.multiply(safe_t, 2.0)), r.copysign(t, ai))
    re, im = r.where(zero, 0.0, re), r.where(zero, ai, im)
    # C99 csqrt: x + i inf -> inf + i inf (any x); +inf + iy -> inf + i0 (sign of y);
    # -inf + iy -> 0 + i inf (sign of y), nan for a nan y
    inf_i = r.isinf(ai)
    pinf = r.logical_and(r.isinf(ar), r.greater(ar, 0.0))
    ninf = r.logical_and(r.isinf(ar), r.less(ar, 0.0))
    re = r.where(inf_i, np.inf, r.where(pinf, np.inf,
                                        r.where(ninf, r.absolute(r.multiply(ai, 0.0)), re)))
    im = r.where(inf_i, ai, r.where(pinf, r.copysign(r.multiply(ai, 0.0), ai),
                                    r.where(ninf, r.copysign(np.inf, ai), im)))
    # (x*0: 0 for a finite y, nan for a nan y, as C99 gives nan parts there)
    return re, im


def sin(ctx, ar, ai):
    """sin(z) = -i sinh(iz) (C99's definition, so the special values are csinh's)."""
    r = R(ctx)
    sr, si = sinh(ctx, r.negative(ai), ar)
    # numpy: +inf imaginary part for an infinite b when a is not finite
    edge = r.logical_and(r.isinf(ai), r.logical_not(r.isfinite(ar)))
    return si, r.where(edge, r.absolute(ai), r.negative(sr))


def cos(ctx, ar, ai):
    """cos(z) = cosh(iz)."""
    r = R(ctx)
    return cosh(ctx, r.negative(ai), ar)


def sinh(ctx, ar, ai):
    """sinh(a)cos(b) + i cosh(a)sin(b), with C99's csinh special values: a zero or infinite
    real part kept when b is not finite, a zero imaginary part kept."""
    r = R(ctx)
    re = r.multiply(r.sinh(ar), r.cos(ai))
    im = r.multiply(r.cosh(ar), r.sin(ai))
    keep = r.logical_and(r.logical_or(r.equal(ar, 0.0), r.isinf(ar)),
                         r.logical_not(r.isfinite(ai)))
    kept = r.where(r.isinf(ar), r.absolute(ar), ar)  # numpy: +inf
    return r.where(keep, kept, re), r.where(r.equal(ai, 0.0), ai, im)


def cosh(ctx, ar, ai):
    """cosh(a)cos(b) + i sinh(a)sin(b), with C99's ccosh special values."""
    r = R(ctx)
    re = r.multiply(r.cosh(ar), r.cos(ai))
    im = r.multiply(r.sinh(ar), r.sin(ai))
    bad_b = r.logical_not(r.isfinite(ai))
    re = r.where(r.logical_and(r.isinf(ar), bad_b), np.inf, re)
    im = r.where(r.logical_and(r.equal(ar, 0.0), bad_b), 0.0, im)
    zero_im = r.where(r.isnan(ar), ai, r.multiply(ai, r.copysign(1.0, ar)))
    return re, r.where(r.equal(ai, 0.0), zero_im, im)


def log10(ctx, ar, ai):
    r = R(ctx)
    lr, li = log(ctx, ar, ai)
    return r.divide(lr, np.log(10.0)), r.divide(li, np.log(10.0))


def log2(ctx, ar, ai):
    r = R(ctx)
    lr, li = log(ctx, ar, ai)
    return r.divide(lr, np.log(2.0)), r.divide(li, np.log(2.0))


def sign(ctx, ar, ai):
    """numpy 2's complex sign: z / |z| (0 for 0)."""
    r = R(ctx)
    m = hypot(ctx, ar, ai)
    zero = r.equal(m, 0.0)
    safe = r.where(zero, 1.0, m)
    re = r.where(zero, 0.0, r.divide(ar, safe))
    im = r.where(zero, 0.0, r.divide(ai, safe))
    # one infinite part: the unit vector along it; both infinite or a nan: nan
    inf_r, inf_i = r.isinf(ar), r.isinf(ai)
    re = r.where(inf_r, r.copysign(1.0, ar), r.where(inf_i, 0.0, re))
    im = r.where(inf_i, r.copysign(1.0, ai), r.where(inf_r, 0.0, im))
    nan_r = r.logical_and(r.isnan(ar), r.logical_not(inf_i))
    nan_i = r.logical_and(r.isnan(ai), r.logical_not(inf_r))
    bad = r.logical_or(r.logical_and(inf_r, inf_i), r.logical_or(nan_r, nan_i))
    return r.where(bad, np.nan, re), r.where(bad, np.nan, im)

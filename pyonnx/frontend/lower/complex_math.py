"""tan/tanh, the inverse trigonometric and hyperbolic functions, log1p and expm1 of complex
values, with numpy's branch cuts and special values.

Input: the real and imaginary parts (real Arrays of one float dtype, one shape). Output: the
parts of the result. Every function is built from real lowerings of the registry
(:class:`complex_ops.R`), as ``complex_elementary``'s exp/log/sqrt are.

Formulas (numpy calls the C library's ``ctanh``/``casin``/... and its own ``nc_log1p`` and
``nc_expm1``):

* ``tanh``: FreeBSD's ``ctanh`` (Kahan's formula through tan and sinh; ±1 for |x| >= 22), which
  gives C99 Annex G's special values; ``tan(z) = -i tanh(iz)``.
* ``arcsin``/``arccos``: Kahan's formulas ("Branch cuts for complex elementary functions",
  1987) through the principal square roots of ``1 - z`` and ``1 + z``, which put the branch
  cuts where numpy has them, with the sides chosen by the sign of a zero imaginary part; no
  intermediate overflows. ``arcsinh(z) = -i arcsin(iz)``; ``arccosh`` from ``arccos`` as
  FreeBSD's ``cacosh`` does.
* ``arctanh``: ``log1p(4x / ((1-x)^2 + y^2)) / 4 + i atan2(2y, (1-x)(1+x) - y^2) / 2``;
  ``arctan(z) = -i arctanh(iz)``.
* ``log1p``/``expm1``: numpy's own formulas (``log(hypot(x+1, y)) + i atan2(y, x+1)``, and
  ``expm1(x)cos(y) - 2 sin(y/2)^2 + i exp(x)sin(y)``), including their rounding.

The infinite and NaN arguments the formulas do not get right are put right with ``Where`` (the
tables in C99 Annex G, which the tests check against numpy).
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.lower import complex_elementary as E
from pyonnx.frontend.lower import complex_ops as ops
from pyonnx.frontend.lower.complex_ops import R

__all__ = ["FUNCS", "tanh", "tan", "arcsin", "arccos", "arcsinh", "arccosh", "arctanh", "arctan",
           "log1p", "expm1"]

_HALF_PI = np.pi / 2


def tanh(ctx, x, y):
    r = R(ctx)
    t = r.tan(y)
    beta = r.add(r.multiply(t, t), 1.0)
    s = r.sinh(x)
    ss = r.multiply(s, s)
    rho = r.sqrt(r.add(ss, 1.0))
    denom = r.add(r.multiply(beta, ss), 1.0)
    re = r.divide(r.multiply(r.multiply(beta, rho), s), denom)
    im = r.divide(t, denom)
    # |x| >= 22: tanh is ±1 to the last bit; the imaginary part 4 sin y cos y e^{-2|x|}
    big = r.greater_equal(r.absolute(x), 22.0)
    e = r.exp(r.negative(r.absolute(x)))
    sc = r.multiply(r.sin(y), r.cos(y))
    re = r.where(big, r.copysign(1.0, x), re)
    im = r.where(big, r.multiply(r.multiply(r.multiply(sc, 4.0), e), e), im)
    # y not finite (x finite): nan + i nan (C11: ±0 + i nan for x = ±0)
    bad_y = r.logical_not(r.isfinite(y))
    nan = r.subtract(y, y)
    re = r.where(bad_y, r.where(r.equal(x, 0.0), x, nan), re)
    im = r.where(bad_y, nan, im)
    # x infinite: ±1 + i 0 (the sign of sin y cos y, or of y when y is infinite; +0 for nan)
    inf_x = r.isinf(x)
    im_inf = r.copysign(0.0, r.where(r.isinf(y), y, r.where(r.isnan(y), 1.0, sc)))
    re, im = r.where(inf_x, r.copysign(1.0, x), re), r.where(inf_x, im_inf, im)
    # x nan: nan + i (y if y == 0 else nan)
    nan_x = r.isnan(x)
    re = r.where(nan_x, x, re)
    im = r.where(nan_x, r.where(r.equal(y, 0.0), y, r.multiply(x, y)), im)
    return re, im


def tan(ctx, x, y):
    r = R(ctx)
    u, v = tanh(ctx, r.negative(y), x)
    return v, r.negative(u)


def _roots(ctx, x, y):
    """The principal square roots of 1 - z and 1 + z (signed zeros as Kahan needs them)."""
    r = R(ctx)
    s1 = E.sqrt(ctx, r.subtract(1.0, x), r.negative(y))
    s2 = E.sqrt(ctx, r.add(x, 1.0), y)
    return s1, s2


def arcsin(ctx, x, y):
    r = R(ctx)
    (ar, ai), (br, bi) = _roots(ctx, x, y)
    re = r.arctan2(x, r.subtract(r.multiply(ar, br), r.multiply(ai, bi)))
    im = r.arcsinh(r.subtract(r.multiply(ar, bi), r.multiply(ai, br)))
    return _asin_special(ctx, x, y, re, im)


def _asin_special(ctx, x, y, re, im):
    """casin's infinities and NaNs: casin(z) = -i casinh(iz), whose table is C99 G.6.2.2."""
    r = R(ctx)
    # casinh(a + ib) with a = -y, b = x; (u, v) = casinh; casin = (v, -u)
    u, v = _asinh_table(ctx, r.negative(y), x)
    special = r.logical_not(r.logical_and(r.isfinite(x), r.isfinite(y)))
    im = r.where(special, r.negative(u), im)
    # glibc: ±inf + i nan gives nan + i inf (the sign of the NaN, +)
    im = r.where(r.logical_and(r.isinf(x), r.isnan(y)), np.inf, im)
    return r.where(special, v, re), im


def _asinh_table(ctx, a, b):
    """casinh(a + ib) for a non-finite part (C99 G.6.2.2); anything for finite parts."""
    r = R(ctx)
    inf_a, inf_b = r.isinf(a), r.isinf(b)
    nan_a, nan_b = r.isnan(a), r.isnan(b)
    fin_b = r.isfinite(b)
    # inf + i finite: ±inf + i 0 (the sign of b); x + i inf: ±inf + i π/2; inf + i inf: π/4
    u = r.where(r.logical_or(inf_a, inf_b), r.copysign(np.inf, a), np.nan)
    v_inf = r.where(inf_a, r.where(inf_b, np.pi / 4, r.where(fin_b, 0.0, np.nan)), _HALF_PI)
    v = r.copysign(v_inf, b)
    # nan + i 0: nan + i 0; nan + i finite: nan + i nan; nan + i inf: ±inf + i nan
    # inf + i nan: ±inf + i nan; finite + i nan: nan + i nan
    v = r.where(nan_b, np.nan, v)
    v = r.where(nan_a, r.where(r.equal(b, 0.0), b, np.nan), v)
    u = r.where(r.logical_and(nan_a, inf_b), np.inf, u)
    u = r.where(r.logical_and(nan_b, r.logical_not(inf_a)), np.nan, u)
    u = r.where(r.logical_and(nan_a, r.logical_not(inf_b)), np.nan, u)
    return u, v


def arcsinh(ctx, x, y):
    r = R(ctx)
    u, v = arcsin(ctx, r.negative(y), x)
    # glibc: nan ± i inf gives +inf + i nan (the sign of the NaN)
    re = r.where(r.logical_and(r.isnan(x), r.isinf(y)), np.inf, v)
    return re, r.negative(u)


def arccos(ctx, x, y):
    r = R(ctx)
    (ar, ai), (br, bi) = _roots(ctx, x, y)
    re = r.multiply(r.arctan2(ar, br), 2.0)
    im = r.arcsinh(r.subtract(r.multiply(br, ai), r.multiply(bi, ar)))
    return _acos_special(ctx, x, y, re, im)


def _acos_special(ctx, x, y, re, im):
    """cacos's infinities and NaNs (C99 G.6.1.1)."""
    r = R(ctx)
    inf_x, inf_y = r.isinf(x), r.isinf(y)
    nan_x, nan_y = r.isnan(x), r.isnan(y)
    neg = r.less(x, 0.0)
    # real part: x ± i inf: π/2; -inf + i y: π; +inf + i y: +0; ±inf ± i inf: 3π/4, π/4
    u = r.where(inf_x, r.where(inf_y, r.where(neg, 3 * np.pi / 4, np.pi / 4),
                               r.where(neg, np.pi, 0.0)), _HALF_PI)
    # imaginary part: -inf·sign(y) (the conjugate of i·inf)
    v = r.copysign(np.inf, r.negative(y))
    # NaNs: ±inf + i nan: nan ± i inf; nan + i ±inf: nan ∓ i inf; 0 + i nan: π/2 + i nan
    u = r.where(r.logical_or(nan_x, nan_y), np.nan, u)
    u = r.where(r.logical_and(nan_y, r.equal(x, 0.0)), _HALF_PI, u)
    v = r.where(r.logical_and(nan_y, inf_x), -np.inf, v)
    v = r.where(r.logical_and(nan_y, r.logical_not(inf_x)), np.nan, v)
    v = r.where(r.logical_and(nan_x, r.logical_not(inf_y)), np.nan, v)
    special = r.logical_not(r.logical_and(r.isfinite(x), r.isfinite(y)))
    return r.where(special, u, re), r.where(special, v, im)


def arccosh(ctx, x, y):
    """FreeBSD's cacosh from w = cacos(z): (|Im w|, Re w with the sign of y); glibc's table
    for infinite and NaN parts."""
    r = R(ctx)
    ry, rx = arccos(ctx, x, y)
    re, im = r.absolute(rx), r.copysign(ry, y)
    inf_x, inf_y = r.isinf(x), r.isinf(y)
    nan_x, nan_y = r.isnan(x), r.isnan(y)
    # any infinite part: +inf real; imaginary ±π/2, ±π/4, ±3π/4 (y infinite), ±0 or ±π (x
    # infinite, y finite), nan with a NaN part; no infinite part but a NaN: nan + i nan
    angle_y = r.where(inf_x, r.where(r.less(x, 0.0), 3 * np.pi / 4, np.pi / 4), _HALF_PI)
    angle_x = r.where(r.less(x, 0.0), np.pi, 0.0)
    sp_im = r.copysign(r.where(inf_y, angle_y, angle_x), y)
    sp_im = r.where(r.logical_or(nan_x, nan_y), np.nan, sp_im)
    sp_im = r.where(r.logical_and(nan_y, r.equal(x, 0.0)), _HALF_PI, sp_im)  # ±0 + i nan
    sp_re = r.where(r.logical_or(inf_x, inf_y), np.inf, np.nan)
    special = r.logical_not(r.logical_and(r.isfinite(x), r.isfinite(y)))
    return r.where(special, sp_re, re), r.where(special, sp_im, im)


def arctanh(ctx, x, y):
    """FreeBSD's catanh: on |x|, |y| (no cancellation in 4|x|/...), signs put back."""
    r = R(ctx)
    ax, ay = r.absolute(x), r.absolute(y)
    one_m = r.subtract(1.0, ax)
    den = r.add(r.multiply(one_m, one_m), r.multiply(ay, ay))
    re = r.multiply(r.log1p(r.divide(r.multiply(ax, 4.0), den)), 0.25)
    # |x| = 1, tiny y: 4/y^2 would overflow; (ln 2 - log|y|) / 2
    eps = float(np.finfo(x.dtype).eps)
    near = r.logical_and(r.equal(ax, 1.0), r.less(ay, eps))
    re = r.where(near, r.multiply(r.subtract(np.log(2.0), r.log(ay)), 0.5), re)
    # atan2(2|y|, d) as atan2(|y|, d/2): the same angle, no overflow of 2y
    d = r.subtract(r.multiply(one_m, r.add(ax, 1.0)), r.multiply(ay, ay))
    im = r.multiply(r.arctan2(ay, r.multiply(d, 0.5)), 0.5)
    # huge parts: the squares overflow; atanh(z) ~ 1/z + i·π/2 there
    huge = r.greater(r.maximum(ax, ay), _huge(x))
    inv_r, _ = ops.reciprocal(ctx, ax, ay)
    re = r.where(huge, inv_r, re)
    im = r.where(huge, _HALF_PI, im)
    re, im = r.copysign(re, x), r.copysign(im, y)
    return _atanh_special(ctx, x, y, re, im)


def _huge(x) -> float:
    """A magnitude above which the squares in arctanh overflow (and 1/z is exact enough)."""
    return float(np.sqrt(np.finfo(x.dtype).max) / 4)


def _atanh_special(ctx, x, y, re, im):
    """catanh's infinities and NaNs (C99 G.6.2.3)."""
    r = R(ctx)
    inf_x, inf_y = r.isinf(x), r.isinf(y)
    nan_x, nan_y = r.isnan(x), r.isnan(y)
    # ±inf + i y, x ± i inf: ±0 (the sign of x) + i ±π/2 (the sign of y)
    u = r.copysign(0.0, x)
    v = r.copysign(_HALF_PI, y)
    # nan + i ±inf: ±0 + i ±π/2 (numpy: +0·sign); ±inf + i nan: ±0 + i nan;
    # nan + i finite, finite + i nan: nan + i nan; 0 + i nan: ±0 + i nan
    u = r.where(r.logical_and(nan_x, r.logical_not(inf_y)), np.nan, u)
    u = r.where(r.logical_and(nan_y, r.logical_not(r.logical_or(inf_x,
                                                                r.equal(x, 0.0)))), np.nan, u)
    v = r.where(r.logical_and(nan_y, r.logical_not(nan_x)), np.nan, v)
    v = r.where(r.logical_and(nan_x, r.logical_not(inf_y)), np.nan, v)
    v = r.where(r.logical_and(nan_y, nan_x), np.nan, v)
    special = r.logical_not(r.logical_and(r.isfinite(x), r.isfinite(y)))
    return r.where(special, u, re), r.where(special, v, im)


def arctan(ctx, x, y):
    r = R(ctx)
    u, v = arctanh(ctx, r.negative(y), x)
    return v, r.negative(u)


def log1p(ctx, x, y):
    """numpy's nc_log1p: log(hypot(x + 1, y)) + i atan2(y, x + 1)."""
    r = R(ctx)
    xp = r.add(x, 1.0)
    return r.log(r.hypot(xp, y)), r.arctan2(y, xp)


def expm1(ctx, x, y):
    """numpy's nc_expm1: expm1(x) cos(y) - 2 sin(y/2)^2 + i exp(x) sin(y)."""
    r = R(ctx)
    a = r.sin(r.multiply(y, 0.5))
    re = r.subtract(r.multiply(r.expm1(x), r.cos(y)), r.multiply(r.multiply(a, a), 2.0))
    return re, r.multiply(r.exp(x), r.sin(y))


_unary = ops.unary_parts


FUNCS = {np.tan: _unary(tan), np.tanh: _unary(tanh), np.arcsin: _unary(arcsin),
         np.arccos: _unary(arccos), np.arctan: _unary(arctan), np.arcsinh: _unary(arcsinh),
         np.arccosh: _unary(arccosh), np.arctanh: _unary(arctanh), np.log1p: _unary(log1p),
         np.expm1: _unary(expm1)}

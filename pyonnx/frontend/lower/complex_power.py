"""``a ** b`` for a complex exponent known only at run time (an array or a graph scalar), as
numpy's ``nc_pow`` computes it.

Input: the parts of the base and of the exponent (real Arrays of one float dtype, broadcast
by the real lowerings), built on :mod:`complex_arith` and :mod:`complex_elementary` (exp,
log). Output: the parts of the
power.

numpy's order of cases, each an elementwise ``Where`` here:

1. a zero exponent: ``1 + 0j``;
2. a zero base: ``0`` for ``Re(b) > 0``, else ``nan + nan j``;
3. a real integer exponent ``n`` with ``|n| < 100``: ``a`` (n = 1), ``a*a``, ``a*(a*a)``, else
   binary powering from 1 (seven squarings, each bit of ``|n|`` selecting a multiplication)
   and ``1 / a^|n|`` for negative ``n`` — the plain complex product, with its NaNs;
4. otherwise the C library's ``cpow``: ``cexp(b * clog(a))``, where ``*`` is C's complex
   multiplication (``__muldc3``: a product that is NaN in both parts but has an infinite
   operand or partial product is recomputed as infinities, C99 Annex G).
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.complex_values import zeros_like
from pyonnx.frontend.lower.complex_arith import R, div, mul
from pyonnx.frontend.lower.complex_elementary import exp, log

__all__ = ["runtime_power", "c99_multiply"]


def c99_multiply(ctx, r, a, b, c, d):
    """``(a + ib) * (c + id)`` as C99's ``__muldc3`` (Annex G.5.1's recovery of infinities);
    ``r`` the real lowerings (complex_arith.R)."""
    ac, bd, ad, bc = r.multiply(a, c), r.multiply(b, d), r.multiply(a, d), r.multiply(b, c)
    x, y = r.subtract(ac, bd), r.add(ad, bc)
    both_nan = r.logical_and(r.isnan(x), r.isnan(y))

    def box(v):  # copysign(isinf(v) ? 1 : 0, v)
        return r.copysign(r.where(r.isinf(v), 1.0, 0.0), v)

    def unnan(v):  # copysign(0, v) for a NaN, else v
        return r.where(r.isnan(v), r.copysign(0.0, v), v)

    inf_ab = r.logical_or(r.isinf(a), r.isinf(b))
    inf_cd = r.logical_or(r.isinf(c), r.isinf(d))
    a1 = r.where(inf_ab, box(a), a)
    b1 = r.where(inf_ab, box(b), b)
    c1 = r.where(inf_ab, unnan(c), c)
    d1 = r.where(inf_ab, unnan(d), d)
    c2 = r.where(inf_cd, box(c1), c1)
    d2 = r.where(inf_cd, box(d1), d1)
    a2 = r.where(inf_cd, unnan(a1), a1)
    b2 = r.where(inf_cd, unnan(b1), b1)
    inf_partial = r.logical_or(r.logical_or(r.isinf(ac), r.isinf(bd)),
                               r.logical_or(r.isinf(ad), r.isinf(bc)))
    third = r.logical_and(r.logical_not(r.logical_or(inf_ab, inf_cd)), inf_partial)
    a3, b3, c3, d3 = (r.where(third, unnan(v), v) for v in (a2, b2, c2, d2))
    recalc = r.logical_and(both_nan, r.logical_or(r.logical_or(inf_ab, inf_cd), third))
    xr = r.multiply(r.subtract(r.multiply(a3, c3), r.multiply(b3, d3)), np.inf)
    yr = r.multiply(r.add(r.multiply(a3, d3), r.multiply(b3, c3)), np.inf)
    return r.where(recalc, xr, x), r.where(recalc, yr, y)


def _integer_power(ctx, ar, ai, n_abs):
    """Binary powering as numpy's loop does it (|n| < 128: seven bits)."""
    r = R(ctx)
    acci = zeros_like(ctx, ai)  # numpy's aa = 1 + 0j
    accr = r.add(acci, 1.0)
    pr, pi = ar, ai
    for k in range(7):
        bit = r.equal(r.fmod(r.floor(r.divide(n_abs, float(2 ** k))), 2.0), 1.0)
        mr, mi = mul(r, accr, acci, pr, pi)
        accr, acci = r.where(bit, mr, accr), r.where(bit, mi, acci)
        if k < 6:
            pr, pi = mul(r, pr, pi, pr, pi)
    return accr, acci


def runtime_power(ctx, ar, ai, br, bi):
    """numpy's ``nc_pow(a, b)`` elementwise (see the module docstring)."""
    r = R(ctx)
    # the general case: cexp(b * clog(a))
    lr, li = log(ctx, ar, ai)
    er, ei = c99_multiply(ctx, r, br, bi, lr, li)
    re, im = exp(ctx, er, ei)
    # a real integer exponent below 100 in magnitude
    integer = r.logical_and(r.logical_and(r.equal(bi, 0.0), r.isfinite(br)),
                            r.logical_and(r.equal(r.floor(br), br),
                                          r.less(r.absolute(br), 100.0)))
    n_abs = r.where(integer, r.absolute(br), 0.0)
    pr, pi = _integer_power(ctx, ar, ai, n_abs)
    qr, qi = div(r, 1.0, 0.0, pr, pi)
    neg = r.less(br, 0.0)
    pr, pi = r.where(neg, qr, pr), r.where(neg, qi, pi)
    sq_r, sq_i = mul(r, ar, ai, ar, ai)
    cu_r, cu_i = mul(r, ar, ai, sq_r, sq_i)
    for k, (vr, vi) in ((1, (ar, ai)), (2, (sq_r, sq_i)), (3, (cu_r, cu_i))):
        is_k = r.equal(br, float(k))
        pr, pi = r.where(is_k, vr, pr), r.where(is_k, vi, pi)
    re, im = r.where(integer, pr, re), r.where(integer, pi, im)
    # a zero base, then a zero exponent (numpy checks the exponent first)
    zero_a = r.logical_and(r.equal(ar, 0.0), r.equal(ai, 0.0))
    za = r.where(r.greater(br, 0.0), 0.0, np.nan)
    re, im = r.where(zero_a, za, re), r.where(zero_a, za, im)
    zero_b = r.logical_and(r.equal(br, 0.0), r.equal(bi, 0.0))
    return r.where(zero_b, 1.0, re), r.where(zero_b, 0.0, im)

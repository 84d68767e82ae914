"""cbrt, hypot, logaddexp, logaddexp2 in float64."""

from __future__ import annotations

import math

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.precise.ex import Ex, _signbit, where
from pyonnx.frontend.numpy_calls.elementwise.precise.exp_log import _log1p
from pyonnx.frontend.numpy_calls.elementwise.precise.hyperbolic import _LN2


def cbrt(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    a = e.abs()
    t = a.pow(1.0 / 3.0)
    # One Newton step (fdlibm s_cbrt.c's last step), which makes the result nearly
    # correctly rounded.
    r = a / (t * t)
    w = t + t
    r = (r - t) / (w + r)
    t = t + t * r
    t = where(a.eq(0.0) | a.isinf() | a.isnan(), a, t)
    return where(~_signbit(e), t, -t).array()


def hypot(ctx, x: Array, y: Array) -> Array:
    a, b = Ex.of(ctx, x).abs(), Ex.of(ctx, y).abs()
    m = a._bin("Max", b)
    s = where(m.gt(2.0 ** 500), 2.0 ** -600, where(m.lt(2.0 ** -500), 2.0 ** 600, 1.0))
    aa, bb = a * s, b * s
    h = (aa * aa + bb * bb).sqrt() / s
    return where(a.isinf() | b.isinf(), math.inf, h).array()


def logaddexp(ctx, x: Array, y: Array) -> Array:
    """numpy's npy_logaddexp: ``x + log1p(exp(-(x-y)))`` around the larger operand."""
    a, b = Ex.of(ctx, x), Ex.of(ctx, y)
    d = a - b
    pos = a + _log1p((-d).exp())
    neg = b + _log1p(d.exp())
    r = where(d.gt(0.0), pos, where(d.le(0.0), neg, d))
    return where(a.eq(b), a + _LN2, r).array()


def logaddexp2(ctx, x: Array, y: Array) -> Array:
    """numpy's npy_logaddexp2: ``x + log2(1 + 2**-(x-y))`` around the larger operand."""
    a, b = Ex.of(ctx, x), Ex.of(ctx, y)
    d = a - b
    log2e = 1.442695040888963407359924681001892137
    pos = a + log2e * _log1p((-d).rpow(2.0))
    neg = b + log2e * _log1p(d.rpow(2.0))
    r = where(d.gt(0.0), pos, where(d.le(0.0), neg, d))
    return where(a.eq(b), a + 1.0, r).array()

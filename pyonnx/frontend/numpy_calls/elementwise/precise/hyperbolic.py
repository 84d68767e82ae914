"""sinh, cosh, tanh, arcsinh, arccosh, arctanh in float64: fdlibm's formulas on expm1, log1p,
exp and log."""

from __future__ import annotations

import math

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.precise.arctan import _odd
from pyonnx.frontend.numpy_calls.elementwise.precise.ex import Ex, _select, where
from pyonnx.frontend.numpy_calls.elementwise.precise.exp_log import _O_THRESHOLD, _expm1, _log1p


_LN2 = 6.93147180559945286227e-01


def sinh(ctx, x: Array) -> Array:
    """fdlibm e_sinh.c on |x|; exp(|x|) for the large range is expm1(|x|) + 1."""
    e = Ex.of(ctx, x)
    a = e.abs()
    t = _expm1(a)
    small = 0.5 * (2.0 * t - t * t / (t + 1.0))
    mid = 0.5 * (t + t / (t + 1.0))
    large = 0.5 * (t + 1.0)
    w = (0.5 * a).exp()                     # exp(|x|) itself would overflow first
    huge = (0.5 * w) * w
    r = _select(huge, (a.lt(2.0 ** -28), a), (a.lt(1.0), small), (a.lt(22.0), mid),
                (a.lt(_O_THRESHOLD), large))
    return _odd(e, r).array()


def cosh(ctx, x: Array) -> Array:
    """fdlibm e_cosh.c on |x|, with exp(|x|) = expm1(|x|) + 1."""
    e = Ex.of(ctx, x)
    a = e.abs()
    t = _expm1(a)
    w = 1.0 + t
    small = 1.0 + (t * t) / (w + w)
    mid = 0.5 * w + 0.5 / w
    large = 0.5 * w
    h = (0.5 * a).exp()
    huge = (0.5 * h) * h
    return _select(huge, (a.lt(0.5 * _LN2), small), (a.lt(22.0), mid),
                   (a.lt(_O_THRESHOLD), large)).array()


def tanh(ctx, x: Array) -> Array:
    """fdlibm s_tanh.c: -t/(t+2) with t = expm1(-2|x|) below 1, 1 - 2/(expm1(2|x|)+2) above
    (one expm1 on the selected argument)."""
    e = Ex.of(ctx, x)
    a = e.abs()
    below = a.lt(1.0)
    t = _expm1(where(below, -2.0 * a, 2.0 * a))
    r = _select(1.0, (below, -t / (t + 2.0)), (a.lt(22.0), 1.0 - 2.0 / (t + 2.0)))
    r = where(a.isnan(), a, r)
    return _odd(e, r).array()


def arcsinh(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    a = e.abs()
    t = a * a
    small = _log1p(a + t / (1.0 + (1.0 + t).sqrt()))
    mid = (2.0 * a + 1.0 / ((t + 1.0).sqrt() + a)).log()
    large = a.log() + _LN2
    r = _select(large, (a.le(2.0), small), (a.le(2.0 ** 28), mid))
    return _odd(e, r).array()


def arccosh(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    t = e - 1.0
    near = _log1p(t + (2.0 * t + t * t).sqrt())
    mid = (2.0 * e - 1.0 / (e + (e * e - 1.0).sqrt())).log()
    large = e.log() + _LN2
    r = _select(large, (e.le(2.0), near), (e.le(2.0 ** 28), mid))
    return where(e.lt(1.0) | e.isnan(), math.nan, r).array()


def arctanh(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    a = e.abs()
    t = a + a
    small = 0.5 * _log1p(t + t * a / (1.0 - a))
    big = 0.5 * _log1p(t / (1.0 - a))
    r = where(a.lt(0.5), small, big)
    r = where(a.gt(1.0) | a.isnan(), math.nan, r)
    return _odd(e, r).array()

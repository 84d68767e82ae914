"""np.convolve, np.correlate and np.sinc with complex operands.

Input: two 1-D values, at least one complex, and numpy's ``mode``. Output: a Complex of
numpy's result dtype. Both are bilinear, so each is four real convolutions (correlations) of
the parts, run by the registry's real lowering (which owns ``mode``, the operand swap and the
checks):

* ``convolve(a, v)``: ``(ar*vr - ai*vi) + i (ar*vi + ai*vr)``;
* ``correlate(a, v)`` is numpy's ``c[k] = sum_n a[n+k] conj(v[n])``:
  ``(ar.vr + ai.vi) + i (ai.vr - ar.vi)``.

A sum of the four real results puts infinities where numpy's complex sums do (the same signed
infinities are added, in another order); finite values agree to rounding.

``sinc(z)`` is numpy's own code on the complex value: ``x = pi * z`` (a complex product, as
numpy's ufunc computes it), ``y = where(x, x, 1e-20)`` (numpy's eps for a non-float dtype),
``sin(y) / y``.
"""

from __future__ import annotations

import ast

import numpy as np

from pyonnx.frontend.graph.complex_values import make, parts
from pyonnx.frontend.lower.complex_ops import R, result_dtype
from pyonnx.frontend.numpy_calls import lookup

__all__ = ["FUNCS"]


def _lower(func, conjugate: bool, default_mode: str):
    def lower(ctx, a, v, mode=default_mode):
        dt, _ = result_dtype(ctx, np.multiply, a, v)
        ar, ai = parts(ctx, a, dt)
        vr, vi = parts(ctx, v, dt)
        real = lookup(func).fn
        r = R(ctx)

        def c(x, y):
            return real(ctx, x, y, mode)
        if conjugate:
            re = r.add(c(ar, vr), c(ai, vi))
            im = r.subtract(c(ai, vr), c(ar, vi))
        else:
            re = r.subtract(c(ar, vr), c(ai, vi))
            im = r.add(c(ar, vi), c(ai, vr))
        return make(ctx, re, im, dt)
    return lower


def sinc(ctx, z):
    from pyonnx.frontend.lower import complex_ops as ops
    from pyonnx.frontend.lower.complex_elementary import sin

    x = ops.binary(ctx, ast.Mult, np.pi, z)
    r = R(ctx)
    nonzero = ops.truth(ctx, x)  # where(x, x, 1e-20): (1e-20 + 0j) where x is 0
    y = make(ctx, r.where(nonzero, x.re, 1e-20), r.where(nonzero, x.im, 0.0), x.dtype)
    return ops.binary(ctx, ast.Div, make(ctx, *sin(ctx, y.re, y.im), y.dtype), y)


FUNCS = {np.convolve: _lower(np.convolve, False, "full"),
         np.correlate: _lower(np.correlate, True, "valid"), np.sinc: sinc}

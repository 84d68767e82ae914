"""np.convolve and np.correlate with complex operands.

Input: two 1-D values, at least one complex, and numpy's ``mode``. Output: a Complex of
numpy's result dtype. Both are bilinear, so each is four real convolutions (correlations) of
the parts, run by the registry's real lowering (which owns ``mode``, the operand swap and the
checks):

* ``convolve(a, v)``: ``(ar*vr - ai*vi) + i (ar*vi + ai*vr)``;
* ``correlate(a, v)`` is numpy's ``c[k] = sum_n a[n+k] conj(v[n])``:
  ``(ar.vr + ai.vi) + i (ai.vr - ar.vi)``.

A sum of the four real results puts infinities where numpy's complex sums do (the same signed
infinities are added, in another order); finite values agree to rounding.
"""

from __future__ import annotations

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


FUNCS = {np.convolve: _lower(np.convolve, False, "full"),
         np.correlate: _lower(np.correlate, True, "valid")}

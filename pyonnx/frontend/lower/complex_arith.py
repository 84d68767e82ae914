"""The base of complex arithmetic on real parts: :class:`R` (the registry's real lowerings bound
to one context), the complex product, numpy's complex division and the modulus.

Input: real Arrays (or numbers) for the parts. Output: the parts of the result. Every other
complex module builds on these; this one imports none of them.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls import lookup

__all__ = ["R", "mul", "div", "hypot"]


class R:
    """The real lowerings, bound to one context (``R(ctx).add(a, b)``)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def where(self, cond, a, b):
        """``np.where(cond, a, b)`` keeping the sign of a selected zero: onnxruntime's Where
        gives +0.0 for a selected -0.0 (common.where_), so ``out`` is multiplied by -1 where
        its sign differs from the selected operand's. Signs are read by comparisons, not
        BitCast (opset 26, which skl2onnx cannot write); a NaN counts as positive on both
        sides, so a selected NaN is multiplied by 1, which keeps its bits (sign included:
        later copysign/signbit lowerings read them)."""
        w = self.__getattr__("where")
        out = w(cond, a, b)
        if out.dtype.kind != "f":
            return out
        flip = self.logical_xor(w(cond, self._negative(a), self._negative(b)),
                                self._negative(out))
        minus, one = (self.ctx.const_array(np.asarray(v, out.dtype)) for v in (-1.0, 1.0))
        return self.multiply(out, w(flip, minus, one))

    def _negative(self, x):
        """Whether ``x`` has its sign bit set (False for a NaN): ``x < 0`` or ``1/x < 0``
        (which sees -0.0)."""
        if not isinstance(x, Array):
            return bool(np.signbit(x)) and not np.isnan(x)
        if x.dtype.kind != "f":
            return self.less(x, 0)
        return self.logical_or(self.less(x, 0.0), self.less(self.reciprocal(x), 0.0))

    def __getattr__(self, name: str):
        entry = lookup(getattr(np, name))
        if entry is None:
            raise AttributeError(f"pyonnx bug: no real lowering of np.{name}")
        fn = entry.fn
        ctx = self.ctx

        def run(*args, **kwargs):
            out = fn(ctx, *args, **kwargs)
            if isinstance(out, Array) and out.weak:
                out = Array(out.value, out.dtype, out.shape)
            return out
        return run


# ------------------------------------------------------------------ arithmetic
def mul(r: R, ar, ai, br, bi):
    return r.subtract(r.multiply(ar, br), r.multiply(ai, bi)), \
        r.add(r.multiply(ar, bi), r.multiply(ai, br))


def div(r: R, ar, ai, br, bi):
    """numpy's complex division (Smith's algorithm; a zero divisor gives inf/nan parts)."""
    abr, abi = r.absolute(br), r.absolute(bi)
    big_r = r.greater_equal(abr, abi)
    zero = r.logical_and(r.equal(abr, 0.0), r.equal(abi, 0.0))
    # |br| >= |bi|
    rat = r.divide(bi, r.where(zero, 1.0, br))
    scl = r.divide(1.0, r.add(br, r.multiply(bi, rat)))
    r1 = r.multiply(r.add(ar, r.multiply(ai, rat)), scl)
    i1 = r.multiply(r.subtract(ai, r.multiply(ar, rat)), scl)
    # zero divisor
    r0, i0 = r.divide(ar, abr), r.divide(ai, abr)
    # |br| < |bi| (or NaN)
    rat2 = r.divide(br, bi)
    scl2 = r.divide(1.0, r.add(bi, r.multiply(br, rat2)))
    r2 = r.multiply(r.add(r.multiply(ar, rat2), ai), scl2)
    i2 = r.multiply(r.subtract(r.multiply(ai, rat2), ar), scl2)
    re = r.where(big_r, r.where(zero, r0, r1), r2)
    im = r.where(big_r, r.where(zero, i0, i1), i2)
    return re, im


def hypot(ctx, ar, ai):
    """|a| without overflow or underflow: numpy's npy_hypot (inf wins over nan)."""
    r = R(ctx)
    return r.hypot(ar, ai)


# ------------------------------------------------------------------ operators

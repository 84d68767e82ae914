"""The float64 expression builder of the precise functions: :class:`Ex` (a float64 value whose
Python operators emit nodes), a -0.0-safe :func:`where`, polynomial evaluation, exact
power-of-two scaling and the error-free sum used by the argument reductions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array

__all__ = ["Ex", "where", "scale2"]

_F64 = np.dtype(np.float64)
_BOOL = np.dtype(np.bool_)


class Ex:
    """A graph value with arithmetic operators that emit ONNX nodes (float64 or bool).

    ``a + b``, ``a * 2.0``, ``-a`` emit Add/Mul/Neg; ``a.lt(b)`` etc. compare; ``&``, ``|``,
    ``~`` combine bool values. Python numbers become float64 constants.
    """

    __slots__ = ("ctx", "value", "dtype", "shape")

    def __init__(self, ctx, value, dtype, shape):
        self.ctx = ctx
        self.value = value
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)

    @staticmethod
    def of(ctx, array: Array) -> Ex:
        return Ex(ctx, array.value, array.dtype, array.shape)

    def array(self) -> Array:
        return Array(self.value, self.dtype, self.shape)

    def _lift(self, other) -> Ex:
        if isinstance(other, Ex):
            return other
        return Ex(self.ctx, self.ctx.const(np.asarray(other, _F64)), _F64, ())

    def _bin(self, op: str, other, swap: bool = False, dtype=None) -> Ex:
        o = self._lift(other)
        a, b = (o, self) if swap else (self, o)
        return Ex(self.ctx, self.ctx.op(op, a.value, b.value), dtype or a.dtype,
                  broadcast_shapes(a.shape, b.shape))

    def unary(self, op: str, **attrs) -> Ex:
        return Ex(self.ctx, self.ctx.op(op, self.value, **attrs), self.dtype, self.shape)

    def __add__(self, o): return self._bin("Add", o)
    def __radd__(self, o): return self._bin("Add", o, swap=True)
    def __sub__(self, o): return self._bin("Sub", o)
    def __rsub__(self, o): return self._bin("Sub", o, swap=True)
    def __mul__(self, o): return self._bin("Mul", o)
    def __rmul__(self, o): return self._bin("Mul", o, swap=True)
    def __truediv__(self, o): return self._bin("Div", o)
    def __rtruediv__(self, o): return self._bin("Div", o, swap=True)
    def __neg__(self): return self.unary("Neg")

    def __and__(self, o): return self._bin("And", o)
    def __or__(self, o): return self._bin("Or", o)
    def __xor__(self, o): return self._bin("Xor", o)

    def __invert__(self):
        # Xor with True, not Not: onnxruntime's NotWhereFusion rewrites Where(Not(c), a, b)
        # into Where(c, b, a), which would move a -0.0 back into the branch that loses it.
        true = Ex(self.ctx, self.ctx.const(np.array(True)), _BOOL, ())
        return self._bin("Xor", true)

    def lt(self, o): return self._bin("Less", o, dtype=_BOOL)
    def le(self, o): return self._bin("LessOrEqual", o, dtype=_BOOL)
    def gt(self, o): return self._bin("Greater", o, dtype=_BOOL)
    def ge(self, o): return self._bin("GreaterOrEqual", o, dtype=_BOOL)
    def eq(self, o): return self._bin("Equal", o, dtype=_BOOL)

    def binary_min(self, o): return self._bin("Min", o)

    def to_float(self) -> Ex:
        """A bool value as float64 0.0/1.0."""
        return Ex(self.ctx, self.ctx.op("Cast", self.value, to=11), _F64, self.shape)

    def abs(self): return self.unary("Abs")
    def floor(self): return self.unary("Floor")
    def round(self): return self.unary("Round")  # half to even, as rint
    def sqrt(self): return self.unary("Sqrt")
    def exp(self): return self.unary("Exp")
    def log(self): return self.unary("Log")
    def isnan(self): return Ex(self.ctx, self.ctx.op("IsNaN", self.value), _BOOL, self.shape)
    def isinf(self): return Ex(self.ctx, self.ctx.op("IsInf", self.value), _BOOL, self.shape)

    def pow(self, o): return self._bin("Pow", o)
    def rpow(self, o): return self._bin("Pow", o, swap=True)

    def __bool__(self):
        raise TypeError("the truth value of a graph value is only known at run time")


def where(cond: Ex, a, b) -> Ex:
    """``Where(cond, a, b)``; ``a``/``b`` may be Python numbers (float64 constants).

    onnxruntime's Where returns +0.0 for a -0.0 taken from ``a`` (measured), so a value that
    may be -0.0 goes in ``b``, with ``~cond`` (an Xor, which no optimizer swaps back).
    """
    ctx = cond.ctx
    x = cond._lift(a) if not isinstance(a, Ex) else a
    y = cond._lift(b) if not isinstance(b, Ex) else b
    return Ex(ctx, ctx.op("Where", cond.value, x.value, y.value), x.dtype,
              broadcast_shapes(cond.shape, x.shape, y.shape))


def _select(default, *cases) -> Ex:
    """``cases`` are (cond, value) pairs; the first true condition wins."""
    out = default
    for cond, value in reversed(cases):
        out = where(cond, value, out)
    return out


def _horner(z: Ex, coeffs: Sequence[float]) -> Ex:
    """coeffs[0]*z**n + ... + coeffs[n] (Cephes ``polevl``)."""
    r = z * coeffs[0] + coeffs[1]
    for c in coeffs[2:]:
        r = r * z + c
    return r


def _horner1(z: Ex, coeffs: Sequence[float]) -> Ex:
    """z**(n+1) + coeffs[0]*z**n + ... (Cephes ``p1evl``, leading coefficient 1)."""
    r = z + coeffs[0]
    for c in coeffs[1:]:
        r = r * z + c
    return r


def scale2(x: Ex, k: Ex) -> Ex:
    """``x * 2**k`` for an integer-valued float64 ``k`` in about [-2200, 2200], exactly.

    Two factors keep each power of two representable (2**1024 is not); ``Pow(2, n)`` is exact
    for integer ``n`` in onnxruntime (measured over the whole exponent range).
    """
    half = (k * 0.5).floor()
    return x * half.rpow(2.0) * (k - half).rpow(2.0)


def _signbit(x: Ex) -> Ex:
    """True for negative numbers and -0.0 (the sign of a NaN is not observable in ONNX)."""
    return x.lt(0.0) | (x.eq(0.0) & (1.0 / x).lt(0.0))


def _two_sum(a: Ex, b: Ex) -> tuple[Ex, Ex]:
    """Knuth's TwoSum: s + e == a + b exactly."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def _split_hi(x: Ex, bits: int) -> Ex:
    """The leading ``53 - bits`` significant bits of ``x`` (Veltkamp splitting)."""
    c = x * float(2 ** bits + 1)
    return c - (c - x)

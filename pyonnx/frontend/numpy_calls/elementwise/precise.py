"""float64 math functions built from ONNX ops that onnxruntime's CPU provider has in float64.

Input: float64 :class:`~pyonnx.frontend.graph.values.Array` operands. Output: float64 Arrays
equal to numpy's results to float64 precision, including ±0, ±inf, nan and subnormal inputs.
Largest differences from numpy 2.4 measured over wide samples (``tests/test_elementwise.py``
checks them): sin, cos, tan 1 ulp below 2**20*pi/2 (3-4 ulp above, onnxruntime's kernels);
arctan, arctan2, expm1, log1p, log2, log10, cbrt, hypot 1 ulp; arcsin, arccos, cosh, tanh,
arcsinh, arccosh, arctanh 2 ulp; sinh 3 ulp (at |x| > 709.78, 2 below); spacing, nextafter,
frexp, ldexp exact.

onnxruntime has no float64 ``Atan``, ``Tan``, ``Asin``, ``Acos``, ``Sinh``, ``Cosh``, ``Asinh``,
``Acosh``, ``Atanh``, no ``Expm1``/``Log1p``/``Log2``/``Cbrt``/``Hypot``/``Atan2`` at all, and its
float64 ``Sin``/``Cos`` reduce arguments between 1.4 and 15 with too short a pi (``sin(pi)``
gives 0 instead of 1.2e-16); its ``Tanh`` is 8 ulp off. A float32 detour would leave errors of
5e-7, so these follow the classic double-precision libraries with the same algorithms:

* sin, cos, tan: fdlibm's ``__ieee754_rem_pio2`` medium-range reduction (3 x 33-bit pieces of
  pi/2, carried as a double-double) and its ``__kernel_sin/cos/tan``; above 2**20 * pi/2 the
  onnxruntime kernels, which are accurate there, take over.
* arctan: Cephes ``atan`` (argument reduction by tan(3pi/8) and tan(pi/8)); arctan2, arcsin and
  arccos on top of it with IEEE's quadrant, signed-zero and infinity rules.
* expm1: fdlibm ``s_expm1.c``; log1p: ``log(u) - ((u-1)-x)/u`` with ``u = 1+x`` (exact
  correction of the rounded ``1+x``); log2, log10: fdlibm's ``k_log1p`` with the exponent split
  off (found with ``Log`` and fixed up exactly with powers of two).
* sinh, cosh, tanh, arcsinh, arccosh, arctanh: fdlibm's formulas on expm1/log1p/exp/log.
* cbrt: ``pow(|x|, 1/3)`` and one fdlibm Newton step; hypot: ``sqrt(x*x+y*y)`` after exact
  power-of-two scaling.
* frexp, ldexp, spacing, nextafter: from the exact exponent split.

Powers of two come from ``Pow(2, k)``, exact in onnxruntime for every integer k (measured).
onnxruntime's Where returns +0.0 for a -0.0 taken from its first branch, so values that may be
-0.0 always go in the second one (see :func:`where`). The ops are written with :class:`Ex`, a
float64 value with Python operators that emit nodes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array

__all__ = [
    "Ex", "where", "sin", "cos", "tan", "arctan", "arctan2", "arcsin", "arccos", "expm1", "log1p",
    "log2", "log10", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "cbrt", "hypot",
    "logaddexp", "logaddexp2", "frexp", "spacing", "nextafter", "ldexp", "scale2",
]

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


# ----------------------------------------------------------------------------- sin cos tan
# fdlibm e_rem_pio2.c: pi/2 in three 33-bit pieces and the tail.
_INVPIO2 = 6.36619772367581382433e-01
_PIO2_1 = 1.57079632673412561417e+00
_PIO2_2 = 6.07710050630396597660e-11
_PIO2_3 = 2.02226624871116645580e-21
_PIO2_3T = 8.47842766036889956997e-32
# n * _PIO2_k is exact for |n| < 2**20; beyond, onnxruntime's Sin/Cos are accurate (measured).
_REDUCE_LIMIT = 2.0 ** 19 * math.pi

_S = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
      2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
_C = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
      -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11)
_T = (3.33333333333334091986e-01, 1.33333333333201242699e-01, 5.39682539762260521377e-02,
      2.18694882948595424599e-02, 8.86323982359930005737e-03, 3.59207910759131235356e-03,
      1.45620945432529025516e-03, 5.88041240820264096874e-04, 2.46463134818469906812e-04,
      7.81794442939557092300e-05, 7.14072491382608190305e-05, -1.85586374855275456654e-05,
      2.59073051863633712884e-05)
_PIO4 = 7.85398163397448278999e-01
_PIO4LO = 3.06161699786838301793e-17


def _rem_pio2(x: Ex) -> tuple[Ex, Ex, Ex]:
    """x = n*pi/2 + (y0 + y1) with |y0| <= pi/4; returns (n mod 4, y0, y1).

    fdlibm subtracts the second and third pieces only when cancellation needs them; here all
    three are always subtracted with exact TwoSum error terms, which is as exact.
    """
    fn = (x * _INVPIO2).round()
    r1 = x - fn * _PIO2_1                      # exact (Sterbenz; fn*_PIO2_1 is exact)
    r2, e2 = _two_sum(r1, -(fn * _PIO2_2))
    r3, e3 = _two_sum(r2, -(fn * _PIO2_3))
    tail = (e2 + e3) - fn * _PIO2_3T
    y0 = r3 + tail
    y1 = (r3 - y0) + tail
    q = fn - (fn * 0.25).floor() * 4.0
    return q, y0, y1


def _ksin(x: Ex, y: Ex) -> Ex:
    z = x * x
    w = z * z
    r = _S[1] + z * (_S[2] + z * _S[3]) + z * w * (_S[4] + z * _S[5])
    v = z * x
    return x - ((z * (0.5 * y - v * r) - y) - v * _S[0])


def _kcos(x: Ex, y: Ex) -> Ex:
    z = x * x
    w = z * z
    r = z * (_C[0] + z * (_C[1] + z * _C[2])) + w * w * (_C[3] + z * (_C[4] + z * _C[5]))
    hz = 0.5 * z
    w = 1.0 - hz
    return w + (((1.0 - w) - hz) + (z * r - x * y))


def _ktan(x: Ex, y: Ex, odd: Ex) -> Ex:
    """fdlibm __kernel_tan: tan(x+y) where n is even, -1/tan(x+y) where ``odd``."""
    big = x.abs().ge(0.6744)
    neg = x.lt(0.0)
    xs = where(neg, -x, x)
    ys = where(neg, -y, y)
    xb = (_PIO4 - xs) + (_PIO4LO - ys)
    x = where(big, xb, x)
    y = where(big, 0.0, y)
    z = x * x
    w = z * z
    r = _T[1] + w * (_T[3] + w * (_T[5] + w * (_T[7] + w * (_T[9] + w * _T[11]))))
    v = z * (_T[2] + w * (_T[4] + w * (_T[6] + w * (_T[8] + w * (_T[10] + w * _T[12])))))
    s = z * x
    r = y + z * (s * (r + v) + y)
    r = r + _T[0] * s
    w = x + r
    iy = where(odd, -1.0, 1.0)
    big_res = where(neg, -1.0, 1.0) * (iy - 2.0 * (x - (w * w / (w + iy) - r)))
    # -1/(x+r) accurately: split w and -1/w so that t*z is exact.
    zz = _split_hi(w, 32)
    vv = r - (zz - x)
    a = -1.0 / w
    t = _split_hi(a, 32)
    ss = 1.0 + t * zz
    inv = t + a * (ss + t * vv)
    return where(big, big_res, where(odd, inv, w))


def _trig(ctx, x: Array, which: str) -> Array:
    e = Ex.of(ctx, x)
    q, y0, y1 = _rem_pio2(e)
    ax = e.abs()
    if which == "tan":
        res = _ktan(y0, y1, q.eq(1.0) | q.eq(3.0))
        big = e.unary("Sin") / e.unary("Cos")
        res = where(ax.ge(2.0 ** -27), res, e)
    else:
        s, c = _ksin(y0, y1), _kcos(y0, y1)
        if which == "sin":
            res = _select(-c, (q.eq(0.0), s), (q.eq(1.0), c), (q.eq(2.0), -s))
            res = where(ax.ge(2.0 ** -27), res, e)
            big = e.unary("Sin")
        else:
            res = _select(s, (q.eq(0.0), c), (q.eq(1.0), -s), (q.eq(2.0), -c))
            big = e.unary("Cos")
    return where(ax.ge(_REDUCE_LIMIT), big, res).array()


def sin(ctx, x: Array) -> Array:
    return _trig(ctx, x, "sin")


def cos(ctx, x: Array) -> Array:
    return _trig(ctx, x, "cos")


def tan(ctx, x: Array) -> Array:
    return _trig(ctx, x, "tan")


# ------------------------------------------------------------------------ arctan family
# Cephes atan.c
_ATAN_P = (-8.750608600031904122785e-01, -1.615753718733365076637e+01,
           -7.500855792314704667340e+01, -1.228866684490136173410e+02,
           -6.485021904942025371773e+01)
_ATAN_Q = (2.485846490142306297962e+01, 1.650270098316988542046e+02,
           4.328810604912902668951e+02, 4.853903996359136964868e+02,
           1.945506571482613964425e+02)
_T3P8 = 2.41421356237309504880
_MOREBITS = 6.123233995736765886130e-17
_PIO2 = 1.57079632679489661923
_PI = 3.14159265358979311600e+00
_PI_LO = 1.2246467991473532e-16


def _atan_pos(a: Ex) -> Ex:
    """atan(a) for a >= 0 (or nan), Cephes' reduction and rational approximation."""
    big = a.gt(_T3P8)
    mid = a.gt(0.66) & ~big
    x = where(big, -1.0 / a, where(mid, (a - 1.0) / (a + 1.0), a))
    y = where(big, _PIO2, where(mid, _PIO4, 0.0))
    more = where(big, _MOREBITS, where(mid, 0.5 * _MOREBITS, 0.0))
    z = x * x
    z = z * _horner(z, _ATAN_P) / _horner1(z, _ATAN_Q)
    z = x * z + x
    return y + (z + more)


def _odd(e: Ex, r: Ex) -> Ex:
    """Applies the sign of ``e`` to ``r`` = f(|e|) for an odd f, keeping ±0 and nan.

    onnxruntime's Where turns a selected -0.0 into +0.0 in its first branch, so values that
    may be -0.0 are always placed in the second one (see :func:`where`).
    """
    r = where(e.ge(0.0) | e.isnan(), r, -r)
    return where(~e.eq(0.0), r, e)


def arctan(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    return _odd(e, _atan_pos(e.abs())).array()


def _atan2(y: Ex, x: Ex) -> Ex:
    ay, ax = y.abs(), x.abs()
    t = _atan_pos(ay / ax)
    t = where(ay.eq(0.0), 0.0, t)                       # 0/0 and 0/x
    t = where(ay.isinf() & ax.isinf(), _PIO4, t)        # inf/inf
    r = where(_signbit(x), (_PI - t) + _PI_LO, t)
    r = where(~_signbit(y), r, -r)
    return where(y.isnan() | x.isnan(), x + y, r)


def arctan2(ctx, y: Array, x: Array) -> Array:
    return _atan2(Ex.of(ctx, y), Ex.of(ctx, x)).array()


def arcsin(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    a = e.abs()
    s = ((1.0 - a) * (1.0 + a)).sqrt()                  # nan for |x| > 1
    return _odd(e, _atan_pos(a / s)).array()


def arccos(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    s = ((1.0 - e) * (1.0 + e)).sqrt()
    t = _atan_pos(s / e.abs())
    r = where(e.lt(0.0), (_PI - t) + _PI_LO, t)
    return where(e.isnan(), e, r).array()


# ------------------------------------------------------------------------ exp and log
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INVLN2 = 1.44269504088896338700e+00
_O_THRESHOLD = 7.09782712893383973096e+02
_EXPM1_Q = (-3.33333333333331316428e-02, 1.58730158725481460165e-03,
            -7.93650757867487942473e-05, 4.00821782732936239552e-06,
            -2.01099218183624371326e-07)


def _expm1(x: Ex) -> Ex:
    """fdlibm s_expm1.c, every branch computed and selected by k."""
    k = (x * _INVLN2).round()
    hi = x - k * _LN2_HI
    lo = k * _LN2_LO
    r = hi - lo
    c = (hi - r) - lo
    hfx = 0.5 * r
    hxs = r * hfx
    q = _EXPM1_Q
    r1 = 1.0 + hxs * (q[0] + hxs * (q[1] + hxs * (q[2] + hxs * (q[3] + hxs * q[4]))))
    t = 3.0 - r1 * hfx
    e = hxs * ((r1 - t) / (6.0 - r * t))
    res_k0 = r - (r * e - hxs)
    e = (r * (e - c) - c) - hxs
    res_m1 = 0.5 * (r - e) - 0.5
    res_p1 = where(r.lt(-0.25), -2.0 * (e - (r + 0.5)), 1.0 + 2.0 * (r - e))
    # One Pow (the slowest op here): 2**k for k <= 1023, its exact reciprocal 2**-k, and
    # k == 1024 (x just below the overflow threshold) as 2 * 2**1023. Below k = -38 the
    # result is -1 (selected below), so 2**k never underflows where it matters.
    twopk = where(k.gt(1023.0), 1023.0, k).rpow(2.0)
    twomk = 1.0 / twopk
    res_far = (1.0 - (e - r)) * twopk * where(k.gt(1023.0), 2.0, 1.0) - 1.0
    res_mid = ((1.0 - twomk) - (e - r)) * twopk
    res_hi = ((r - (e + twomk)) + 1.0) * twopk
    res = _select(res_far, (k.eq(0.0), res_k0), (k.eq(-1.0), res_m1), (k.eq(1.0), res_p1),
                  (k.ge(2.0) & k.lt(20.0), res_mid), (k.ge(20.0) & k.le(56.0), res_hi))
    res = where(x.gt(_O_THRESHOLD), math.inf, res)
    res = where(x.lt(-38.0), -1.0, res)
    return where(x.abs().ge(2.0 ** -54) | x.isnan(), res, x)


def expm1(ctx, x: Array) -> Array:
    return _expm1(Ex.of(ctx, x)).array()


def _log1p(x: Ex) -> Ex:
    u = 1.0 + x
    c = (u - 1.0) - x                   # exact: 1 + x == u - c
    r = u.log() - c / u
    r = where(x.eq(-1.0), -math.inf, r)
    r = where(x.eq(math.inf), math.inf, r)
    return where(~x.eq(0.0), r, x)


def log1p(ctx, x: Array) -> Array:
    return _log1p(Ex.of(ctx, x)).array()


_SQRT2 = 1.41421356237309514547
_LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
       2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
       1.479819860511658591e-01)


def _split_exponent(x: Ex) -> tuple[Ex, Ex]:
    """x = m * 2**k for finite x > 0 with m in [sqrt(2)/2, sqrt(2)), k an integer (float64)."""
    # Subnormals are first scaled up by 2**100 (exactly), so one power of two, 2**-k with
    # k in [-1000, 1024], does the rest.
    sub = x.lt(2.0 ** -1000)
    x = where(sub, x * 2.0 ** 100, x)
    k = (x.log() * _INVLN2).floor()     # off by at most one near powers of two
    m = x * (-k).rpow(2.0)
    k = where(sub, k - 100.0, k)
    up = m.ge(2.0)
    m, k = where(up, m * 0.5, m), where(up, k + 1.0, k)
    down = m.lt(1.0)
    m, k = where(down, m * 2.0, m), where(down, k - 1.0, k)
    center = m.gt(_SQRT2)
    return where(center, m * 0.5, m), where(center, k + 1.0, k)


def _log_parts(x: Ex) -> tuple[Ex, Ex, Ex]:
    """fdlibm k_log.h: (k, hi, lo) with log(x) = k*ln2 + hi + lo, hi short (20 bits)."""
    m, k = _split_exponent(x)
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG[1] + w * (_LG[3] + w * _LG[5]))
    t2 = z * (_LG[0] + w * (_LG[2] + w * (_LG[4] + w * _LG[6])))
    hfsq = 0.5 * f * f
    r = s * (hfsq + (t2 + t1))
    hi = _split_hi(f - hfsq, 33)
    lo = ((f - hi) - hfsq) + r
    return k, hi, lo


def _log_special(x: Ex, r: Ex) -> Ex:
    r = where(x.eq(0.0), -math.inf, r)
    r = where(x.eq(math.inf), math.inf, r)
    return where(x.lt(0.0) | x.isnan(), math.nan, r)


def log2(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    k, hi, lo = _log_parts(e)
    val_hi = hi * 1.44269504072144627571e+00
    val_lo = (lo + hi) * 1.67517131648865118353e-10 + lo * 1.44269504072144627571e+00
    w = k + val_hi
    val_lo = val_lo + ((k - w) + val_hi)
    return _log_special(e, val_lo + w).array()


def log10(ctx, x: Array) -> Array:
    e = Ex.of(ctx, x)
    k, hi, lo = _log_parts(e)
    val_hi = hi * 4.34294481878168880939e-01
    y2 = k * 3.01029995663611771306e-01
    val_lo = (k * 3.69423907715893078616e-13 + (lo + hi) * 2.50829467116452752298e-11
              + lo * 4.34294481878168880939e-01)
    w = y2 + val_hi
    val_lo = val_lo + ((y2 - w) + val_hi)
    return _log_special(e, val_lo + w).array()


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
    r = where(r.abs().gt(fmax), r * math.inf, r)       # past the format's largest: ±inf
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

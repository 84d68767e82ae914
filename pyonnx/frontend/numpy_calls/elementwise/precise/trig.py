"""sin, cos, tan in float64: fdlibm's medium-range reduction and kernels (see the package
docstring)."""

from __future__ import annotations

import math

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.precise.ex import (
    Ex,
    _select,
    _split_hi,
    _two_sum,
    where,
)


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

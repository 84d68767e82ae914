"""Correctly rounded float64 references (mpmath), so accuracy claims do not depend on the
platform's libm.

numpy's transcendental functions call the C library, which is not correctly rounded and differs
between machines (on some glibc ``np.cbrt(27.0)`` is ``3.0000000000000004``). The accuracy tests
therefore measure pyonnx against the *mathematical* function rounded once to float64:
``reference(name, x)`` evaluates it with mpmath at 128 bits and rounds to nearest.

Input: a float64 array. Output: a float64 array of the same shape; NaN where the function is
undefined over the reals, ±inf where the exact value overflows or the input is a pole.
Non-finite and zero inputs take numpy's value: IEEE 754 / C99 Annex F define those exactly, so every
libm agrees on them.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

__all__ = ["reference", "reference2", "ulps", "FUNCTIONS"]

_PREC = 128


def _cbrt(x):
    return mpmath.sign(x) * mpmath.cbrt(abs(x))


# name -> (mpmath function of one real, numpy function for the non-finite inputs)
FUNCTIONS = {
    "sin": (mpmath.sin, np.sin), "cos": (mpmath.cos, np.cos), "tan": (mpmath.tan, np.tan),
    "arcsin": (mpmath.asin, np.arcsin), "arccos": (mpmath.acos, np.arccos),
    "arctan": (mpmath.atan, np.arctan), "expm1": (mpmath.expm1, np.expm1),
    "log1p": (mpmath.log1p, np.log1p), "log2": (lambda v: mpmath.log(v, 2), np.log2),
    "log10": (mpmath.log10, np.log10), "sinh": (mpmath.sinh, np.sinh),
    "cosh": (mpmath.cosh, np.cosh), "tanh": (mpmath.tanh, np.tanh),
    "arcsinh": (mpmath.asinh, np.arcsinh), "arccosh": (mpmath.acosh, np.arccosh),
    "arctanh": (mpmath.atanh, np.arctanh), "cbrt": (_cbrt, np.cbrt),
}


def _to_float64(v) -> float:
    """Rounds an mpmath real to the nearest float64, subnormals included (one rounding)."""
    if isinstance(v, mpmath.mpc):
        if v.imag != 0:
            return math.nan  # outside the real domain
        v = v.real
    if not mpmath.isfinite(v):
        return float(v)
    if v == 0:
        return 0.0
    # Round the exact value to 53 bits at an exponent no lower than the subnormal quantum.
    m, e = mpmath.frexp(v)  # v = m * 2**e, 0.5 <= |m| < 1
    quantum = max(int(e) - 53, -1074)
    scaled = mpmath.ldexp(v, -quantum)
    n = int(mpmath.nint(scaled))  # round half to even
    sign = -1.0 if v < 0 else 1.0  # an underflow to zero keeps the sign
    try:
        return math.copysign(math.ldexp(float(abs(n)), quantum), sign)
    except OverflowError:
        return math.copysign(math.inf, sign)


def reference(name: str, x: np.ndarray) -> np.ndarray:
    """The correctly rounded float64 value of ``name`` at every element of ``x``."""
    fn, np_fn = FUNCTIONS[name]
    flat = np.asarray(x, dtype=np.float64).ravel()
    out = np.empty_like(flat)
    with mpmath.workprec(_PREC):
        for i, xi in enumerate(flat.tolist()):
            if not math.isfinite(xi) or xi == 0:  # mpmath has no signed zero
                with np.errstate(all="ignore"):
                    out[i] = np_fn(xi)
                continue
            try:
                out[i] = _to_float64(fn(mpmath.mpf(xi)))
            except (ValueError, ZeroDivisionError):  # a pole: atanh(±1), log(0)
                with np.errstate(all="ignore"):
                    out[i] = np_fn(xi)
    return out.reshape(np.shape(x))


def reference2(name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The correctly rounded ``arctan2(a, b)`` or ``hypot(a, b)``, elementwise. Inputs with a
    zero or non-finite operand take numpy's value (defined exactly by C99 Annex F)."""
    fn, np_fn = {"arctan2": (mpmath.atan2, np.arctan2), "hypot": (mpmath.hypot, np.hypot)}[name]
    a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
    out = np.empty(a.shape, np.float64)
    with mpmath.workprec(_PREC):
        for i, (ai, bi) in enumerate(zip(a.ravel().tolist(), b.ravel().tolist())):
            if not (math.isfinite(ai) and math.isfinite(bi)) or ai == 0 or bi == 0:
                out.flat[i] = np_fn(ai, bi)
            else:
                out.flat[i] = _to_float64(fn(mpmath.mpf(ai), mpmath.mpf(bi)))
    return out


def ulps(got: np.ndarray, want: np.ndarray) -> float:
    """The largest distance of ``got`` from the correctly rounded ``want``, in units of the last
    place of ``want``; NaN, ±inf and the sign of zero must match exactly."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), "NaN where the exact result is not (or vice versa)"
    inf = np.isinf(want)
    np.testing.assert_array_equal(got[inf], want[inf], err_msg="infinities")
    np.testing.assert_array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]),
                                  err_msg="signs (zeros included)")
    fin = ~nan & ~inf
    if not fin.any():
        return 0.0
    with np.errstate(over="ignore"):
        return float(np.max(np.abs(got[fin] - want[fin]) / np.spacing(np.abs(want[fin]))))

"""Complex arithmetic and elementwise functions on :class:`Complex` pairs, as numpy computes them.

Input: frontend values of which at least one is complex (a Complex, or a static Python/numpy
complex next to graph values). Output: Complex values (or real Arrays for ``abs``, ``angle``,
comparisons) whose dtype is numpy's (NEP 50: a Python ``complex`` is weak, ``float32 + 1j`` is
complex64, ``complex64 + float64`` complex128). Every part computation goes through the real
lowerings of the registry (``np.add`` on the parts...), so broadcasting and shapes are theirs.

Formulas are numpy's own loops (``numpy/_core/src/umath/loops.c.src``, ``npy_math_complex``):
multiplication is the plain formula, division Smith's algorithm with numpy's zero-divisor case,
integer powers repeated multiplication (|n| < 100), ``abs`` a scaled hypot (no overflow).
exp/log/sqrt/sin/cos/sinh/cosh/sign are in :mod:`complex_elementary`.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.complex_values import Complex, make, parts
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.lower.complex_arith import R, div, hypot, mul  # noqa: F401 (re-exported)
from pyonnx.frontend.lower.complex_elementary import sqrt
from pyonnx.frontend.lower.complex_power import runtime_power as _runtime_power

__all__ = ["involved", "result_dtype", "binary", "unary", "unary_parts", "new_copy", "compare",
           "R", "mul", "div", "hypot", "power", "reciprocal", "truth"]

_BIN_UFUNCS = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply,
               ast.Div: np.true_divide, ast.Pow: np.power}


def involved(*values: Any) -> bool:
    """Whether an operation on ``values`` is complex and has graph values (a static-only
    operation runs in Python at conversion time)."""
    from pyonnx.frontend.graph.complex_values import is_complex

    if any(isinstance(v, Complex) for v in values):
        return True
    return any(is_complex(v) for v in values) and any(isinstance(v, Array) for v in values)


def _proxy(v: Any) -> Any:
    if isinstance(v, Complex):
        return complex if v.weak else v.dtype
    return dtypes.proxy(v)


def _weak(v: Any) -> bool:
    return v.weak if isinstance(v, Complex) else dtypes.is_weak(v)


def result_dtype(ctx, ufunc: np.ufunc, *values: Any) -> tuple[np.dtype, bool]:
    """numpy's output dtype of ``ufunc(*values)`` and whether the result is weak.

    A value that is a Python number on some run-time paths only (``s = 0j`` before a loop
    that may run 0 times) is checked where numpy's dtype differs on those paths
    (lower/control_flow/complex_paths)."""
    from pyonnx.frontend.lower.control_flow import complex_paths

    dt, weak = _resolved(ufunc, values)
    if dt is None:
        try:
            dtypes._resolve(ufunc, tuple(_proxies(values)))
        except Exception as e:
            raise ctx.error(f"np.{ufunc.__name__}: {e}") from None
    complex_paths.check_operands(ctx, f"np.{ufunc.__name__}", values, dt,
                                 lambda alt: _resolved(ufunc, alt)[0])
    return dt, weak


def _proxies(values: tuple) -> list:
    proxies = [_proxy(v) for v in values]
    if all(_weak(v) for v in values):
        proxies = [dtypes._strong(p) for p in proxies]
    return proxies


def _resolved(ufunc: np.ufunc, values: tuple) -> tuple[np.dtype | None, bool]:
    """(numpy's output dtype or None when numpy has no loop, whether the result is weak)."""
    try:
        _, outs = dtypes._resolve(ufunc, tuple(_proxies(values)))
    except Exception:
        return None, all(_weak(v) for v in values)
    return outs[0], all(_weak(v) for v in values)


def _static_int_exponent(b: Any) -> int | None:
    if isinstance(b, Array) or isinstance(b, Complex):
        return None
    try:
        v = complex(b)
    except (TypeError, ValueError):
        return None
    if v.imag == 0 and v.real == int(v.real) and -100 < v.real < 100 if np.isfinite(v.real) \
            else False:
        return int(v.real)
    return None


def power(ctx, a: Any, b: Any, dtype: np.dtype) -> tuple[Any, Any]:
    """numpy's ``nc_pow``: 1 for a zero exponent, 0 (or nan) for a zero base, repeated
    multiplication for an integer exponent known now, else complex_power.runtime_power."""
    r = R(ctx)
    ar, ai = parts(ctx, a, dtype)
    n = _static_int_exponent(b)
    if isinstance(a, Complex) and not isinstance(b, (Array, Complex)) and n == -1:
        return reciprocal(ctx, ar, ai)  # ndarray.__pow__'s fast path (np.reciprocal)
    if isinstance(a, Complex) and not isinstance(b, (Array, Complex)) and not \
            isinstance(b, bool) and b == 0.5:
        return sqrt(ctx, ar, ai)  # ndarray.__pow__'s fast path (np.sqrt)
    if n is not None:
        if n == 0:
            from pyonnx.frontend.graph.complex_values import zeros_like
            return r.add(zeros_like(ctx, ar), 1.0), zeros_like(ctx, ai)
        # numpy: 1 (n=1), a*a, a*(a*a), else binary powering from 1
        if n in (1, 2, 3):
            pr, pi = ar, ai
            if n >= 2:
                pr, pi = mul(r, ar, ai, ar, ai)
            if n == 3:
                pr, pi = mul(r, ar, ai, pr, pi)
            return _zero_base(ctx, ar, ai, n, pr, pi)
        m = abs(n)
        accr, acci, pr, pi, mask = None, None, ar, ai, 1
        while True:
            if m & mask:
                if accr is None:  # aa = 1 * p (numpy multiplies by 1 exactly: same values)
                    accr, acci = mul(r, 1.0, 0.0, pr, pi)
                else:
                    accr, acci = mul(r, accr, acci, pr, pi)
            mask <<= 1
            if m < mask:
                break
            pr, pi = mul(r, pr, pi, pr, pi)
        if n < 0:
            accr, acci = div(r, 1.0, 0.0, accr, acci)
        return _zero_base(ctx, ar, ai, n, accr, acci)
    br, bi = parts(ctx, b, dtype)
    return _runtime_power(ctx, ar, ai, br, bi)


def reciprocal(ctx, ar, ai):
    """numpy's complex reciprocal loop (a ratio of the smaller part to the larger)."""
    r = R(ctx)
    small_i = r.less_equal(r.absolute(ai), r.absolute(ar))
    q1 = r.divide(ai, ar)
    d1 = r.add(ar, r.multiply(ai, q1))
    q2 = r.divide(ar, ai)
    d2 = r.add(r.multiply(ar, q2), ai)
    return r.where(small_i, r.divide(1.0, d1), r.divide(q2, d2)), \
        r.where(small_i, r.negative(r.divide(q1, d1)), r.negative(r.divide(1.0, d2)))


def _zero_base(ctx, ar, ai, n: int, pr, pi):
    r = R(ctx)
    zero_a = r.logical_and(r.equal(ar, 0.0), r.equal(ai, 0.0))
    z = 0.0 if n > 0 else np.nan
    return r.where(zero_a, z, pr), r.where(zero_a, z, pi)


def binary(ctx, op: type, a: Any, b: Any) -> Any:
    """``a <op> b`` where one side is complex: numpy's value and dtype."""
    ufunc = _BIN_UFUNCS.get(op)
    if ufunc is None:
        name = {ast.FloorDiv: "//", ast.Mod: "%"}.get(op, op.__name__)
        raise ctx.error(f"'{name}' is not defined for complex values (numpy raises TypeError)")
    dt, weak = result_dtype(ctx, ufunc, a, b)
    if not weak and _weak(a) and _float64_scalar(ctx, b):
        # Python's own complex takes a float subclass (np.float64 is one): `c / np.float64(2)`
        # with a Python complex c on the left is a Python complex (fuzz seed 12000809); with
        # the numpy scalar on the left, or any other numpy type, numpy answers (complex128).
        weak = True
    from pyonnx.frontend.lower.control_flow.complex_paths import derive
    if op is ast.Pow:
        re, im = power(ctx, a, b, dt)
        return derive(ctx, make(ctx, re, im, dt, weak), (a, b))
    r = R(ctx)
    ar, ai = parts(ctx, a, dt)
    br, bi = parts(ctx, b, dt)
    if op is ast.Add:
        re, im = r.add(ar, br), r.add(ai, bi)
    elif op is ast.Sub:
        re, im = r.subtract(ar, br), r.subtract(ai, bi)
    elif op is ast.Mult:
        re, im = mul(r, ar, ai, br, bi)
    else:
        re, im = div(r, ar, ai, br, bi)
    return derive(ctx, make(ctx, re, im, dt, weak), (a, b))


def unary(ctx, op: type, a: Complex) -> Any:
    r = R(ctx)
    from pyonnx.frontend.lower.control_flow.complex_paths import derive
    if op is ast.USub:
        return derive(ctx, make(ctx, r.negative(a.re), r.negative(a.im), a.dtype, a.weak), (a,))
    if op is ast.UAdd:  # a new array, as in numpy (``b = +z; b -= 1`` leaves z alone)
        return derive(ctx, new_copy(ctx, a, a.weak), (a,))
    if op is ast.Not:
        return r.logical_not(truth(ctx, a))
    raise ctx.error("'~' is not defined for complex values (numpy raises TypeError)")


def truth(ctx, a: Complex) -> Array:
    """``a != 0`` elementwise (a complex value is true when either part is nonzero)."""
    r = R(ctx)
    return r.logical_or(r.not_equal(a.re, 0.0), r.not_equal(a.im, 0.0))


def compare(ctx, op: type, a: Any, b: Any) -> Array:
    """``==`` and ``!=`` (numpy also orders complex values lexicographically: < <= > >=)."""
    r = R(ctx)
    ufunc = {ast.Eq: np.equal, ast.NotEq: np.not_equal, ast.Lt: np.less, ast.LtE: np.less_equal,
             ast.Gt: np.greater, ast.GtE: np.greater_equal}.get(op)
    if ufunc is None:
        raise ctx.error("this comparison is not supported for complex values")
    dt, _ = result_dtype(ctx, np.add, a, b)
    ar, ai = parts(ctx, a, dt)
    br, bi = parts(ctx, b, dt)
    if op is ast.Eq:
        return r.logical_and(r.equal(ar, br), r.equal(ai, bi))
    if op is ast.NotEq:
        return r.logical_or(r.not_equal(ar, br), r.not_equal(ai, bi))
    # numpy's CLT/CLE: real parts decide, ties by the imaginary parts (NaN compares false)
    strict = {ast.Lt: r.less, ast.Gt: r.greater, ast.LtE: r.less, ast.GtE: r.greater}[op]
    tie = {ast.Lt: r.less, ast.Gt: r.greater, ast.LtE: r.less_equal,
           ast.GtE: r.greater_equal}[op]
    no_nan = r.logical_not(r.logical_or(r.isnan(ai), r.isnan(bi)))
    return r.logical_or(r.logical_and(strict(ar, br), no_nan),
                        r.logical_and(r.equal(ar, br), tie(ai, bi)))


def static_complex(value: Any) -> bool:
    return is_static(value) and not isinstance(value, (list, tuple))


def _float64_scalar(ctx, v: Any) -> bool:
    """Whether ``v`` is a numpy float64 *scalar* (a subclass of Python's float), not a 0-d
    array or another dtype."""
    from pyonnx.frontend.graph import scalar_kinds
    if isinstance(v, np.float64):
        return True
    return isinstance(v, Array) and not v.weak and v.ndim == 0 and \
        v.dtype == np.float64 and scalar_kinds.scalar_kind(ctx, v) == "scalar"


def unary_parts(fn):
    """The lowering of a complex function given by ``fn(ctx, re, im) -> (re, im)``: refuses
    out=/where=/dtype= and non-complex arguments, keeps the argument's dtype."""
    def lower(ctx, z, *rest, **kwargs):
        if rest or kwargs:
            raise ctx.error("out=/where=/dtype= are not supported with complex values yet")
        if not isinstance(z, Complex):
            raise ctx.error("this function is not supported for this complex argument yet")
        re, im = fn(ctx, z.re, z.im)
        return make(ctx, re, im, z.dtype)
    return lower


def new_copy(ctx, z: Complex, weak: bool = False) -> Complex:
    """A new array with ``z``'s values (``+z``, ``np.positive(z)``, a reduction of a 0-d value):
    numpy's result never shares the argument's memory."""
    r = R(ctx)
    return make(ctx, r.positive(z.re), r.positive(z.im), z.dtype, weak)

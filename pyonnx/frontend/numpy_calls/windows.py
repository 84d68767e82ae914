"""Window functions: ``np.hanning``, ``np.hamming``, ``np.blackman``, ``np.bartlett``,
``np.kaiser``, and the Bessel function ``np.i0`` that ``kaiser`` needs.

Input: the window length ``M`` (a Python int, or a 0-d integer or float value only known at
run time such as ``len(x)``), ``beta`` for kaiser; ``np.i0``: an array. Output: a float64
Array of length ``max(M, 0)`` (run-time length), numpy's values. A static ``M`` is computed by
numpy at conversion time (a constant); a run-time one follows numpy's Python code step by
step on the lowered ufuncs (``numpy/lib/_function_base_impl.py``): ``M`` as float64,
``n = arange(1 - M, M, 2)``, the cosine sums, and ``ones(1)`` for ``M == 1`` (selected at run
time: the formula divides by ``M - 1``). ``np.i0`` is numpy's Chebyshev expansion (Cephes
``i0``: ``exp(x) * chbevl(x/2 - 2, A)`` for ``|x| <= 8``, ``exp(x) * chbevl(32/x - 2, B) /
sqrt(x)`` above), in the array's float dtype as numpy computes it (integers as float64).

Supported syntax::

    np.hanning(M)  np.hamming(M)  np.blackman(M)  np.bartlett(M)  np.kaiser(M, beta)
    np.i0(x)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import lookup, register

__all__: list[str] = []

_F64 = np.dtype(np.float64)
# numpy's own Chebyshev coefficients (Cephes), read from numpy so they cannot drift.
from numpy.lib import _function_base_impl as _fb  # noqa: E402

_I0A = tuple(float(v) for v in _fb._i0A)
_I0B = tuple(float(v) for v in _fb._i0B)


def _np(fn: Any, ctx, *args, **kwargs) -> Any:
    """The registered lowering of numpy function ``fn`` (numpy's dtypes and rounding)."""
    return lookup(fn).fn(ctx, *args, **kwargs)


def _length(ctx, name: str, M: Any) -> Array:
    """numpy's ``np.array([0.0, M])[1]``: M as a float64 value."""
    m = ctx.asarray(M)
    if m.ndim:
        raise ctx.error(f"{name}: M must be a number, not an array of shape {m.shape} (numpy "
                        "raises ValueError)")
    if m.dtype.kind not in "iuf":
        raise ctx.error(f"{name}: M must be a number, not {m.dtype}")
    m = ctx.cast(m, _F64)
    return Array(m.value, m.dtype, m.shape)


def _one_if_m_is_1(ctx, m: Array, window: Array) -> Array:
    """numpy returns ``ones(1)`` for ``M == 1`` (the formulas divide by ``M - 1``)."""
    return _np(np.where, ctx, _np(np.equal, ctx, m, 1.0), 1.0, window)


def _cosine_window(name: str, a0: float, a1: float, a2: float):
    def lower(ctx, M):
        m = _length(ctx, name, M)
        n = _np(np.arange, ctx, _np(np.subtract, ctx, 1, m), m, 2)
        x = _np(np.true_divide, ctx, _np(np.multiply, ctx, np.pi, n),
                _np(np.subtract, ctx, m, 1))
        w = _np(np.add, ctx, a0, _np(np.multiply, ctx, a1, _np(np.cos, ctx, x)))
        if a2:
            x2 = _np(np.true_divide, ctx, _np(np.multiply, ctx, 2.0 * np.pi, n),
                     _np(np.subtract, ctx, m, 1))
            w = _np(np.add, ctx, w, _np(np.multiply, ctx, a2, _np(np.cos, ctx, x2)))
        return _one_if_m_is_1(ctx, m, w)

    lower.__name__ = name.removeprefix("np.")
    lower.__doc__ = f"``{name}(M)``, numpy's formula."
    return lower


register(np.hanning)(_cosine_window("np.hanning", 0.5, 0.5, 0.0))
register(np.hamming)(_cosine_window("np.hamming", 0.54, 0.46, 0.0))
register(np.blackman)(_cosine_window("np.blackman", 0.42, 0.5, 0.08))


@register(np.bartlett)
def bartlett(ctx, M):
    """``np.bartlett(M)``: ``where(n <= 0, 1 + n/(M-1), 1 - n/(M-1))``."""
    m = _length(ctx, "np.bartlett", M)
    n = _np(np.arange, ctx, _np(np.subtract, ctx, 1, m), m, 2)
    q = _np(np.true_divide, ctx, n, _np(np.subtract, ctx, m, 1))
    w = _np(np.where, ctx, _np(np.less_equal, ctx, n, 0), _np(np.add, ctx, 1, q),
            _np(np.subtract, ctx, 1, q))
    return _one_if_m_is_1(ctx, m, w)


@register(np.kaiser)
def kaiser(ctx, M, beta):
    """``np.kaiser(M, beta)``: ``i0(beta * sqrt(1 - ((n - alpha) / alpha)**2)) / i0(beta)``."""
    m = _length(ctx, "np.kaiser", M)
    b = _length(ctx, "np.kaiser", beta)
    n = _np(np.arange, ctx, 0, m)
    alpha = _np(np.true_divide, ctx, _np(np.subtract, ctx, m, 1), 2.0)
    r = _np(np.true_divide, ctx, _np(np.subtract, ctx, n, alpha), alpha)
    inner = _np(np.sqrt, ctx, _np(np.subtract, ctx, 1, _np(np.power, ctx, r, 2.0)))
    w = _np(np.true_divide, ctx, i0(ctx, _np(np.multiply, ctx, b, inner)), i0(ctx, b))
    return _one_if_m_is_1(ctx, m, w)


def _chbevl(ctx, x: Array, coefficients: tuple[float, ...]) -> Array:
    """Cephes ``chbevl``, as numpy's ``_chbevl`` writes it (Python floats: weak)."""
    b0: Any = coefficients[0]
    b1: Any = 0.0
    b2: Any = 0.0
    for c in coefficients[1:]:
        b2 = b1
        b1 = b0
        b0 = _np(np.add, ctx, _np(np.subtract, ctx, _np(np.multiply, ctx, x, b1), b2), c)
    return _np(np.multiply, ctx, 0.5, _np(np.subtract, ctx, b0, b2))


@register(np.i0)
def i0(ctx, x):
    """``np.i0(x)``: the modified Bessel function of the first kind, order 0."""
    a = ctx.asarray(x)
    a = Array(a.value, a.dtype, a.shape)  # numpy's asanyarray: strong
    if a.dtype.kind not in "biuf":
        raise ctx.error(f"np.i0 of {a.dtype} is not supported")
    if a.dtype.kind != "f":
        a = ctx.cast(a, _F64)
    a = _np(np.absolute, ctx, a)
    inside = _np(np.less_equal, ctx, a, 8.0)
    # numpy's piecewise evaluates each branch on its own elements only; here each branch gets
    # a harmless stand-in elsewhere (no 32/0, no sqrt(0): no inf or NaN, in value or gradient)
    lo = _np(np.where, ctx, inside, a, 0.0)
    hi = _np(np.where, ctx, inside, 9.0, a)
    lo, hi = (ctx.cast(v, a.dtype) for v in (lo, hi))
    small = _np(np.multiply, ctx, _np(np.exp, ctx, lo),
                _chbevl(ctx, _np(np.subtract, ctx, _np(np.true_divide, ctx, lo, 2.0), 2), _I0A))
    big = _np(np.true_divide, ctx, _np(np.multiply, ctx, _np(np.exp, ctx, hi), _chbevl(
        ctx, _np(np.subtract, ctx, _np(np.true_divide, ctx, 32.0, hi), 2.0), _I0B)),
        _np(np.sqrt, ctx, hi))
    r = _np(np.where, ctx, inside, small, big)
    return Array(r.value, r.dtype, r.shape)

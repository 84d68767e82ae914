"""``np.fft``'s index helpers: fftshift/ifftshift (a roll by half of each axis) and
fftfreq/rfftfreq (the sample frequencies).

Input: a real Array or a Complex with static lengths on the shifted axes; ``n``/``d`` static or
graph scalars. Output: numpy's value (the shifts keep the dtype; the frequencies are float64).
"""

from __future__ import annotations

import numpy as np

from typing import Any

from pyonnx.frontend.graph.complex_values import Complex, make, static_dim
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.complex_ops import R
from pyonnx.frontend.numpy_calls import lookup

__all__ = ["FUNCS", "fftshift", "ifftshift", "fft_input"]


def fft_input(ctx, a: Any) -> Any:
    """An ``np.fft`` argument as a frontend value (a constant complex array as a Complex);
    :mod:`complex_fft` uses it too."""
    if isinstance(a, (Complex, Array)):
        return a
    arr = np.asarray(a)
    if arr.dtype.kind == "c":
        return make(ctx, arr.real, arr.imag, arr.dtype)
    return ctx.asarray(arr)


def _shift(ctx, x, axes, inverse: bool):
    x = fft_input(ctx, x)
    axes = ctx.static(axes, "axes")
    axes = tuple(range(x.ndim)) if axes is None else \
        (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
    shifts = []
    for ax in axes:
        d = static_dim(ctx, x.shape[ax], "np.fft.fftshift needs the axis lengths known at "
                       "conversion time")
        shifts.append(-(d // 2) if inverse else d // 2)
    roll = lookup(np.roll).fn
    if isinstance(x, Complex):
        return Complex(roll(ctx, x.re, tuple(shifts), axis=axes),
                       roll(ctx, x.im, tuple(shifts), axis=axes), x.dtype)
    return roll(ctx, x, tuple(shifts), axis=axes)


def fftshift(ctx, x, axes=None):
    return _shift(ctx, x, axes, False)


def ifftshift(ctx, x, axes=None):
    return _shift(ctx, x, axes, True)


def _freq(fn):
    """np.fft.fftfreq/rfftfreq: numpy's at conversion time when ``n`` and ``d`` are static,
    else numpy's formula (``k * (1.0 / (n * d))``, k = 0..N-1 then -(n//2)..-1)."""
    def lower(ctx, n, d=1.0, device=None):
        if not isinstance(n, Array) and not isinstance(d, Array):
            return fn(ctx.static(n, "n"), ctx.static(d, "d"))
        r = R(ctx)
        val = r.divide(1.0, r.multiply(n, d))
        if fn is np.fft.rfftfreq:
            k = lookup(np.arange).fn(ctx, r.add(r.floor_divide(n, 2), 1))
        else:
            k = lookup(np.arange).fn(ctx, n)
            half = r.add(r.floor_divide(r.subtract(n, 1), 2), 1)
            k = r.where(r.less(k, half), k, r.subtract(k, n))
        return r.multiply(k, val)
    return lower


FUNCS = {
    np.fft.fftshift: fftshift, np.fft.ifftshift: ifftshift,
    np.fft.fftfreq: _freq(np.fft.fftfreq), np.fft.rfftfreq: _freq(np.fft.rfftfreq),
}

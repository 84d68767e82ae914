"""``np.fft``: fft/ifft/rfft/irfft, fft2/ifft2, fftn/ifftn, rfft2/irfft2, rfftn/irfftn,
hfft/ihfft (fftshift/ifftshift and fftfreq/rfftfreq: :mod:`complex_fft_shift`).

Input: a real Array or a Complex, numpy's arguments (``n``/``s`` and ``axis``/``axes`` known at
conversion time, ``norm``). Output: numpy's value: complex64 for float32 input, complex128 for
float64 and integers (numpy 2), real for ``irfft``.

Lowered to ONNX's ``DFT`` (opset 20), which takes and gives numpy's trailing-2 layout
(:func:`complex_values.pack`). onnxruntime's CPU kernel is exact for forward transforms of both
float dtypes on any axis, with ``dft_length`` cropping or zero-padding as numpy's ``n`` does;
its ``inverse=1`` is not (float64 errors of 1e-8 measured, onnxruntime 1.32), so inverses are
computed as ``conj(DFT(conj(X))) / n``. ``irfft`` builds the full Hermitian spectrum and takes
the real part of its inverse (which ignores the imaginary parts of the zero and Nyquist
bins, as numpy's c2r transform does).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import (
    Complex, make, pack, real_dtype, static_dim, unpack)
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.complex_fft_shift import FUNCS as _SHIFT
from pyonnx.frontend.lower.complex_fft_shift import fft_input as _input
from pyonnx.frontend.lower.complex_fft_steps import four_step, split
from pyonnx.frontend.lower.complex_ops import R
from pyonnx.frontend.numpy_calls import lookup

__all__ = ["FUNCS"]

_OPSET = 20


def _out_dtype(a: Any) -> np.dtype:
    if isinstance(a, Complex):
        return a.dtype
    return np.dtype(np.complex64) if a.dtype == np.float32 else np.dtype(np.complex128)


def _norm_scale(ctx, norm: Any, n: int, inverse: bool) -> float | None:
    norm = ctx.static(norm, "norm")
    if norm is None or norm == "backward":
        return 1.0 / n if inverse else None
    if norm == "ortho":
        return float(1.0 / np.sqrt(n))
    if norm == "forward":
        return None if inverse else 1.0 / n
    raise ctx.error(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def _static_n(ctx, n: Any) -> Any:
    """``n`` at conversion time; one computed from symbolic input shapes asks for static
    shapes (one model per input shape)."""
    from pyonnx.errors import ConversionError
    from pyonnx.frontend.graph.context import NeedStaticShapes

    try:
        return ctx.static(n, "n")
    except ConversionError as e:
        if ctx.symbolic_params:
            raise NeedStaticShapes(e) from None
        raise


def _axis_len(ctx, a: Any, axis: int, n: Any) -> int:
    n = _static_n(ctx, n)
    if n is None:
        n = static_dim(ctx, a.shape[axis], "np.fft needs the transformed axis length known at "
                       "conversion time (pass n=)")
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ctx.error(f"Invalid number of FFT data points ({n}) specified.")
    return int(n)


def _axis(ctx, a: Any, axis: Any) -> int:
    axis = ctx.static(axis, "axis")
    if a.ndim == 0:
        raise ctx.error("np.fft of a 0-d value: numpy raises (the axis is out of bounds)")
    if not isinstance(axis, (int, np.integer)) or not -a.ndim <= axis < a.ndim:
        raise ctx.error(f"axis {axis} is out of bounds for array of dimension {a.ndim}")
    return int(axis) % a.ndim


def _dft(ctx, packed: Array, axis: int, n: int, onesided: bool = False) -> Array:
    """ONNX DFT (forward) of a trailing-1/2 real Array along ``axis``, length ``n`` (a long
    length that is not a power of two: two short DFTs, complex_fft_steps)."""
    if ctx.opset < _OPSET:
        raise ctx.error(f"np.fft needs ONNX opset {_OPSET} or newer (the DFT operator); "
                        f"compile with opset={_OPSET}")
    factors = split(n)
    if factors is not None and packed.shape[axis] is not None:
        return _split_dft(ctx, packed, axis, n, onesided, factors)
    out = ctx.op("DFT", packed, ctx.const(np.array(n, np.int64)),
                 ctx.const(np.array(axis, np.int64)), onesided=int(onesided), inverse=0)
    shape = list(packed.shape)
    shape[axis] = n // 2 + 1 if onesided else n
    shape[-1] = 2
    return Array(out, packed.dtype, tuple(shape))


def _split_dft(ctx, packed: Array, axis: int, n: int, onesided: bool,
               factors: tuple[int, int]) -> Array:
    """``_dft`` through the four-step FFT: the axis cropped or zero-padded to ``n`` (as the
    DFT operator's dft_length does), a zero imaginary part added to a real input, and the
    first n//2+1 bins kept for a one-sided transform."""
    from pyonnx.frontend.graph.indexing import getitem

    m = packed.shape[axis]
    if m > n:
        packed = getitem(ctx, packed, (slice(None),) * axis + (slice(0, n),))
    elif m < n:
        pad = [(0, 0)] * packed.ndim
        pad[axis] = (0, n - m)
        packed = lookup(np.pad).fn(ctx, packed, pad)
    if packed.shape[-1] == 1:
        zero = lookup(np.zeros_like).fn(ctx, packed)
        packed = Array(ctx.op("Concat", packed, zero, axis=-1), packed.dtype,
                       packed.shape[:-1] + (2,))
    out = four_step(ctx, packed, axis, *factors)
    if onesided:
        out = getitem(ctx, out, (slice(None),) * axis + (slice(0, n // 2 + 1),))
    return out


def _scaled(ctx, z: Complex, scale: float | None) -> Complex:
    if scale is None:
        return z
    r = R(ctx)
    return make(ctx, r.multiply(z.re, scale), r.multiply(z.im, scale), z.dtype)


def _c2c(ctx, a: Any, n: Any, axis: Any, norm: Any, inverse: bool) -> Complex:
    a = _input(ctx, a)
    dt = _out_dtype(a)
    ax = _axis(ctx, a, axis)
    length = _axis_len(ctx, a, ax, n)
    r = R(ctx)
    if isinstance(a, Complex):
        z = make(ctx, a.re, a.im, dt)
    else:
        z = make(ctx, ctx.cast(a, real_dtype(dt)),
                 ctx.cast(lookup(np.zeros_like).fn(ctx, a), real_dtype(dt)), dt)
    if inverse:  # ifft(X) = conj(fft(conj(X))) / n (see the module docstring)
        z = make(ctx, z.re, r.negative(z.im), dt)
    out = unpack(ctx, _dft(ctx, pack(ctx, z), ax, length), dt)
    if inverse:
        out = make(ctx, out.re, r.negative(out.im), dt)
    return _scaled(ctx, out, _norm_scale(ctx, norm, length, inverse))


def fft(ctx, a, n=None, axis=-1, norm=None, out=None):
    _no_out(ctx, out)
    return _c2c(ctx, a, n, axis, norm, False)


def ifft(ctx, a, n=None, axis=-1, norm=None, out=None):
    _no_out(ctx, out)
    return _c2c(ctx, a, n, axis, norm, True)


def rfft(ctx, a, n=None, axis=-1, norm=None, out=None):
    _no_out(ctx, out)
    a = _input(ctx, a)
    if isinstance(a, Complex):
        raise ctx.error("np.fft.rfft of complex input: numpy raises TypeError; use np.fft.fft")
    dt = _out_dtype(a)
    ax = _axis(ctx, a, axis)
    length = _axis_len(ctx, a, ax, n)
    x = ctx.cast(a, real_dtype(dt))
    x = Array(ctx.op("Unsqueeze", x, ctx.const(np.array([-1], np.int64))), x.dtype,
              x.shape + (1,))
    z = unpack(ctx, _dft(ctx, x, ax, length, onesided=True), dt)
    return _scaled(ctx, z, _norm_scale(ctx, norm, length, False))


def irfft(ctx, a, n=None, axis=-1, norm=None, out=None):
    """The real inverse of a one-sided spectrum: output length ``n`` (default 2(m-1))."""
    _no_out(ctx, out)
    a = _input(ctx, a)
    dt = _out_dtype(a)
    ax = _axis(ctx, a, axis)
    n = _static_n(ctx, n)
    m = a.shape[ax]
    if n is None:
        m = static_dim(ctx, m, "np.fft.irfft needs the axis length known at conversion time "
                       "(pass n=)")
        n = 2 * (m - 1)
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ctx.error(f"Invalid number of FFT data points ({n}) specified.")
    n = int(n)
    half = n // 2 + 1
    rd = real_dtype(dt)
    if isinstance(a, Complex):
        z = make(ctx, a.re, a.im, dt)
    else:
        z = make(ctx, ctx.cast(a, rd), ctx.cast(lookup(np.zeros_like).fn(ctx, a), rd), dt)
    # the first n//2+1 bins (cropped or zero-padded, as numpy's c2r reads them)
    if m is None:
        m = static_dim(ctx, m, "np.fft.irfft needs the axis length known at conversion time")
    if m < half:
        z = _pad_axis(ctx, z, ax, half)
    # full Hermitian spectrum: X[k] = a[k] (k <= n//2), conj(a[n-k]) above
    idx = np.array([k if k < half else n - k for k in range(n)], np.int64)
    sign = np.array([1.0 if k < half else -1.0 for k in range(n)], rd)
    take = lookup(np.take).fn
    re = take(ctx, z.re, ctx.const_array(idx), axis=ax)
    im = take(ctx, z.im, ctx.const_array(idx), axis=ax)
    shape = [1] * z.ndim
    shape[ax] = n
    r = R(ctx)
    # inverse via conj: Re(ifft(X)) = Re(DFT(conj(X))) / n; conj(X) flips im's sign
    im = r.multiply(im, ctx.const_array(-sign.reshape(shape)))
    full = make(ctx, re, im, dt)
    spec = unpack(ctx, _dft(ctx, pack(ctx, full), ax, n), dt)
    out_ = spec.re
    scale = _norm_scale(ctx, norm, n, True)
    return r.multiply(out_, scale) if scale is not None else out_


def _pad_axis(ctx, z: Complex, ax: int, length: int) -> Complex:
    """``z`` zero-padded along ``ax`` to ``length`` (a static axis shorter than that)."""
    pad = [(0, 0)] * z.ndim
    pad[ax] = (0, length - z.shape[ax])
    p = lookup(np.pad).fn
    return make(ctx, p(ctx, z.re, pad), p(ctx, z.im, pad), z.dtype)


def _axes_and_sizes(ctx, a, s, axes, default_all: bool):
    s = ctx.static(s, "s")
    axes = ctx.static(axes, "axes")
    if axes is None:
        axes = tuple(range(a.ndim)) if (default_all and s is None) else \
            tuple(range(-len(s), 0)) if s is not None else (-2, -1)
    axes = tuple(axes)
    if s is None:
        s = (None,) * len(axes)
    if len(s) != len(axes):
        raise ctx.error("Shape and axes have different lengths.")
    return axes, tuple(s)


def _multi(ctx, a, s, axes, norm, inverse: bool, default_all: bool):
    a = _input(ctx, a)
    axes, sizes = _axes_and_sizes(ctx, a, s, axes, default_all)
    out = a
    for ax, n in reversed(list(zip(axes, sizes))):  # numpy: the last axis first
        out = _c2c(ctx, out, n, ax, norm, inverse)
    return out


def fft2(ctx, a, s=None, axes=(-2, -1), norm=None, out=None):
    _no_out(ctx, out)
    return _multi(ctx, a, s, axes, norm, False, False)


def ifft2(ctx, a, s=None, axes=(-2, -1), norm=None, out=None):
    _no_out(ctx, out)
    return _multi(ctx, a, s, axes, norm, True, False)


def fftn(ctx, a, s=None, axes=None, norm=None, out=None):
    _no_out(ctx, out)
    return _multi(ctx, a, s, axes, norm, False, True)


def ifftn(ctx, a, s=None, axes=None, norm=None, out=None):
    _no_out(ctx, out)
    return _multi(ctx, a, s, axes, norm, True, True)


def _real_multi(ctx, a, s, axes, norm, default_all: bool, inverse: bool):
    """rfftn/rfft2 (``inverse`` False) and irfftn/irfft2: the real transform on the last
    axis, complex ones on the others (numpy's order: rfft first; irfft last)."""
    a = _input(ctx, a)
    axes, sizes = _axes_and_sizes(ctx, a, s, axes, default_all)
    if not axes:
        raise ctx.error("np.fft: at least one axis is needed (numpy raises ValueError)")
    if not inverse:
        out = rfft(ctx, a, sizes[-1], axes[-1], norm)
        for ax, n in reversed(list(zip(axes[:-1], sizes[:-1]))):
            out = _c2c(ctx, out, n, ax, norm, False)
        return out
    out = a
    for ax, n in zip(axes[:-1], sizes[:-1]):
        out = _c2c(ctx, out, n, ax, norm, True)
    return irfft(ctx, out, sizes[-1], axes[-1], norm)


def rfftn(ctx, a, s=None, axes=None, norm=None, out=None):
    _no_out(ctx, out)
    return _real_multi(ctx, a, s, axes, norm, True, False)


def rfft2(ctx, a, s=None, axes=(-2, -1), norm=None, out=None):
    _no_out(ctx, out)
    return _real_multi(ctx, a, s, axes, norm, False, False)


def irfftn(ctx, a, s=None, axes=None, norm=None, out=None):
    _no_out(ctx, out)
    return _real_multi(ctx, a, s, axes, norm, True, True)


def irfft2(ctx, a, s=None, axes=(-2, -1), norm=None, out=None):
    _no_out(ctx, out)
    return _real_multi(ctx, a, s, axes, norm, False, True)


_SWAPPED = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _swap_norm(ctx, norm: Any) -> str:
    norm = ctx.static(norm, "norm")
    if norm not in _SWAPPED:
        raise ctx.error(f'Invalid norm value {norm}; should be "backward","ortho" or '
                        '"forward".')
    return _SWAPPED[norm]


def hfft(ctx, a, n=None, axis=-1, norm=None, out=None):
    """numpy's hfft: irfft of the conjugate with the norm swapped (a Hermitian signal's real
    spectrum)."""
    _no_out(ctx, out)
    a = _input(ctx, a)
    new_norm = _swap_norm(ctx, norm)
    if isinstance(a, Complex):
        a = make(ctx, a.re, R(ctx).negative(a.im), a.dtype)
    return irfft(ctx, a, n, axis, new_norm)


def ihfft(ctx, a, n=None, axis=-1, norm=None, out=None):
    """numpy's ihfft: the conjugate of rfft with the norm swapped."""
    _no_out(ctx, out)
    z = rfft(ctx, a, n, axis, _swap_norm(ctx, norm))
    return make(ctx, z.re, R(ctx).negative(z.im), z.dtype)


def _no_out(ctx, out: Any) -> None:
    if out is not None:
        raise ctx.error("np.fft(..., out=) is not supported; assign the result")


FUNCS = {
    np.fft.fft: fft, np.fft.ifft: ifft, np.fft.rfft: rfft, np.fft.irfft: irfft,
    np.fft.fft2: fft2, np.fft.ifft2: ifft2, np.fft.fftn: fftn, np.fft.ifftn: ifftn,
    np.fft.rfftn: rfftn, np.fft.rfft2: rfft2, np.fft.irfftn: irfftn, np.fft.irfft2: irfft2,
    np.fft.hfft: hfft, np.fft.ihfft: ihfft,
}
FUNCS.update(_SHIFT)  # the index helpers

"""np.fft on complex and real inputs (issue 11), against numpy: ONNX DFT (opset 20) for the
forward transforms, inverses as conj(DFT(conj(X)))/n (tests/complex_kernels.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tests import complex_kernels as k
from tests.oracle import check

R = np.random.default_rng(12)
C64, C128 = np.complex64, np.complex128
TOL = {np.float32: dict(rtol=1e-4, atol=1e-4), np.float64: dict(rtol=1e-6, atol=1e-9),
       C64: dict(rtol=1e-4, atol=1e-4), C128: dict(rtol=1e-6, atol=1e-9)}


def rc(shape, dtype=C128):
    return (R.normal(size=shape) + 1j * R.normal(size=shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [C64, C128, np.float32, np.float64])
def test_fft_1d(dtype):
    x = rc((6,), dtype) if np.dtype(dtype).kind == "c" else R.normal(size=6).astype(dtype)
    check(k.f_fft, x, **TOL[dtype])


@pytest.mark.parametrize("dtype", [C64, C128])
def test_fft_axes_2d(dtype):
    check(k.f_fft_axis, rc((4, 5), dtype), **TOL[dtype])
    check(k.f_ifft2, rc((3, 4), dtype), **TOL[dtype])


def test_fft_int_input_is_complex128():
    check(k.f_fft, np.arange(5), **TOL[C128])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rfft_irfft(dtype):
    check(k.f_rfft, R.normal(size=(3, 8)).astype(dtype), **TOL[dtype])
    cdt = C64 if dtype == np.float32 else C128
    check(k.f_irfft, rc((2, 5), cdt), **TOL[cdt])


def test_shift_freq():
    check(k.f_shift, rc((4, 5)))
    check(k.f_shift, R.normal(size=(5, 3)))
    check(k.f_freq, R.normal(size=6))


def test_spectral_solver_and_convolution():
    x = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    check(k.f_spectral_poisson, np.sin(3 * x) + np.cos(x), **TOL[np.float64])
    check(k.f_fft_convolve, R.normal(size=7), R.normal(size=4), **TOL[np.float64])


def test_fft_empty_batch_and_zero_d_refusal():
    import pyonnx

    check(k.f_fft_axis_last, np.zeros((0, 4), C128))
    with pytest.raises(pyonnx.ConversionError, match="0-d"):
        pyonnx.compile(k.f_fft_axis_last)(np.complex128(1j))

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


def real_nd(x):
    return np.fft.rfftn(x), np.fft.rfft2(x), np.fft.rfftn(x, axes=(0,)), \
        np.fft.rfftn(x, s=(4, 6)), np.fft.rfft2(x, norm="ortho")


def inverse_real_nd(z):
    return np.fft.irfftn(z), np.fft.irfft2(z), np.fft.irfftn(z, s=(3, 8)), \
        np.fft.irfft2(z, axes=(1, 0), norm="forward")


def hermitian(z, x):
    return np.fft.hfft(z), np.fft.hfft(z, 7, norm="ortho"), np.fft.ihfft(x), \
        np.fft.ihfft(x, norm="forward"), np.fft.hfft(x, axis=0)


def round_trip(x):
    return np.fft.irfftn(np.fft.rfftn(x), s=x.shape), np.fft.ihfft(np.fft.hfft(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rfftn_irfftn_rfft2_irfft2(dtype):
    cdt = C64 if dtype == np.float32 else C128
    check(real_nd, R.normal(size=(3, 5)).astype(dtype), **TOL[dtype])
    check(inverse_real_nd, rc((4, 5), cdt), **TOL[cdt])
    check(round_trip, R.normal(size=(2, 6)).astype(dtype), **TOL[dtype])


@pytest.mark.parametrize("dtype", [C64, C128])
def test_hfft_ihfft(dtype):
    x = R.normal(size=(5, 4)).astype(np.float32 if dtype == C64 else np.float64)
    check(hermitian, rc((5, 4), dtype), x, **TOL[dtype])


def test_real_nd_int_input_and_zeros():
    check(real_nd, np.arange(15).reshape(3, 5), **TOL[C128])
    # (the sign of a zero result is pocketfft's order of additions: not compared)
    check(inverse_real_nd, np.zeros((4, 5), C128), signed_zeros=False)


def long_transforms(z, x):
    return np.fft.fft(z), np.fft.ifft(z, 99), np.fft.rfft(x, 70), np.fft.irfft(np.fft.rfft(x)), \
        np.fft.fft(z, 130, axis=-1, norm="ortho")


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("n", [66, 100, 4158])
def test_long_lengths_that_are_not_powers_of_two(dtype, n):
    # (the four-step FFT of complex_fft_steps: onnxruntime's DFT is O(n^2) for these lengths)
    z = rc((2, n), dtype)
    x = R.normal(size=(3, n)).astype(np.float32 if dtype == C64 else np.float64)
    scale = np.sqrt(n) * (1e-5 if dtype == C64 else 1e-13)  # of the transforms' magnitudes
    check(long_transforms, z, x, rtol=1e-4 if dtype == C64 else 1e-10, atol=scale * 10)

"""mean (numpy's complex division by the count), ufunc reduce/accumulate, np.linalg.norm with
ord/axis, median, unique, clip, convolve/correlate of complex values (issue 11), against numpy:
both complex dtypes, special values (inf, nan, signed zeros), axes, keepdims, empty arrays and
the arguments after the call."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

C64, C128 = np.complex64, np.complex128
NAN, INF = np.nan, np.inf
TOL = {C64: dict(rtol=2e-5, atol=2e-6), C128: dict(rtol=1e-12, atol=1e-13)}


def rc(rng, shape, dtype):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


def special(dtype):
    """A 3x4 array with an infinite part, NaN parts and signed zeros."""
    z = rc(np.random.default_rng(7), (3, 4), dtype)
    z[0, 0] = complex(INF, 0.0)
    z[1, 2] = complex(1.0, NAN)
    z[2, 1] = complex(-0.0, -0.0)
    z[2, 3] = complex(0.0, -INF)
    return z


def means(z):
    return np.mean(z), z.mean(axis=0), np.mean(z, axis=1, keepdims=True), np.nanmean(z), \
        np.nanmean(z, axis=1)


def ufunc_methods(z):
    return np.add.reduce(z), np.add.reduce(z, axis=None), np.add.reduce(z, axis=1, keepdims=True), \
        np.multiply.reduce(z), np.multiply.reduce(z, axis=1), np.maximum.reduce(z, axis=1), \
        np.minimum.reduce(z), np.add.accumulate(z), np.multiply.accumulate(z, axis=1), \
        np.add.accumulate(z, 1)


def norms(z):
    return np.linalg.norm(z), np.linalg.norm(z, axis=1), np.linalg.norm(z, 1), \
        np.linalg.norm(z, np.inf), np.linalg.norm(z, -np.inf), np.linalg.norm(z, "fro"), \
        np.linalg.norm(z[0], np.inf), np.linalg.norm(z[1], 3), np.linalg.norm(z[1], 0), \
        np.linalg.norm(z, axis=0, keepdims=True), np.linalg.norm(z[0], -np.inf), \
        np.linalg.vector_norm(z), np.linalg.matrix_norm(z, ord=1), \
        np.linalg.norm(z, axis=(0, 1))


def medians(z):
    return np.median(z), np.median(z, axis=0), np.median(z, axis=1), \
        np.median(z, axis=-1, keepdims=True), np.median(z[:, :3], axis=1), \
        np.median(z, keepdims=True)


def uniques(z):
    return np.unique(z), np.unique(z[0]), np.unique(z, return_index=True, return_counts=True), \
        np.unique(z, return_inverse=True)


def clips(z):
    return np.clip(z, 0.5 - 0.5j, 1 + 1j), np.clip(z, None, 0j), np.clip(z, -1, None), \
        z.clip(-0.5, 0.5 + 2j), np.clip(z, min=0j, max=1), np.clip(z, z[0], z[1])


def signals(z, w):
    return np.convolve(z, w), np.convolve(z, w, "same"), np.convolve(w, z, "valid"), \
        np.correlate(z, w), np.correlate(z, w, "full"), np.correlate(w, z, "same"), \
        np.convolve(z.real, w), np.correlate(z, w.imag, "full")


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("fn", [means, ufunc_methods, norms, medians, uniques, clips])
def test_random_and_special_values(fn, dtype):
    check(fn, rc(np.random.default_rng(3), (3, 4), dtype), **TOL[dtype])
    check(fn, special(dtype), **TOL[dtype])


@pytest.mark.parametrize("dtype", [C64, C128])
def test_signed_zeros_and_ties(dtype):
    z = np.array([[0j, complex(-0.0, 0.0), complex(0.0, -0.0), 1 + 1j],
                  [1 + 1j, complex(1, NAN), complex(NAN, 1), complex(NAN, NAN)],
                  [complex(INF, 1), complex(INF, 2), 2, complex(-INF, 0)]], dtype)
    for fn in (means, ufunc_methods, medians, clips):
        check(fn, z, **TOL[dtype])
    # unique: (-0j and 0j are one value; numpy keeps whichever its quicksort puts first)
    check(uniques, z[1:], **TOL[dtype])


def median_and_mean(z):
    return np.median(z), np.mean(z)


def empties(z):
    return np.unique(z), np.add.reduce(z), np.multiply.reduce(z, axis=0), np.linalg.norm(z), \
        np.add.accumulate(z)


def real_clip(x):
    return np.clip(x, -1 + 1j, 2 + 0j)


def norm2(z):
    return np.linalg.norm(z, 2)


def median_axes(z):
    return np.median(z, axis=(0, 1))


def unique_axis(z):
    return np.unique(z, axis=0)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_signals(dtype):
    rng = np.random.default_rng(5)
    check(signals, rc(rng, 6, dtype), rc(rng, 3, dtype), **TOL[dtype])
    check(signals, rc(rng, 2, dtype), rc(rng, 5, dtype), **TOL[dtype])  # numpy swaps
    z = rc(rng, 5, dtype)
    # (a NaN part spreads as in numpy; an infinite part does not: numpy's complex dot is
    # BLAS's, whose NaN/inf pattern for infinite parts is its kernel's, see the README)
    z[1] = complex(1, NAN)
    check(signals, z, rc(rng, 3, dtype), **TOL[dtype])


def test_median_inf_gives_numpy_nan_part():
    # numpy's mean divides by the count as a complex number: inf * 0 is NaN
    check(median_and_mean, np.array([complex(INF, 1), complex(INF, 2)]))
    check(median_and_mean, np.array([complex(INF, 1)]))


def test_empty():
    z = np.zeros((0, 3), C128)
    check(empties, z)


def test_clip_with_real_array_and_complex_bounds():
    x = np.array([-2.0, 0.5, 3.0, NAN])
    check(real_clip, x)


def test_arguments_unchanged():
    z = special(C128)
    z0 = z.copy()
    pyonnx.compile(medians)(z)
    pyonnx.compile(uniques)(z)
    assert np.array_equal(z, z0, equal_nan=True)


def test_refusals():
    z = special(C128)
    with pytest.raises(pyonnx.ConversionError, match="SVD|singular value"):
        pyonnx.compile(norm2)(z)
    check(median_axes, z)  # (several axes: converted since, see test_complex_calculus.py)
    check(unique_axis, z)  # (converted since, see test_complex_unique_axis.py)


def nan_extremes(z):
    return np.nanmax(z), np.nanmin(z), np.nanmax(z, axis=0), np.nanmin(z, axis=1, keepdims=True)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_nanmax_nanmin_skip_nan_elements(dtype):
    # numpy's fmax.reduce: the first extreme without a NaN part; an all-NaN slice gives its
    # first element (numpy warns)
    z = special(dtype)
    z[:, 1] = complex(NAN, 1)
    check(nan_extremes, z, **TOL[dtype])
    check(nan_extremes, rc(np.random.default_rng(9), (2, 5), dtype), **TOL[dtype])

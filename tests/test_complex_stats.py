"""var/std, the nan-functions, np.select and np.array of complex values (issue 11), against
numpy: an element with a NaN in EITHER part is a NaN for numpy's nan-functions (masked whole,
never part by part); both complex dtypes, axes, ddof, keepdims, empty arrays."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check

C64, C128 = np.complex64, np.complex128
NAN = np.nan
TOL = {C64: dict(rtol=2e-5, atol=2e-6), C128: dict(rtol=1e-12, atol=1e-13)}


def variances(z):
    return np.var(z), np.std(z), np.var(z, axis=0), np.std(z, axis=1, ddof=1), \
        z.var(axis=0, keepdims=True), z.std()


def nan_functions(z):
    return np.nansum(z), np.nanmean(z), np.nanprod(z), np.nanvar(z), np.nanstd(z), \
        np.nansum(z, axis=0), np.nanmean(z, axis=1), np.nancumsum(z, axis=1), \
        np.nancumprod(z, axis=0), np.nanvar(z, axis=1, ddof=1, keepdims=True)


def selects(z, x):
    return np.select([x > 0, x < -1], [z, z * 2], default=1j), np.select([x > 0], [z]), \
        np.select([x > 0.5, x > 0], [x, z], default=-1)


def arrays(z, x):
    return np.array([z[0], z[1] + 1, 2j]), np.array([[x[0], 1j], [z[2], x[1]]]), \
        np.array([x[0] + 1j, x[1]], dtype=np.complex64), np.array(z), np.asarray(z) + 0, \
        np.array([z[0], 3.0]), np.asarray([x[0], z[0]])


def rc(rng, shape, dtype):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_variances(dtype):
    check(variances, rc(np.random.default_rng(1), (4, 3), dtype), **TOL[dtype])


@pytest.mark.parametrize("dtype", [C64, C128])
def test_nan_functions_mask_whole_elements(dtype):
    z = rc(np.random.default_rng(2), (3, 4), dtype)
    z[0, 1] = complex(1.5, NAN)   # a NaN imaginary part: the element is NaN
    z[2, 0] = complex(NAN, -2.0)  # a NaN real part
    z[1, 3] = complex(NAN, NAN)
    check(nan_functions, z, **TOL[dtype])
    check(nan_functions, z[:, 1:3].copy(), **TOL[dtype])


@pytest.mark.parametrize("dtype", [C64, C128])
def test_empty(dtype):
    check(variances, np.zeros((0, 3), dtype))
    check(nan_functions, np.zeros((2, 0), dtype))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_select(dtype):
    rng = np.random.default_rng(3)
    x = rng.normal(size=6).astype(np.float32 if dtype == C64 else np.float64) * 2
    check(selects, rc(rng, (6,), dtype), x, **TOL[dtype])


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("xdtype", [np.float32, np.float64])
def test_array_of_lists(dtype, xdtype):
    rng = np.random.default_rng(4)
    check(arrays, rc(rng, (3,), dtype), rng.normal(size=2).astype(xdtype))

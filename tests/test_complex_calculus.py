"""np.ediff1d, np.trapezoid, np.union1d, np.nanargmax/np.nanargmin and np.unique's NaN with
complex values (complex_calculus, complex_sorted), special values included.

Oracle: tests/oracle.check (numpy runs the function, onnxruntime the model).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def _z(dtype, special):
    z = np.arange(12.0).reshape(4, 3) + 1j * np.arange(12.0).reshape(4, 3)[::-1]
    if special:
        z[1, 1] = complex(np.inf, 1)
        z[2, 0] = complex(np.nan, 0)
        z[0, 2] = complex(1, np.nan)
        z[3, 2] = complex(-np.inf, np.inf)
        z[3, 0] = complex(-0.0, -0.0)
    return z.astype(dtype)


def ediffs(z):
    return np.ediff1d(z), np.ediff1d(z, to_begin=1j, to_end=[2, 3.5]), \
        np.ediff1d(z[0], to_end=np.float32(1))


def trapezoids(z, x):
    return np.trapezoid(z), np.trapezoid(z, axis=0), np.trapezoid(z, dx=0.5j), \
        np.trapezoid(z, x), np.trapezoid(z, x[:2] * 1j, axis=0)


def real_y_complex_x(y, x):
    return np.trapezoid(y, x * (1 + 2j))


def nanargs(z):
    return np.nanargmax(z), np.nanargmin(z), np.nanargmax(z, axis=0), \
        np.nanargmin(z, axis=1, keepdims=True)


def unions(a, b):
    return np.union1d(a, b), np.union1d(a, [1, 2j]), np.union1d(b.real, a)


def uniques(a):
    return np.unique(a), np.unique(a, return_index=True), np.unique(a, return_counts=True)


@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_calculus_and_nan_arg(dtype, special):
    z = _z(dtype, special)
    check(ediffs, z)
    check(trapezoids, z, np.linspace(0.0, 1.0, 3))
    check(trapezoids, z[:2], np.array([0.0, 0.5, 2.0]))
    check(nanargs, z)


def test_trapezoid_of_real_y_with_complex_x():
    check(real_y_complex_x, np.arange(5.0), np.arange(5.0) ** 2)


def test_nanargmax_all_nan_slice_raises():
    z = _z(np.complex128, False)
    z[1] = complex(np.nan, 1)

    def f(z):
        return np.nanargmax(z, axis=1)
    with pytest.raises(ValueError):
        f(z)
    with pytest.raises(pyonnx.ExecutionError, match="All-NaN slice"):
        pyonnx.compile(f)(z)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_union_and_unique_keep_numpy_nan(dtype):
    # numpy 2.4's unique without flags keeps the first NaN of the input, with flags the first
    # of the sorted values
    a = np.array([1 + 1j, np.nan, 3, 1 + 1j, -2j, complex(1, np.nan)], dtype)
    b = np.array([[3, 2j], [np.inf, 1 + 1j]], dtype)
    check(unions, a, b)
    c = np.array([complex(np.nan, np.nan), 3, complex(np.nan, 5), 1 + 1j, complex(1, np.nan)],
                 dtype)
    check(uniques, c)
    check(uniques, c[::-1].copy())
    check(uniques, np.zeros(0, dtype))


def test_ediff1d_refuses_numpy_type_errors():
    def complex_edge_of_real(x):
        return np.ediff1d(x, to_begin=1j)

    def complex64_edge(z):
        return np.ediff1d(z, to_begin=np.complex128(1j).real.astype(np.int64))

    with pytest.raises(pyonnx.ConversionError, match="same_kind"):
        pyonnx.compile(complex_edge_of_real)(np.arange(3.0))
    check(complex64_edge, np.ones(3, np.complex64))


def medians(z):
    return np.median(z, axis=(0, 2)), np.median(z, axis=(-1, 0), keepdims=True), \
        np.median(z, axis=(1,)), np.median(z, axis=(0, 1, 2))


@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_median_over_several_axes(dtype, special):
    rng = np.random.default_rng(0)
    z = rng.integers(-3, 3, (3, 4, 5)) + 1j * rng.integers(-3, 3, (3, 4, 5))
    if special:
        z[0, 1, 2] = complex(np.nan, 1)
        z[2, 3, 4] = complex(np.inf, -np.inf)
    check(medians, z.astype(dtype))


def test_median_axes_refusals():
    def repeated(z):
        return np.median(z, axis=(0, 0))

    with pytest.raises(pyonnx.ConversionError, match="repeated axis"):
        pyonnx.compile(repeated)(np.ones((2, 2), np.complex128))


def likes_with_dtype(z):
    return np.zeros_like(z, dtype=np.float32), np.ones_like(z, dtype=np.int64), \
        np.ones_like(z, dtype=np.complex64), np.zeros_like(z, dtype=complex), \
        np.ones_like(z, dtype=bool), np.full_like(z, 2.5, dtype=np.int32)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_like_creation_with_a_dtype(dtype):
    check(likes_with_dtype, (np.arange(6.0).reshape(2, 3) * 1j).astype(dtype))
    check(likes_with_dtype, np.array(1j, dtype))


def setdiffs(a, b):
    return np.setdiff1d(a, b), np.setdiff1d(b, a), np.setdiff1d(a, [1 + 1j, 3]), \
        np.setdiff1d(a, b.real)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_setdiff1d(dtype):
    a = np.array([1 + 1j, np.nan, 3, 1 + 1j, -2j, complex(1, np.nan), 0j], dtype)
    b = np.array([[3, 2j], [np.nan, -0.0]], dtype)
    check(setdiffs, a, b)
    check(setdiffs, a[:0].copy(), b)

"""np.iscomplex, np.isreal and np.real_if_close against numpy, for every dtype numpy accepts
(real ones answer from the dtype, complex ones from the imaginary parts), empty, 0-d and
size-1 inputs, NaN and signed-zero imaginary parts; real_if_close of a complex array is
refused (its result dtype depends on the values)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
SHAPES = [(5,), (2, 3), (), (0,), (1,), (0, 2)]


def queries(x):
    return np.iscomplex(x), np.isreal(x)


def queries_of_scalar(x):
    return np.iscomplex(x[0]), np.isreal(x[0]), np.iscomplex(x[0] * 2)


def close(x):
    return np.real_if_close(x), np.real_if_close(x, tol=1000) + 1


def close_is_same(x):
    y = np.real_if_close(x)  # numpy's same object: the argument, unchanged after the call
    return y * 2


def close_complex(z):
    return np.real_if_close(z)


def constants(x):
    return (np.iscomplex([1.0, 2.0]), np.isreal(3), np.isreal(2 + 0j), np.iscomplex(1j),
            np.real_if_close(2.5), np.real_if_close([1 + 1e-20j, 2]), np.real_if_close([1 + 1j]),
            np.isreal([x[0], 2.0]), np.real_if_close([x[0], 1]), np.iscomplex(x + 1j))


def _values(shape, dtype):
    rng = np.random.default_rng(9)
    re = rng.normal(size=shape) * 3
    if np.dtype(dtype).kind == "c":
        im = rng.normal(size=shape)
        if im.size:
            im.flat[:: 2] = 0.0  # real-valued elements among complex ones
        return (re + 1j * im).astype(dtype)
    if np.dtype(dtype).kind == "u":
        re = np.abs(re)
    return re.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_iscomplex_isreal(dtype, shape):
    check(queries, _values(shape, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_queries_of_scalars(dtype):
    check(queries_of_scalar, _values((3,), dtype))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_special_imaginary_parts(dtype):
    z = np.array([complex(1, np.nan), complex(np.nan, 0), complex(0, -0.0), complex(0, np.inf),
                  complex(np.inf, 0), 1e-300j, 0j], dtype=dtype)
    check(queries, z)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_placements(dtype):
    for x in ([np.nan, 1.0, -0.0], [1.0, np.nan], [np.nan], [np.inf, -np.inf, np.nan]):
        check(queries, np.array(x, dtype=dtype))
        check(close, np.array(x, dtype=dtype))


@pytest.mark.parametrize("dtype", [d for d in DTYPES if np.dtype(d).kind != "c"])
@pytest.mark.parametrize("shape", SHAPES)
def test_real_if_close_of_real(dtype, shape):
    check(close, _values(shape, dtype))
    check(close_is_same, _values(shape, dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_constant_and_list_arguments(dtype):
    check(constants, _values((3,), dtype))


def test_real_if_close_of_complex_refused():
    with pytest.raises(pyonnx.ConversionError, match="result dtype depends on the values"):
        pyonnx.compile(close_complex)(np.array([1 + 0j, 2 + 1e-20j]))


def list_with_complex(x):
    return np.isreal([x[0], 1j])


def test_list_holding_complex_refused():
    with pytest.raises(pyonnx.ConversionError, match="make it an array first"):
        pyonnx.compile(list_with_complex)(np.array([1.0, 2.0]))


def sorted_complex(x):
    return np.sort_complex(x)


def sorted_complex_2d(x):
    return np.sort_complex(x.reshape(2, -1)), np.sort_complex([3, 1, 2])


@pytest.mark.parametrize("dtype", [d for d in DTYPES if np.dtype(d).kind != "c"])
def test_sort_complex_of_real(dtype):
    for shape in [(6,), (1,), (0,)]:
        check(sorted_complex, _values(shape, dtype))
    check(sorted_complex_2d, _values((6,), dtype))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sort_complex_nan_placements(dtype):
    for v in ([np.nan, 1.0, -0.0, 0.0], [1.0, np.nan], [np.nan], [np.inf, np.nan, -np.inf]):
        # numpy's default sort is not stable (SIMD sorts): the order of -0.0 and 0.0 is
        # np.sort's documented difference (tests/test_sorting.py), not sort_complex's.
        check(sorted_complex, np.array(v, dtype), signed_zeros=False)


def test_sort_complex_refusals():
    with pytest.raises(pyonnx.ConversionError, match="out of bounds"):
        pyonnx.compile(sorted_complex)(np.array(2.0))

"""Index arrays and grids (numpy_calls/index_grids.py) against numpy: run-time sizes, empty
and size-1 inputs, numpy's dtypes and errors."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ExecutionError
from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


def triangles(x, k):
    n = x.shape[0]
    return (np.tril_indices(n), np.triu_indices(n, 1), np.tril_indices(n, k, x.shape[1]),
            np.triu_indices_from(x, -1), np.tril_indices_from(x), np.diag_indices(n),
            np.ix_(np.arange(n), x[:1].sum(0) > 0), np.diagflat(x[:1]), np.diagflat(x, k),
            x[np.triu_indices_from(x)])


@pytest.mark.parametrize("dtype", ALL)
def test_triangles(dtype):
    f = check(triangles, (np.arange(12).reshape(3, 4) % 3).astype(dtype), 1)
    f = check(f, np.zeros((0, 2), dtype), 0)
    check(f, np.ones((1, 1), dtype), -1)


def test_diag_indices_from_and_fromfunction():
    def g(x):
        return (np.diag_indices_from(x),
                np.fromfunction(lambda i, j: i * 10 + j + x[0, 0], x.shape),
                np.fromfunction(lambda i: i, (4,), dtype=int))
    f = check(g, np.ones((3, 3)))
    with pytest.raises(ExecutionError, match=r"all_dimensions_of_input_must_be_of_equal_leng"):
        f(np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"All dimensions of input must be of equal length"):
        g(np.ones((3, 2)))


def vanders(x, n):
    return np.vander(x), np.vander(x, n), np.vander(x, 3, increasing=True), np.vander(x, n, True)


@pytest.mark.parametrize("dtype", ALL)
def test_vander(dtype):
    f = check(vanders, np.array([1, 2, 3, 0]).astype(dtype), 2, rtol=1e-12)
    check(f, np.array([3]).astype(dtype), 0)
    check(f, np.zeros(0, dtype), 3)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64"])
def test_unravel_ravel(dtype):
    def u(i, j):
        return (np.unravel_index(i, (3, 4)), np.unravel_index(j, (2, 3, 2)),
                np.ravel_multi_index((i % 3, i % 4), (3, 4)), np.unravel_index(5, (3, 4)),
                np.unravel_index(i, 12))
    check(u, np.array([0, 5, 11], dtype), np.array([[1, 11], [3, 0]], dtype))
    check(u, np.array([], dtype), np.zeros((0, 1), dtype))


def test_index_errors():
    def out_of_range(i):
        return np.unravel_index(i, (3, 4))
    g = pyonnx.compile(out_of_range)
    with pytest.raises(ValueError, match=r"index 12 is out of bounds for array with size 12"):
        out_of_range(np.array([12]))
    with pytest.raises(ExecutionError, match=r"index_out_of_bounds_for_array"):
        g(np.array([12]))

    def float_index(i):
        return np.unravel_index(i, (3, 4))
    check_refused(float_index, np.array([1.0]), match="only int indices permitted")

    def not_2d(x):
        return np.tril_indices_from(x)
    check_refused(not_2d, np.ones(3), match="must be 2-d")

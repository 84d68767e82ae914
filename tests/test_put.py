"""np.put, x.put and np.put_along_axis (frontend/lower/writers.py): writes into the array
(and into the caller's argument) against numpy, every dtype, modes, numpy's errors."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ExecutionError
from tests.oracle import check

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


def puts(x, i, v):
    np.put(x, i, v)
    x.put([0], 9)
    np.put(x, [-1, 100], [1, 2], mode="clip")
    np.put(x, 13, 3, mode="wrap")
    y = x.copy()
    y.put(np.array([[1, 2]]), v)
    return y


def along(x, i):
    np.put_along_axis(x, i, 7, axis=1)
    np.put_along_axis(x, np.zeros((1, 4), np.int64) + 2, x[:1] * 2, axis=0)
    np.put_along_axis(x, np.array([0, 5]), 4, axis=None)
    return x.sum()


@pytest.mark.parametrize("dtype", [d for d in ALL if d != "float16"])
def test_put(dtype):
    # (float16 fancy writes hit main's ScatterElements float16 read, see test_array_methods)
    x = np.arange(12).reshape(3, 4).astype(dtype)
    check(puts, x, np.array([1, 5]), np.array([2, 3]).astype(dtype))
    check(along, x, np.array([[1, 0], [2, 3], [0, 0]]))


def test_put_errors():
    def out_of_range(x):
        np.put(x, [20], 1.0)
        return x
    g = pyonnx.compile(out_of_range)
    with pytest.raises(IndexError, match=r"index 20 is out of bounds for axis 0 with size 3"):
        out_of_range(np.zeros(3))
    # the model raises numpy's IndexError too, at the line (the cause names it)
    with pytest.raises(IndexError, match=r"^index 20 is out of bounds for axis 0 with size 3$") \
            as raised:
        g(np.zeros(3))
    assert isinstance(raised.value.__cause__, ExecutionError)
    assert "np.put(x, [20], 1.0)" in str(raised.value.__cause__)


@pytest.mark.parametrize("index", [np.array([0, 7]), np.array([-4]), np.array([[1], [3]])])
def test_put_with_run_time_indices_out_of_bounds_raises_numpys_index_error(index):
    def put_at(x, i):
        np.put(x, i, 5.0)
        return x
    with pytest.raises(IndexError) as want:
        put_at(np.zeros(3), index)
    with pytest.raises(IndexError) as got:
        pyonnx.compile(put_at)(np.zeros(3), index)
    assert str(got.value) == str(want.value)


def test_put_with_run_time_negative_indices_in_bounds():
    def put_at(x, i):
        np.put(x, i, np.array([5.0, 6.0]))
        return x
    check(put_at, np.arange(4.0), np.array([-1, -4]))
    check(put_at, np.arange(4.0), np.zeros(0, np.int64))


def test_a_row_write_out_of_bounds_raises_index_error_with_the_index():
    def write(a, i):
        a[i] = 5.0
        return a
    g = pyonnx.compile(write)
    for i in (3, -4, 10):
        # (onnxruntime's ScatterND message gives the index, not the size)
        with pytest.raises(IndexError, match=rf"^index {i} is out of bounds for axis 0"):
            g(np.zeros((3, 2)), i)
    check(write, np.zeros((3, 2)), -3)


def test_put_cyclic_values():
    def cyclic(x, v):
        np.put(x, [0, 1, 2], [1.0, 2.0])
        np.put(x, [3], v)  # the first value of a longer v
        x.put([-1, -2, -3], v[:2])
        return x
    check(cyclic, np.zeros(6), np.array([7.0, 8.0, 9.0]))

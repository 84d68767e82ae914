"""asarray_chkfinite, asfortranarray, require, choose, packbits, unpackbits, mask_indices,
apply_over_axes (numpy_calls/array_forms.py) against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ExecutionError
from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


def forms(x, i):
    return (np.asarray_chkfinite(x), np.asfortranarray(x), np.require(x, np.float64, "C"),
            np.require(x, requirements=["O"]), np.choose(i, [x[0], x[1], x[2]]),
            np.choose(i, x, mode="wrap"), np.choose(i + 5, x, mode="clip"),
            i.choose([x[0], 7, x[2]]), np.mask_indices(3, np.triu),
            np.mask_indices(x.shape[1], np.tril, 1), np.apply_over_axes(np.sum, x, [0, 1]),
            np.apply_over_axes(np.mean, x, 1))


@pytest.mark.parametrize("dtype", ALL)
def test_forms(dtype):
    x = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    f = check(forms, x, np.array([0, 2, 1, 0]), rtol=2e-3 if dtype == "float16" else None)
    check(f, x[:, :1], np.array([2]), rtol=2e-3 if dtype == "float16" else None)


def test_run_time_errors():
    def finite(x):
        return np.asarray_chkfinite(x)
    g = pyonnx.compile(finite)
    with pytest.raises(ValueError, match=r"array must not contain infs or NaNs"):
        finite(np.array([1.0, np.nan]))
    with pytest.raises(ExecutionError, match=r"array_must_not_contain_infs_or_NaNs"):
        g(np.array([1.0, np.nan]))

    def choose(i, x):
        return np.choose(i, x)
    g = pyonnx.compile(choose)
    with pytest.raises(ValueError, match=r"invalid entry in choice array"):
        choose(np.array([3]), np.ones((2, 1)))
    with pytest.raises(ExecutionError, match=r"invalid_entry_in_choice_array"):
        g(np.array([3]), np.ones((2, 1)))


def bits(x, b):
    return (np.packbits(x), np.packbits(x, axis=1), np.packbits(x, axis=0, bitorder="little"),
            np.unpackbits(b), np.unpackbits(b, axis=0), np.unpackbits(b, count=5),
            np.unpackbits(b, count=20, bitorder="little"), np.unpackbits(b, axis=1, count=3))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int64", "uint64"])
def test_bits(dtype):
    b = np.array([[3, 255], [0, 128]], np.uint8)
    f = check(bits, (np.arange(30).reshape(3, 10) % 3).astype(dtype), b)
    check(f, np.ones((1, 1), dtype), b[:1, :1])

    def empty(x, b):
        # (numpy's unpackbits with count beyond an empty input returns uninitialized memory)
        return np.packbits(x), np.packbits(x, axis=0), np.unpackbits(b), np.unpackbits(b, axis=1)
    check(empty, np.zeros((0, 3), dtype), np.zeros((1, 0), np.uint8))


def test_refusals():
    def not_bytes(x):
        return np.unpackbits(x)
    check_refused(not_bytes, np.ones(3, np.int64), match="unsigned byte")

    def both(x):
        return np.require(x, requirements="CF")
    check_refused(both, np.ones(3), match="Cannot specify both \"C\" and \"F\" order")

    def write_through(x):
        y = np.asfortranarray(x)
        y[0] = 5.0
        return x
    with pytest.raises(pyonnx.ConversionError,
                       match=r"'y' is a view numpy makes with a function whose"):
        pyonnx.compile(write_through)(np.ones(3))

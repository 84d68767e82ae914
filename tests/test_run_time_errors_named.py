"""Run-time checks that used to surface as onnxruntime's Gather message (a bare onnxruntime
message from inside pyonnx): each now raises numpy's (or Python's) exception class with its
words at the user's line, or pyonnx's own ExecutionError where numpy would not raise."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ExecutionError


def _raises_like_numpy(fn, *args, words: str | None = None):
    with pytest.raises(Exception) as want:
        fn(*args)
    with pytest.raises(type(want.value)) as got:
        pyonnx.compile(fn)(*args)
    assert isinstance(got.value, ExecutionError), repr(got.value)
    text = str(got.value)
    assert (words or str(want.value)) in text, (text, str(want.value))
    assert re.search(r"test_run_time_errors_named\.py:\d+:\d+: error: ", text), text
    assert "Gather" not in text.split("\n")[0]


def int_of_element(x):
    return int(x[0]) + 1


def item_of(x):
    return x[x > 0].item()


def cholesky_of(a):
    return np.linalg.cholesky(a)


def solve_with(a, b):
    return np.linalg.solve(a, b)


def count_values(x):
    return np.bincount(x)


def int_power(a, b):
    return a ** b


def add_python_int(x, k):
    return x + k


def gather_in_loop(x, idx):
    out = np.zeros(idx.shape[0])
    for i in range(idx.shape[0]):
        out[i] = x[idx[i]] * 2.0
    return out


def test_int_of_nan():
    _raises_like_numpy(int_of_element, np.array([np.nan, 1.0]),
                       words="cannot convert float NaN")


def test_item_of_a_run_time_size():
    _raises_like_numpy(item_of, np.array([1.0, 2.0, -1.0]))


def test_cholesky_not_positive_definite():
    _raises_like_numpy(cholesky_of, np.array([[1.0, 2.0], [2.0, 1.0]]))


def test_solve_singular():
    _raises_like_numpy(solve_with, np.array([[1.0, 2.0], [2.0, 4.0]]), np.ones(2))


def test_bincount_negative():
    _raises_like_numpy(count_values, np.array([1, -2, 3]))


def test_integer_to_negative_power():
    _raises_like_numpy(int_power, np.array([2, 3]), np.array([1, -1]))


def test_python_int_out_of_bounds():
    pyonnx.compile(add_python_int)(np.array([1, 2], np.int8), 3)  # one model per kind of k
    _raises_like_numpy(add_python_int, np.array([1, 2], np.int8), 300,
                       words="Python integer out of bounds for int8")


@pytest.mark.parametrize("idx", [np.array([0, 5]), np.array([1, -4])])
def test_index_out_of_bounds_in_a_vectorized_loop(idx):
    x = np.arange(3.0)
    with pytest.raises(IndexError):
        gather_in_loop(x, idx)
    with pytest.raises(IndexError, match="out of bounds"):
        pyonnx.compile(gather_in_loop)(x, idx)

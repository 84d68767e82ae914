"""Window functions and np.i0 (numpy_calls/windows.py) against numpy: run-time and static
lengths (0, 1, 2, odd, even, negative), every input dtype of np.i0."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


def windows_of(x):
    n = len(x)
    return (np.hanning(n), np.hamming(n), np.blackman(n), np.bartlett(n), np.kaiser(n, 14.0),
            np.kaiser(n, 0.5), np.hanning(x.shape[0] + 1))


def windows_of_int(m, beta):
    return np.hanning(m), np.hamming(m), np.blackman(m), np.bartlett(m), np.kaiser(m, beta)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 8, 51])
def test_windows_run_time_length(n):
    check(windows_of, np.zeros(n), atol=1e-14)


@pytest.mark.parametrize("m", [-2, 0, 1, 4, 7])
def test_windows_int_argument(m):
    check(windows_of_int, m, 3.5, atol=1e-14)


def test_windows_static():
    def f(x):
        return x[:5] * np.hanning(5) + np.kaiser(5, 2.0)[0] + np.bartlett(1)
    check(f, np.ones(5))


@pytest.mark.parametrize("dtype", ALL)
def test_i0(dtype):
    def f(x):
        return np.i0(x)
    rng = np.random.default_rng(0)
    x = (rng.random((3, 4)) * (30 if np.dtype(dtype).itemsize > 1 else 8)).astype(dtype)
    if np.dtype(dtype).kind in "if":
        x = x - x.astype(dtype).max() // 2 if np.dtype(dtype).kind == "i" else x
    tol = 4e-3 if dtype == "float16" else 1e-6 if dtype == "float32" else 1e-14
    check(f, x, rtol=tol)
    check(f, x[:0], rtol=tol)
    check(f, x[:1, :1], rtol=tol)


def test_refusals():
    def array_length(x):
        return np.hanning(x)
    check_refused(array_length, np.ones(3), match="M must be a number",
                  numpy_match="setting an array element")

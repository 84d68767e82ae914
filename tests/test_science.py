"""numpy's scientific helpers (pyonnx/frontend/numpy_calls/science) against numpy: every real
dtype, empty and size-1 inputs, run-time lengths."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check, check_refused

REAL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64"]
RNG = np.random.default_rng(3)


def vals(dtype: str, n: int) -> np.ndarray:
    """Small values (exact sums in every float dtype) with negatives where the dtype has them."""
    x = RNG.integers(-4, 5, n)
    if dtype == "bool":
        return x > 0
    if np.dtype(dtype).kind == "u":
        x = np.abs(x)
    return x.astype(dtype)


# ------------------------------------------------------------------ convolve, correlate
def conv_full(a, v):
    return np.convolve(a, v)


def conv_same(a, v):
    return np.convolve(a, v, mode="same")


def conv_valid(a, v):
    return np.convolve(a, v, "valid")


def corr_valid(a, v):
    return np.correlate(a, v)


def corr_same(a, v):
    return np.correlate(a, v, mode="same")


def corr_full(a, v):
    return np.correlate(a, v, mode="full")


CONV = [conv_full, conv_same, conv_valid, corr_valid, corr_same, corr_full]


@pytest.mark.parametrize("fn", CONV)
@pytest.mark.parametrize("n,m", [(1, 1), (5, 3), (3, 5), (4, 4), (2, 5), (6, 2), (1, 4)])
def test_convolve_lengths(fn, n, m):
    a = RNG.standard_normal(n)
    v = RNG.standard_normal(m)
    check(fn, a, v, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fn", CONV)
def test_convolve_runtime_lengths(fn):
    """One model for every length (symbolic shapes), and one per shape (static_shapes)."""
    for compiled in (pyonnx.compile(fn), pyonnx.compile(fn, static_shapes=True)):
        for n, m in [(5, 3), (3, 5), (2, 6), (4, 4), (1, 1)]:
            check(compiled, vals("float64", n), vals("float64", m))


@pytest.mark.parametrize("dtype", REAL)
def test_convolve_dtypes(dtype):
    check(conv_full, vals(dtype, 5), vals(dtype, 3))
    check(corr_same, vals(dtype, 3), vals(dtype, 4))


def conv_list(a):
    return np.convolve(a, [1.0, -2.0, 1.0], "same")


def conv_empty(a):
    return np.convolve(a, np.zeros(0))


def conv_bogus(a):
    return np.convolve(a, a, mode="bogus")


def test_convolve_wraps_and_mixes():
    check(conv_full, np.int8([100, 100, -100]), np.int8([100, 3]))
    check(conv_same, np.int8([1, 2, 3]), np.int16([4, 5]))
    check(conv_list, np.float32([1, 4, 9, 16]))
    check(conv_full, np.array([np.inf, 1.0]), np.array([1.0, 2.0, 3.0]))


def test_convolve_refusals():
    check_refused(conv_empty, np.ones(3),
                  match="cannot be empty")
    check_refused(conv_bogus, np.ones(3),
                  match="mode must be", numpy_match="mode must be one of")


def test_convolve_runtime_empty_fails():
    """numpy raises ValueError for an empty operand; with run-time lengths the run fails."""
    compiled = pyonnx.compile(conv_full)
    compiled(np.ones(3), np.ones(2))
    with pytest.raises(pyonnx.errors.ExecutionError):
        compiled(np.ones(3), np.ones(0))

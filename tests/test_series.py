"""cumulative_sum/prod, ediff1d, trapezoid, unwrap, trim_zeros, logspace, geomspace, matvec,
vecmat (numpy_calls/series.py) against numpy: every dtype, empty and size-1 inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ExecutionError
from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]
NUMERIC = ALL[1:]


def tol(dtype):
    return 2e-3 if dtype == "float16" else 1e-6 if dtype == "float32" else 1e-12


def cumulatives(x):
    return (np.cumulative_sum(x, axis=0), np.cumulative_prod(x, axis=1),
            np.cumulative_sum(x, axis=1, include_initial=True),
            np.cumulative_prod(x[0] if len(x) else x[:, 0], include_initial=True),
            np.cumulative_sum(x, axis=-1, dtype=np.float64))


@pytest.mark.parametrize("dtype", ALL)
def test_cumulative(dtype):
    rng = np.random.default_rng(0)
    f = None
    for shape in [(3, 4), (1, 1), (0, 3)]:
        f = check(f or cumulatives, (rng.random(shape) * 3).astype(dtype), rtol=tol(dtype))


def diffs(x):
    return (np.ediff1d(x), np.ediff1d(x, to_begin=x[:0]), np.ediff1d(x, to_end=x[-2:], to_begin=x[:1]),
            np.trim_zeros(x), np.trim_zeros(x, "f"), np.trim_zeros(x, trim="b"))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_ediff1d_trim_zeros(dtype):
    f = check(diffs, np.array([0, 0, 3, 1, 0, 2, 0], dtype))
    f = check(f, np.zeros(3, dtype))
    f = check(f, np.zeros(0, dtype))
    check(f, np.ones(1, dtype))


def integrals(y, x):
    return (np.trapezoid(y), np.trapezoid(y, x), np.trapezoid(y, dx=0.5, axis=0),
            np.trapezoid(y.T, x[:, None] * np.ones(y.shape[0]), axis=0),
            np.unwrap(y), np.unwrap(y, axis=0), np.unwrap(y, discont=4.0), np.unwrap(y, period=5.0))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_trapezoid_unwrap(dtype):
    rng = np.random.default_rng(1)
    y = (rng.random((3, 5)) * 20 - (0 if dtype.startswith("u") else 10)).astype(dtype)
    x = np.sort(rng.random(5)) * 4
    f = check(integrals, y, x, rtol=tol(dtype), atol=1e-12)
    check(f, y[:1, :1], x[:1], rtol=tol(dtype))


def spaces(a, b):
    return (np.logspace(a, b, 5), np.logspace(a, b, 4, endpoint=False, base=2),
            np.logspace(a, b, 3, dtype=np.float32), np.geomspace(a + 1, b + 2, 5),
            np.geomspace(-(a + 1), -(b + 2), 4, endpoint=False), np.geomspace(a + 1, b + 3, 1),
            np.geomspace(a + 1, b + 3, 2, dtype=np.int64))


@pytest.mark.parametrize("a,b", [(0.0, 2.0), (1.5, -1.0), (3, 3)])
def test_spaces(a, b):
    check(spaces, a, b, rtol=1e-13)


def test_geomspace_zero_fails_at_run_time():
    def f(a):
        return np.geomspace(a, 10.0, 3)
    g = pyonnx.compile(f)
    with pytest.raises(ValueError, match=r"Geometric sequence cannot include zero"):
        f(0.0)
    with pytest.raises(ExecutionError, match=r"Geometric_sequence_cannot_include_zero"):
        g(0.0)


@pytest.mark.parametrize("dtype", ALL)
def test_matvec_vecmat(dtype):
    def f(a, v):
        return np.matvec(a, v), np.vecmat(v[:3], a), np.matvec(a[None], v)
    rng = np.random.default_rng(2)
    check(f, (rng.random((3, 4)) * 4).astype(dtype), (rng.random(4) * 4).astype(dtype),
          rtol=tol(dtype))


def test_refusals():
    def no_axis(x):
        return np.cumulative_sum(x)
    check_refused(no_axis, np.ones((2, 2)), match="argument is required")

    def bad_begin(x):
        return np.ediff1d(x, to_begin=0.5)
    check_refused(bad_begin, np.ones(3, np.int64), match="same_kind")

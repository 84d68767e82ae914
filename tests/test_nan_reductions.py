"""The NaN-ignoring reductions (numpy_calls/nan_reductions.py) against numpy: every dtype,
empty and size-1 inputs, all-NaN slices, axis forms, numpy's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ExecutionError
from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


def data(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.random(shape) * 8 - (0 if np.dtype(dtype).kind in "bu" else 3)).astype(dtype)
    if x.dtype.kind == "f" and x.size:
        x[rng.random(shape) < 0.3] = np.nan
        x.reshape(-1)[0] = np.nan
        if x.ndim == 2 and x.shape[1]:
            x[0, :] = np.nan  # an all-NaN row
    return x


def sums_products(x):
    return (np.nanprod(x), np.nanprod(x, axis=0), np.nanprod(x, axis=1, keepdims=True),
            np.nancumsum(x), np.nancumsum(x, axis=0), np.nancumprod(x, axis=1),
            np.nanprod(x, axis=0, initial=2))


def extremes(x):
    return (np.nanmax(x, axis=1), np.nanmin(x, axis=1, keepdims=True),
            np.nanmax(x, axis=1, initial=1), np.nanmin(x, axis=0, initial=5),
            np.nanmax(x, axis=1, initial=0, where=np.array([True, False, True, True])))


def spreads(x):
    return (np.nanvar(x), np.nanvar(x, axis=0), np.nanstd(x, axis=1, ddof=1),
            np.nanstd(x, axis=1, keepdims=True), np.nanvar(x, axis=(0, 1), keepdims=True),
            np.nanvar(x, axis=0, correction=1))


def spread_f64(x):
    return np.nanvar(x, axis=1, dtype=np.float64)


def tol(dtype):
    return 2e-3 if dtype == "float16" else None


@pytest.mark.parametrize("dtype", ALL)
def test_sums_products(dtype):
    f = None
    for i, shape in enumerate([(3, 4), (0, 4), (1, 1), (3, 0)]):
        f = check(f or sums_products, data(dtype, shape, i), rtol=tol(dtype))
    assert f.conversions == 1


@pytest.mark.parametrize("dtype", ALL)
def test_extremes(dtype):
    f = None
    for i, shape in enumerate([(3, 4), (1, 4), (5, 4)]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            f = check(f or extremes, data(dtype, shape, i))
    assert f.conversions == 1

    def whole(x):
        return np.nanmax(x), np.nanmin(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(whole, data(dtype, (1, 1), 3))
        check(whole, data(dtype, (2, 3), 4))


@pytest.mark.parametrize("dtype", ALL)
def test_spreads(dtype):
    f = None
    for i, shape in enumerate([(3, 4), (0, 4), (1, 1), (2, 5)]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            f = check(f or spreads, data(dtype, shape, i), rtol=tol(dtype))
            # numpy rounds the squared deviations to the array's dtype before the float64 sum;
            # pyonnx's sum-of-squares rewrite (ReduceSumSquare) squares in float64: equal to
            # the input dtype's precision.
            check(spread_f64, data(dtype, shape, i),
                  rtol=2e-3 if dtype == "float16" else 1e-6 if dtype == "float32" else None)
    assert f.conversions == 1


@pytest.mark.parametrize("dtype", ALL)
def test_args(dtype):
    def f(x):
        return np.nanargmax(x, axis=1), np.nanargmin(x, axis=0, keepdims=True), np.nanargmax(x)
    x = data(dtype, (3, 4), 1)
    if x.dtype.kind == "f":
        x[0, :] = 1.5  # no all-NaN slice: numpy raises on one
        x[1, 2] = np.nan
    check(f, x)
    check(f, x[:1, :1])


def test_all_nan_slice_fails_at_run_time():
    def f(x):
        return np.nanargmax(x, axis=1)
    g = pyonnx.compile(f)
    assert list(g(np.array([[1.0, np.nan], [np.nan, 2.0]]))) == [0, 1]
    with pytest.raises(ValueError, match="All-NaN slice"):
        f(np.array([[1.0, 2.0], [np.nan, np.nan]]))
    with pytest.raises(ExecutionError, match="All_NaN_slice_encountered"):
        g(np.array([[1.0, 2.0], [np.nan, np.nan]]))


def test_refusals():
    def empty_max(x):
        return np.nanmax(x, axis=0)
    with pytest.raises(ValueError, match="zero-size array"):
        empty_max(np.zeros((0, 3)))
    with pytest.raises(ExecutionError,
                       match=r"zero-size array to reduction operation (maximum|minimum) which has no identity"):  # the size is only known at run time
        pyonnx.compile(empty_max)(np.zeros((0, 3)))

    def int_dtype(x):
        return np.nanvar(x, dtype=np.int64)
    check_refused(int_dtype, np.ones(3), match="dtype must be inexact")

    def both(x):
        return np.nanstd(x, ddof=1, correction=1)
    check_refused(both, np.ones(3), match="ddof and correction")

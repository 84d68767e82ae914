"""np.histogram2d against numpy: every real dtype (edges in the data's float dtype, float64
for integer and bool data), int and pair bins, static ranges (including an empty one),
weights and density, values on the last edge, constant data, size-1 and empty samples, NaN
placements (outliers with a range; numpy's ValueError without one: the run fails), and the
refusals."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64]


def default(x, y):
    return np.histogram2d(x, y)


def pair_bins(x, y):
    return np.histogram2d(x, y, bins=(3, 5))


def ranged(x, y):
    return np.histogram2d(x, y, bins=4, range=[[-1, 2], [0.0, 0.0]])


def weighted(x, y, w):
    return np.histogram2d(x, y, bins=(2, 3), weights=w), \
        np.histogram2d(x, y, bins=3, weights=w, density=True)


def dense(x, y):
    return np.histogram2d(x, y, bins=(4, 2), density=True)


def _xy(dtype, n=30, seed=9):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "b":
        return rng.random(n) < 0.5, rng.random(n) < 0.3
    hi = 100 if np.dtype(dtype).kind in "iu" else 1
    return (np.abs(rng.normal(size=n)) * hi).astype(dtype), (rng.random(n) * hi).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes(dtype):
    x, y = _xy(dtype)
    check(default, x, y)
    check(pair_bins, x, y)
    check(ranged, x, y)
    check(dense, x, y)
    check(default, x[:1], y[:1])  # size 1: constant data, edges at ±0.5


def test_mixed_dtypes_and_last_edge():
    x = np.array([0, 1, 2, 3, 4, 4], np.int16)
    y = np.array([0.5, 0.25, 1.0, 1.0, 0.0, 0.75], np.float32)
    check(default, x, y)  # the maximum falls on the last edge: in the last bin
    check(pair_bins, x, y)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32])
def test_weights(dtype):
    x, y = _xy(dtype)
    w = np.random.default_rng(1).random(x.size)
    check(weighted, x, y, w)
    check(weighted, x, y, np.arange(x.size))


def test_nan_with_a_range_is_an_outlier():
    x, y = _xy(np.float64)
    x[[0, 5]] = np.nan
    y[7] = np.nan
    check(ranged, x, y)


def test_nan_without_a_range_fails():
    x, y = _xy(np.float64)
    x[3] = np.nan
    with pytest.raises(ValueError, match="autodetected range"):
        default(x, y)
    with pytest.raises(pyonnx.ExecutionError, match=r"A dimension cannot be less than -1"):
        pyonnx.compile(default)(x, y)


def test_empty():
    check(default, np.zeros(0), np.zeros(0))
    check(pair_bins, np.zeros(0, np.int32), np.zeros(0, np.int32))
    check(ranged, np.zeros(0, np.float32), np.zeros(0, np.float32))
    # float32 without a range: numpy's edges are float64 then; the run fails instead.
    with pytest.raises(pyonnx.ExecutionError, match=r"A dimension cannot be less than -1"):
        pyonnx.compile(default)(np.zeros(0, np.float32), np.zeros(0, np.float32))


def different_lengths(x, y):
    return np.histogram2d(x, y[y > 0])


def edge_array_bins(x, y):
    return np.histogram2d(x, y, bins=[0.0, 0.5, 1.0])


def bad_range(x, y):
    return np.histogram2d(x, y, range=[[1, 0], [0, 1]])


def test_refused_and_failing():
    x, y = _xy(np.float64)
    with pytest.raises(pyonnx.ExecutionError, match="histogram2d_x_and_y_lengths"):
        pyonnx.compile(different_lengths)(x, y - 0.5)
    with pytest.raises(pyonnx.ConversionError, match="edge arrays are not supported"):
        pyonnx.compile(edge_array_bins)(x, y)
    with pytest.raises(pyonnx.ConversionError, match="max must be larger than min"):
        pyonnx.compile(bad_range)(x, y)

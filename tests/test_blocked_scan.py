"""``np.maximum.accumulate``/``np.minimum.accumulate`` of 1-d arrays through the blocked scan
(pyonnx/frontend/numpy_calls/reductions/doubling.py ``blocked_scan``): equal to numpy in every
dtype, at sizes around the block (16) and its square, with NaN and infinities in a block, on a
block boundary and in the block totals; one model serves every size; and the loop forms
``y[i] = max(y[i-1], x[i])`` the vectorizer rewrites to it."""

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
SIZES = [0, 1, 2, 15, 16, 17, 31, 33, 255, 256, 257, 1000]


def both(x):
    return np.maximum.accumulate(x), np.minimum.accumulate(x)


def values(dtype, n, seed=0):
    rng = np.random.default_rng(seed + n)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return (rng.normal(size=n) * 100).astype(dt)
    info = np.iinfo(dt)
    # The whole range: int64 values that differ only above bit 32 too.
    return rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_every_size_one_model(dtype):
    f = pyonnx.compile(both)
    for n in SIZES:
        check(f, values(dtype, n))
    assert f.conversions == 1


def test_monotone_and_ties():
    # Rising, falling, constant: the running extreme changes every element or never.
    for x in (np.arange(300.0), np.arange(300.0)[::-1].copy(), np.full(300, 7, np.int64),
              np.arange(300, dtype=np.int64) % 17):
        check(both, x)


def test_int64_high_bits():
    # onnxruntime's int64 Max compares 32 bits: values equal in the low bits, apart above.
    x = (np.arange(100, dtype=np.int64) % 5) * (2 ** 40) + 3
    check(both, np.random.default_rng(1).permutation(x))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("at", [0, 5, 15, 16, 17, 100, 255, 299])
def test_nan_propagates_from_its_position(dtype, at):
    x = values(dtype, 300, seed=at)
    x[at] = np.nan
    check(both, x)


@pytest.mark.parametrize("dtype", FLOATS)
def test_infinities(dtype):
    x = values(dtype, 100)
    x[[3, 40]] = np.inf
    x[[16, 77]] = -np.inf
    check(both, x)
    check(both, np.full(40, -np.inf, dtype))
    check(both, np.full(40, np.inf, dtype))


def test_axis_argument_and_2d_unchanged():
    def f(x):
        return np.maximum.accumulate(x, axis=0), np.minimum.accumulate(x, axis=-1)
    check(f, values("float64", 50))
    check(f, values("float64", 60).reshape(6, 10))


def prefix_max(x):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = max(y[i - 1], x[i])
    return y


def prefix_min_np(x):
    y = x.copy()
    for i in range(1, len(x)):
        y[i] = np.minimum(y[i - 1], x[i])
    return y


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_loop_forms(dtype):
    f, g = pyonnx.compile(prefix_max), pyonnx.compile(prefix_min_np)
    for n in (1, 2, 16, 17, 300):
        x = values(dtype, n)
        check(f, x)
        check(g, x)
    x = values("float64", 300)
    x[[0, 20]] = np.nan, np.nan  # the builtin max skips a NaN value, keeps a NaN start
    if dtype == "float64":
        check(f, x)
        x[0] = 1.0
        check(f, x)
        check(g, x)

"""ufunc methods (numpy_calls/ufunc_methods.py): reduce and accumulate against numpy, every
dtype numpy accepts, empty and size-1 inputs, numpy's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


def data(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.random(shape) * 6).astype(dtype)
    if x.dtype.kind == "f" and x.size:
        x.reshape(-1)[-1] = np.nan
    return x


def reduces(x):
    return (np.add.reduce(x), np.add.reduce(x, axis=1, keepdims=True),
            np.multiply.reduce(x, axis=None), np.add.reduce(x, axis=(0, 1), dtype=np.float64),
            np.logical_or.reduce(x), np.logical_and.reduce(x, axis=1),
            np.logical_xor.reduce(x, axis=1), np.logical_or.reduce(x, axis=None, keepdims=True),
            np.maximum.reduce(x, axis=1, initial=2), np.minimum.reduce(x, axis=0, initial=1),
            np.fmax.reduce(x, axis=1, initial=0), np.add.reduce(x, where=x > 1),
            np.logical_or.reduce(x, axis=1, where=np.array([True, False, True])))


def nonempty_reduces(x):
    return (np.maximum.reduce(x), np.minimum.reduce(x, axis=1), np.fmax.reduce(x),
            np.fmin.reduce(x, axis=1, keepdims=True))


def accumulates(x):
    return (np.add.accumulate(x), np.add.accumulate(x, axis=1),
            np.multiply.accumulate(x, axis=-1), np.add.accumulate(x, dtype=np.float64),
            np.logical_or.accumulate(x), np.logical_and.accumulate(x, axis=1),
            np.add.accumulate(x[0], axis=None))


@pytest.mark.parametrize("dtype", ALL)
def test_reduce(dtype):
    tol = 2e-3 if dtype == "float16" else None
    f = None
    for i, shape in enumerate([(4, 3), (0, 3), (1, 3), (4, 3)]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            f = check(f or reduces, data(dtype, shape, i), rtol=tol)
    g = None
    for i, shape in enumerate([(4, 3), (1, 1)]):
        g = check(g or nonempty_reduces, data(dtype, shape, i))
    assert f.conversions == g.conversions == 1


@pytest.mark.parametrize("dtype", ALL)
def test_accumulate(dtype):
    tol = 2e-3 if dtype == "float16" else 1e-6 if dtype == "float32" else None
    f = None
    for i, shape in enumerate([(4, 3), (1, 0), (1, 1), (2, 5)]):
        f = check(f or accumulates, data(dtype, shape, i), rtol=tol)
    assert f.conversions == 1


def test_refusals():
    def multi(x):
        return np.add.accumulate(x, axis=None)
    check_refused(multi, np.ones((2, 2)), match="accumulate does not allow multiple axes")

    def scalar(x):
        return np.add.accumulate(x.sum())
    check_refused(scalar, np.ones(2), match="cannot accumulate on a scalar")

    def no_initial(x):
        return np.maximum.reduce(x, where=x > 0)
    check_refused(no_initial, np.ones(2), match="one has to specify 'initial'")

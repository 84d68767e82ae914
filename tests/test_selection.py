"""np.select (numpy_calls/selection.py) and np.bincount with a run-time minlength against
numpy: every dtype, empty and size-1 inputs, numpy's result dtype, numpy's errors."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ExecutionError
from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


def selects(x, y):
    return (np.select([x > 2, x < 1], [x, y]),
            np.select([x > 2, x < 1], [x, y], default=7),
            np.select((x > 2,), (x,), default=x[:1]),
            np.select([x > 3, x > 1, x > 0], [1.5, y, x], default=-1),
            np.select([x > 1], [y], default=False))


@pytest.mark.parametrize("dtype", ALL)
def test_select(dtype):
    f = None
    for i, shape in enumerate([(3, 4), (0, 4), (1, 1), (2, 4)]):
        rng = np.random.default_rng(i)
        x = (rng.random(shape) * 5).astype(dtype)
        y = (rng.random(shape[-1:]) * 5).astype(dtype)
        f = check(f or selects, x, y)
    assert f.conversions == 1


def test_select_refusals():
    def lengths(x):
        return np.select([x > 0], [x, x])
    check_refused(lengths, np.ones(3), match="same length")

    def not_bool(x):
        return np.select([x], [x])
    check_refused(not_bool, np.ones(3), match="invalid entry 0 in condlist")

    def empty(x):
        return np.select([], [])
    check_refused(empty, np.ones(3), match="empty condition list")


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "int64", "uint32"])
def test_bincount_run_time_minlength(dtype):
    def f(x, m):
        return (np.bincount(x, minlength=x.max() + 3), np.bincount(x, minlength=m),
                np.bincount(x, weights=x.astype(np.float64) / 2, minlength=len(x) + 1))
    check(f, np.array([1, 0, 1, 3], dtype), 2)
    check(f, np.array([1], dtype), 7)

    def g(x):
        return np.bincount(x, minlength=len(x))
    check(g, np.zeros(0, dtype))


def test_bincount_minlength_errors():
    def f(x, m):
        return np.bincount(x, minlength=m)
    g = pyonnx.compile(f)
    with pytest.raises(ValueError, match=r"'minlength' must not be negative"):
        f(np.array([1, 2]), -1)
    with pytest.raises(ExecutionError, match=r"minlength_must_be_non_negative"):
        g(np.array([1, 2]), -1)

    def float_minlength(x):
        return np.bincount(x, minlength=x.mean())
    check_refused(float_minlength, np.array([1, 2]), match="minlength must be an integer",
                  numpy_match="integer")

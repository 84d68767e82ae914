"""The running extreme ``m = max(m, x[i])`` / ``min`` with a Python start value
(pyonnx/frontend/vectorize/extremes.py): Where + ArgMax + Gather instead of a reduction and an
exact select. Python's loop keeps the *first* element equal to the extreme (in iteration
order), so the sign of a zero result is checked too (the oracle compares signs of zeros)."""

import numpy as np
import pytest

import pyonnx
from tests.oracle import LOOPS, check, op_types


def py_max(x, start):
    m = start
    for i in range(len(x)):
        m = max(m, x[i])
    return m


def py_min(x, start):
    m = start
    for i in range(len(x)):
        m = min(m, x[i])
    return m


def py_max_reversed(x, start):
    m = start
    for i in range(len(x) - 1, -1, -1):
        m = max(m, x[i])
    return m


def py_min_of_expression(x, start):
    m = start
    for v in x:
        m = min(m, v * 2 - 1)
    return m


def max_from_minus_inf(x):
    m = -np.inf
    for i in range(len(x)):
        m = max(m, x[i])
    return m


def min_from_literal(x):
    m = 50.0
    for i in range(len(x) - 1, -1, -1):
        m = min(m, x[i])
    return m


def int_max_from_literal(x):
    m = -1000
    for v in x:
        m = max(m, v)
    return m


def _vectorized(fn, *args):
    # (onnx's reference GatherElements, in the general form for int data, takes <= 64 rows)
    c = check(fn, *args, reference=len(args[0]) <= 64)
    assert not LOOPS & op_types(c, *args), f"{fn.__name__} was not vectorized"
    return c


def _uses_argmax(fn, *args) -> bool:
    return bool({"ArgMax", "ArgMin"} & op_types(pyonnx.compile(fn), *args))


NUMBERS = [np.int32, np.int64, np.float32, np.float64]


@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 300])
@pytest.mark.parametrize("fn", [py_max, py_min, py_max_reversed, py_min_of_expression])
def test_extreme_of_every_dtype_and_length(dtype, n, fn):
    x = (np.random.default_rng(n).normal(size=n) * 8).astype(dtype)
    x = x // 2 if x.dtype.kind == "f" else x  # ties: the first one must win
    for start in ([-np.inf, np.inf, 0.5, 3.0] if x.dtype.kind == "f" else [-100, 100, 0, 2]):
        _vectorized(fn, x, start)
    # a start of the data's dtype (a Python float start of float32 data compares in float32
    # but is returned unrounded when nothing wins: the general form keeps that case)
    typed = x.dtype.type(-np.inf if x.dtype.kind == "f" else -100)
    _vectorized(fn, x, typed)
    assert _uses_argmax(fn, x, typed)


@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", [0, 1, 7, 300])
def test_literal_start(dtype, n):
    x = (np.random.default_rng(n).normal(size=n) * 80).astype(dtype)
    # (a start of another kind than the data's fails at run time after 0 trips: numpy would
    # return the Python number; tests/test_vectorize.py covers that)
    for fn in ((max_from_minus_inf, min_from_literal) if x.dtype.kind == "f" else
               (int_max_from_literal,)):
        _vectorized(fn, x)
        assert _uses_argmax(fn, x)


def test_data_of_another_dtype_than_the_start_is_refused_as_the_loop_is():
    # max(-inf, np.int64(12)) is np.int64(12), max(-inf, nothing) the float -inf: the result
    # type would depend on the data (the Loop lowering refuses it alike).
    x = np.array([3, -7, 12, 12, 5], np.int64)
    for fn, start in ((py_max, -np.inf), (py_min, np.inf), (py_max, np.float64(0))):
        with pytest.raises(pyonnx.ConversionError, match="result type would depend on the data"):
            pyonnx.compile(fn)(x, start)
    with pytest.raises(pyonnx.ConversionError, match="result type would depend on the data"):
        pyonnx.compile(max_from_minus_inf)(x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_never_wins_and_nan_start_stays(dtype):
    x = np.array([np.nan, 1.0, np.nan, 3.0, -2.0], dtype)
    for fn in (py_max, py_min, py_max_reversed):
        _vectorized(fn, x, -np.inf)
        _vectorized(fn, x, np.inf)
        _vectorized(fn, x, np.nan)   # nothing compares greater than a NaN start
        _vectorized(fn, np.full(4, np.nan, dtype), -np.inf)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_signed_zero_ties_keep_the_first_in_iteration_order(dtype):
    for x in ([-0.0, 0.0, -0.0], [0.0, -0.0], [-1.0, -0.0, 0.0, -3.0]):
        x = np.array(x, dtype)
        for fn in (py_max, py_max_reversed):
            _vectorized(fn, x, -1.0)
            _vectorized(fn, x, 0.0)    # 0.0 > -0.0 is False: the start stays +0.0
        _vectorized(py_min, x, 1.0)


def max_from_negative_zero(x):
    m = -0.0
    for i in range(len(x)):
        m = max(m, x[i])
    return m


def max_from_nan(x):
    m = np.nan
    for i in range(len(x)):
        m = max(m, x[i])
    return m


def test_starts_the_fast_form_leaves_to_the_general_one_stay_right():
    # literal -0.0 and NaN starts, a float32-inexact start, a small-int dtype, float16: the
    # general form (or a start that is a run-time argument: the exact Gather select).
    for x in (np.array([-0.0, -2.0, 1.5]), np.array([-0.0, -2.0]), np.array([-3.0, 0.0]),
              np.zeros(0)):
        _vectorized(max_from_negative_zero, x)
        _vectorized(max_from_nan, x)
        _vectorized(py_max, x, -0.0)
        _vectorized(py_min, x, -0.0)
    _vectorized(py_max, np.array([-0.0, 0.3], np.float32), 0.1)
    _vectorized(py_max, np.array([3, -7, 12], np.int8), -100)
    _vectorized(py_max, np.array([3, -7, 12], np.float16), np.float16(-4))

"""A Python number of one kind on one run-time path and of another on the other (``a = 1 if c
else 0.5``; graph/path_weak.mark_kind): carried as the wider kind, failing at the line where
numpy's result dtype would differ (``x_int * a`` is int64 for the int), and refused when
returned. Before, ``x_int * a`` was float64 on the int path: a silently wrong dtype. The
conditional expression computed by ``Where`` also marks a Python float joined with an
``np.float64`` (graph/path_weak.mark), which it did not."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def int_or_float_times_ints(x):
    a = 1 if x.sum() > 0 else 0.5
    return x * a


def int_or_float_times_floats(x):
    a = 1 if x.sum() > 0 else 0.5
    return x.astype(np.float32) * a, x > a


def int_or_float_returned(x):
    if x.sum() > 0:
        r = 1.5
    else:
        r = 2
    return r


def bool_or_int(x):
    a = True if x.sum() > 0 else 3
    return x * a


def python_or_numpy_float(x):
    a = 1.0 if x.sum() > 0 else np.float64(2.0)
    return x.astype(np.float32) * a


def branch_int_or_float(x):
    if x.max() > 1:
        a = 2
    else:
        a = 0.25
    return x * a


POS, NEG = np.array([1, 2]), np.array([-1, -2])


@pytest.mark.parametrize("fn", [int_or_float_times_ints, branch_int_or_float])
@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint16])
def test_int_path_fails_where_numpy_keeps_the_int_dtype(fn, dtype):
    x_int_path = (POS * 2).astype(dtype)
    x_float_path = np.zeros(2, dtype)
    f = check(fn, x_float_path)
    assert fn(x_int_path).dtype == dtype
    with pytest.raises(pyonnx.ExecutionError, match="depends on the path taken at run time"):
        f(x_int_path)


@pytest.mark.parametrize("x", [POS, NEG, POS.astype(np.float32), NEG.astype(np.int8)])
def test_converted_where_the_kind_does_not_show(x):
    check(int_or_float_times_floats, x)
    check(bool_or_int, x)


def test_returned_int_or_float_is_refused_at_the_return():
    with pytest.raises(pyonnx.ConversionError,
                       match=r"returns a Python int on some paths and a Python float on others"):
        pyonnx.compile(int_or_float_returned)(POS)


def test_python_or_numpy_float_in_a_conditional_expression():
    f = check(python_or_numpy_float, NEG)  # the np.float64 path: float64, as numpy
    assert python_or_numpy_float(POS).dtype == np.float32
    with pytest.raises(pyonnx.ExecutionError, match="depends on the path taken at run time"):
        f(POS)

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


def flag_loop_int_or_float(x):
    s = 0
    for v in x:
        if v > 5:
            s = 0.5
    return x * s


def flag_loop_returned(x):
    s = 0
    for v in x:
        if v > 5:
            s = 0.5
    return s


def flag_loop_python_float(x):
    s = 0.0
    for v in x:
        if v > 5:
            s = 1.5
    return x.astype(np.float32) * s, s


def flag_loop_float_then_int(x):
    s = 0.0
    for v in x:
        if v > 5:
            s = 1
    return x.astype(np.float32) * s


def first_iteration_int(x):
    s = 0
    y = x
    for i in range(x.shape[0]):
        y = x * s
        s = s + 0.5
    return y


def sum_from_int_zero(x):
    s = 0
    for i in range(x.shape[0]):
        s = s + 0.5
    return s, x * 2.0


def loop_flag_in_while(x, n):
    s = 0
    k = 0
    while k < n:
        if x[k] > 5:
            s = 0.5
        k += 1
    return x * s


@pytest.mark.parametrize("x", [np.array([1, 7]), np.array([9, 9, 9])])
def test_loop_flag_where_the_float_path_ran(x):
    check(flag_loop_int_or_float, x)


@pytest.mark.parametrize("fn", [flag_loop_int_or_float])
@pytest.mark.parametrize("x", [np.array([1, 2]), np.zeros(0, np.int64)])
def test_loop_flag_fails_where_the_int_stayed(fn, x):
    """Vectorized ``if v > 5: s = 0.5``: was float64 on the int path (silently wrong)."""
    assert fn(x).dtype == np.int64
    with pytest.raises(pyonnx.ExecutionError, match="depends on the path taken at run time"):
        pyonnx.compile(fn)(x)


@pytest.mark.parametrize("x, n", [(np.array([1, 7, 2]), 3), (np.array([1, 2, 3]), 2),
                                  (np.array([1, 2]), 0)])
def test_loop_flag_in_a_while_loop(x, n):
    """A Loop (not vectorized): the body's join and the loop state carry the kind."""
    want = loop_flag_in_while(x, n)
    try:
        check(loop_flag_in_while, x, n)  # (n = 0 is a conversion-time int: the loop folds)
    except (pyonnx.ExecutionError, pyonnx.ConversionError) as e:
        assert "depends on the path taken at run time" in str(e)
        assert want.dtype == np.int64  # refused only on numpy's int path


def test_loop_flag_returned_is_refused():
    with pytest.raises(pyonnx.ConversionError,
                       match=r"returns a Python int on some paths and a Python float"):
        pyonnx.compile(flag_loop_returned)(np.array([1, 7]))


@pytest.mark.parametrize("x", [np.array([1, 2]), np.array([1, 7]), np.zeros(0, np.int64)])
@pytest.mark.parametrize("fn", [flag_loop_python_float, flag_loop_float_then_int])
def test_loop_flag_python_numbers_stay_python(fn, x):
    """Vectorized flags of Python floats: were np.float64 (x32 * s was float64)."""
    check(fn, x)


def test_first_iteration_int_is_refused_where_the_dtype_shows():
    with pytest.raises(pyonnx.ConversionError, match="depends on the path taken at run time"):
        pyonnx.compile(first_iteration_int)(np.array([1, 2]))


def test_zero_trips_of_a_kind_changing_loop_say_why():
    """The run-time refusal names the variable, not onnxruntime's Gather."""
    check(sum_from_int_zero, np.array([1, 2]))
    with pytest.raises(pyonnx.ExecutionError,
                       match=r"'s' is a Python int before the loop at line \d+ and a Python "
                             r"float after an iteration, and the loop ran 0 times"):
        pyonnx.compile(sum_from_int_zero)(np.zeros(0, np.int64))


def dtype_read_only(x):
    m = 1 if x.sum() > 0 else 0.5
    t = x * m
    return t.dtype == np.float64, x + 1


def dtype_used_by_astype(x, y):
    s = 0.0
    for v in y:
        s = s + v
    t = x * s  # float32 after 0 iterations (s a Python float), float64 after more
    return np.ones(2).astype(t.dtype)


def test_a_dtype_read_at_conversion_time_still_fails_on_the_other_path():
    """The guard is a check output, not a check on t's data: reading only t.dtype (a
    conversion-time value) ran none of t's nodes, and the answer was silently True."""
    f = check(dtype_read_only, np.array([-1, -2]))
    with pytest.raises(pyonnx.ExecutionError, match="depends on the path taken at run time"):
        f(np.array([1, 2]))


def test_a_dtype_passed_to_astype_fails_on_the_python_path():
    x = np.ones(3, np.float32)
    f = check(dtype_used_by_astype, x, np.array([1.0, 2.0]))
    assert dtype_used_by_astype(x, np.zeros(0)).dtype == np.float32
    with pytest.raises(pyonnx.ExecutionError, match="depends on the path taken at run time"):
        f(x, np.zeros(0))


def flag_loop_numpy_start(x):
    s = np.float64(0.0)
    for v in x:
        if v > 5:
            s = 1.5
    return x.astype(np.float32) * s


def test_a_numpy_scalar_start_is_no_python_number():
    """np.float64 subclasses float: the vectorized flag took np.float64(0.0) for a Python
    float, and x32 * s was float32 where numpy's (no hit) is float64."""
    f = check(flag_loop_numpy_start, np.array([1.0, 2.0]))
    assert flag_loop_numpy_start(np.array([1.0, 7.0])).dtype == np.float32
    with pytest.raises(pyonnx.ExecutionError, match="depends on the path taken at run time"):
        f(np.array([1.0, 7.0]))

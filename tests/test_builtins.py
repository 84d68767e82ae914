"""Python builtins, math functions and numpy scalar casts inside compiled functions."""

from __future__ import annotations

import numpy as np
import pytest

from tests import builtins_kernels as k
from tests.oracle import check

X = np.array([1.5, -2.25, 3.0, 0.0])


@pytest.mark.parametrize("fn", [
    k.len_and_range, k.builtin_abs, k.builtin_minmax_scalars, k.builtin_max_of_array,
    k.builtin_round, k.builtin_float_int_bool, k.builtin_sum, k.math_functions,
    k.int_div_is_float, k.numpy_casts, k.constants,
], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_builtins(fn, dtype):
    check(fn, X.astype(dtype))


def test_builtins_on_ints():
    x = np.array([3, -7, 2, 0], dtype=np.int32)
    for fn in (k.len_and_range, k.builtin_abs, k.builtin_minmax_scalars, k.builtin_max_of_array,
               k.builtin_sum, k.int_div_is_float):
        check(fn, x)


def test_max_with_data_dependent_type_refused():
    import pyonnx

    with pytest.raises(pyonnx.ConversionError, match="depend on the data"):
        pyonnx.compile(k.builtin_max_mixed_kinds)(np.array([1, 2], dtype=np.int32))


def test_int_of_nan_fails_the_run_at_the_line():
    import pyonnx

    f = check(k.int_of_element, np.array([2.7, 1.0]))
    with pytest.raises(ValueError, match="cannot convert float NaN or infinity to integer") \
            as info:
        f(np.array([np.nan, 1.0]))
    assert isinstance(info.value, pyonnx.ExecutionError)
    assert "builtins_kernels.py" in str(info.value)


def sum_of_a_run_time_range(x):
    n = int(x.sum())
    return sum(range(n)), sum(range(2, n, 3)), sum(range(n, -4, -2)), sum(range(n), 10)


def sum_of_a_range_with_run_time_step(x, k):
    return sum(range(0, x.shape[0], k)), sum(range(x.shape[0]), 0.5)


@pytest.mark.parametrize("x", [np.ones(7), np.zeros(0), -np.ones(2), np.ones(1)],
                         ids=["7", "empty", "negative", "1"])
def test_sum_of_a_run_time_range_is_a_python_int(x):
    # Python's arithmetic series, as a Python int (a float with a float start)
    check(sum_of_a_run_time_range, x)


@pytest.mark.parametrize("k", [1, 2, 5, -1])
def test_sum_of_a_range_with_a_run_time_step(k):
    check(sum_of_a_range_with_run_time_step, np.zeros(9), k)


def test_sum_of_a_range_with_a_run_time_step_of_zero_raises_value_error():
    import pyonnx

    with pytest.raises(ValueError, match="must not be zero"):
        pyonnx.compile(sum_of_a_range_with_run_time_step)(np.zeros(3), 0)

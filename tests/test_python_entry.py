"""A Python number a loop may leave as it entered, carried in a narrower state dtype
(graph/python_entry.py): ``s = 0.1`` before a float32 loop is numpy's Python
float 0.1 after 0 trips, which the float32 state holds only rounded. The model fails there
(never returns 0.10000000149); a start value the dtype holds exactly needs nothing."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import LOOPS, check, op_types


def vectorized_sum(x):
    s = 0.1
    for i in range(x.shape[0]):
        s = s + x[i]
    return s


def recurrence(x):
    s = 0.1
    for i in range(x.shape[0]):
        s = np.maximum(s, x[i]) * x[i]
    return s


def running_max(x):
    m = 0.1
    for i in range(x.shape[0]):
        if x[i] > m:
            m = x[i]
    return m


def runtime_start(x, t):
    s = t * 0.1
    for i in range(x.shape[0]):
        s = np.maximum(s, x[i]) * x[i]
    return s


def exact_start(x):
    s = 0.5
    for i in range(x.shape[0]):
        s = np.maximum(s, x[i]) * x[i]
    return s


def complex_sum(z):
    s = 0.1 + 0.2j
    for i in range(z.shape[0]):
        s = s + z[i]
    return s


F32 = np.float32


@pytest.mark.parametrize("fn", [vectorized_sum, recurrence, running_max])
def test_inexact_python_start_fails_where_the_loop_left_it(fn):
    compiled = pyonnx.compile(fn)
    assert fn(np.zeros(0, F32)) == 0.1 and type(fn(np.zeros(0, F32))) is float
    with pytest.raises(pyonnx.ExecutionError, match="holds only rounded"):
        compiled(np.zeros(0, F32))
    check(compiled, np.array([0.25, 2.0, -1.0], F32))


def test_the_recurrence_is_a_loop():
    # (the other forms are vectorized: both lowerings check the start value)
    assert op_types(pyonnx.compile(recurrence), np.ones(3, F32)) & LOOPS
    assert not op_types(pyonnx.compile(vectorized_sum), np.ones(3, F32)) & LOOPS


def test_running_max_kept_start_fails():
    # every element below the start: the loop ran but left the Python float as it entered
    compiled = pyonnx.compile(running_max)
    with pytest.raises(pyonnx.ExecutionError, match="holds only rounded"):
        compiled(np.full(3, -1.0, F32))


@pytest.mark.parametrize("t", [1.0, 0.0])
def test_runtime_start_checked_at_run_time(t):
    compiled = pyonnx.compile(runtime_start)
    check(compiled, np.ones(2, F32), t)
    if t == 0.0:  # 0.0 is held exactly: numpy's Python float 0.0 comes back
        check(compiled, np.ones(0, F32), t)
    else:
        with pytest.raises(pyonnx.ExecutionError, match="as a Python float"):
            compiled(np.ones(0, F32), t)


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_exact_start_needs_nothing(n, dtype):
    check(exact_start, np.linspace(-1, 1, n).astype(dtype))


@pytest.mark.parametrize("n", [0, 2])
def test_float64_state_holds_every_python_float(n):
    check(vectorized_sum, np.ones(n))
    check(recurrence, np.ones(n))


def test_complex64_state():
    compiled = pyonnx.compile(complex_sum)
    with pytest.raises(pyonnx.ExecutionError, match="Python complex"):
        compiled(np.zeros(0, np.complex64))
    check(compiled, np.array([1 + 1j, -2j], np.complex64))
    check(complex_sum, np.zeros(0, np.complex128))


# Seed 43001064 (crash, compile campaign 43000000, as generated): a running max from a Python
# float whose "taken" flag the vectorizer knew at conversion time as a numpy bool (the loop runs
# at most once over a 1-element linspace) crashed the new start-value check.
def seed_43001064(a0, a1):
    L1 = [a0, a0]
    t2 = np.stack(L1)
    t23 = np.linspace(0.0, 1.0, t2.shape[0])
    s25 = 0.5
    for i26 in range(min(t23.shape[0], 2) - 1):
        s25 = max(s25, t23[i26])
    return s25


@pytest.mark.parametrize("a1", [1, 3])
def test_seed_43001064(a1):
    check(seed_43001064, np.array(6, np.uint32), a1)


# The same for a run-time if joining a Python float and a float32 value: numpy keeps the Python
# 0.1 on that path and adds it in float64 (s + np.float64(1) is 1.1); the model held
# 0.10000000149 and gave 1.1000000015 (path_types._held).
def tenth_or_item(x, y):
    if x[0] > 0:
        s = 0.1
    else:
        s = x[1]
    return s + y


def half_or_item(x, y):
    s = 0.5 if x[0] > 0 else x[1]  # (held exactly: no check)
    return s + y


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_if_join_of_a_python_float(sign, dtype):
    x = np.array([sign, 2.0], dtype)
    check(half_or_item, x, np.ones(2))
    compiled = pyonnx.compile(tenth_or_item)
    if sign < 0:
        check(compiled, x, np.ones(2))
    else:
        with pytest.raises(pyonnx.ExecutionError, match="holds the Python float only rounded"):
            compiled(x, np.ones(2))


# A numpy function of a value that is a Python number on some paths: numpy makes the Python
# number a float64 (int64) array there, so np.mean(s) of a float32 value on the other path
# differs in dtype (calls._python_first_argument); and a numpy function's result is a numpy
# scalar on every path (np.clip(s, 0, 1) came back as a Python float).
def half_or_item_in_numpy_calls(x):
    s = 0.5 if x[0] > 0 else x[1]
    return np.mean(s), np.asarray(s), np.clip(s, 0, 1)


@pytest.mark.parametrize("sign", [1, -1])
def test_numpy_functions_of_a_python_number_on_some_paths(sign):
    check(half_or_item_in_numpy_calls, np.array([sign, 2.0]))
    compiled = pyonnx.compile(half_or_item_in_numpy_calls)
    x32 = np.array([sign, 2.0], np.float32)
    if sign < 0:
        check(compiled, x32)
    else:
        with pytest.raises(pyonnx.ExecutionError, match=r"np.mean\(\) of a value that is a "
                                                        "Python float on some paths"):
            compiled(x32)


def python_builtins_of_a_python_number_on_some_paths(x):
    s = 0.5 if x[0] > 0 else x[1]
    return abs(s), max(s, x[1])  # (Python's builtins: no numpy conversion of the number)


@pytest.mark.parametrize("sign", [1, -1])
def test_builtins_of_a_python_number_on_some_paths(sign):
    # (abs() of the Python float is refused where its result type would show, as before this
    # stop; the numpy-function check must not claim it: "np.abs() ... numpy makes")
    x = np.array([sign, 2.0], np.float32)
    if sign < 0:
        check(python_builtins_of_a_python_number_on_some_paths, x)
        return
    with pytest.raises(pyonnx.ExecutionError) as info:
        pyonnx.compile(python_builtins_of_a_python_number_on_some_paths)(x)
    assert "result type here depends on the path" in str(info.value)
    assert "numpy makes the Python float" not in str(info.value)

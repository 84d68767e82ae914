"""A 0-d value that is a Python number on some run-time paths and a numpy scalar on others
(graph/path_weak.py): carried as the numpy value, refused at the line where numpy's result type
would differ between the paths (NEP 50), converted where it would not."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def scaled_after_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.float64(1.0)
    return x * s


def scaled_after_branch(x, c):
    if c.sum() > 0:
        s = np.float64(2.0)
    else:
        s = 3.0
    return x * s


def scaled_after_derived(x, c):
    if c.sum() > 0:
        s = np.float64(2.0)
    else:
        s = 3.0
    t = s * 2 + 1
    return x * t


def scaled_in_first_iteration(x, n):
    s = 0.0
    y = x
    for i in range(n):
        y = x * s
        s = s + np.float64(1.0)
    return y


@pytest.mark.parametrize("fn, line", [(scaled_after_loop, 4), (scaled_after_branch, 5),
                                      (scaled_after_derived, 6)])
def test_fails_at_run_time_where_the_python_number_path_ran(fn, line):
    """The model computes in the numpy value's type; on the path where numpy's operand is the
    Python number (0 iterations, the else branch), the call fails at the line instead of
    answering in the other type."""
    x = np.ones(3, np.float32)
    numpy_path, python_path = (2, 0) if fn is scaled_after_loop else (np.ones(1), -np.ones(1))
    f = check(fn, x, numpy_path)
    assert fn(x, python_path).dtype == np.float32
    with pytest.raises(pyonnx.ExecutionError, match="depends on the path taken at run time") \
            as info:
        f(x, python_path)
    assert f"test_path_weak.py:{fn.__code__.co_firstlineno + line}:" in str(info.value)
    assert "float32 for the Python number" in str(info.value)


def test_refused_where_the_path_is_not_known():
    """On the first iteration of a loop s is the Python number, after it numpy's: refused
    at the line (no flag for 'the first iteration' is kept)."""
    fn = scaled_in_first_iteration
    with pytest.raises(pyonnx.ConversionError, match="depends on the path taken at run time") \
            as info:
        pyonnx.compile(fn)(np.ones(3, np.float32), 2)
    assert info.value.lineno == fn.__code__.co_firstlineno + 4


@pytest.mark.parametrize("n", [0, 1, 3])
def test_converted_where_the_type_is_the_same_on_every_path(n):
    """float64 data: x * s is float64 whichever s is."""
    x = np.arange(3.0)
    check(scaled_after_loop, x, n)
    check(scaled_after_branch, x, np.ones(1))
    check(scaled_after_branch, x, -np.ones(1))
    check(scaled_after_derived, x, -np.ones(1))
    check(scaled_in_first_iteration, x, n)


def accumulate_float32(x):
    s = 0.0
    for v in x:
        s = s + v
    return x * s


@pytest.mark.parametrize("x", [np.zeros(0, np.float32), np.array([1.5, 2.0], np.float32)])
def test_python_float_start_joined_with_float32_state(x):
    """s is a Python float before the loop and np.float32 after an iteration: x * s is
    float32 on both paths."""
    check(accumulate_float32, x)


def total(x):
    tot = 0.0
    for v in x:
        tot += v
    return tot


def weighted_total_and_count(x, w):
    tot = 0.0
    for i in range(x.shape[0]):
        tot = tot + x[i] * w[i]
    return tot * 2, x.shape[0]


def total_in_a_while(x):
    tot = 0.0
    i = 0
    while i < x.shape[0] and x[i] > 0:
        tot = tot + x[i]
        i += 1
    return tot


@pytest.mark.parametrize("x", [np.zeros(0), np.array([1.5, 2.0]), np.array([-1.0, 2.0])])
def test_returned_python_number_after_zero_iterations(x):
    """numpy code returns the Python number it started with when the loop ran 0 times and a
    numpy scalar after: so does the call (the model returns a flag with it)."""
    for fn, args in ((total, (x,)), (weighted_total_and_count, (x, x[::-1].copy())),
                     (total_in_a_while, (x,))):
        want = fn(*args)
        got = pyonnx.compile(fn)(*args)
        assert type(got) is type(want) and got == want, (fn.__name__, got, want)
        check(fn, *args)


def test_python_number_flag_in_saved_models_and_gradients(tmp_path):
    path = str(tmp_path / "total.onnx")
    pyonnx.save(total, path, np.zeros(3))
    saved = pyonnx.load(path)
    assert type(saved(np.zeros(0))) is float and type(saved(np.ones(2))) is np.float64

    def dot(x, w):
        tot = 0.0
        for i in range(x.shape[0]):
            tot = tot + x[i] * w[i]
        return tot
    g = pyonnx.grad(dot, argnums=1)
    np.testing.assert_array_equal(g(np.array([1.0, 2.0]), np.ones(2)), [1.0, 2.0])
    assert g(np.zeros(0), np.zeros(0)).shape == (0,)
    value, grad = pyonnx.value_and_grad(dot, argnums=1)(np.array([3.0]), np.array([2.0]))
    assert value == 6.0 and grad.tolist() == [3.0]

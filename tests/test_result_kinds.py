"""Result kinds (issue 13 item 10): a Python int/float/bool where numpy or Python returns one, a
numpy scalar where numpy does, per run-time path; a Python number the model's dtype cannot hold
fails at run time on its path (pyonnx.ExecutionError at the line), never returns as the other
type. The oracle (tests/oracle.py ``assert_same``) compares Python numbers by exact type."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import assert_same, check


def last_index(x, n):
    i = -5
    for i in range(n):
        x[i] = x[i] + 1
    return x, i


def argmax_by_loop(x):
    best = 0
    for i in range(x.shape[0]):
        if x[i] > x[best]:
            best = i
    return best


def best_and_index(x):
    best = 0.0
    k = -1
    for i in range(len(x)):
        if x[i] > best:
            best = x[i]
            k = i
    return best, k


def running_max(x, start):
    m = start
    for v in x:
        m = max(m, v)
    return m


def running_max_masked(x):
    m = 0.0
    for i in range(len(x)):
        if x[i] < 10.0:
            m = max(m, x[i])
    return m


def max_of_two(x):
    return max(0.0, x[0]), min(x[0], 1.0)


def int_start_over_floats(x):
    m = 0
    for v in x:
        m = max(m, v)
    return m


def masked_sum(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            s = s + x[i]
    return s


def search(x, t):
    hit = -1
    found = False
    for i in range(len(x) - 1, -1, -1):
        if x[i] * 2 > t:
            hit = i * 10
            found = True
            break
    return hit, found


def sum_of_generator(x):
    return sum(v * 2 for v in x if v > 1.0)


def sum_of_generator_float_start(x):
    return sum((v * 2 for v in x if v > 1.0), 0.0)


MIXED = np.array([-1.0, 3.0, 2.0, 3.0])
NEGATIVE = np.array([-1.0, -3.0])


@pytest.mark.parametrize("n", [0, 1, 4])
def test_loop_variable_after_a_vectorized_loop_is_a_python_int(n):
    check(last_index, np.arange(4.0), np.int64(n), reference=False)


@pytest.mark.parametrize("x", [MIXED, NEGATIVE, np.zeros(0)])
def test_indices_found_by_a_loop_are_python_ints(x):
    if len(x):
        check(argmax_by_loop, x)
    check(best_and_index, x)  # best: the Python 0.0 where no element beat it


@pytest.mark.parametrize("x", [MIXED, NEGATIVE, np.zeros(0)])
@pytest.mark.parametrize("start", [0.0, -np.inf, 1.5])
def test_running_max_returns_the_winner_itself(x, start):
    check(running_max, x, start)  # the Python start where it won, the element where one did
    check(running_max_masked, x)


@pytest.mark.parametrize("x", [np.array([-2.0]), np.array([0.5]), np.array([3.0])])
def test_builtin_max_of_a_python_number_and_an_element(x):
    check(max_of_two, x)


def test_python_int_start_the_float_model_cannot_hold_fails_where_it_wins():
    compiled = pyonnx.compile(int_start_over_floats)
    assert_same(compiled(np.array([1.0, 3.0])), np.float64(3.0))
    with pytest.raises(pyonnx.ExecutionError, match="Python int"):
        compiled(NEGATIVE)


@pytest.mark.parametrize("x", [MIXED, NEGATIVE, np.zeros(0)])
def test_masked_sum_keeps_its_python_start_where_no_mask_held(x):
    check(masked_sum, x)


@pytest.mark.parametrize("t", [-100.0, 5.0, 100.0])
def test_search_results_and_flags_are_python_numbers(t):
    check(search, MIXED, t)
    check(search, np.zeros(0), t)


def test_sum_of_an_empty_generator_is_the_python_int_or_fails():
    compiled = pyonnx.compile(sum_of_generator)
    assert_same(compiled(MIXED), sum_of_generator(MIXED))
    with pytest.raises(pyonnx.ExecutionError, match="returns a Python int on some paths"):
        compiled(NEGATIVE)  # Python's 0: the model's float64 cannot be it
    for x in (MIXED, NEGATIVE, np.zeros(0)):
        check(sum_of_generator_float_start, x)


def prefix_sums_by_generator(x, y):
    for k in range(len(y)):
        y[k] += sum(x[i] for i in range(k))
    return y


def generator_sum_times_float32(x32, x64, m):
    s = sum(x64[i] for i in range(m))
    return x32 * s


def test_the_int_of_an_empty_generator_sum_fails_only_where_its_kind_shows():
    # (added to a float64 element at once: the int and the float give the same result)
    check(prefix_sums_by_generator, np.arange(4.0), np.zeros(4))
    compiled = pyonnx.compile(generator_sum_times_float32)
    x32, x64 = np.ones(2, np.float32), np.ones(2)
    assert_same(compiled(x32, x64, 2), generator_sum_times_float32(x32, x64, 2))
    with pytest.raises(pyonnx.ExecutionError, match="NEP 50"):
        compiled(x32, x64, 0)  # numpy: float32 (x32 * 0); the model's type is float64


def max_of_a_loop_result(x, y):
    s = 0.0
    for v in x:
        s = s + v
    return max(s, y[0]), min(1.0, s)


@pytest.mark.parametrize("x", [np.zeros(0), np.array([2.0]), np.array([0.5])])
@pytest.mark.parametrize("y", [np.array([-1.0]), np.array([1.0])])
def test_max_of_a_value_that_is_a_python_number_on_some_paths(x, y):
    # s is the Python 0.0 where the loop ran 0 times: so is the winner where s wins
    check(max_of_a_loop_result, x, y)


def indices_kept_in_a_run_time_list(x):
    hits = [i for i in range(len(x)) if x[i] > 0]
    return len(hits), (hits[0] if hits else -1)


@pytest.mark.parametrize("x", [np.array([-1.0, 2.0, 3.0]), np.array([-1.0])])
def test_an_item_of_a_run_time_list_of_python_ints_is_one(x):
    check(indices_kept_in_a_run_time_list, x)


def none_test(x):
    last = None
    for v in x:
        if v < 0:
            last = v
    return last is None, last is not None


@pytest.mark.parametrize("x", [np.array([-1.0, 2.0]), np.array([1.0])])
def test_is_none_is_a_python_bool(x):
    check(none_test, x)

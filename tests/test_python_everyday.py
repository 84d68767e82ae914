"""Everyday Python on arrays and lists (issue 15), differential against plain Python/numpy."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests import python_everyday_kernels as k
from tests.oracle import check

X = np.array([1.5, -2.25, 3.0, 0.5])


def test_tuple_target_swaps_keep_numpy_view_semantics():
    check(k.swap_rows_tuple, np.arange(6.0).reshape(3, 2))
    check(k.swap_elements_tuple, np.arange(3.0))
    check(k.swap_names, X, X * 2)


def test_unpacking_rows_with_run_time_length():
    edges = np.array([[0, 1], [1, 2], [2, 0]])
    check(k.loop_over_edges, X, edges)
    check(k.loop_over_edges, X, edges[:0])
    check(k.unpack_row, np.arange(6.0).reshape(3, 2), 1)
    check(k.enumerate_zip_unpack, X, X + 1)


def test_unpacking_a_row_of_the_wrong_length_fails_at_run_time():
    f = pyonnx.compile(k.unpack_row)
    with pytest.raises(ValueError, match=r"too many values to unpack \(expected 2\)"):
        k.unpack_row(np.arange(9.0).reshape(3, 3), 1)
    with pytest.raises(pyonnx.ExecutionError, match=r"unpack_length") as info:
        f(np.arange(9.0).reshape(3, 3), 1)
    assert f"python_everyday_kernels.py:{k.unpack_row.__code__.co_firstlineno + 1}" in str(
        info.value)


def test_del_name():
    check(k.del_name, X)
    with pytest.raises(pyonnx.ConversionError, match="deleted") as info:
        pyonnx.compile(k.del_then_read)(X)
    assert info.value.lineno == k.del_then_read.__code__.co_firstlineno + 3


def test_static_type_checks():
    check(k.type_checks, X, 3)
    check(k.type_checks, X, 1.5)


def test_stdlib_helpers():
    check(k.stdlib_helpers, X)


def test_map_over_run_time_refused():
    with pytest.raises(pyonnx.ConversionError, match="write a for loop") as info:
        pyonnx.compile(k.map_over_run_time)(X, 2)
    assert info.value.lineno == k.map_over_run_time.__code__.co_firstlineno + 1


@pytest.mark.parametrize("n", [0, 1, 4])
def test_writes_through_helpers_in_run_time_loops(n):
    # (the helper's parameter has the caller's name: it still shares the caller's memory)
    check(k.helper_writes_caller_local_in_loop, X[:3], n)
    check(k.closure_writes_in_loop, X[:3], n)
    check(k.lambda_rebound_in_loop, X, n)
    check(k.comprehension_in_lambda, X, n)


@pytest.mark.parametrize("n", [1, 3])
def test_max_min_over_run_time_comprehensions(n):
    check(k.max_min_over_run_time, X, n)


@pytest.mark.parametrize("n", [0, 2])
def test_sum_of_rows_with_array_start(n):
    check(k.row_sum_with_start, np.arange(6.0).reshape(3, 2), n)


def test_tuple_of_run_time_comprehension_refused():
    with pytest.raises(pyonnx.ConversionError, match="tuple's length") as info:
        pyonnx.compile(k.tuple_of_run_time)(X, 2)
    assert info.value.lineno == k.tuple_of_run_time.__code__.co_firstlineno + 1


@pytest.mark.parametrize("sign", [1, -1])
def test_comprehension_side_effects_happen_once(sign):
    check(k.comprehension_with_writes, X[:3] * sign)


def test_generator_expressions_as_call_arguments():
    check(k.generator_call_arguments, X, 2)


@pytest.mark.parametrize("fn", [k.generator_to_helper, k.generator_bound_to_name])
def test_generator_that_could_be_iterated_twice_refused(fn):
    with pytest.raises(pyonnx.ConversionError, match="list comprehension") as info:
        pyonnx.compile(fn)(X)
    assert info.value.lineno == fn.__code__.co_firstlineno + 1

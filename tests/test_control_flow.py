"""Run-time control flow against plain Python/numpy: every construct with 0, 1 and many
iterations, both branches of one compiled model, nested loops and jumps at the first and last
iteration (tests/control_flow_kernels.py holds the functions)."""

from __future__ import annotations

import re

import numpy as np
import onnx
import pytest

import pyonnx
from tests import control_flow_kernels as k
from tests.oracle import check
from tests.oracle import LOOPS
from tests.oracle import op_types as ops

F64 = np.float64
I64 = np.int64


def check_all(fn, inputs, **options):
    """One compiled function, every input: numpy's result each time, one conversion."""
    compiled = pyonnx.compile(fn, static_argnames=options.pop("static_argnames", ()))
    for args in inputs:
        check(compiled, *args, **options)
    assert compiled.conversions == 1, f"{compiled.conversions} conversions"
    return compiled


def arr(*values, dtype=F64):
    return np.array(values, dtype=dtype)


# ------------------------------------------------------------------ if / expressions
def test_if_elif_else_all_branches_one_model():
    c = check_all(k.if_elif_else, [(arr(5, 6, 7),), (arr(1, 2),), (arr(-1, -2),),
                                   (np.zeros(0),)])
    assert "If" in ops(c, arr(1.0))


def test_if_branches_assign_different_names():
    check_all(k.if_assigns_different_names, [(arr(1, 2),), (arr(-1, 2),)])


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.uint8])
def test_if_without_else_shape_changes(dtype):
    check_all(k.if_without_else_changes_shape,
              [(np.array([1, 2], dtype),), (np.array([0, 0, 0], dtype),)])


def test_nested_ifs():
    check_all(k.nested_ifs, [(arr(1, 2, 9), 3.0), (arr(-9, 2, 9), 3.0), (arr(0, 1), 3.0)])


def test_conditional_expression():
    check_all(k.conditional_expression, [(arr(1, 2),), (arr(-1, -2),)])
    check_all(k.conditional_expression_python_number, [(arr(1, 2),), (arr(-1, -2),)])


def test_and_short_circuits_an_out_of_range_index():
    x = arr(3, -1, 2)
    check_all(k.and_guards_index, [(x, I64(0)), (x, I64(1)), (x, I64(5))])


def test_or_and_not():
    check_all(k.or_value, [(arr(1), arr(-1)), (arr(-1), arr(1)), (arr(-1), arr(-1))])
    check_all(k.not_and_or, [(arr(1, 2),), (arr(-1),), (arr(9, 1),)])


def test_chained_comparisons():
    check_all(k.chained_comparison, [(arr(1, 2),), (arr(-1),), (arr(20),)])
    check_all(k.chained_comparison_three, [(arr(1, 2), 2.0, 5.0)])
    # lo <= m <= hi <= 100 where lo <= m <= hi: Python's 'hi <= 100' is a Python bool (a
    # join of joins: path_types.mark follows a side that is itself marked)
    check_all(k.chained_comparison_three, [(arr(1, 2), 0.0, 5.0), (arr(1, 2), 0.0, 500.0)])


def test_size_one_array_condition():
    check_all(k.size_one_condition, [(arr(1, -2),), (arr(-1, 2),)])


def test_array_condition_of_several_elements_fails_at_run_time_as_numpy_does():
    c = check(k.array_as_condition, arr(2.0))
    check(c, arr(-2.0))
    with pytest.raises(ValueError, match="truth value of an array"):
        k.array_as_condition(arr(1, 2))
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):
        c(arr(1, 2))


def test_condition_on_python_argument_is_folded():
    c = pyonnx.compile(k.condition_on_python_scalar_argument)
    check(c, arr(1, 2), 3)
    check(c, arr(1, 2), 1)
    assert "n" in c.static_argnames


def test_early_return_and_tuples_from_branches():
    check_all(k.early_return_both_ways, [(arr(1, 2),), (arr(-1, -2),)])
    check_all(k.tuple_returned_from_branches, [(arr(1, 5, 2),), (arr(-1, -5, -2),)])


# ---------------------------------------------------------------------- for loops
@pytest.mark.parametrize("n", [0, 1, 4])
def test_for_range_array_bound(n, monkeypatch):
    monkeypatch.setenv("PYONNX_VECTORIZE", "0")  # the Loop lowering (vectorized: test_vectorize)
    c = check_all(k.sum_range, [(arr(1, 2, 3, 4), np.int64(n))])
    assert LOOPS & ops(c, arr(1.0), np.int64(2))


def test_for_range_python_int_bound_is_one_model():
    check_all(k.sum_range, [(arr(1, 2, 3, 4), n) for n in (0, 1, 3)])


@pytest.mark.parametrize("a,b,s", [(0, 5, 1), (1, 5, 2), (4, -1, -1), (4, 0, -2), (3, 3, 1),
                                   (5, 0, 1), (0, 5, -1), (-1, -6, -2), (2, 3, 7)])
def test_range_start_stop_step(a, b, s):
    x = np.arange(10.0)
    check(k.range_start_stop_step, x, np.int64(a), np.int64(b), np.int64(s))


def test_range_run_time_step_zero_fails_at_run_time():
    with pytest.raises(ValueError, match="must not be zero"):
        k.range_start_stop_step(np.arange(3.0), 0, 3, 0)
    with pytest.raises(pyonnx.ExecutionError, match="range_step_zero"):
        pyonnx.compile(k.range_start_stop_step)(np.arange(3.0), np.int64(0), np.int64(3),
                                                 np.int64(0))


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_negative_static_step(n):
    check(k.range_negative_static_step, np.arange(6.0), np.int64(n))


@pytest.mark.parametrize("rows", [0, 1, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_loop_over_rows(rows, dtype):
    m = np.arange(rows * 3, dtype=dtype).reshape(rows, 3)
    if rows:
        check(k.loop_over_rows, m)
        return
    # Zero rows: m[0] is out of range, in numpy and at run time in the model, at that line.
    with pytest.raises(IndexError, match="index 0 is out of bounds") as want:
        k.loop_over_rows(m)
    with pytest.raises(IndexError,
                       match=r"index 0 is out of bounds for axis 0 with size 0") as got:  # numpy's exception, from the failing line
        pyonnx.compile(k.loop_over_rows)(m)
    assert str(got.value) == str(want.value)
    assert re.search(r"control_flow_kernels.py:\d+:\d+: .*Gather", str(got.value.__cause__))


@pytest.mark.parametrize("rows", [0, 1, 4])
def test_enumerate_zip_reversed_ndindex(rows):
    m = np.arange(rows * 3, dtype=F64).reshape(rows, 3)
    check(k.enumerate_rows, m)
    check(k.enumerate_start, m)
    check(k.ndindex_loop, m)
    if rows:
        check(k.zip_rows, m, m[::-1] * 2)
        check(k.zip_rows, m, m[:1] * 2)  # zip stops at the shorter
    check(k.reversed_range, np.arange(5.0), np.int64(min(rows, 5)))


@pytest.mark.parametrize("n,unrolled", [(63, True), (64, True), (65, False)])
def test_unroll_limit_is_64_items(n, unrolled):
    """A static range or array of at most 64 items is unrolled; 65 make one Loop (README)."""
    c = check(pyonnx.compile(k.static_range_of, static_argnames=("n",)), arr(1, 2, 3), n)
    assert (not LOOPS & ops(c, arr(1.0), n)) == unrolled
    rows = np.arange(n * 2, dtype=F64).reshape(n, 2)
    c = check(pyonnx.compile(k.sum_rows_of_static_array, static_shapes=True), rows)
    assert (not LOOPS & ops(c, rows)) == unrolled
    # Symbolic shapes: the row count is known only at run time, so always a Loop.
    assert LOOPS & ops(check(k.sum_rows_of_static_array, rows), rows)


def test_long_static_range_becomes_a_loop():
    c = check(k.long_static_range, arr(1, 2))
    assert LOOPS & ops(c, arr(1, 2))


@pytest.mark.parametrize("n,m", [(0, 3), (3, 0), (1, 1), (3, 4)])
def test_nested_loops(n, m):
    check(k.nested_loops, np.int64(n), np.int64(m))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_state_shape_changes_across_iterations(n):
    check(k.concatenate_grows, arr(1, 2), np.int64(n))


def test_state_dtype_promoted_on_entry():
    check(k.dtype_promoted_on_entry, arr(1.5, 2.5))
    check(k.dtype_promoted_on_entry, np.arange(70, dtype=F64))  # a Loop (longer than unrolled)


def test_python_numbers_accumulated_over_array_data():
    x = np.concatenate([arr(1, -2, 3), np.ones(80)])
    check_all(k.python_number_accumulates, [(x,), (-x,)])


@pytest.mark.parametrize("n", [0, 1, 3])
def test_loop_variable_after_the_loop(n):
    check(k.loop_var_after_loop, arr(1, 2), np.int64(n))


# ----------------------------------------------------------------------- while
def test_while_dynamic_condition():
    check_all(k.halve_until_small, [(arr(0.1, 0.2),), (arr(4, 8),), (np.zeros(0),)])


@pytest.mark.parametrize("n", [1, 2, 3, 6, 7, 27, 97])
def test_collatz(n):
    check(k.collatz_steps, np.int64(n))


def test_while_true_with_break():
    check_all(k.while_true_break, [(arr(1, 2), 1.5), (arr(1, 2), 1e-3), (arr(100.0), 0.1)])


def test_while_test_turns_dynamic_after_static_iterations():
    check_all(k.while_static_then_dynamic, [(arr(0.1),), (arr(5, 5),)])


def test_while_else():
    check_all(k.while_else, [(arr(1, -1, 2), np.int64(3)), (arr(1, 2, 3), np.int64(3)),
                             (arr(1, 2, 3), np.int64(0))])


# -------------------------------------------------------------- break / continue
@pytest.mark.parametrize("t", [-10.0, 1.5, 2.5, 100.0])  # first, middle, last, never
def test_break_positions(t):
    x = arr(1, 2, 3)
    check(k.first_index_where, x, t)
    check(k.for_else_search, x, t)


def test_break_on_empty_input():
    check(k.first_index_where, np.zeros(0), 0.0)
    check(k.for_else_search, np.zeros(0), 0.0)


def test_continue_and_break():
    check_all(k.skip_negatives, [(arr(1, -2, 3),), (arr(-1, -2),), (arr(5.0),)])
    check_all(k.break_and_continue, [(arr(1, -2, 3),), (arr(5, 6, -1, 7, 8),), (np.zeros(0),)])


def test_break_in_nested_loop_leaves_only_the_inner():
    check_all(k.nested_break_inner, [(np.array([[1, 2, -1, 3], [4, -5, 6, 7]]),),
                                     (np.ones((3, 2), np.int64),), (np.zeros((0, 2), np.int64),)])


def test_return_inside_loops():
    check_all(k.return_inside_loop, [(arr(1, 5, 9), 4.0), (arr(1, 2), 4.0), (arr(9.0), 0.0)])
    check_all(k.return_in_loop_in_if, [(arr(1, -5, 9), arr(1)), (arr(1, 5), arr(1)),
                                       (arr(1, -5), arr(-1))])


def test_static_loop_with_data_dependent_break():
    c = check_all(k.static_loop_dynamic_break, [(arr(1, 1, 3, 1),), (arr(1, 1, 1, 1),),
                                                (arr(5, 1, 1, 1),)])
    assert not LOOPS & ops(c, arr(1, 1, 1, 1))  # unrolled, iterations under If


def test_newton_iteration_to_tolerance():
    check_all(k.newton_sqrt, [(arr(2, 9, 0.25), 1e-12), (arr(1.0), 1e-3)])


def test_models_pass_the_full_checker_with_nested_subgraphs():
    c = pyonnx.compile(k.return_in_loop_in_if)
    onnx.checker.check_model(c.to_onnx(arr(1.0), arr(1.0)), full_check=True)


# ----------------------------------------------------------------------- lists
@pytest.mark.parametrize("rows", [1, 2, 70])
def test_list_append_in_loop_then_stack(rows):
    m = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
    c = check(k.collect_rows_stack, m)
    assert "SequenceInsert" in ops(c, m)


def test_list_filtered_in_loop_then_array_and_len():
    x = np.array([3.0, -1.0, 5.0, 0.5])
    check_all(k.collect_scalars_array, [(x, 0.0), (x, 4.0)])


def test_empty_run_time_list_fails_at_run_time():
    x = np.array([3.0, -1.0])
    c = pyonnx.compile(k.collect_scalars_array)
    assert k.collect_scalars_array(x, 10.0)[1] == 0
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):
        c(x, 10.0)  # numpy returns an empty float64 array; pyonnx refuses at run time


@pytest.mark.parametrize("n", [0, 1, 3])
def test_list_concatenate_last_and_len(n):
    check(k.collect_concatenate_and_last, np.arange(5.0), np.int64(n))


def test_static_list_append_unrolls():
    c = check(k.static_list_append, np.arange(3.0))
    assert "SequenceInsert" not in ops(c, np.arange(3.0))


def test_list_appended_in_a_run_time_branch():
    check_all(k.list_appended_in_branch, [(np.arange(3.0),), (-np.arange(3.0),)])


def test_list_with_two_names_appended_in_a_loop_is_refused():
    with pytest.raises(pyonnx.ConversionError, match="also named"):
        pyonnx.compile(k.list_aliased_in_loop)(np.arange(100.0))


# ------------------------------------------------------------------ state shapes
@pytest.mark.parametrize("n", [0, 1, 5])
def test_tuple_state_and_unpacking(n):
    check(k.tuple_state, arr(1, 2), np.int64(n))
    check(k.fibonacci_unpacking, np.int64(n))


def test_inlined_helper_with_early_return_inside_a_loop():
    check_all(k.calls_helper_in_loop, [(np.linspace(-3, 3, 80), 0.5), (np.zeros(0), 0.5)])


def test_unchanged_static_name_in_a_loop():
    check(k.counter_unchanged_static, np.arange(100.0))


def test_branch_joining_a_python_number_and_an_int64_scalar_stays_int64():
    """After `acc = x[0]` (np.int64) on one path and `acc = 3` on the other, acc * int8 is
    int64 when the int64 path ran, as numpy; when the Python-number path runs, numpy gives int8
    and the one compiled model would give int64: the call fails at the line instead
    (graph/path_weak.py)."""
    f = check(k.join_number_and_scalar, np.array([5, 6]), np.float64(1.0),
              np.array([1, 2], np.int8))
    assert k.join_number_and_scalar(np.array([5, 6]), -1.0, np.array([1, 2], np.int8)).dtype \
        == np.int8
    with pytest.raises(pyonnx.ExecutionError, match="depends on the path taken at run time"):
        f(np.array([5, 6]), np.float64(-1.0), np.array([1, 2], np.int8))

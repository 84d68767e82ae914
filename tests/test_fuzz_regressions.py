"""Regression tests for the bug classes the program fuzzer found (issues 13 and 19).

Each kernel is a fuzzer program minimized by ``tools/fuzz.py --minimize`` (seed in the name),
checked differentially against numpy as the fuzzer does: one compiled function on two input
sets of different sizes (the second call sees symbolic shapes), comparing the result (value,
dtype, shape, Python type) and the arguments after the call.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import pyonnx
from tests.oracle import assert_same, check


def check_calls(fn, *arg_sets, **options):
    """``fn`` under numpy and one ``pyonnx.compile(fn)`` on each argument set: the results
    (with their Python types) and the arguments after the call agree."""
    compiled = pyonnx.compile(fn)
    for args in arg_sets:
        want_args = copy.deepcopy(args)
        with np.errstate(all="ignore"):
            want = fn(*want_args)
        got_args = copy.deepcopy(args)
        got = compiled(*got_args)
        for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
            # Python scalar, numpy scalar or array, as numpy returns it (np.longlong and
            # np.int64 are distinct classes of one dtype: the dtype is compared below)
            assert _kind(g) == _kind(w), (g, w)
        assert_same(got, want, **options)
        for g, w in zip(got_args, want_args):
            assert type(g) is type(w)
            assert_same(g, w)
    check(fn, *copy.deepcopy(arg_sets[0]))  # the checker and the reference evaluator


def _kind(v) -> str:
    if isinstance(v, np.ndarray):
        return "ndarray"
    if isinstance(v, np.generic):
        return "numpy scalar"
    return type(v).__name__


# ---------------------------------------------------------------------------------------------
# A returned argument the function also writes into was None: the value was two outputs of an
# If branch (the returned value and the write-back), and onnxruntime gives None for a subgraph
# output listed twice (seeds 100000, 100003 and 35 others).

def returned_written_argument(a0, a2):
    if a0.sum() > 3:
        return a2
    a2[:] = 1.0
    return a2


def returned_view_of_written_argument(a0, a1):
    t5 = np.swapaxes(a1, 0, 1)
    if a0.max() > 1.0:
        return t5
    a1[-1] = 2.0
    return a1


def loop_state_twice(a0, n):
    k = 0
    t = a0 * 1
    while k < n:
        k += 1
        t[0] = t[0] + 1
        a0[0] = t[0]
    return a0


def test_returned_written_argument():
    check_calls(returned_written_argument, [np.array([5.0]), np.array([1.0, 2.0])],
                [np.array([1.0, 0.0]), np.array([1.0, 2.0, 3.0])])


def test_returned_view_of_written_argument():
    check_calls(returned_view_of_written_argument,
                [np.array([0.5]), np.arange(6.0).reshape(2, 3)],
                [np.array([2.0, 3.0]), np.arange(12.0).reshape(3, 4)])


def test_loop_state_and_written_argument_are_one_value():
    check_calls(loop_state_twice, [np.array([1.0, 2.0]), 3], [np.array([1.0, 2.0, 4.0]), 0])


# ---------------------------------------------------------------------------------------------
# A Python scalar returned early came back as a 0-d array: the stand-in for the return value on
# the path that has not returned yet was a strong 0-d constant, and the join made the Python
# int a numpy int64 (seeds 23, 57, 96, 214, 231, 281).

def early_return_python_int(a0, a1):
    if a0.shape[0] < 2.125:
        return a1
    return a1


def early_return_shape(a0):
    if a0.sum() > 0:
        return a0.shape[0], a0.sum()
    return 7, a0.max()


def test_early_return_keeps_python_scalar():
    check_calls(early_return_python_int, [np.ones((1, 1, 2)), 3], [np.ones((3, 1, 2)), 0])
    check_calls(early_return_shape, [np.array([1.0, 2.0])], [np.array([-1.0, -2.0, 0.5])])


# A Python int on one path and a numpy float64 on the other (seed 6): numpy's type depends on
# the path taken; one graph value cannot carry it, so it is refused at the 'if'.

def python_int_or_numpy_float(a0, k3):
    if a0.max() > 7.625:
        k3 = k3 + 1
    else:
        k3 /= np.cbrt(a0.sum())
    return k3


def test_python_scalar_joined_with_numpy_value_is_refused():
    with pytest.raises(pyonnx.ConversionError, match="Python int on one path") as info:
        pyonnx.compile(python_int_or_numpy_float)(np.array([1.0, 2.0]), 3)
    assert info.value.lineno == python_int_or_numpy_float.__code__.co_firstlineno + 1


# ---------------------------------------------------------------------------------------------
# Iterating a 1-D array gives numpy scalars, copies: 'i //= -2' on the loop variable changed the
# caller's array (seeds 260, 291).

def iterate_1d_augassign(a0, a1):
    for i2 in a1:
        i2 //= -2
    return (a1,)


def iterate_1d_augassign_runtime(a1):
    s = 0
    for v in a1:
        v *= 3
        s = s + v
    return s, a1


def iterate_2d_rows_write_through(a1):
    for row in a1:
        row *= 2
    return a1


def test_iterating_1d_array_gives_copies():
    check_calls(iterate_1d_augassign, [np.zeros((5, 5)), np.array([1, -3], np.int32)],
                [np.zeros((4, 5)), np.array([2, 0, 4, -4], np.int32)])
    big = np.arange(40, dtype=np.int64)  # longer than the unroll limit: a run-time loop
    check_calls(iterate_1d_augassign_runtime, [np.array([1, 2], np.int64)], [big])


def test_iterating_2d_array_gives_views():
    check_calls(iterate_2d_rows_write_through, [np.ones((2, 3))], [np.ones((40, 2))])


# ---------------------------------------------------------------------------------------------
# '.T' of a 0-d array is a view with an empty permutation: writing through it emitted a
# Transpose with perm=[] onto a value of rank 1 (seed 51: onnxruntime "perm size: 0 does not
# match input rank: 1").

def write_through_transpose_of_0d(a0):
    v1 = a0.T
    v1[None] = 1
    a0[()] = np.abs(v1)


def write_through_transpose_of_1d(a0):
    v1 = a0.T
    v1[1:] = 5
    return v1 + 1


def test_write_through_identity_transpose():
    check_calls(write_through_transpose_of_0d, [np.array(0, np.uint8)], [np.array(6, np.uint8)])
    check_calls(write_through_transpose_of_1d, [np.array([1, 2], np.int16)],
                [np.array([1, 2, 3, 4], np.int16)])


# ---------------------------------------------------------------------------------------------
# A loop that may run 0 times and changes a carried value's kind (seeds 100360, 100139:
# 'k = 0' then 'k /= 1' in a while loop): numpy gives the Python int after 0 iterations, a float
# after more. The model answers when the loop ran and fails at run time when it did not.

def loop_changes_kind(x):
    s = 0
    for v in x:
        s = s + v
    return s


def test_loop_that_changes_kind_fails_when_it_runs_zero_times():
    compiled = pyonnx.compile(loop_changes_kind)
    check_calls(loop_changes_kind, [np.array([1.5, 2.0])], [np.array([0.5, 1.0, 4.0])])
    with pytest.raises(pyonnx.ExecutionError, match="changes_type_in_the_loop") as info:
        compiled(np.zeros(0))
    assert f":{loop_changes_kind.__code__.co_firstlineno + 2}:" in str(info.value)


# ---------------------------------------------------------------------------------------------
# A name bound in a loop to a view of outer memory (seed 100395: 't2 = a1[...]' in a loop, then
# 't2 <<= 1'): after the loop it was the Loop's output, a copy, and the write never reached a1.
# Writes through it are refused; so is reading it after that memory was written.

def view_bound_in_loop_then_written(a0, a1):
    t2 = np.full_like(a1, 2)
    for i3 in range(min(a0.shape[0], 3)):
        t2 = a1[...]
    t2 <<= 1


def view_bound_in_loop_then_read(a1, x):
    t2 = np.zeros(2)
    for v in x:
        t2 = a1[1:]
    return t2 * 2


def test_view_bound_in_a_loop():
    # Followed (lower/choices.py): after 1+ iterations the write reaches a1, after 0 it does not.
    compiled = pyonnx.compile(view_bound_in_loop_then_written)
    for rows in (4, 0):
        check(compiled, np.zeros((rows, 5), np.int32), np.array(6, np.uint8))
    check_calls(view_bound_in_loop_then_read, [np.ones(3), np.ones(2)],
                [np.arange(3.0), np.ones(5)])


# ---------------------------------------------------------------------------------------------
# The rows of a local array that the loop writes into (seed 100153): each row is read from the
# array as it is on that iteration, not as it was before the loop.

def rows_of_written_local(a0):
    a0 = a0 - 0.5
    for i1 in a0:
        a0[:, 0::-2] = i1 / 1.5
    return a0


def test_rows_of_a_local_array_written_in_the_loop():
    check_calls(rows_of_written_local, [np.array([[5], [5], [1]], np.uint32)],
                [np.array([[3], [0], [0], [1]], np.uint32)])


# ---------------------------------------------------------------------------------------------
# A Python number on one path and a numpy value of the same kind on the other, returned (seed
# 100522: 'k14 -= a2.all()' in one branch only): numpy returns int on one path, np.int64 on the
# other. Returning it is refused at the 'if'; using it in array arithmetic is fine.

def returns_python_or_numpy_int(x):
    k = 0
    if x.sum() > 0:
        k = k - x.all()
    return k


def early_returns_numpy_or_python_float(x):
    if x.sum() > 0:
        return x.sum()
    return 0.0


def python_or_numpy_float_in_arithmetic(x):
    r = 0.0
    if x.sum() > 0:
        r = x.sum()
    return r * 1.5 + x


def test_returned_python_or_numpy_scalar_is_refused():
    with pytest.raises(pyonnx.ConversionError, match="Python number on the other") as info:
        pyonnx.compile(returns_python_or_numpy_int)(np.ones(2))
    assert info.value.lineno == returns_python_or_numpy_int.__code__.co_firstlineno + 2
    with pytest.raises(pyonnx.ConversionError, match="numpy value on the other"):
        pyonnx.compile(early_returns_numpy_or_python_float)(np.ones(2))
    check_calls(python_or_numpy_float_in_arithmetic, [np.ones(2)], [-np.ones(3)])

"""Regressions from the compile campaign at fuzzer seeds 18,000,000 and after (issue 13: never
silently wrong), and the 0-d kinds they showed: numpy's 0-d *array* (``np.asarray``,
``np.where``, ``np.zeros(())``) is written by ``x op= v``, a numpy scalar is rebound.

Each kernel is checked as the fuzzer does (``check_calls``: one compiled function, two input
sets, results with their Python types, arguments after the call).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.test_fuzz_regressions import check_calls


# ---------------------------------------------------------------------------------------------
# Seed 18011887: ``t1 = np.where(...)`` of a Python float is a 0-d array; ``t1 += 0`` writes
# into it in numpy (a view taken before sees it), pyonnx rebound t1 to a numpy scalar and
# returned np.float64 with the view's write lost. Two roots: ``x op= v`` on a 0-d array that
# nothing else sees rebound x to the result of an operation (a numpy scalar), and a 0-d array
# computed at conversion time (a Python-float argument the function branches on is static)
# lost its kind in ``op=`` and at the return.
def where_then_view_write(a0):
    t1 = np.where(a0 <= a0, a0, a0)
    if a0 > 1.625:
        pass
    t4 = t1.reshape(-1)
    k5 = 0
    t1 += np.positive(k5)
    t4[0:1] /= 1.5
    return t1


def asarray_inplace(a0):
    t1 = np.asarray(a0 * 2)
    if a0 > 1.625:
        pass
    t1 += 0
    return t1


def asarray_inplace_no_if(a0):
    t1 = np.asarray(a0 * 2)
    t1 += 1
    return t1


def asarray_returned_after_if(a0):
    t1 = np.asarray(a0)
    if a0 > 1.625:
        pass
    return t1


def view_written_after_inplace(a0):
    t1 = np.asarray(a0 * 2)
    t1 -= 0.5
    t4 = t1.reshape(-1)
    t4[0:1] /= 1.5
    return t1, t4


def test_seed_18011887_a_0d_array_stays_one_through_op_assign_and_if():
    for f in (where_then_view_write, asarray_inplace, asarray_inplace_no_if,
              asarray_returned_after_if, view_written_after_inplace):
        check_calls(f, (1.5,), (1.75,))
        check_calls(f, (np.float64(1.5),), (np.float64(1.25),))
        check_calls(f, (np.array(1.5),), (np.array(2.0),))


def zeros_returned(x):
    a = np.zeros(())
    return a, np.float64(0.0) + x[0]


def zeros_plus_run_time(x):
    a = np.zeros(())
    a += x[0]
    return a, np.float64(0.0)


def zeros_float32_plus_float64(x):
    a = np.zeros(3, np.float32)
    a += x            # numpy casts into the float32 array
    b = np.zeros((), np.float32)
    b += 1.5
    return a, b


def zeros_int_plus_float(x):
    a = np.zeros(3, np.int64)
    a += x            # numpy: UFuncTypeError (same_kind)
    return a


def zeros_0d_plus_vector(x):
    a = np.zeros(())
    a += x            # numpy: ValueError (non-broadcastable output operand)
    return a


def zeros_aliased_inplace(x):
    a = np.zeros(())
    b = a
    a += 2.0
    b *= x[0]
    return a, b


def test_0d_arrays_made_at_conversion_time_keep_their_kind_and_dtype():
    x = np.array([1.5, 2.0, 3.0])
    for f in (zeros_returned, zeros_plus_run_time, zeros_float32_plus_float64,
              zeros_aliased_inplace):
        check_calls(f, (x,), (x + 1,))
    with pytest.raises(pyonnx.ConversionError, match="same_kind"):
        pyonnx.compile(zeros_int_plus_float)(x)
    with pytest.raises(pyonnx.ConversionError, match="non-broadcastable"):
        pyonnx.compile(zeros_0d_plus_vector)(x)


def loop_state_0d_array(a0):
    t1 = np.asarray(a0 * 2)
    n = 0
    while t1 > 2 and n < 5:
        t1 -= 0.5          # writes into the 0-d array: it stays one through the loop
        n += 1
    return t1


def loop_state_0d_array_rebound(a0):
    t1 = np.asarray(a0 * 2)
    n = 0
    while t1 > 2 and n < 5:
        t1 = t1 - 0.5      # a numpy scalar after an iteration
        n += 1
    return t1


def test_a_0d_array_written_in_place_in_a_loop_stays_one():
    for a in (1.5, np.array(1.5), np.array(0.5), np.float64(2.5)):
        check_calls(loop_state_0d_array, (a,))
    # (a 0-d array after 0 iterations, a numpy scalar after more: returned with a flag)
    check_calls(loop_state_0d_array_rebound, (np.array(1.5),), (np.array(0.5),))


# ---------------------------------------------------------------------------------------------
# Seed 18010347: a name an iteration leaves stale (``a0 = v1.reshape(...)`` of a strided view,
# then a write to the memory it may view) was carried as loop state: "pyonnx bug: an undefined
# value has no leaves". Now the name is not carried and a read after the loop is refused.
def stale_view_after_loop(a0):
    v1 = a0[:, 1:]
    for i2 in range(min(v1.shape[0], 3)):
        a0 = v1.reshape(v1.shape[0], -1)
        v1[:, 1:1:-1] = 1
    t3 = np.arange(a0.shape[0])


def stale_view_not_read(a0):
    v1 = a0[:, 1:]
    for i2 in range(min(v1.shape[0], 3)):
        a0 = v1.reshape(v1.shape[0], -1)
        v1[:, 1:1:-1] = 1
    return v1.sum()


def test_seed_18010347_a_name_left_stale_by_an_iteration_is_refused_where_read():
    a = np.array([[True, True, False, False, False], [False, True, False, True, True]])
    with pytest.raises(pyonnx.ConversionError, match="line 156") as info:
        pyonnx.compile(stale_view_after_loop)(a.copy())
    assert "np.arange(a0.shape[0])" in str(info.value)
    check_calls(stale_view_not_read, (a,), (a[:1],))


# ---------------------------------------------------------------------------------------------
# Fuzz seed 14400085's family: a name bound on no path of an outer ``if`` and left undefined by
# an inner one was bound to the join's internal "no binding" marker, and reading it said only
# "unbound".
def undefined_in_nested_if(x):
    if x.sum() > 0:
        pass
    else:
        if x[0] > 0:
            y = x
    return y


def test_a_name_undefined_in_a_nested_if_is_refused_with_the_inner_if():
    with pytest.raises(pyonnx.ConversionError, match="'y' is assigned in the 'if' branch of "
                       "the 'if' at line") as info:
        pyonnx.compile(undefined_in_nested_if)(np.array([1.0, 2.0]))
    assert "return y" in str(info.value)


# ---------------------------------------------------------------------------------------------
# Seeds 41000319, 41000360, 41000470 (refused: "returns a value that numpy makes a 0-d array on
# some paths ... and a numpy scalar on others"): the early return's stand-in on the path that
# did not return counted as a numpy scalar. And a value that really is a 0-d array on one path
# and a numpy scalar on the other is returned with a flag output saying which (as a Python
# number on some paths is, graph/path_weak.py).
def early_return_of_a_0d_argument(a0, a1):
    v1 = a1
    if a0.shape[0] < 3:
        if a0.sum() > 4:
            return a1
    v1[...] //= -2
    return v1.T


def array_or_scalar_by_branch(a0, x):
    t1 = np.asarray(a0 * 2)
    if x[0] > 0:
        t1 = x[1] * 2
    return t1, (t1, x)


def array_or_scalar_written(a0, x):
    t1 = np.asarray(a0 * 2)
    if x[0] > 0:
        t1 = t1 - 0.5
    t1 += 1                 # written where it is an array, rebound where it is a scalar
    return t1


def array_or_scalar_nested(a0, x):
    t1 = np.asarray(a0 * 2)
    if x[0] > 0:
        if x[1] > 0:
            t1 = x[1] * 2
    elif x[2] > 0:
        t1 = x[2]
    return t1


def array_or_scalar_unrolled(a0, x):
    t1 = np.asarray(a0 * 2)
    for i in range(3):
        if x[i] > 0:
            t1 = t1 - 0.5
        else:
            t1 -= 0.5
    return t1


def array_or_scalar_after_a_loop(a0, x):
    t1 = np.asarray(a0 * 2)
    for i in range(x.shape[0]):
        t1 = x[i] * 2
    return t1


def array_or_scalar_in_a_conditional_expression(a0, x):
    t1 = np.asarray(a0 * 2)
    return t1 if x[0] > 0 else x[1]


def test_a_0d_array_on_some_paths_and_a_numpy_scalar_on_others_is_returned_as_numpy_does():
    check_calls(early_return_of_a_0d_argument, (np.array([3], np.uint32), np.array(2.75)),
                (np.array([2, 2, 6, 1, 5], np.uint32), np.array(2.75)))
    xs = (np.array([1.0, -1.0, 2.0]), np.array([-1.0, 1.0, -2.0]), np.array([1.0, 1.0, 2.0]),
          np.array([-1.0, 1.0, 2.0]))
    for f in (array_or_scalar_by_branch, array_or_scalar_written, array_or_scalar_nested,
              array_or_scalar_unrolled, array_or_scalar_in_a_conditional_expression):
        check_calls(f, *((np.array(1.5), x) for x in xs))
    check_calls(array_or_scalar_after_a_loop, (np.array(1.5), xs[0]),
                (np.array(1.5), xs[0][:0]))


def asarray_of_array_or_scalar(a0, x):
    t1 = np.asarray(a0 * 2)
    if x[0] > 0:
        t1 = t1 - 0.5
    u = np.asarray(t1)      # the array itself on one path, a new array on the other
    u += 1
    return t1


def asarray_of_array_or_scalar_read(a0, x):
    t1 = np.asarray(a0 * 2)
    if x[0] > 0:
        t1 = t1 - 0.5
    return np.asarray(t1), t1


def isinstance_of_array_or_scalar(a0, x):
    t1 = np.asarray(a0 * 2)
    if x[0] > 0:
        t1 = t1 - 0.5
    return isinstance(t1, np.ndarray)


def test_what_depends_on_which_path_made_a_0d_value_is_refused():
    args = (np.array(1.5), np.array([1.0, 2.0]))
    with pytest.raises(pyonnx.ConversionError, match="may refer to different memory"):
        pyonnx.compile(asarray_of_array_or_scalar)(*args)
    check_calls(asarray_of_array_or_scalar_read, args, (np.array(1.5), np.array([-1.0, 2.0])))
    with pytest.raises(pyonnx.ConversionError, match="isinstance"):
        pyonnx.compile(isinstance_of_array_or_scalar)(*args)


def argmax_divided_in_place(a1):
    t8 = a1.argmax()        # a numpy scalar (pyonnx's NaN rule is an internal If)
    t8 /= a1.any()
    return t8


def test_seed_41000251_an_internal_if_output_is_a_numpy_scalar():
    check_calls(argmax_divided_in_place, (np.array([1.5, -3.75, 1.5]),),
                (np.array([0.5, np.nan, 3.0, 2.0]),))


# ---------------------------------------------------------------------------------------------
# Seed 41001112: ``a1.min()`` of a 0-d argument is an Array of the argument's graph input (no
# node): it was taken for a loop's state ("unknown" kind), and a join with a numpy scalar on
# the other path refused the return.
def reduction_of_0d_argument_joined(a1):
    t2 = a1.min()
    if t2 > 1.125:
        a1[None] = 0.75
    elif t2 < 1.125:
        t2 = a1.sum()
    return t2


def test_seed_41001112_a_reduction_of_a_0d_argument_is_a_numpy_scalar():
    check_calls(reduction_of_0d_argument_joined, (np.array(0.25, np.float16),),
                (np.array(2.25, np.float16),), (np.array(1.125, np.float16),))

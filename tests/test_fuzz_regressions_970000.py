"""Regressions from the 20,000-program compile campaign on main (fuzzer seeds 970000..989999).

Each program is the minimized one (or a family written from it): numpy is the oracle (values,
dtypes, Python vs numpy scalars, the arguments after the call), or the construct is refused at
the user's line where numpy's answer depends on what pyonnx cannot follow.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.test_fuzz_regressions import check_calls
from tests.oracle import check


# ---------------------------------------------------------------------------------------------
# Seed 970942: ``a[a > 1] = a[0]``. numpy's boolean-mask assignment copies each run of true
# mask elements in turn, reading the value as it is then, so an element written by one run is
# read by a later one (``a[1, 0]`` gets the new ``a[0, 1]``); the model read the whole value
# first. Refused for every view of the target but a one-element one.
def mask_assign_row_of_itself(a):
    a[a > 1] = a[0]
    return a


def mask_assign_row_through_a_name(a):
    v = a[0]
    a[a > 1] = v
    return a


def mask_assign_one_element(a):
    a[a > 1] = a[..., 0, 1]      # a 0-d view of the target
    return a, a[0, 1]


def mask_assign_copied_row(a):
    a[a > 1] = a[0].copy()
    return a


def test_mask_assignment_from_a_row_of_the_target_is_refused_at_the_line():
    a = np.array([[0.75, 1.25, 0.25, 0.25], [3.5, 1.75, -2.0, 1.75]])
    for f in (mask_assign_row_of_itself, mask_assign_row_through_a_name):
        with pytest.raises(pyonnx.ConversionError, match="boolean-mask assignment") as info:
            pyonnx.compile(f)(a.copy())
        assert "a[a > 1] = " in str(info.value)
    check_calls(mask_assign_one_element, (a,), (np.array([[2.0, 3.0]]),))
    check_calls(mask_assign_copied_row, (a,), (np.array([[2.0, 0.5, 0.5, 4.0], [0.5, 3.0, 5.0, 0.5]]),))


# ---------------------------------------------------------------------------------------------
# Seed 971704: ``a0 = np.positive(a0)`` on a complex argument returned the argument itself, so
# a later ``a0 -= ...`` changed the caller's array (numpy: np.positive and unary + make a new
# array).
def complex_positive_then_write(z):
    z = np.positive(z)
    z -= 0.0625
    return z


def complex_unary_plus_then_write(z):
    w = +z
    w *= 2
    return w, z


def test_complex_positive_is_a_new_array():
    for dt in (np.complex64, np.complex128):
        z = np.array([-1.25 - 3j, 0.5 + 1j], dt)
        check_calls(complex_positive_then_write, (z,), (np.array(-1.25 - 3j, dt),))
        check_calls(complex_unary_plus_then_write, (z,), (np.zeros(0, dt),))


# ---------------------------------------------------------------------------------------------
# Seed 978620: ``a1 = np.real(a0); a1 += -1`` on a 0-d complex argument. numpy's np.real of a
# 0-d *array* is a 0-d view, and ``+=`` writes through it into ``a0``; pyonnx took the part for
# a numpy scalar and rebound it. A part of a 0-d argument is a view now (the write reaches
# the argument); returned, a 0-d complex argument is a 0-d array.
def write_through_real_of_0d(a0):
    a1 = np.real(a0)
    a1 += -1
    return a0


def read_real_of_0d(a0):
    a1 = a0.real + 1
    return a1, a0, a0.imag


def test_part_of_a_0d_complex_argument_is_a_view():
    z = np.array(-1.5j)
    # (refused before; the part is an alias of the argument's part buffer now, and the write
    # reaches it as in numpy: complex_aliases.part_alias)
    check(write_through_real_of_0d, z.copy())
    check(write_through_real_of_0d, np.array(2 - 1j, np.complex64))
    check_calls(read_real_of_0d, (z,), (np.array(2 + 1j, np.complex64),))


# ---------------------------------------------------------------------------------------------
# Seed 978118: ``t1 = np.complex128(-2)`` then ``t1 *= -1`` in a run-time loop came back as a
# Python complex (np.complex128 subclasses Python's complex, so the loop's join took it for a
# weak Python number).
def complex_numpy_scalar_in_loop(a0):
    t1 = np.complex128(-2)
    for i in range(a0.shape[0]):
        t1 *= -1
    return (t1,)


def complex_numpy_scalar_in_branch(a0):
    t1 = np.complex64(-2)
    if a0.sum() > 3:
        t1 = t1 * 2
    return t1


def test_numpy_complex_scalar_stays_numpy_through_control_flow():
    for f in (complex_numpy_scalar_in_loop, complex_numpy_scalar_in_branch):
        check_calls(f, (np.zeros((4, 0), np.uint16),), (np.arange(3.0),), (np.zeros(0),))


# ---------------------------------------------------------------------------------------------
# Found with seed 978620: a 0-d argument rebound by a run-time if (or a loop that may not run)
# to the result of an operation is a 0-d array on one path and a numpy scalar on the other, and
# numpy returns either; pyonnx returned a numpy scalar on both. Now returned with a flag output
# saying which (fuzz seeds 41000000..: scalar_kinds.side_flags); conversion-time numpy scalars
# join numpy scalars.
def rebound_0d_argument_in_branch(a0):
    if a0 > 0:
        a0 = a0 * 2
    return a0


def rebound_0d_argument_in_loop(a0):
    for i in range(int(a0 > 0)):
        a0 = a0 * 2
    return a0


def rebound_0d_as_array(a0):
    if a0 > 0:
        a0 = a0 * 2
    return np.asarray(a0)


def rebound_0d_as_scalar(a0):
    if a0 > 0:
        a0 = a0 * 2
    return a0[()]


def numpy_scalar_accumulators(x):
    s = np.float64(0)
    for i in range(x.shape[0]):
        s += x[i]
    t = np.float64(1)
    if x.sum() > 1:
        t = x.sum()
    return s, t


def test_0d_array_or_scalar_by_path_is_returned_as_numpy_returns_it():
    for f in (rebound_0d_argument_in_branch, rebound_0d_argument_in_loop,
              rebound_0d_as_array, rebound_0d_as_scalar):
        check_calls(f, (np.array(-1.5),), (np.array(2.0),))
    check_calls(numpy_scalar_accumulators, (np.zeros(0),), (np.arange(3.0),))


# ---------------------------------------------------------------------------------------------
# Seed 977985: ``np.uint8(v1)`` of a bool, read as a bool inside a run-time loop inside a
# run-time branch, is a Cast round trip bool → uint8 → bool computed in the branch and read in
# the loop body; onnxruntime drops such round trips itself and then loses the value the nested
# body reads ("Missing Input", or "Trying to get a TensorSeq, but got: (null)"). Folding now
# sees the bool dtype of untyped values (comparisons, Gather, ...) and removes the round trip.
def cast_round_trip_in_branch_loop(a0):
    v1 = a0[0] > 0
    t2 = a0 > 0
    if not v1:
        for i8 in range(a0.shape[0]):
            t2[...] = np.uint8(v1)
    return t2


def cast_round_trip_of_gathered_bool(a0):
    a0 = np.signbit(a0)
    v1 = a0[0]
    t2 = a0 == v1
    if not v1:
        for i8 in t2:
            t2[..., -1::2] = np.uint8(v1)
            a0[1] = 1
    return t2, a0


def test_cast_round_trip_read_in_a_nested_loop_runs():
    for f in (cast_round_trip_in_branch_loop, cast_round_trip_of_gathered_bool):
        check_calls(f, (np.array([1, 1, 4], np.int8),), (np.array([-4, 6, 0, 6], np.int8),))


# ---------------------------------------------------------------------------------------------
# Found with the test above: a loop that may run 0 times and widens its state's dtype
# (float32 state plus float64 values) gave the widened dtype after 0 iterations too; numpy
# keeps the entry dtype then. The model now fails at the loop when it ran 0 times, naming why
# (as it already did when the kind changed, int to float).
def widen_scalar_state(x, y):
    acc = x[0] * 0
    for i in range(y.shape[0]):
        acc += y[i]
    return acc


def widen_array_state(x, y):
    acc = x * 0
    for i in range(y.shape[0]):
        acc = acc + y[i]
    return acc


def test_state_widened_in_a_loop_that_ran_0_times_fails_at_run_time():
    x = np.ones(2, np.float32)
    for f in (widen_scalar_state, widen_array_state):
        check_calls(f, (x, np.arange(3.0)), (x, np.ones(1)))
        with pytest.raises(pyonnx.ExecutionError, match="changes_type_in_the_loop"):
            pyonnx.compile(f)(x, np.zeros(0))
        check_calls(f, (x, np.zeros(0, np.float32)), (x, np.arange(2, dtype=np.float32)))


# ---------------------------------------------------------------------------------------------
# np.max of a 0-d complex argument returned the argument itself (found when returned 0-d
# complex arguments became 0-d arrays): numpy makes a new numpy scalar, and an in-place op on
# it must not reach the caller's array.
def max_of_0d_complex_then_write(z):
    m = np.max(z)
    m += 1
    return m, z


def test_max_of_0d_complex_is_a_new_scalar():
    for dt in (np.complex64, np.complex128):
        check_calls(max_of_0d_complex_then_write, (np.array(1 - 2j, dt),))


# ---------------------------------------------------------------------------------------------
# Seed 12000809: a Python complex divided by a numpy float64 scalar is a Python complex
# (Python's complex takes float subclasses, and np.float64 is one); pyonnx gave np.complex128.
# With the numpy scalar on the left, a float32 scalar, or a 0-d array, numpy answers.
def python_complex_and_float64_scalar(x):
    n = len(x)
    c = n + 1j
    s = np.cosh(x[0])
    c /= s
    return c, (2 + 1j) * s, s * (2 + 1j), (2 + 1j) * np.float32(x[0]), (2 - 1j) - x[:1].sum()


def test_python_complex_with_float64_scalar_stays_python_complex():
    check_calls(python_complex_and_float64_scalar, (np.array([-1.0, -4.0, 0.0]),),
                (np.array([0.5]),))


# ---------------------------------------------------------------------------------------------
# Seeds 12004918, 12008380, 12010249: an array held as an item of a dict, list or tuple
# (``d = {"u": t1}``) and then changed in place (``t1 /= 2``) kept its old values in the item:
# the in-place op was lowered as a rebinding, because no other *name* held the array. Items of
# containers count as holders now: the write reaches them, or, where the item's memory was
# chosen at run time (a dict bound to ``t1`` or ``t1[::-1]`` by a run-time if), reading it
# after the write is refused at the line.
def item_of_dict_sees_write(a):
    t1 = np.sqrt(np.abs(a))
    d = {"u": t1, "n": 1}
    t1 /= 2
    return d["u"]


def item_of_list_and_tuple_see_write(a):
    t1 = np.sqrt(np.abs(a))
    lst, tup = [t1, 1], ((t1,), 2)
    t1 += 1
    return lst[0], tup[0][0]


def dict_item_chosen_at_run_time_then_base_written(a1):
    t1 = np.sqrt(np.abs(a1))
    if a1.sum() > 1.625:
        d2 = {"u": t1, "n": 1}
    else:
        d2 = {"u": t1[::-1], "n": 2}
    t3 = d2["u"]
    t1 /= t3[0]
    return (t3,)


def test_array_held_in_a_container_sees_in_place_writes():
    a = np.array([4.0, 9.0, 0.25])
    check_calls(item_of_dict_sees_write, (a,), (np.zeros(0),))
    check_calls(item_of_list_and_tuple_see_write, (a,), (np.zeros(0),))
    # the item is a choice of memory (campaign 14100000): both paths of the if, as numpy
    check_calls(dict_item_chosen_at_run_time_then_base_written,
                (np.array([1.0, 1.75, -2.75], np.float32),),
                (np.array([-1.0, 0.5, 4.0], np.float32),), (np.array([0.5], np.float32),))


# ---------------------------------------------------------------------------------------------
# Seed 13000343 (found by the gradient fuzzer, a wrong forward value): a name bound in a run-time
# if inside a loop to a view of an outer array (``else: t1 = x[..., :]``) and written through
# on a later iteration (``t1[...] = x - x``) wrote into x in numpy, not in the model. The
# loop's check for such names now looks through the if's choice: refused at the line.
def view_chosen_in_a_loop_then_written(x, w):
    t1 = np.maximum(w, 0.2)
    for i2 in range(w.shape[-1] - 1, -1, -1):
        t1[...] = x - x
        if w.shape[0] < 3.87:
            pass
        else:
            t1 = x[..., :]
    return np.sum(w[-3]) + np.dot(x, x)


def test_view_chosen_in_a_loop_and_written_later_is_refused():
    x, w = np.array([0.4, 0.37, -0.35, -0.69]), np.array([-0.29, 0.42, 0.48, 0.84])
    with pytest.raises(pyonnx.ConversionError, match="written through on a later iteration"):
        pyonnx.compile(view_chosen_in_a_loop_then_written)(x, w)


# The full program of seed 13000343: ``x`` is loop state too (``x = w[[-3]]`` on another path),
# so the view ``t1 = x[..., :]`` is of the memory ``x`` enters the next iteration with (a state
# input, which the check took for memory the iteration made): refused at the line as well.
def view_of_carried_name_then_written(x, w):
    t1 = np.maximum(w, 0.2)
    for i2 in range(w.shape[-1] - 1, -1, -1):
        t1[...] = x - x
        if w.shape[0] < 3.87:
            x = w[np.array([-3])]
        elif w.sum() < 1.38:
            pass
        else:
            t1 = x[..., :]
    return np.sum(x)


def test_view_of_a_carried_name_written_next_iteration_is_refused():
    x, w = np.array([0.4, 0.37, -0.35, -0.69]), np.array([-0.29, 0.42, 0.48, 0.84])
    with pytest.raises(pyonnx.ConversionError, match="written through on a later iteration"):
        pyonnx.compile(view_of_carried_name_then_written)(x, w)


def view_of_carried_name_only_read(x, w):
    t1 = np.maximum(w, 0.2)
    for i2 in range(w.shape[-1] - 1, -1, -1):
        s = np.sum(t1)
        if w.shape[0] < 3.87:
            x = w[np.array([-3])]
        elif w.sum() < s:
            pass
        else:
            t1 = x[..., :]
    return np.sum(x) + np.sum(t1)


def test_view_of_a_carried_name_that_is_only_read_converts():
    for n in (3, 4):
        x = np.linspace(-0.9, 0.9, n)
        check_calls(view_of_carried_name_only_read, (x, x[::-1] * 0.5 + 0.3))
        check_calls(view_of_carried_name_only_read, (x, x[::-1] * 0.01))


# ---------------------------------------------------------------------------------------------
# Seed 13002843 (gradient mode, a crash in conversion): ``t5 = t5.T`` in a loop with a break,
# then joined by a run-time if: the "same view on both paths" shortcut tried to re-derive a
# view whose steps hold a marker (AMBIGUOUS), which has no forward step.
def transposed_in_loop_with_break(x, w):
    t1 = x + w
    t2 = np.cosh(0.5 * t1)
    t5 = np.arctan2(t1, w * w + 0.5)
    for i6 in range(3):
        if t2.shape[0] > 4.87:
            break
        t5 = t5.T
    t7 = np.log2(t5 * t5 + 0.5)
    return np.sum(t5) + np.sum(t7)


def test_marker_view_is_not_rederived_after_a_join():
    for n in (4, 5):
        x = np.linspace(-0.9, 0.9, n)
        check_calls(transposed_in_loop_with_break, (x, x[::-1] * 0.5))
    g = pyonnx.grad(transposed_in_loop_with_break, argnums=(0, 1))
    x = np.linspace(-0.9, 0.9, 4)
    w = x[::-1] * 0.5
    gx, gw = g(x, w)
    h = 1e-6
    for k in range(4):  # central differences as the oracle
        e = np.zeros(4)
        e[k] = h
        f = transposed_in_loop_with_break
        np.testing.assert_allclose(gx[k], (f(x + e, w) - f(x - e, w)) / (2 * h), rtol=1e-6)
        np.testing.assert_allclose(gw[k], (f(x, w + e) - f(x, w - e)) / (2 * h), rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# Seed 12004309 (a crash, and silently wrong where the shapes allowed): a complex argument
# rebound to its own slice in a run-time loop (``a1 = a1[1:]``), then written, wrote the
# whole argument back (or failed to, at another shape): the loop kept its entry plan once the
# types settled, dropping the joined plan's note that the name is a view on some path.
def complex_argument_sliced_in_loop_then_written(a1):
    for i in range(a1.shape[0] - 1):
        a1 = a1[1:]
    a1[0] = 2


def test_complex_argument_sliced_in_a_loop_then_written_is_refused():
    with pytest.raises(pyonnx.ConversionError, match="on some path of a run-time if/loop"):
        pyonnx.compile(complex_argument_sliced_in_loop_then_written)(
            np.arange(5).astype(np.complex128))

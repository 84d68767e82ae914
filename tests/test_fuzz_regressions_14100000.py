"""Refusals and bugs from the compile campaigns on the branch 'trust' (fuzzer seeds 14100000..).

Each program is the minimized one (or a family written from it): numpy is the oracle (values,
dtypes, Python vs numpy scalars, the arguments after the call), on input sets that take every
path of each run-time branch, or the construct is refused at the user's line where numpy's answer
depends on what pyonnx cannot follow.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.test_fuzz_regressions import check_calls


# ---------------------------------------------------------------------------------------------
# Seeds 14100029, 14100010 (46 + 29 of the first 500 refusals): a dict, list or tuple bound in a
# run-time if to containers whose array items view different memory on the two paths
# (``d = {'u': a}`` / ``{'u': a[::-1]}``), then written through an item or through the base.
# Each array item is its own choice of memory (choices.Leaves): a write through it reaches
# the memory of the path that ran, a write to that memory shows through it.
def item_written(a, c):
    if c > 0:
        d = {'u': a, 'n': 2}
    else:
        d = {'u': a[::-1], 'n': 3}
    t = d['u']
    t[0] += 10
    return d['n'], t


def base_written(a, c):
    if c > 0:
        d = {'u': a[1:]}
    else:
        d = {'u': a[::-1]}
    a[-1] = 7
    return d['u'].copy()


def list_item_private_on_one_path(a, c):
    if c > 0:
        L = [np.zeros(3), a]
    else:
        L = [a[:3], a * 2]
    L[0][1] = 5
    L[1][0] = -1
    return L[0], L[1]


def tuple_items_swap_memory(a, b, c):
    if c > 0:
        p = (a, b[1:])
    else:
        p = (b[:2], a)
    x, y = p
    x += 1
    y *= 3
    return p[0].copy(), p[1].copy()


def item_chosen_in_nested_ifs(a, c):
    if c > 0:
        if c > 5:
            d = {'u': a[:2]}
        else:
            d = {'u': a[1:3]}
    else:
        d = {'u': a.copy()[:2]}
    d['u'][0] = 100
    return d['u']


def one_array_twice_in_a_list(a, c):
    if c > 0:
        L = [a, a]
    else:
        L = [a[1:], np.ones(2)]
    L[0][0] = 9
    return L[1].copy()


def item_chosen_in_a_loop(a, n):
    for i in range(n):
        if a[0] > i:
            d = {'u': a}
        else:
            d = {'u': a[::-1]}
        d['u'][0] += 1
    return a


@pytest.mark.parametrize("c", [-1, 0, 1, 7])
def test_container_items_chosen_by_a_run_time_if_are_followed(c):
    a = np.arange(4.0)
    for fn in (item_written, base_written, list_item_private_on_one_path,
               item_chosen_in_nested_ifs, one_array_twice_in_a_list):
        check_calls(fn, (a, np.int64(c)), (np.array([2.5, -1.0, 0.5, 3.0]), np.int64(-c)))
    check_calls(tuple_items_swap_memory, (a, np.arange(3.0), np.int64(c)),
                (np.arange(5.0), np.arange(4.0) - 2, np.int64(-c)))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_container_item_chosen_in_a_loop(n):
    check_calls(item_chosen_in_a_loop, (np.arange(4.0), np.int64(n)),
                (np.array([-1.0, 2.0, 3.0]), np.int64(n)))


def item_made_in_the_branch_and_named(a, c):
    if c > 0:
        w = a * 2
        d = {'u': w[::-1]}
    else:
        w = a + 1
        d = {'u': a}
    w[0] = 5
    return d['u'], w


def item_copy_made_in_the_branch(a, c):
    if c > 0:
        y = a.copy()[:2]      # a view of an array only this name sees: private
        d = {'u': a.copy()[1:]}
    else:
        y = a[1:3]
        d = {'u': a}
    y[0] = 5
    d['u'][-1] = 6
    return y, d['u'], a


def test_item_viewing_memory_made_in_a_branch():
    check_calls(item_copy_made_in_the_branch, (np.arange(4.0), np.int64(1)),
                (np.arange(4.0), np.int64(0)))
    # two names see memory made on one path (w and d['u']): which memory a write through w
    # reaches is not followed; refused at the write
    with pytest.raises(pyonnx.ConversionError, match="may refer to different memory") as e:
        pyonnx.compile(item_made_in_the_branch_and_named)(np.arange(4.0), np.int64(1))
    assert e.value.lineno == item_made_in_the_branch_and_named.__code__.co_firstlineno + 7


# ---------------------------------------------------------------------------------------------
# Found while writing the tests above (wrong on main): an array made at conversion time
# (``np.zeros(3)``) held in a list, tuple or dict and written through another name or through
# the container kept its old values in the container.
def constant_in_list_written(a):
    L = [np.zeros(3), 1]
    t = L[0]
    t[1] = 5
    return L[0], a


def constant_in_dict_written(a):
    d = {'u': np.zeros(3)}
    d['u'][1] = 5
    return d['u']


def constant_in_tuple_written(a):
    z = np.ones(3)
    p = ((z, 1), 2)
    z[1] = 5
    return p[0][0] + a[:3]


def view_of_constant_in_list(a):
    z = np.zeros(3)
    L = [z[1:]]
    z[1] = 5
    return L[0]


def test_conversion_time_array_in_a_container_sees_writes():
    # (a view of the constant in the list: one buffer for both, lower/const_views.py; it was
    # refused as "shares memory with another array computed at conversion time")
    for fn in (constant_in_list_written, constant_in_dict_written, constant_in_tuple_written,
               view_of_constant_in_list):
        check_calls(fn, (np.arange(4.0),), (np.arange(5.0),))


# ---------------------------------------------------------------------------------------------
# Found while writing the tests above (wrong on main): a list, tuple or dict carried through a
# run-time loop whose array items view an argument (before the loop, or bound so in the body):
# the loop's state held copies of the items, so a write through an item (in the body or
# after the loop) never reached the argument. The items are not followed yet: refused at the
# write (control_flow/held_items.py), never silently lost.
def dict_rebound_to_its_reversal(a, n):
    d = {'u': a[1:]}
    for i in range(n):
        d = {'u': d['u'][::-1]}
    d['u'][-1] = 50
    return a


def dict_rebound_to_another_view(a, n):
    d = {'u': a[1:]}
    for i in range(n):
        d = {'u': a[:2]}
    d['u'][-1] = 50
    return a


def tuple_item_rebound_to_a_copy(a, n):
    d = (a[1:], 1)
    for i in range(n):
        d = (d[0] + 1, 2)
    d[0][-1] = 50
    return a


def dict_item_written_in_the_loop(a, n):
    d = {'u': a[1:]}
    for i in range(n):
        d['u'][0] += 1
    return a


def dict_item_chosen_by_an_if_in_the_loop(a, n):
    d = {'u': a[1:]}
    for i in range(n):
        if a[0] > i:
            d = {'u': (a * 2)[::-1]}
        else:
            d = {'u': d['u'][::-1]}
        d['u'][0] += 1
    return d['u'], a


@pytest.mark.parametrize("fn, line", [
    (dict_rebound_to_its_reversal, 4), (dict_rebound_to_another_view, 4),
    (tuple_item_rebound_to_a_copy, 4), (dict_item_written_in_the_loop, 3),
    (dict_item_chosen_by_an_if_in_the_loop, 7)])
def test_container_of_views_carried_through_a_loop_is_refused_at_the_write(fn, line):
    for n in (0, 2):
        with pytest.raises(pyonnx.ConversionError, match="may refer to different memory") as e:
            pyonnx.compile(fn)(np.arange(4.0), np.int64(n))
        assert e.value.lineno == fn.__code__.co_firstlineno + line


def list_of_private_arrays_in_a_loop(a, n):
    L = [np.zeros(3), a.copy()]
    for i in range(n):
        L[0][i % 3] += i
        L = [L[0], L[1] * 2]
    L[1][0] = -1
    return L[0], L[1], a


def test_container_of_private_arrays_carried_through_a_loop():
    for n in (0, 1, 4):
        check_calls(list_of_private_arrays_in_a_loop, (np.arange(4.0), np.int64(n)),
                    (np.arange(2.0), np.int64(n)))


# ---------------------------------------------------------------------------------------------
# Seed 14100841 (wrong on main too, for a plain name): the reshape of memory chosen by a
# run-time if, ``a0`` on one path and ``a0[::-1]`` on the other, was taken for a view on both
# paths; numpy copies on the reversed path (not contiguous), so the write through the reshape
# must not reach ``a0`` there. Refused at the write (which path copies is only known at run
# time); a reshape that is a view on every path (a 1-D choice, squeeze) still follows writes.
def reshape_of_chosen_view_written(a0, c):
    if c > 0:
        t6 = a0
    else:
        t6 = a0[::-1]
    v11 = t6.reshape(-1)
    v11[v11 > 0.5] = 9
    return a0


def ravel_of_chosen_dict_item_written(a0, a1):
    if not a1.any():
        d5 = {'u': a0, 'n': 2}
    else:
        d5 = {'u': a0[:, ::-1], 'n': 3}
    v11 = d5['u'].ravel()
    v11[0] = -d5['n']
    return a0


def reshape_1d_of_chosen_view_written(a0, c):
    t6 = a0 if c > 0 else a0[::-1]
    v = t6.reshape(-1)
    v[0] = 9
    return a0


def test_reshape_of_memory_chosen_at_run_time_is_refused_at_the_write():
    a = np.arange(6.0).reshape(3, 2)
    for fn, args, line in ((reshape_of_chosen_view_written, (a, np.int64(1)), 6),
                           (ravel_of_chosen_dict_item_written, (a, np.float16(1)), 6)):
        with pytest.raises(pyonnx.ConversionError, match="memory layout pyonnx does not") as e:
            pyonnx.compile(fn)(*args)
        assert e.value.lineno == fn.__code__.co_firstlineno + line
    for c in (-1, 1):
        check_calls(reshape_1d_of_chosen_view_written, (np.arange(4.0), np.int64(c)),
                    (np.arange(1.0), np.int64(c)))


# ---------------------------------------------------------------------------------------------
# Seeds 14100536, 14100077, 14100087 (32 of 1000 refusals): a name first assigned in a loop
# that may run 0 times, read after it (the generator's ``for _j, _w in pairs: ...`` then
# ``return _j``). Python raises UnboundLocalError where the loop ran 0 times; the model
# carries the name and checks each read at run time (control_flow/maybe_bound.py):
# ExecutionError at the read's line where the loop ran 0 times, numpy's value otherwise.
def last_pair_after_loop(a1):
    P4 = []
    for i5 in range(a1.shape[0]):
        P4.append((i5, a1[i5]))
    for _j, _w in P4:
        t5 = _w
    return _j, _w


def last_value_after_range(a, n):
    for i in range(n):
        last = a[i] * 2
    a[0] = 7  # a write elsewhere keeps the name maybe-bound
    return last


def read_in_a_branch_then_after(a, n):
    for i in range(n):
        last = a[i] + 1
    if a[0] > 0:
        t = last * 2    # checked here on this path only
    else:
        t = a[1]
    return t, last


def augmented_after_loop(a, n):
    for i in range(n):
        k = i
        w = a[i]
    k *= w - 1
    return k


def bool_and_tuple_after_loop(a, n):
    for i in range(n):
        pair = (a[i] > 1, i)
    return pair


def test_name_first_assigned_in_a_loop_is_checked_at_its_read():
    a = np.array([3.0, -1.0, 2.5, 0.5])
    check_calls(last_pair_after_loop, (a,), (a[:1].copy(),), (np.arange(3, dtype=np.int16),))
    for n in (1, 3):
        for fn in (last_value_after_range, read_in_a_branch_then_after, augmented_after_loop,
                   bool_and_tuple_after_loop):
            check_calls(fn, (a, np.int64(n)), (-a, np.int64(n)))
    for fn, line in ((last_value_after_range, 4), (augmented_after_loop, 4),
                     (bool_and_tuple_after_loop, 3)):
        with pytest.raises(pyonnx.ExecutionError, match="the_loop_ran_0_times") as e:
            pyonnx.compile(fn)(a.copy(), np.int64(0))
        assert f":{fn.__code__.co_firstlineno + line}:" in str(e.value)
    # the read sits on the path that did not run: numpy's value, no error
    check_calls(read_in_a_branch_then_after, (-a, np.int64(1)))
    with pytest.raises(pyonnx.ExecutionError, match="the_loop_ran_0_times"):
        pyonnx.compile(read_in_a_branch_then_after)(a.copy(), np.int64(0))


def row_after_loop_written(M, n):
    for i in range(n):
        row = M[i]
    row[0] = -1       # a view of M: a checked copy would lose the write
    return M


def test_view_first_bound_in_a_loop_is_refused_at_the_read():
    with pytest.raises(pyonnx.ConversionError, match="may be unbound after it") as e:
        pyonnx.compile(row_after_loop_written)(np.ones((3, 2)), np.int64(2))
    assert e.value.lineno == row_after_loop_written.__code__.co_firstlineno + 3


# ---------------------------------------------------------------------------------------------
# Seeds 14100038, 14100505 (18 of 1000 refusals): item assignment into a complex argument in a
# run-time if was refused ("an argument written inside a run-time 'if' or loop"): the If
# carried only the names read after it. The join now carries a complex argument written in a
# branch (its final value is the caller's); in a loop it stays refused.
def complex_argument_written_in_branches(z, c):
    z[::2] = -1
    if c > 0:
        z[-1] += 1
        if c > 5:
            z[0] *= 2j
    else:
        z[:] *= 0.5
    return c + 1


def complex_argument_part_written_in_a_branch(z, c):
    if c > 0:
        z.real[1:] = 2.0
    t = np.abs(z).sum()
    return t


def complex_argument_in_place_in_a_branch(z, c):
    if c < 0:
        z *= 2
    return z.imag.copy()


def complex_argument_written_in_a_loop(z, n):
    for i in range(n):
        z[i] = 1j
    return n * 1


def test_complex_argument_written_in_a_run_time_if():
    z = np.array([1 + 2j, -1j, 3.5, 2 - 1j], np.complex64)
    for c in (-1, 1, 7):
        check_calls(complex_argument_written_in_branches, (z, np.int64(c)),
                    (z[:1].astype(np.complex128), np.int64(c)))
        check_calls(complex_argument_part_written_in_a_branch, (z, np.int64(c)))
        check_calls(complex_argument_in_place_in_a_branch, (z, np.int64(c)))
    # (written in a run-time loop: followed too since the complex branch's merge)
    for n in (0, 1, 3):
        check_calls(complex_argument_written_in_a_loop, (z, np.int64(n)))


# Seeds 14100464, 14100708 (crashes while the above was written: a maybe-bound name's flag
# made inside a branch was used after the If; now the flag is an If output). The name is
# first bound by a loop inside an if (unbound on the other path), or read under early returns.
def loop_in_a_branch_then_read(a0, a1):
    if a0.any():
        P2 = []
        for i3 in range(a1.shape[0]):
            if a1[i3] != a1[0]:
                P2.append((i3, a1[i3]))
        for _j, _w in P2:
            pass
    a0[0] += _w ** 2
    return a0


def read_under_early_returns(a0):
    P23 = []
    for i24 in range(a0.shape[0]):
        P23.append((i24, a0[i24]))
    for _j, _w in P23:
        t26 = _w
    if a0.sum() > 1.5:
        t29 = a0[0]
    else:
        if not t26:
            return a0, 0
        if a0.any():
            return a0, _j
    return ~a0, _j


def test_maybe_bound_name_through_branches_and_early_returns():
    check_calls(loop_in_a_branch_then_read, (np.array([1.0, 2.0]), np.array([3, 1, 4], np.int8)))
    with pytest.raises(pyonnx.ExecutionError, match="the_loop_ran_0_times"):
        pyonnx.compile(loop_in_a_branch_then_read)(np.zeros(2), np.array([3, 1], np.int8))
    for a in ([True, True], [False, True, True], [False, False], [True, False]):
        check_calls(read_under_early_returns, (np.array(a),))
    with pytest.raises(pyonnx.ExecutionError, match="the_loop_ran_0_times"):
        pyonnx.compile(read_under_early_returns)(np.zeros(0, bool))


# ---------------------------------------------------------------------------------------------
# Seed 14101083 (17 of 1000 refusals in 14101000..): a 'return' inside a run-time loop whose
# value holds a view (of memory chosen by a run-time if), and a write to that memory after the
# loop: the return value was re-derived as if the write could reach it and refused as stale.
# No write runs after a 'return' on the path that returns (the rest is under its flag).
def return_in_loop_then_write(a0, a2):
    if a2.sum() > -1.375:
        d1 = {'u': a0, 'n': 2}
    else:
        d1 = {'u': a0[::-1], 'n': 3}
    t2 = d1['u']
    k10 = 0
    while k10 < 3:
        k10 += 1
        if not t2.any():
            return a2, t2.copy(), t2
    a0[1] = 1
    return a2, t2.copy(), a0


def test_return_value_is_not_stale_after_a_later_write():
    for a0, a2 in (([0.0, 0.0, 0.0], [1.0]), ([0.0, 0.0, 0.0], [-2.0]),
                   ([1.5, 0.0, 2.0], [1.0]), ([1.5, 0.0, 2.0], [-2.0])):
        check_calls(return_in_loop_then_write, (np.array(a0), np.array(a2)))


def new_array_from_each_row(x):
    for row in x:
        last = row * 2
    return last


def test_last_row_result_is_checked_at_run_time():
    # (tests/refused_kernels.py possibly_undefined was this; with last = row it stays refused)
    check_calls(new_array_from_each_row, (np.arange(6).reshape(2, 3),),
                (np.arange(3).reshape(1, 3),))
    with pytest.raises(pyonnx.ExecutionError, match="the_loop_ran_0_times") as e:
        pyonnx.compile(new_array_from_each_row)(np.zeros((0, 3), np.int64))
    assert f":{new_array_from_each_row.__code__.co_firstlineno + 3}:" in str(e.value)

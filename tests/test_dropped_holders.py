"""Holders dead after a join do not block following a name's memory.

Loops: a name rebound in a loop to a new array that a dict or view of the body also holds, then
written after the loop: the holders are dead after the loop (not live at its header), so the
name's memory is the argument's when the loop ran 0 times and its own array otherwise, a
choice on "the loop ran" (loop_memory.follow_memory with the live names only; fuzz seed
20001337 was refused as "may refer to different memory depending on run-time data").

Branches: a name bound on one path to a new array that a view made and dropped in that branch
also holds is that new array there and the old memory on the other path (branches.py passes
the live names to choices.alternative; fuzz seed 20002768)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx

from tests.oracle import check


def dict_of_the_new_array_dropped(a0, n):
    for _ in range(n):
        a0 = a0 >= a0
        if a0.shape[0] > 4:
            d2 = {'u': a0, 'n': 2}
        else:
            d2 = {'u': a0[::-1], 'n': 1}
        t3 = d2['u']
        a0[-1::-2] = 2
    a0 *= np.maximum(a0, a0)
    return a0


def view_of_the_new_array_dropped(a, n):
    for i in range(n):
        a = a * 2
        v = a[1:]
        v[0] += i
    a[0] = -1
    return a


def view_kept_after_the_loop(a, n):
    v = a[:1]
    for i in range(n):
        a = a * 2
        v = a[1:]
    a[0] = -1
    v[-1] = 7
    return a, v


@pytest.mark.parametrize("n", [0, 1, 3])
def test_dropped_holders_do_not_block_the_choice(n):
    check(dict_of_the_new_array_dropped, np.array([True, False, True]), np.int64(n))
    check(dict_of_the_new_array_dropped, np.array([False] * 6), np.int64(n))
    check(view_of_the_new_array_dropped, np.arange(4.0), np.int64(n))



def test_a_holder_live_after_the_loop_is_still_refused():
    with pytest.raises(pyonnx.ConversionError, match="may refer to different memory"):
        pyonnx.compile(view_kept_after_the_loop)(np.arange(4.0), np.int64(2))


def new_array_with_a_dropped_view_in_a_branch(a, b):
    v1 = a[...]
    if b[0] > 0:
        v1 = a * 2
        v4 = v1[::2]
        v4[0] = -1.0
    a[1] = 7.0
    v1[-1] += 1.0
    return a, v1


def nested_branches_with_dropped_views(a, b):
    v1 = a[...]
    if b[0] > 0:
        v2 = v1[::-1]
        if b[1] > 0:
            v3 = v1[...]
        elif b[2] > 0:
            v1 = a - v1 * 3
            v4 = v1[::2]
        else:
            a[-1] = 3.0
    a[:] = 0.5
    v1[-1] = 2
    return a, v1


def view_kept_after_the_branch(a, b):
    v1 = a[...]
    v4 = a[:1]
    if b[0] > 0:
        v1 = a * 2
        v4 = v1[::2]
    a[1] = 7.0
    v1[0] += 1.0
    return a, v1, v4


@pytest.mark.parametrize("b", [[1.0, 1.0, 1.0], [1.0, -1.0, 1.0], [1.0, -1.0, -1.0],
                               [-1.0, 1.0, 1.0]])
def test_dropped_views_in_branches(b):
    b = np.array(b)
    check(new_array_with_a_dropped_view_in_a_branch, np.arange(4.0), b)
    check(nested_branches_with_dropped_views, np.arange(5.0), b)
    check(nested_branches_with_dropped_views, np.arange(2.0), b)


def test_a_view_live_after_the_branch_is_followed_or_refused():
    for b in ([1.0], [-1.0]):
        try:
            check(view_kept_after_the_branch, np.arange(4.0), np.array(b))
        except pyonnx.ConversionError as e:
            assert "memory" in str(e)


# A private array carried by a loop whose inner loop iterates it (registering its state
# memory) and which is written in place: after the loop it is private, not "different memory
# depending on run-time data" (loop_memory.own_state_only, fuzz seed 20001481).
def iterated_then_written_in_place(a, n):
    t = 2.0 // a
    for _ in range(n):
        for r in t:
            v = t[...]
        t[:] = 1.5
    t[0:1] *= 2
    return t, a


def iterated_and_aliased_by_a_live_name(a, n):
    t = 2.0 // a
    u = a[:1]
    for _ in range(n):
        for r in t:
            pass
        u = t            # u and t are one memory after the loop
        t[:] = 1.5
    t[0:1] *= 2
    return t, u, a


@pytest.mark.parametrize("n", [0, 1, 3])
def test_private_array_iterated_and_written_in_a_loop(n):
    check(iterated_then_written_in_place, np.arange(6.0).reshape(2, 3) + 1, np.int64(n))
    check(iterated_then_written_in_place, np.array([1.0, 4.0]), np.int64(n))
    try:
        check(iterated_and_aliased_by_a_live_name, np.array([1.0, 4.0]), np.int64(n))
    except pyonnx.ConversionError as e:
        assert "memory" in str(e)

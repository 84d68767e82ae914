"""A name rebound in a loop to a new array that a dict or view of the body also holds, then
written after the loop: the holders are dead after the loop (not live at its header), so the
name's memory is the argument's when the loop ran 0 times and its own array otherwise, a
choice on "the loop ran" (loop_memory.follow_memory with the live names only; fuzz seed
20001337 was refused as "may refer to different memory depending on run-time data")."""

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

"""Fuzzer regressions: names rebound in loops to memory another name sees; writes that read
memory they overwrite.

Seed 6000124 (gradient mode, compile check), minimized: ``t1`` enters the loop as an array of
its own, the body writes through it and then binds it to a view of the argument ``w``; from
the second iteration on the write reaches ``w`` in numpy, while the model carried ``t1`` as a
value of its own (silently wrong result and ``w`` after the call). The loop now refuses at its
line: which memory the write reaches changes with the iteration.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import pyonnx
from tests.test_fuzz_regressions import check_calls


def seed_6000124(x, w):
    t1 = np.log(w * w + 0.5)
    t2 = x - 2.0
    for i6 in range(x.shape[-1] - 1, -1, -1):
        t1[:] = 0.75
        t1 = w[-1:3:2]
    return np.sum(t1) + np.sum(t2)


def alias_then_write(x, w):
    t1 = x * 2
    for i in range(x.shape[0]):
        t1[0] += 1.0
        t1 = w
    return t1


def inplace_then_view(x, w):
    t1 = x * 2
    for i in range(x.shape[0]):
        t1 += 1.0
        t1 = w[:2]
    return t1


def while_view(x, w):
    t1 = x * 2
    i = 0
    while i < x.shape[0]:
        t1[0] = 3.0
        t1 = w[1:]
        i += 1
    return t1


def view_of_local_array(x, w):
    b = w * 2.0
    t1 = x * 2
    for i in range(x.shape[0]):
        t1[0] += 1.0
        t1 = b[1:]
    return t1, b


@pytest.mark.parametrize("fn, line", [(seed_6000124, 3), (alias_then_write, 2),
                                      (inplace_then_view, 2), (while_view, 3),
                                      (view_of_local_array, 3)])
def test_write_through_name_rebound_to_shared_memory_is_refused(fn, line):
    x, w = np.array([0.3, 0.5, 0.7]), np.array([1.0, 2.0, 3.0])
    with pytest.raises(pyonnx.ConversionError, match="written through on a later iteration") \
            as info:
        pyonnx.compile(fn)(*copy.deepcopy((x, w)))
    assert info.value.lineno == fn.__code__.co_firstlineno + line, str(info.value)


def view_after_loop_read(x, w):
    t1 = x * 2
    s = 0.0
    for i in range(x.shape[0]):
        s = t1.sum()
        t1 = w[1:]
    t1[0] = 5.0
    return t1, s


def double_buffer(x, w):
    a = x.copy()
    b = w.copy()
    for i in range(3):
        b[:] = a * 2.0
        a, b = b, a
    return a, b


def self_view(x, w):
    t = x * 2
    for i in range(x.shape[0]):
        t = t[:]               # a view of its own memory, which no other name sees
        t[0] += 1.0
    return t


def view_in_iteration(a0):
    # seed 6100117: a view of the name's own state made in the body is no outer memory
    t1 = 0.5 > a0
    for i2 in range(min(a0.shape[0], 3)):
        k3 = 0
        while k3 < min(t1.shape[0], 4):
            k3 += 1
            t1[1] = np.clip(i2, -1, 2)
        v4 = t1[..., 0]
    return t1


@pytest.mark.parametrize("fn", [view_after_loop_read, double_buffer, self_view])
def test_still_numpy_answer(fn):
    check_calls(fn, (np.array([0.3, 0.5, 0.7]), np.array([1.0, 2.0, 3.0])),
                (np.array([0.1, 0.2, 0.3, 0.4]), np.array([4.0, 3.0, 2.0, 1.0])))


def test_view_of_own_state_in_iteration():
    check_calls(view_in_iteration, (np.array([[0.25, 1.0], [0.75, 0.0], [0.5, 0.3]]),),
                (np.array([[0.1, 0.9], [0.6, 0.2]]),))


# ---------------------------------------------------------------------------------------------
# Seed 6000837 (compile mode), minimized: numpy's boolean-mask assignment from a reversed view
# of the array it writes reads an element after writing it (a[4] gets the new a[0]); the model
# read the value first. Refused at the line; a copy of the value, or an integer index, is exact.
def seed_6000837(a0, a1, a2):
    a0[0] = 1.5
    a0[a0 > 0.5] = a0[-1:None:-2]


def mask_assign_copy(a0):
    a0[a0 > 0.5] = a0[-1:None:-2].copy()
    return a0


def mask_assign_forward_view(a0):
    a0[a0 > 0.5] = a0[:3]   # refused too: numpy copies run by run (seed 970942)
    return a0


def mask_assign_one_element_view(a0):
    a0[a0 > 0.5] = a0[..., 1]  # a 0-d view: every write gets it, whatever the order
    return a0


def fancy_assign_view(a0):
    a0[np.array([0, 1, 4])] = a0[-1:None:-2]
    return a0


def test_mask_assignment_from_a_view_of_the_target_is_refused():
    a = np.array([2.75, 4.0, -0.5, -1.75, 3.75])
    with pytest.raises(pyonnx.ConversionError, match="boolean-mask assignment") as info:
        pyonnx.compile(seed_6000837)(a.copy(), np.zeros((5, 4), np.float32), 1.75)
    assert info.value.lineno == seed_6000837.__code__.co_firstlineno + 2
    check_calls(mask_assign_copy, (a,))
    check_calls(fancy_assign_view, (a,))
    check_calls(mask_assign_one_element_view, (a,))
    with pytest.raises(pyonnx.ConversionError, match="boolean-mask assignment"):
        pyonnx.compile(mask_assign_forward_view)(a.copy())


# ---------------------------------------------------------------------------------------------
# Seed 6000186 (compile mode): `t1 = t1.T` of a 1-D array in a run-time loop, with a view of
# t1 made before it, was refused ("may refer to different memory depending on run-time data"):
# the transpose of a 1-D array is the same mapping, and the name sees the same memory whether
# the loop ran or not.
def transpose_1d_in_loop(a0, a2):
    t1 = a0.prod(axis=1)
    t2 = t1[..., :]
    k6 = 0
    while k6 < 3 and not (a2.sum() > 1.125):
        k6 += 1
        t1 = t1.T
    t1[None, 2::-2] = 2.0
    return t1, t2


def transpose_1d_in_loop_written(a0, a2):
    t1 = a0.prod(axis=1)
    t2 = t1[..., :]
    k6 = 0
    while k6 < 3 and not (a2.sum() > 1.125):
        k6 += 1
        t1 = t1.T
        t1[1] += 1.0
        t2[0] += 1.0
    t2[2] = 2.0
    return t1, t2


@pytest.mark.parametrize("fn", [transpose_1d_in_loop, transpose_1d_in_loop_written])
def test_transpose_of_1d_view_in_loop(fn):
    a0 = np.arange(12.0).reshape(4, 3)
    check_calls(fn, (a0, np.zeros(3)), (a0[:3], np.ones(3)))


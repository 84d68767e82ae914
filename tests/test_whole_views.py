"""``x[:]`` and ``x[...]`` view all of ``x`` in place (aliases._whole): a name bound to one of
them on some paths only still refers to the same memory on every path, so a write through it
after a run-time ``if`` is followed instead of refused as "may refer to different memory
depending on run-time data" (fuzz seed 20001751 has it in a loop body, where the step is
kept: see the last test)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx

from tests.oracle import check


def whole_slice_in_branch(a, b):
    if b.sum() > 0:
        a = a[:]
    a[1] = 7.0
    return a


def ellipsis_in_loop(a, n):
    for _ in range(n):
        if a[0] > 0:
            continue
        a = a[...]
    a[...] = 2.0
    return a.sum()


def whole_view_of_a_view(a, b):
    v = a[1:]
    if b[0] > 0:
        v = v[:, :]
    v[0, 0] = -5
    return v, a


def whole_view_then_base_written(a, b):
    w = a
    if b[0] > 0:
        w = a[:]
    a[0] += 1
    return w.copy()


def whole_then_partial(a, b):
    if b[0] > 0:
        a = a[:][1:]    # a part: the paths differ (still refused or followed by choices)
    else:
        a = a[1:]
    a[0] = 9
    return a


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_whole_slice_in_a_branch(sign):
    check(whole_slice_in_branch, np.arange(4.0), np.array([sign]))
    check(whole_view_then_base_written, np.arange(3.0), np.array([sign]))
    check(whole_view_of_a_view, np.arange(6).reshape(3, 2), np.array([sign]))
    check(whole_then_partial, np.arange(4), np.array([sign]))


def whole_view_written_in_loop(a, n):
    for i in range(n):
        a = a[:]
        a[0] += i + 1
    a[-1] = 5.0
    return a


def private_whole_view_in_loop(a, n):
    t = a * 2
    for _ in range(n):
        if t[0] > 0:
            t = t[...]
    t[0] = -1.0
    return t, a


def view_kept_whole_in_loop(a, n):
    v = a[1:]
    for _ in range(n):
        v = v[:]
    v[0] = 9.0
    return a


def transpose_of_1d_kept_in_loop(a, n):
    for _ in range(n):
        if a[0] > 0:
            a = a.T     # the same mapping (aliases.register_view): the argument's memory
    a[-1] = 5.0
    return a.sum()


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("first", [1.0, -1.0])
def test_argument_kept_as_it_is_by_a_loop(n, first):
    """(loop_memory.follow_memory: an argument no view was made of yet is its own buffer)"""
    check(transpose_of_1d_kept_in_loop, np.array([first, 2.0, 3.0]), np.int64(n))


def whole_alias_of_another_carried_name(x, w):
    t1 = np.maximum(w, 0.2)
    for _ in range(w.shape[-1]):
        t1[...] = x - x
        if w.shape[0] < 3.87:
            x = w[np.array([-3])]
        elif w.sum() < 1.38:
            pass
        else:
            t1 = x[..., :]
    return np.sum(x)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_an_argument_rebound_to_its_whole_view_in_a_loop_is_followed(n):
    """``a = a[:]`` in a loop body is the same view of the same memory (loop_memory._plain):
    the writes through it reach the caller's array."""
    check(whole_view_written_in_loop, np.array([1.0, -2.0, 3.0]), np.int64(n))


@pytest.mark.parametrize("fn", [private_whole_view_in_loop,
                                view_kept_whole_in_loop, ellipsis_in_loop])
def test_whole_views_made_in_a_loop_body_stay_views(fn):
    """In a loop body x[:] keeps its GetItem step: a whole alias of another carried name
    (t1 = x[..., :]) would not be followed across iterations (fuzz seed 13000343); such
    loops are refused as before, never wrong."""
    with pytest.raises(pyonnx.ConversionError, match="memory"):
        pyonnx.compile(fn)(np.array([1.0, -2.0, 3.0]), np.int64(2))
    with pytest.raises(pyonnx.ConversionError, match="memory"):
        pyonnx.compile(whole_alias_of_another_carried_name)(
            np.array([0.4, 0.37, -0.35, -0.69]), np.array([-0.29, 0.42, 0.48, 0.84]))

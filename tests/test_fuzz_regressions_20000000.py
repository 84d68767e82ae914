"""Regressions from the compile campaign at fuzzer seeds 20,000,000 and after (issue 13: never
silently wrong).

Classes, each silently wrong before:

* A name chosen at run time among names chosen at run time (``t = a if c1 else a[::-1]``,
  then ``if c2: t = a[:]``): a write through it reached the inner choice's memory only when
  ``c2`` held (seeds 20006311, 20014119, there through a dict item).
* A view carried by a loop whose memory the body writes through another name
  (``v = a[::-1]``; ``for ...: a -= 1; v = v[:]``): the loop carried a copy of ``v`` that
  the write did not reach, in later iterations and after the loop (seed 20004919).

Each kernel is checked as the fuzzer does (``check_calls``: one compiled function, several
input sets, results with their Python types, arguments after the call).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.test_fuzz_regressions import check_calls


# ---------------------------------------------------------------------------------------------
# Choices among choices
def choice_of_a_choice(a0):
    if a0.sum() > 3:
        t = a0
    else:
        t = a0[::-1]
    if t.sum() < 3:
        t = a0[:]
    t[:] = 3
    return a0


def choice_of_a_dict_item(a0):                      # seed 20006311
    if not a0.sum() < 113.625:
        d4 = {'u': a0, 'n': 1}
    else:
        d4 = {'u': a0[::-1], 'n': 3}
    t5 = d4['u']
    if t5.sum() < 113.625:
        t5 = a0[:]
    else:
        pass
    t5[:] = 3
    return (a0,)


def choice_of_a_dict_item_written_in_elif(a0):      # seed 20014119
    if a0.max() > 2.625:
        d5 = {'u': a0, 'n': 1}
    else:
        d5 = {'u': a0[::-1], 'n': 2}
    t6 = d5['u']
    t7 = d5['n']
    t8 = np.square(t7)
    if t8 > 2.625 or t7 < 1.625:
        pass
    elif not t8 > 2.625:
        t6 *= 3
        t6 = np.asarray(a0, dtype=np.float64)
    a0[-1] -= t6.any(where=t6 > 0.5)
    return (t6, t8)


def choice_of_a_copy_or_an_argument(a0, b0):
    # the inner choice is private memory on one path: the write must reach it there too
    if a0.sum() > 3:
        t = a0
    else:
        t = b0 * 1
    if t.sum() < 3:
        t = a0[:]
    t[:] = 3
    return a0, b0, t


def choice_of_views_of_two_arguments(a0, b0):
    if a0.sum() > 3:
        t = a0[1:]
    else:
        t = b0[::-1]
    if t.sum() < 3:
        u = t
    else:
        u = a0[:2]
    u[0] = 7
    return a0, b0, t, u


_SETS = [(np.arange(6.0),), (np.zeros(3),), (np.array([5.0, -4, -3, 0, 0, 0]),)]
_PAIRS = [(a, a[::-1].copy()) for (a,) in _SETS]


@pytest.mark.parametrize("fn", [choice_of_a_choice, choice_of_a_dict_item])
def test_a_write_through_a_choice_of_a_choice_reaches_every_path(fn):
    check_calls(fn, *_SETS, (np.arange(24, dtype=np.uint16).reshape(2, 3, 4),))


def test_seed_20014119():
    check_calls(choice_of_a_dict_item_written_in_elif, (np.array([[0.75], [-2.25]]),),
                (np.array([[1.5], [-3.0], [4.0], [3.0], [-0.5]]),), (np.array([[3.0]]),))


@pytest.mark.parametrize("fn", [choice_of_a_copy_or_an_argument,
                                choice_of_views_of_two_arguments])
def test_a_write_through_nested_choices_of_two_arguments(fn):
    check_calls(fn, *_PAIRS)


# ---------------------------------------------------------------------------------------------
# A carried view whose memory the loop writes through another name
def view_kept_while_base_written(a0, a2):           # seed 20004919
    v6 = a0[::-1]
    for i14 in range(a2.shape[-1] - 1, -1, -1):
        a0 -= v6[np.array([-1])]
        v6 = v6[:]
    return (v6,)


def view_kept_then_base_written(a0, n):
    v6 = a0[::-1]
    for i in range(n):
        v6 = v6[...]
        a0 -= 1.0
    return v6, a0


def view_kept_in_a_while_loop(a0, n):
    v = a0[::-1]
    i = 0
    while i < n:
        a0[0] += v[0]
        v = v[:]
        i += 1
    return v, a0


def view_kept_in_a_nested_loop(a0, n):
    v = a0[1:]
    for i in range(n):
        for j in range(2):
            a0[j] += v[0]
            v = v[...]
    return v


def stencil_view_rebound_before_the_write(U, n):
    # u is read (as the old view) before the write on the first iteration: followed
    u = U[1:-1]
    for _ in range(n):
        u = u + 0.1 * (U[:-2] + U[2:] - 2 * u)
        U[1:-1] = u
    return U, u


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("fn", [view_kept_then_base_written, view_kept_in_a_while_loop,
                                view_kept_in_a_nested_loop,
                                stencil_view_rebound_before_the_write])
def test_a_view_carried_by_a_loop_sees_writes_to_its_memory(fn, n):
    a = np.array([0.5, -0.25, -2.5, 4.0], np.float32)
    check_calls(fn, (a, np.int64(n)), (a[:3].copy(), np.int64(n)))


def test_seed_20004919():
    check_calls(view_kept_while_base_written,
                (np.array([0.5, -0.25, -2.5], np.float32), np.zeros((3, 1), np.float16)),
                (np.array([-4.0], np.float32), np.zeros((4, 1), np.float16)),
                (np.array([1.0, 2.0], np.float32), np.zeros((2, 0), np.float16)))


def view_shrunk_while_base_written(a0, n):
    v = a0[::-1]
    for i in range(n):
        a0 -= 1.0
        v = v[1:]
    return v


def view_flipped_while_base_written(a0, n):
    v = a0
    for i in range(n):
        a0 -= 1.0
        v = v[::-1]
    return v


def view_read_after_the_write_then_rebound(a0, n):
    v = a0[::-1]
    for i in range(n):
        a0 -= 1.0
        v = v * 2
    return v


@pytest.mark.parametrize("fn,match", [
    (view_shrunk_while_base_written, "binds it to another view of that memory"),
    (view_flipped_while_base_written, "binds it to another view of that memory"),
    (view_read_after_the_write_then_rebound,
     "'v' was bound in a run-time 'if' or loop to a view"),
])
def test_a_view_the_loop_cannot_follow_is_refused_at_the_line(fn, match):
    a = np.array([0.5, -0.25, -2.5], np.float32)
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(a, np.int64(2))
    assert "line" in str(info.value) and "^" in str(info.value)


# ---------------------------------------------------------------------------------------------
# Seed 20000153: a name two loops may bind (``for _j, _w in pairs:`` twice), read after the
# second one ran 0 times: it is the first loop's value (the model failed as if unbound), and
# where neither ran Python's UnboundLocalError is raised at the read.
def bound_by_an_earlier_loop(a):
    for _w in a:
        pass
    for _w in a[a > 100]:
        pass
    return _w


def bound_by_an_earlier_loop_of_pairs(a2):
    P10 = []
    for i11 in range(a2.shape[0]):
        if i11 % 2 == 0:
            P10.append((i11, a2[i11]))
    for _j, _w in P10:
        t13 = _w
    k25 = 0
    while k25 < 3:
        k25 += 1
        P26 = []
        for i27 in range(a2.shape[0]):
            if a2[i27] != a2[0]:
                P26.append((i27, a2[i27]))
        for _j, _w in P26:
            t29 = _w
    return _w, _j


def test_seed_20000153_a_name_an_earlier_loop_bound():
    check_calls(bound_by_an_earlier_loop, (np.arange(3.0),), (np.array([200.0, 1.0]),),
                (np.array([1.0, 300.0]),))
    check_calls(bound_by_an_earlier_loop_of_pairs, (np.ones(4, np.int8),),
                (np.arange(3, dtype=np.int8),), (np.ones(1, np.int8),))


def test_a_read_where_no_loop_bound_the_name_raises_unbound_local_error():
    with pytest.raises(UnboundLocalError, match="_w"):
        bound_by_an_earlier_loop(np.zeros(0))
    with pytest.raises(UnboundLocalError, match="cannot access local variable '_w'") as info:
        pyonnx.compile(bound_by_an_earlier_loop)(np.zeros(0))
    assert isinstance(info.value, pyonnx.ExecutionError)
    assert f":{bound_by_an_earlier_loop.__code__.co_firstlineno + 5}:" in str(info.value)


# ---------------------------------------------------------------------------------------------
# Found by the mem helper: a private array aliased by another carried name on one path of a
# loop body (``else: t1 = x``, ``x`` rebound on another path), then written through that name
# on the next iteration: the write did not reach ``x`` (numpy 0.0, pyonnx -0.27). Refused
# now; the same alias on a loop whose other name never shares memory is still followed.
def alias_of_another_carried_name(x, w):
    t1 = np.maximum(w, 0.2)
    x = x * 1.0
    for i2 in range(w.shape[-1] - 1, -1, -1):
        t1[...] = x - x
        if w.shape[0] < 3.87:
            x = w[np.array([-3])]
        elif w.sum() < 1.38:
            pass
        else:
            t1 = x
    return np.sum(x)


def conditional_swap_of_private_buffers(x, w):
    a = x * 1.0
    b = w * 1.0
    for i in range(w.shape[0]):
        a[0] += 1.0
        if b.sum() > a.sum():
            a, b = b, a
    return a, b


def alias_then_rebound(x, w):
    b = x * 1.0
    a = w * 1.0
    s = 0.0
    for i in range(w.shape[0]):
        s += a.sum()
        b[0] = i
        a = b
    return s, a, b


def test_two_carried_names_that_may_alias_across_iterations_are_refused():
    x, w = np.array([0.4, 0.37, -0.35, -0.69]), np.array([-0.29, 0.42, 0.48, 0.84])
    assert alias_of_another_carried_name(x.copy(), w.copy()) == 0.0
    with pytest.raises(pyonnx.ConversionError, match="'t1' may refer to different memory"):
        pyonnx.compile(alias_of_another_carried_name)(x, w)


@pytest.mark.parametrize("fn", [conditional_swap_of_private_buffers, alias_then_rebound])
def test_swaps_and_aliases_the_loop_follows_stay_converted(fn):
    check_calls(fn, (np.array([0.4, 0.37, -0.35]), np.array([-0.29, 0.42, 0.48])),
                (np.array([5.0, 1.0]), np.array([0.5, 0.25])), (np.zeros(0), np.zeros(0)))


# ---------------------------------------------------------------------------------------------
# Found by the mem helper: a complex array computed at conversion time with a view of it held
# by another name (``np.atleast_2d(t)``, ``t[1:]``, ``t.real``, a dict item), then written:
# the view came back with the old values. Refused at the write now (real arrays are followed,
# lower/const_views.py).
def complex_constant_with_atleast_2d(a):
    t = np.zeros(3, complex)
    w = np.atleast_2d(t)
    t[0] = a[0]
    return w


def complex_constant_with_slice(a):
    t = np.zeros(3, complex)
    w = t[1:]
    t[1] = a[0]
    return w


def complex_constant_in_a_dict(a):
    t = np.zeros(3, complex)
    d = {'k': t[1:]}
    t[1] = a[0]
    return d['k']


def complex_constant_with_real_part(a):
    t = np.zeros(3, complex)
    w = t.real
    t[1] = a[0]
    return w


@pytest.mark.parametrize("fn", [complex_constant_with_atleast_2d, complex_constant_with_slice,
                                complex_constant_in_a_dict])
def test_a_write_into_a_complex_constant_with_views_reaches_them(fn):
    # (refused until lower/complex_materialize.py followed such views as numpy's strides say)
    check_calls(fn, (np.array([1.5 + 2j, 2]),))


def test_a_write_into_a_complex_constant_with_a_real_part_view_is_refused():
    # (a float64 view of complex memory: another dtype, not followed)
    fn = complex_constant_with_real_part
    with pytest.raises(pyonnx.ConversionError, match="also holds|shares memory") as info:
        pyonnx.compile(fn)(np.array([1.5 + 2j, 2]))
    assert info.value.lineno == fn.__code__.co_firstlineno + 3


def complex_constant_without_views(a):
    t = np.zeros(3, complex)
    t[1] = a[0]
    u = t.copy()
    t[0] = 1j
    return t, u


def test_a_complex_constant_without_views_is_written():
    check_calls(complex_constant_without_views, (np.array([1.5 + 2j, 2]),),
                (np.array([-1j], np.complex64),))


# ---------------------------------------------------------------------------------------------
# Found by the types helper: a Python float an ONNX Loop's iterations may keep (m = 0.0, then
# if v > m: m = v) was taken for a numpy float64 once the loop ran: float32 * m came back
# float64 where numpy gives float32. The loop now carries a "still the Python number" flag.
def python_start_kept_by_a_loop(x, x32, y):
    m = 0.0
    for v in x:
        if v > m:
            m = v
        y[0] += 1.0
    return x32 * m, m


def python_start_kept_by_a_loop_with_continue(x):
    acc = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        if acc > 10:
            break
        acc = acc + x[i]
    return acc


def test_a_python_float_kept_by_loop_iterations_keeps_numpy_result_types():
    x32 = np.array([1.5, -2.0], np.float32)
    # an element wins: float64 (numpy scalar m)
    check_calls(python_start_kept_by_a_loop, (np.array([1.0, 2.0]), x32, np.zeros(1)))
    compiled = pyonnx.compile(python_start_kept_by_a_loop)
    # the start is kept: numpy's x32 * 0.0 is float32; the model has float64 and says so
    with pytest.raises(pyonnx.ExecutionError, match="depends on the path taken at run time"):
        compiled(np.array([-1.0, -2.0]), x32, np.zeros(1))
    with pytest.raises(pyonnx.ExecutionError, match="depends on the path taken at run time"):
        compiled(np.zeros(0), x32, np.zeros(1))


def test_a_python_float_kept_by_loop_iterations_is_returned_as_python_float():
    check_calls(python_start_kept_by_a_loop_with_continue, (np.array([-1.0, -2.0]),),
                (np.array([1.0, -2.0, 3.0]),), (np.zeros(0),), (np.array([5.0, 6, -1, 7, 8]),))


# ---------------------------------------------------------------------------------------------
# Seed 24006591: a slice write into a fill of int16 became one Pad, which onnxruntime has no
# int16/uint16 kernel for (the model failed to load). Every integer dtype is checked.
def slice_write_into_zeros(a0):
    v1 = np.zeros_like(a0)
    v1[2:-1] += 1
    v1[:1] = 3
    return v1


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64, np.float16, np.float32, np.float64])
def test_a_slice_write_into_a_fill_of_every_dtype(dtype):
    check_calls(slice_write_into_zeros, (np.arange(6).astype(dtype),),
                (np.arange(3).astype(dtype),))


# ---------------------------------------------------------------------------------------------
# Seed 24004504: ``t = a if c else a[::-1]``, then a loop that rebinds ``a`` and writes through
# ``t`` inside an ``if``. The ``if`` in the body did not count ``a``'s first memory as seen
# before it (no name held it any more), so the write's effect on it was dropped at the join; a
# later write through ``a`` (a choice on "the loop ran") re-derived ``t`` from the old values.
def seed_24004504(a0):
    t1 = np.add.reduce(a0, axis=1)
    if a0.sum() > 1.125:
        d2 = {'u': t1, 'n': 3}
    else:
        d2 = {'u': t1[::-1], 'n': 2}
    t3 = d2['u']
    t4 = d2['n']
    t5 = t3[0:None:-2]
    for i6 in t3:
        t1 = np.where(t1 >= t3, t5, -1)
        if a0.shape[0] > 2.125:
            pass
        elif t4 < 2.625:
            t3[np.array([-1])] = np.asarray(t5, dtype=np.int64)
            t7 = i6 ** 2
        else:
            t1[np.array([-1, -1])] = len(t5)
            t1 += ~t4
    t1[:] = 1.5
    return (t5,)


def write_in_an_if_through_a_choice_of_a_rebound_name(a0):
    t1 = a0.sum(axis=1)
    if a0.sum() > 1.125:
        t3 = t1
    else:
        t3 = t1[::-1]
    for i6 in range(a0.shape[0]):
        t1 = t1 * 2
        if a0.shape[0] <= 2.125:
            t3[-1] = 0
    t1[:] = 1.5
    return t3, t1


def write_in_an_if_through_a_choice_of_a_choice(a0):
    t1 = a0.sum(axis=1)
    if a0.sum() > 1.125:
        t3 = t1
    else:
        t3 = t1[::-1]
    if a0.sum() > 2:
        t3 = t3[:]
    k = 0
    while k < a0.shape[0]:
        t1 = t1 + 1
        if a0.shape[0] <= 2.125:
            t3[0] = -7
        k += 1
    t1[:] = 1.5
    return t3, t1


_ROWS = [(np.array([[0.0, 2.5, -3.75, 1.0]]),), (np.array([[2.5], [-3.5], [3.0]]),),
         (np.array([[3.0, 1.0], [0.5, -1.0]]),), (np.zeros((0, 2)),)]


def test_seed_24004504():
    check_calls(seed_24004504, *_ROWS[:2])


@pytest.mark.parametrize("fn", [write_in_an_if_through_a_choice_of_a_rebound_name,
                                write_in_an_if_through_a_choice_of_a_choice])
def test_a_write_in_a_loop_if_through_a_choice_reaches_memory_no_name_holds(fn):
    check_calls(fn, *_ROWS)


# ---------------------------------------------------------------------------------------------
# Seed 26017305: np.nonzero of a 2-D array gives strided views of one (n, 2) buffer, so their
# ravel() is a copy; pyonnx took it for the array itself (rank 1: "contiguous").
def ravel_of_nonzero(a2):
    t1 = np.nonzero(a2)[0]
    t2 = t1.ravel()
    t1 *= t2[...]
    return t1, t2


def ravel_and_reshape_of_nonzero_1d(a):
    t1 = np.nonzero(a)[0]
    t2 = t1.ravel()      # the array itself (contiguous)
    t3 = t1.reshape(-1)  # a view
    t1 *= 2
    return t1, t2, t3


def test_seed_26017305():
    check_calls(ravel_of_nonzero, (np.array([[1.75, 1.0], [0.0, 2.75], [3.75, 0.0]]),),
                (np.zeros((0, 1)),))
    check_calls(ravel_and_reshape_of_nonzero_1d, (np.array([0.0, 2.0, 3.0]),), (np.zeros(0),))


# Seeds 26004916, 26010763, 26011196: a float32 0-d sum read in an If body crashed onnxruntime
# ("Missing Input"): once its +0.0 was dropped, a float32 -> float64 -> float32 Cast pair was
# left, which onnxruntime's optimizer removed without updating the body reading it.
def sum_of_a_0d_array_in_a_branch(a0, a1):
    if a0.sum() > 1.625:
        pass
    elif a0.sum() > 1.375:
        for i5 in range(3):
            a1[None] = 2.0
    else:
        a1 /= -0.25
    return a1


def test_seed_26011196():
    f32 = np.float32
    check_calls(sum_of_a_0d_array_in_a_branch, (np.array(3.25, f32), np.array(-3.75, f32)),
                (np.array(-0.5, f32), np.array(-1.75, f32)), (np.array(1.5, f32), np.array(1, f32)))


# Seed 26005218: arithmetic of two Python bools is int arithmetic in Python (False * False is
# 0, True + True is 2, abs(True) is 1); pyonnx applied numpy's logical ufuncs on bools.
def python_bool_arithmetic(a0):
    t = a0 > 5
    u = a0 == a0
    return t * t, t + u, u + u, u - t, u * 3, abs(u), t & u, u ** 2, u // True, u % 2, -u


def test_seed_26005218():
    check_calls(python_bool_arithmetic, (1,), (7,))


# Seed 26004079: ColumnsFromTransposePass rewrote a column read inside an If body and the
# model failed to load (an output name used twice); column reads are rewritten in the main
# graph only.
def column_reads_in_branches(a0, a1):
    a0[:] = -2 ** 2
    a0[-2] = 3
    v1 = a0[:, 0]
    if a1.sum() > 12.125 and (not v1.any()):
        a1[:, 0::-1] /= 3
    else:
        best3 = None
        for i6 in range(v1.shape[0]):
            v4 = v1[i6]
            if best3 is None or v4 >= best3:
                best3 = v4
        m7 = v1[0] if v1.shape[0] else np.float32(0)
        for i9 in range(v1.shape[0] - 1, -1, -1):
            m7 = np.minimum(m7, v1[i9])
    if a0.any():
        a0 -= 2.0
    else:
        pass
    if a0.sum() > -69.875:
        t12 = a1[-2, :]
        v13 = a0[:, 1:]
        v1[..., np.array([1, -3])] = 0.5
    else:
        v14 = a1.T


_ARGS_26004079 = [[np.array([[-1.5, 2.25, 3.75, -1.5, 2.5], [3.0, 1.75, -2.75, -2.5, 0.0], [3.75, 3.75, 1.5, 2.75, -3.25]], dtype=np.float32).reshape((3, 5)), np.array([[1.75, 1.5, -1.0, 3.25], [0.25, 4.0, -0.5, 2.0]], dtype=np.float32).reshape((2, 4))],
    [np.array([[-0.75, -3.75, -2.25, 3.25, 3.0], [-3.25, -2.75, 1.75, 0.0, -0.5], [0.25, -2.25, -2.75, 3.75, 3.25], [1.25, 0.0, -0.25, 3.25, -2.0]], dtype=np.float32).reshape((4, 5)), np.array([[0.5, 3.75, -2.25, 1.5], [3.75, 2.5, 1.25, -2.25], [-1.75, 0.25, 0.5, -4.0], [2.0, -0.75, 2.0, 3.5], [2.25, -3.0, 1.5, 1.75]], dtype=np.float32).reshape((5, 4))]]


def test_seed_26004079():
    check_calls(column_reads_in_branches, *_ARGS_26004079)


# Seed 26010354: a name bound on one path of a loop body to a view of memory that another path
# writes in later iterations (t2 = t3[::2]; else t3[0] = -2) carried the values from before
# those writes into the next iteration and out of the loop. The carried value is now stale
# after such a write: a read is refused (numpy's view would show the write).
def view_carried_past_later_writes(a0, n):
    t2 = a0 * 1.0
    t3 = a0[::-1]
    for i4 in range(n - 1, -1, -1):
        if i4 > 2.625:
            t2 = t3[::2]
        else:
            t3[0] = -2
    return t2


def view_rebound_every_iteration(a0, n):
    t3 = a0[::-1]
    t2 = a0 * 1.0
    for i4 in range(n):
        t2 = t3[::2]
        t3[0] = -2 - i4
    return t2


def test_seed_26010354_refused_not_wrong():
    with pytest.raises(pyonnx.ConversionError, match="the memory it views was written"):
        pyonnx.compile(view_carried_past_later_writes)(np.arange(4.0), 4)
    # rebound every iteration before the write: followed, equal to numpy's
    check_calls(view_rebound_every_iteration, (np.arange(4.0), 4), (np.arange(5.0), 0),
                (np.arange(3.0), 1))


def complex_view_carried_past_later_writes(a0):     # seed 26010354 as generated
    t2 = np.clip(a0, -1, 2)
    t3 = a0[2::-2, 2::-1]
    for i4 in range(t2.shape[-1] - 1, -1, -1):
        if t2.shape[0] > 4.625 or (i4 > 2.625 and i4 > 2.625):
            t2 = t3[np.s_[::2]]
        else:
            t3[0] = -2
    return (t2,)


def complex_view_rebound_every_iteration(a0, n):
    t3 = a0[::-1]
    t2 = a0 * 1.0
    for i4 in range(n):
        t2 = t3[::2]
        t3[0] = -2 - i4
    return t2, a0


def complex_view_rebound_after_the_write(a0, n):
    t3 = a0[::-1]
    t2 = a0 * 1.0
    for i4 in range(n):
        t3[0] = -2 - i4
        t2 = t3[::2]
    return t2, a0


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_seed_26010354_complex_refused_not_wrong(dtype):
    # a complex name bound on one path to a view pyonnx does not follow (a choice of views):
    # its carried value is stale after a write to the memory the loop changes
    z = (np.arange(16.0) - 1j * np.arange(16.0)[::-1]).reshape(4, 4).astype(dtype)
    with pytest.raises(pyonnx.ConversionError, match="the memory it views was written"):
        pyonnx.compile(complex_view_carried_past_later_writes)(z)
    z = (np.arange(4.0) + 1j).astype(dtype)
    for fn in (complex_view_rebound_every_iteration, complex_view_rebound_after_the_write):
        check_calls(fn, (z, 4), (z[:0], 0), (z[:3], 1))


# Seed 27000571: complex 0-d values did not know numpy scalars from 0-d arrays. An operation's
# result (max of items, z.sum(), z[0] + 0) is a numpy scalar, which 'm /= np.float64(1)'
# rebinds to complex128; pyonnx wrote into it as into a 0-d array and kept complex64. And
# np.zeros((), complex) came back as a numpy scalar instead of a 0-d ndarray.
def complex_max_then_divided(a0, a1):              # seed 27000571 as generated
    m1 = np.complex64(0)
    i3 = a1.shape[0] - 1
    m1 = max(m1, a1[i3])
    m1 /= np.trunc(1)
    return (m1,)


def complex_scalars_rebound(z):
    m = z[0] + 0
    m /= np.float64(2)
    s = z.sum()
    w = s
    s += 1
    return m, s, w


def complex_zero_d_arrays_written(z):
    a = np.zeros((), np.complex64)
    a += z[1]
    a /= np.float64(2)                             # written: stays complex64
    b = np.asarray(z.sum())
    b *= np.float64(3)
    return a, b, np.zeros((), np.complex64), z[0].copy(), np.asarray(z[0]).copy(), z.sum().T


def complex_0d_array_of_an_item_aliased(z):
    b = np.asarray(z.ravel()[-1])                  # a new 0-d array (not z's memory)
    w = b
    b /= np.float64(2)                             # written: w sees it, z does not
    return b, w, z


def complex_accumulated_in_place(z):
    acc = np.zeros((), np.complex64)
    for i in range(z.shape[0]):
        acc += z[i]
    acc /= np.float64(3)
    return acc


def complex_scalar_or_array_by_path(z):
    m = z.sum()
    if z[0].real > 0:
        m = np.zeros((), np.complex64)
    m /= np.float64(2)
    return m


def complex_accumulator_scalar_or_array(z):
    acc = np.zeros((), np.complex64)
    for i in range(z.shape[0]):
        acc = acc + z[i]
    return acc


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_seed_27000571_complex_scalars_and_0d_arrays(dtype):
    z = np.array([1 + 2j, 3 - 1j, -2 + 0.5j], dtype)
    if dtype == np.complex64:  # (max of a complex64 and a complex128 scalar is refused)
        check_calls(complex_max_then_divided, (np.zeros((5, 4), np.uint16), z),
                    (np.zeros((3, 3), np.uint16), z[:2]))
    check_calls(complex_scalars_rebound, (z,), (z[:1],))
    check_calls(complex_zero_d_arrays_written, (z,), (z[::-1],))
    check_calls(complex_0d_array_of_an_item_aliased, (z,), (z.reshape(1, 3),))
    check_calls(complex_accumulated_in_place, (z,), (z[:1],), (z[:0],))


def test_complex_scalar_or_0d_array_by_path_refused():
    z = np.array([1 + 2j, 3 - 1j], np.complex64)
    with pytest.raises(pyonnx.ConversionError, match="0-d complex value that numpy makes a 0-d "
                       "array on some paths"):
        pyonnx.compile(complex_scalar_or_array_by_path)(z)


def test_complex_accumulator_0d_array_or_scalar_by_trips():
    # a loop that may run 0 times returns np.zeros(()) (a 0-d array) or a sum (a scalar): the
    # model says which per call (lower/control_flow/complex_paths.py; refused before)
    z = np.array([1 + 2j, 3 - 1j], np.complex64)
    check_calls(complex_accumulator_scalar_or_array, (z,), (z[:0],), (z[:1],))


# Seed 26004526 (crash): 'a0[idx] = a1.astype(np.int32)' in a loop, a1 = np.ones_like(a0) int8:
# the int8 -> int32 -> int8 Casts (the value, then the write's cast to a0's dtype) were left
# in the model (the fold did not know ConstantOfShape's dtype), and onnxruntime 1.32 drops such
# a lossless round trip without updating the Loop body that reads it ("Missing Input").
def _h22_26004526(p, q):
    pass

def int8_round_trip_read_in_a_loop(a0, a1):       # seed 26004526 as generated
    a1 = np.ones_like(a0)
    for i1 in range(a1.shape[-1] - 1, -1, -1):
        if a0.shape[0] < 1.625 and a1.sum() > 1.625:
            return (i1, a1, a0)
        v2 = a1[1:]
    for i3 in range(a0.shape[-1] - 1, -1, -1):
        a0[np.array([0, 0])] = a1.astype(np.int32)
        t4 = np.where(a1 > i3, i3, a0)
        a0[0] = 3
    if a0.shape[0] < 1.625:
        best5 = None
        for v6 in a1:
            if best5 is None or not best5 >= v6:
                best5 = v6
        t7 = best5 if best5 is not None else np.int8(0)
        for i9 in range(a0.shape[0]):
            if not a1.max() >= 0.0:
                raise ValueError('out of range')
            t10 = np.where(2 >= a1, a1, a1)
            t11 = np.sqrt(np.abs(a0))
        if a0.shape[0] > 1.625:
            return (0, a0, a1)
    if a1.sum() < 1.625:
        if a1.max() < 0.625 or a1.any():
            d12 = {'u': a0, 'n': 2}
        else:
            d12 = {'u': a0[::-1], 'n': 1}
        t13 = d12['u']
        t14 = d12['n']
        t15 = a0.argmax(axis=-1)
    if a0.max() > 3.625:
        a1[0] -= 1
    elif a1.shape[0] < 1.625:
        if not a0.max() > 3.625:
            d16 = {'u': a0, 'n': 1}
        else:
            d16 = {'u': a0[::-1], 'n': 3}
        t17 = d16['u']
        t18 = d16['n']
        t19 = 1.5 % 2
    elif a0.any():
        return (0, a1, a0)
    t20 = a0 / a1
    if a1.any():
        return (0, a0, a0)
    t21 = np.concatenate([a0, a0], axis=0)
    t23 = _h22_26004526(a1, a0)
    L24 = [a0, a1]
    a1 = np.where(a1 >= a1, -2, a1)
    return (0, a0, a0)

_ARGS_26004526_0 = [np.array([0, -2], dtype=np.int8).reshape((2,)), np.array([[5, 1, 2, 6], [6, 5, 1, 0], [3, 3, 3, 2], [5, 4, 5, 0], [4, 1, 1, 3]], dtype=np.uint8).reshape((5, 4))]
_ARGS_26004526_1 = [np.array([3], dtype=np.int8).reshape((1,)), np.array([[5, 1, 1], [6, 6, 0], [0, 6, 4], [0, 1, 5], [6, 5, 0]], dtype=np.uint8).reshape((5, 3))]



def test_seed_26004526_int8_round_trip_read_in_a_loop():
    check_calls(int8_round_trip_read_in_a_loop, _ARGS_26004526_0, _ARGS_26004526_1)


# Seed 30011908 (crash, a broadcast failure inside onnxruntime): an early 'return a0' inside
# a loop after an earlier conditional return. The search vectorizer made the return value
# np.where(found, a0, before), where 'before' is the stand-in of a return not taken yet (an
# array of another shape): both are computed. Such a search stays a Loop now.
def return_inside_a_search_after_a_return(a0, a1):  # seed 30011908 as generated
    if not a1.any():
        return a0
    for i1 in range(min(a0.shape[0], 3)):
        if i1 < 0.625:
            return a0
    return a0


def return_row_sum_inside_a_search(a0, t):
    if t > 5:
        return a0[:1] * 0
    for i in range(a0.shape[0]):
        if a0[i, 0] > t:
            return a0
    return a0 * 2


def test_seed_30011908_array_returned_from_a_search():
    a0 = np.arange(20, dtype=np.uint16).reshape(5, 4, 1)
    check_calls(return_inside_a_search_after_a_return, (a0, np.ones((3, 4), np.float32)),
                (a0[:1], np.zeros((3, 2), np.float32)), (a0[:0], np.ones(2, np.float32)))
    x = np.arange(12.0).reshape(4, 3)
    check_calls(return_row_sum_inside_a_search, (x, 4.0), (x, 100.0), (x, 7.0), (x[:0], 1.0))


# Seed 30010167 (wrong mutation, silently): 'a0 += ...' on a complex argument inside a run-time
# 'if', then 'a0' bound to another array. Inside the body the argument's parts are followed as
# buffers (complex_aliases), but the write rebound the name instead of writing them; the
# rebinding left no name holding the written value, and the argument's buffers (the old
# values) were written back. The write goes through the followed buffers now.
def complex_argument_written_in_an_if_then_rebound(a0, a1, a2):   # seed 30010167
    if a2.any():
        a0 += a0.argmax(axis=-2)
    t12 = a1[None]
    a0 = np.squeeze(t12)


def complex_argument_written_in_a_loop_then_rebound(a0, n):
    for i in range(n):
        a0 *= 1 - 0.5j
    a0 = a0[::-1] + 1
    return a0


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_seed_30010167_complex_argument_written_then_rebound(dtype):
    z = np.array([[0.75 - 3.75j, -0.5 + 1.5j, 3 - 1.75j], [0.75 - 2j, 0.25j, 2.5j]], dtype)
    a1 = np.array([[-3, 0, -2, 0], [0, -1, 2, -1]], np.int8)
    check_calls(complex_argument_written_in_an_if_then_rebound, (z, a1, np.array([4], np.int8)),
                (z, a1, np.array([0], np.int8)), (z[:1], a1[:1], np.array([1, 0], np.int8)))
    check_calls(complex_argument_written_in_a_loop_then_rebound, (z, 3), (z, 0), (z[:, :1], 1))


# Seeds 30015733 and 30018819 (wrong mutation, silently; on main since complex choices): a
# complex argument rebound on one path of a run-time 'if' ('z = z * 2', 'z = np.r_[...]',
# '1.5 / z' in a while loop), then 'z /= 2' after the join. The joined value is the argument on
# the other path (a choice of part buffers), but the write rebound the name instead of writing
# through the choice: the argument was never written back.
def complex_argument_rebound_on_one_path_then_written(z, c):
    if c > 2:
        z = z * 2
    z /= 2
    return z


def complex_argument_rebound_in_a_while_then_written(a0):   # seed 30015733's shape
    if not a0.any():
        t1 = a0 ** 2
    elif a0.real.max() < 2.875:
        k4 = 0
        while k4 < 3:
            k4 += 1
            a0 = 1.5 / a0
    a0 += np.expm1(a0 * 0.1)
    return np.abs(a0), a0


def complex_argument_rebound_in_else_then_written(a0, a1):   # seed 30018819
    if a1.real.max() > 3.875:
        pass
    elif a1.real.max() < 3.875:
        v7 = a0[1]
    else:
        a1 = np.r_['-1', a1, a1]
    a1 /= 2


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_seeds_30015733_30018819_complex_argument_rebound_on_one_path_then_written(dtype):
    z = np.array([[1.5 + 1.25j, -1.25 + 0.75j], [4 - 4j, 2 + 1j]], dtype)
    check_calls(complex_argument_rebound_on_one_path_then_written, (z, 3.0), (z, 1.0),
                (z[:0], 1.0))
    check_calls(complex_argument_rebound_in_a_while_then_written, (z,), (z * 10,), (z * 0,))
    check_calls(complex_argument_rebound_in_else_then_written, (np.zeros((5, 4), bool), z),
                (np.zeros((2, 4), bool), z * 2))


# Seed 47001381 (silently wrong, compile 47000000; older than the stop that found it): a view
# pyonnx does not follow (v2.reshape(-1) of a transpose) goes stale when memory it views is
# written after a run-time check (assert/raise) in the same block; the check's If took the
# raising path's old value as the name's and gave the live path a stand-in (zeros, or an
# empty array) instead of keeping it stale. Reduced by hand from the generated program.
def stale_view_after_a_check_in_a_loop(a0, a2):
    v2 = a0.T
    v3 = v2.reshape(-1)
    for k4 in range(3):
        assert a2.max() >= -1.0
        if a0.sum() > 1.125:
            v2[...] //= 1
    return v3


def stale_view_after_a_check(a0, a2):
    v2 = a0.T
    v3 = v2.reshape(-1)
    for k4 in range(1):
        assert a2.max() >= -1.0
        v2[...] //= 1
    return v3


@pytest.mark.parametrize("fn", [stale_view_after_a_check_in_a_loop, stale_view_after_a_check])
@pytest.mark.parametrize("a0", [np.array(3.0), np.array([[3.0, 1.5]])])
def test_seed_47001381_stale_view_after_a_check_is_refused(fn, a0):
    with pytest.raises(pyonnx.ConversionError, match="'v3' is a view made by a numpy function"):
        pyonnx.compile(fn)(a0, np.array([-0.5]))


# Seed 48001200 (crash, compile 48000000): with shapes known at conversion (np.linalg needs
# them), np.where of operands numpy cannot broadcast, in a branch the run does not take, raised
# the shape helper's bare ValueError from inside pyonnx; numpy calls that meet it unhandled are
# refused at the line now (lower/calls.py), as the operators already were.
def where_of_unbroadcastable_shapes_in_a_branch(a, b, flag):
    if flag > 0:
        return np.where(a < 2, 1.0, b)
    return a


def test_seed_48001200_where_of_unbroadcastable_static_shapes_refused():
    f = pyonnx.compile(where_of_unbroadcastable_shapes_in_a_branch, static_shapes=True)
    with pytest.raises(pyonnx.ConversionError,
                       match=r"np\.where\(\): operands could not be broadcast together with "
                             r"shapes \(5, 0\) \(\) \(3, 0\) \(numpy raises ValueError\)"):
        f(np.zeros((5, 0)), np.zeros((3, 0)), np.float64(-1))


# Seeds 49001423, 49003433, 49003847 (wrong dtype, compile 49000000): sum() of a list built at
# run time is a Python int when the list is empty and the items' type otherwise
# (lower/seq_sum.py); returned where another path returns None, the optional join dropped
# that mark and the empty case came back as 0.0 or np.int8(0) where numpy gives 0. Refused at
# the line now, as without the None path.
def list_sum_or_none(a0, flag):
    parts = []
    for i in range(a0.shape[0]):
        if a0[i] > a0[0]:
            parts.append(float(a0[i]))
    total = sum(parts, 0)
    if flag > 0:
        return None
    return total


def int_list_sum_or_none(a0):
    for v in a0:
        if v < 2:
            return None
    kept = []
    for i in range(a0.shape[0]):
        if a0[i] > a0[0]:
            kept.append(a0[i] >> 2)
    return sum(kept)


@pytest.mark.parametrize("a0", [np.array([3.0, 1.0]), np.array([1.0, 3.0])])
def test_seeds_49001423_49003433_49003847_list_sum_or_none(a0):
    # Python int or float by the list's emptiness: one output cannot be both, refused
    with pytest.raises(pyonnx.ConversionError,
                       match="returns a Python int on some paths and a Python float"):
        pyonnx.compile(list_sum_or_none)(a0, np.float64(-1))
    # Python int 0 or a numpy int8: the call returns numpy's type (the flag of the sum made
    # inside the return guard's If is carried out of it for the possibly-None number)
    for a in ([9, 4, 4], [4, 4, 9], [1, 5], [5, 5, 6], []):
        check_calls(int_list_sum_or_none, (np.array(a, np.int8),))

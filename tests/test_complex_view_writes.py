"""Writes into complex arrays through views and aliases (complex_aliases): numpy's meaning,
where a write through a view reaches its base, a write into the base shows through every view,
and every name of the memory (an alias, a helper's parameter, a list item) sees it; refused
where pyonnx cannot follow it (inside run-time if/loop bodies, values out of them).

Oracle: tests/oracle.check (values, dtypes, shapes and the arguments after the call).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests import complex_kernels as k
from tests.oracle import check


def view_write(z):
    v = z[1:]
    v[0] = 5 + 1j
    return z, v


def alias_write(z):
    w = z
    w[0] = 3j
    return z


def base_write_seen_by_view(z):
    z = z.copy()
    v = z[:, 0]
    z[1, 0] = 7
    v.imag[0] = 2
    return z, v


def view_of_view(z):
    v = z[1:]
    q = v[1:]
    q[0] = -1j
    q.real[1] = 4
    return v, z


def made_complex(a):
    z = a * 1j
    v = z[::2]
    v[...] = 1
    z.real[1] = 9
    return z, v


def _helper(p):
    p[0] = 4


def helper_writes_argument(z):
    _helper(z)
    return z


def list_sees_write(z):
    lst = [z, 1]
    z[0] = 1
    return lst[0]


def view_then_read_in_loop(z):
    v = z[1:]
    v[0] = 2j
    s = z[0]
    for i in range(z.shape[0] - 1):
        s = s + v[i]
    return s, z


def argument_written_through_view_after_rebind(z):
    v = z[1:]
    z = z + 1
    v[0] = 0
    return z, v


def view_rebound_to_a_copy(z):
    v = z[1:]
    v = v * 2
    v[0] = 0
    z[0] = 1
    return z, v


def rows_of_a_matrix(z):
    r0, r1 = z[0], z[1]
    r0[1:] = r1[:-1]
    r1[...] = 0
    return z, r0, r1


def inplace_through_view_then_base(z):
    v = z[1:]
    v *= 2j
    z += 1
    return z, v


def inplace_through_alias(z):
    w = z
    w -= 1j
    return z, w


def inplace_divide_view(z):
    v = z[::2]
    v /= 2
    return v


def inplace_row_plus_row(z):
    v = z[0]
    v += z[1]
    return z


CASES = [inplace_through_view_then_base, inplace_through_alias, inplace_divide_view,
         inplace_row_plus_row, view_write, alias_write, base_write_seen_by_view, view_of_view, helper_writes_argument,
         list_sees_write, view_then_read_in_loop, argument_written_through_view_after_rebind,
         view_rebound_to_a_copy, rows_of_a_matrix, k.cw_arg_rebind]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_writes_through_views_and_aliases(fn, dtype):
    z = (np.arange(12.0).reshape(4, 3) + 1j * np.arange(12.0).reshape(4, 3)[::-1]).astype(dtype)
    check(fn, z)


def test_view_of_a_made_array():
    check(made_complex, np.arange(5.0))
    check(k.cw_view_alive, np.arange(3) * 1j)


def part_view_then_write(z):
    r = z.real
    z[0] = 1
    return r


def view_written_in_loop(z, n):
    v = z[1:]
    for i in range(n):
        v[0] += 1
    return z, v


def base_written_in_if(z):
    v = z[1:]
    if z[0].real > 0:
        z[1] = 1
    return z, v


def view_chosen_at_run_time(z):
    if z[0].real > 0:
        v = z[1:]
    else:
        v = z[:1]
    v[0] = 9
    return z


def transposed_view(z):
    v = z.T
    v[0, 1] = 1
    return z


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_writes_followed_through_part_buffers(dtype):
    # (refused before: .real views, writes in run-time loops and ifs follow the part buffers)
    check(part_view_then_write, (np.arange(3) * 1j).astype(dtype))
    for n in (0, 1, 3):
        check(view_written_in_loop, (np.arange(3) * 1j).astype(dtype), np.int64(n))
    for sign in (1, -1):
        check(base_written_in_if, (np.arange(3) * 1j + sign).astype(dtype))
    check(transposed_view, (np.ones((2, 3)) * 1j).astype(dtype))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_view_chosen_at_run_time(dtype):
    # (refused before: complex_choices follows each part's choice)
    for sign in (1, -1):
        check(view_chosen_at_run_time, ((np.arange(3) * 1j + 1) * sign).astype(dtype))


def item_is_a_scalar_copy(z):
    v = z[0]
    v += 1  # numpy: v is a numpy scalar (a copy); z is unchanged
    return z, v


def zero_d_view(z):
    v = z[0, ...]  # a 0-d array view: numpy's in-place add writes into z
    v += 1
    w = z[...]
    w += 1j
    return z, v, w


def test_numpy_scalars_are_not_views():
    z = np.arange(3) * 1j
    check(zero_d_view, z)
    # a scalar from integer indexing is a copy: 'v += 1' rebinds it (refused before)
    check(item_is_a_scalar_copy, z)


def copy_of_real_then_real_write(x):
    z = x.astype(np.complex128)
    c = np.complex128(x)
    y = x[1:]
    w = y.astype(np.complex64)
    x[1] = 5
    x += 1
    return z, c, w


def test_complex_copies_of_real_arrays_do_not_see_real_writes():
    # (a complex part may be the real array's own graph value: a write into the real array
    # must not re-derive the complex copy)
    check(copy_of_real_then_real_write, np.arange(4.0))

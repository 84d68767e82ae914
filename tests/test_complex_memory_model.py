"""Complex arrays in numpy's memory model inside run-time control flow (issues 11 and 13): writes
through views (basic indexing, ``.T``, reshapes, flips), aliases, ``.real``/``.imag`` views and
into arguments, inside run-time ``if``/``for``/``while`` bodies, follow numpy exactly (the real
alias machinery on each part's buffer, frontend/lower/complex_aliases.py). Against numpy with
tests/oracle.py ``check`` (values, dtypes, and every argument after the call), both complex
dtypes, loops of 0, 1 and several trips; what is not followed is refused at the line."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

DTYPES = [np.complex64, np.complex128]
TRIPS = [0, 1, 3]


def z1(dtype, n=5):
    return (np.arange(n) + 1j * np.arange(n, 2 * n)).astype(dtype)


def z2(dtype):
    return (np.arange(6).reshape(2, 3) - 1j * np.arange(6, 12).reshape(2, 3)).astype(dtype)


# ----------------------------------------------------------------- run-time if
def view_and_part_in_if(z, c):
    v = z[1:]
    if c.sum() > 0:
        v[0] = 5 + 1j
        z.real[2] = 7
    else:
        z[0] = -1j
    r = z.imag
    r[0] += 3
    return z, v, r


def base_written_in_if_view_read_after(z, c):
    v = z[::-1]
    w = z
    if c.sum() > 0:
        w[0] += 2j
    return v, w


def alias_of_fresh_array_in_if(z, c):
    y = z * 2
    a = y
    t = y.T
    if c.sum() > 0:
        a[-1] = 0
    else:
        t[0] = 1
    return y, t


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_writes_in_a_run_time_if(dtype, sign):
    c = np.array([sign])
    check(view_and_part_in_if, z1(dtype), c)
    check(base_written_in_if_view_read_after, z1(dtype), c)
    check(alias_of_fresh_array_in_if, z1(dtype), c)


# ----------------------------------------------------------------- run-time loops
def view_written_in_for(z, n):
    v = z[1:]
    for i in range(n.shape[0]):
        v[0] += 1j
        w = z[::-1]
        w.real[0] = i
    return z, v


def base_written_in_while(z, n):
    k = 0
    while k < n.shape[0]:
        z[k % 3] *= 2
        k += 1
    return z


def part_view_and_base_in_loop(z, n):
    r = z.real
    k = 0
    while k < n.shape[0]:
        r[k % 2] += 1
        z.imag[1] -= 1
        k += 1
    return r


def part_written_then_view_in_for(z, n):
    r = z.real
    for i in range(n.shape[0]):
        z.imag[1] -= 1
        r[i % 2] += 1
    return r


def alias_written_in_for(z, n):
    y = z * 1
    w = y
    for i in range(n.shape[0]):
        y[0] = i
        w[1] -= 1j
    return w, y


def write_in_if_in_loop(z, n):
    v = z[:2]
    for i in range(n.shape[0]):
        if n[i] > 0:
            v[1] = n[i]
        else:
            z[0] += 1
    return v


def rebound_in_loop(z, n):
    w = z
    for i in range(n.shape[0]):
        w = w * 2  # a new array: z is not written
    w[0] = 1
    return z, w


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trips", TRIPS)
def test_writes_in_run_time_loops(dtype, trips):
    n = np.arange(trips) - 1.0
    for fn in (view_written_in_for, base_written_in_while, part_view_and_base_in_loop,
               part_written_then_view_in_for, alias_written_in_for, write_in_if_in_loop):
        check(fn, z1(dtype), n)


# ----------------------------------------------------------------- views of other functions
def transposed(z):
    v = z.T
    v[0, 1] = 1
    return z


def reshaped(z):
    v = z.reshape(-1)
    v[1] = 7j
    return z, v


def flipped_in_if(z, t):
    v = np.flip(z, axis=0)
    if t > 0:
        v[0] += 1
    z[1] = 3
    return v


def ravel_and_transpose_of_fresh(z):
    w = z * 2
    v = w.ravel()
    v[0] = 1
    t = w.T
    w[1, 0] = 5
    return w, t, v


def reshape_written_in_loop(z, n):
    y = z + 1
    r = y.reshape(-1)
    for i in range(n.shape[0]):
        r[i] = i * 1j
        y.imag[0, 0] += 1
    return y, r


@pytest.mark.parametrize("dtype", DTYPES)
def test_views_made_by_functions(dtype):
    check(transposed, z2(dtype))
    check(transposed, z2(dtype).T.copy().T)  # a Fortran-ordered argument: .T is a view
    check(reshaped, z2(dtype))
    for t in (1.0, -1.0):
        check(flipped_in_if, z2(dtype), t)
    check(ravel_and_transpose_of_fresh, z2(dtype))
    for trips in TRIPS:
        check(reshape_written_in_loop, z2(dtype), np.zeros(trips))


def test_reshape_view_of_a_non_contiguous_argument_is_checked_at_the_call():
    # numpy's reshape of a Fortran-ordered array is a copy: the model made for the view says
    # so at the call, as for a real argument
    z = np.asfortranarray(z2(np.complex128))
    with pytest.raises(Exception, match="not C-contiguous"):
        pyonnx.compile(reshaped)(z)


# ----------------------------------------------------------------- iteration
def write_while_iterating(z):
    s = 0j
    for v in z:
        z[1] = 5
        s = s + v
    return s, z


def augmented_write_while_iterating(z, n):
    s = 0j
    for v in z:
        z[-1] += n.sum()
        s = s + v
    return s, z


def write_through_rows(z):
    s = 0j
    for v in z:
        v[0] = 9
        s = s + v.sum()
    return s, z


def write_after_iterating(z):
    m = np.complex128(0)
    for v in z:
        m = m + v
    z[0] = -1
    return m, z


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("static", [False, True])
def test_writes_while_iterating(dtype, static):
    def run(fn, *args):
        check(pyonnx.compile(fn, static_shapes=static), *args)
    run(write_while_iterating, z1(dtype, 3))
    run(augmented_write_while_iterating, z1(dtype, 3), np.ones(2))
    run(write_through_rows, z2(dtype))
    run(write_after_iterating, z1(dtype, 4))
    if not static:
        run(write_while_iterating, z1(dtype, 30))


# ------------------------------------------- memory chosen at run time (complex_choices)
def view_chosen_at_run_time(z):
    if z[0].real > 0:
        v = z[1:]
    else:
        v = z[:1]
    v[0] = 9
    return z


def alias_chosen_at_run_time(z, t):
    a = z * 1
    b = z * 2
    c = a
    if t > 0:
        c = b
    c[0] = 7
    return a, b


@pytest.mark.parametrize("dtype", DTYPES)
def test_memory_chosen_at_run_time(dtype):
    # (refused before complex_choices: each part is a choice buffer, as a real array's)
    for sign in (1, -1):
        check(view_chosen_at_run_time, z1(dtype) * sign)
        check(alias_chosen_at_run_time, z1(dtype), np.float64(sign))
    # the argument's memory or a new array, depending on the trip count
    for trips in (0, 1, 3):
        check(rebound_in_loop, z1(dtype), np.zeros(trips))


# ----------------------------------------------------------------- found by the fuzzer
def products_of_a_0d_array(z):
    return np.multiply.reduce(z), np.prod(z), z.prod(axis=0), np.cumprod(z), \
        np.prod(z, keepdims=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_product_of_a_0d_array(dtype):
    # fuzz seed 20001522 (reached once its writes through 0-d views were followed): an
    # IndexError inside pyonnx
    check(products_of_a_0d_array, np.array(3 + 1j, dtype))


def scalar_item_rebound(z, m):
    t = z[1]
    v = z[::-1]
    t -= m * 1j  # a numpy scalar: rebinds t (complex128 for a complex64 z), z unchanged
    t *= 2
    v[0] = 3
    return t, z


def scalar_item_written(z):
    t = z[1]
    t[()] = 5
    return z


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_scalar_items_are_immutable(dtype):
    # fuzz seed 20000040 ('t5 -= ...' on an item z[1] was refused as a write into a view)
    check(scalar_item_rebound, (np.arange(3) * (1 + 1j)).astype(dtype), np.int64(2))
    with pytest.raises(pyonnx.ConversionError, match="numpy scalar") as info:
        pyonnx.compile(scalar_item_written)(np.arange(3, dtype=dtype))
    assert info.value.lineno == scalar_item_written.__code__.co_firstlineno + 2


def _early_return_helper(p):
    if p.sum() > 1.5:
        return p * 2
    return p - 1


def astype_copy_after_run_time_if(a0):
    t2 = _early_return_helper(a0)
    t3 = a0.astype(np.complex64)  # a copy: writes into it never reach a0
    t3[None] = 3
    t4 = a0.astype(np.complex64, copy=False)  # a0 itself
    t4[...] = t4 * 2
    return t2, t3


@pytest.mark.parametrize("value", [-0.5 + 2.75j, 1 - 0.5j, 3 + 0j])
def test_astype_copy_of_a_followed_argument(value):
    # fuzz seed 614 of a complex-only run: the copy's parts were the argument's registered
    # part objects (its memory), so t3[None] = 3 wrote the caller's array
    check(astype_copy_after_run_time_if, np.array(value, np.complex64))
    check(astype_copy_after_run_time_if, np.array([value, 1j], np.complex64))


def array_copy_of_a_chosen_view(z, c):
    v = z if c > 0 else z[1:]
    t = np.array(v, dtype=z.dtype)  # a copy: its writes never reach z
    t[0] = 3
    u = np.array(v, copy=None)  # v itself
    u[-1] = 5j
    return z, v, t


@pytest.mark.parametrize("dtype", DTYPES)
def test_np_array_copy_of_a_followed_value(dtype):
    # complex-only fuzz seed 870: np.array(v, dtype=...) reused v's registered parts
    for c in (1, -1):
        check(array_copy_of_a_chosen_view, z1(dtype), np.int64(c))

"""numpy's memory order and reshape: a view of a C-ordered array, a view or a copy otherwise.

Elementwise results keep their input's memory order (``np.cosh(x.T)`` is Fortran-ordered), so
their ``reshape``/``ravel`` is a copy in numpy where pyonnx used to follow it as a view (fuzz
seed 700464 in gradient mode: a write through the base changed the "view"). pyonnx now knows
which arrays are C-ordered (``frontend/lower/layout.py``); the reshape of any other is "a view
or a copy": exact for reads, followed as the copy when nothing else sees the memory, refused
at the line where a write could tell the two apart.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import pyonnx
from tests.oracle import check
from tests.test_fuzz_regressions import check_calls


def refused(fn, *args, match: str, line: int):
    """``fn(*args)`` is refused with a ConversionError matching ``match`` at body line
    ``line`` (1 = the first line after ``def``)."""
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(*copy.deepcopy(args))
    assert info.value.lineno == fn.__code__.co_firstlineno + line, str(info.value)


X = np.arange(12.0).reshape(4, 3) - 5.0
X2 = np.linspace(-1.0, 1.0, 15).reshape(5, 3)


# ---------------------------------------------------------------------------- the fuzz seed
def seed_700464(x, w):
    t2 = x.T
    t3 = np.cosh(0.5 * t2)
    t4 = t3.reshape(-1)
    t3[2:None:-2] = 1
    t11 = t4[-2:3]
    return np.sum(t4) + np.sum(t11)


def test_seed_700464_refused_where_numpy_reads_a_copy():
    # numpy: t4 is a copy (t3 is Fortran-ordered) and keeps the old values; reading it after
    # the write to t3 is refused at that read
    refused(seed_700464, X, X, match="memory order is not C", line=5)


# ------------------------------------------------- writes that tell a copy from a view: refused
def write_base_then_read_reshape(x):
    y = np.cosh(x.T)
    t = y.reshape(-1)
    y[0, 0] = 7.0
    return t


def write_reshape_then_read_base(x):
    y = np.cosh(x.T)
    t = y.reshape(-1)
    t[0] = 7.0
    return y


def swapaxes_product(x):
    y = np.swapaxes(x, 0, 1) * 1.0
    t = y.reshape(-1)
    t[0] = 9.0
    return y


def array_of_transpose(x):
    y = np.array(x.T)  # order='K': Fortran-ordered
    t = y.ravel()
    t[0] = 9.0
    return y


def zeros_like_transpose(x):
    y = np.zeros_like(x.T)  # order='K'
    t = y.reshape(-1)
    t[0] = 1.0
    return y


def astype_of_transpose(x):
    y = x.T.astype(np.float32)
    t = np.reshape(y, -1)
    t[0] = 1.0
    return y


def reduction_of_transpose(x):
    y = np.sum(x.T[None] * 1.0, axis=0)
    t = y.reshape(2, -1)
    t[0, 0] = 2.0
    return y


def written_then_reshaped(x):
    y = -x.T
    y[0, 0] = 3.0
    t = y.reshape(2, -1)
    t[0, 0] = 5.0
    return y


def through_a_loop(x):
    y = np.cosh(x.T)
    for i in range(2):
        y = y * 2.0
    t = y.reshape(-1)
    t[1] = 2.0
    return y


def one_branch_transposed(x):
    y = np.cosh(x)
    if x[0, 0] > 0:
        y = y.T * 1.0
    else:
        y = y.T.copy()
    t = y.reshape(-1)
    t[1] = 2.0
    return y


def write_in_branch(x):
    y = np.cosh(x.T)
    t = y.reshape(-1)
    if x[0, 0] > 0:
        t[0] = 2.0
    return t


@pytest.mark.parametrize("fn, line", [
    (write_base_then_read_reshape, 4), (write_reshape_then_read_base, 4),
    (swapaxes_product, 4), (array_of_transpose, 4), (zeros_like_transpose, 4),
    (astype_of_transpose, 4), (reduction_of_transpose, 4), (written_then_reshaped, 5),
    (through_a_loop, 6), (one_branch_transposed, 8), (write_in_branch, 4)])
def test_writes_that_tell_copy_from_view_are_refused(fn, line):
    refused(fn, X, match="memory order is not C", line=line)


# ------------------------------------------------------------------- numpy's answer, exactly
def reshape_written_base_dead(x):
    t = np.cosh(x.T).reshape(-1)
    t[0] = 1.0
    return t


def reshape_written_base_unused(x):
    y = np.cosh(x.T)
    t = y.reshape(-1)
    u = t[1:]
    t[0] = 1.0
    u[0] = 5.0
    return t, u


def c_copy_reshape_is_a_view(x):
    y = np.cosh(x.T).copy()      # x.copy() is C-ordered: its reshape is a view
    t = y.reshape(-1)
    t[0] = 1.0
    return y, t


def ascontiguous_reshape_is_a_view(x):
    y = np.ascontiguousarray(np.cosh(x.T))
    t = y.reshape(-1)
    t[1] = 2.0
    return y, t


def flatten_is_a_copy(x):
    y = np.exp(x.T)
    t = y.flatten()
    t[1] = 9.0
    return y, t


def ravel_written_base_dead(x):
    y = np.cosh(x.T)
    t = y.ravel()
    t[1] = 2.0
    return t


def reshape_before_base_write(x):
    y = np.cosh(x.T)
    y[0, 0] = 3.0
    t = y.reshape(-1)
    t[1] = 2.0
    return t


def c_ordered_reshape_view(x):
    y = np.cosh(x)               # C-ordered: reshape is a view, writes go both ways
    for i in range(2):
        y = y * 2.0
    t = y.reshape(-1)
    t[1] = 2.0
    y[0, 0] = 4.0
    return y, t


def matmul_is_c_ordered(x):
    y = x.T @ x
    t = y.reshape(-1)
    t[0] = 2.0
    return y, t


def transposed_read_only(x):
    y = np.cosh(x.T)
    t = y.reshape(-1)
    return t.sum() + y[0, 0], t


def transpose_then_reshape_read(x):
    t = x.T.reshape(-1)
    return t * 2.0, x


def reshape_adding_unit_axis(x):
    y = np.cosh(x.T)
    t = y[None]
    u = y.reshape(1, 3, 4)
    u[0, 0, 0] = 5.0             # adding a length-1 axis is a view of any array
    return y, t


def loop_sum_of_uncertain_reshape(x):
    y = np.cosh(x.T)
    t = y.reshape(-1)
    s = 0.0
    for i in range(x.shape[0]):
        s += t[i]
    t[0] = 2.0
    return t, s


@pytest.mark.parametrize("fn", [
    reshape_written_base_dead, reshape_written_base_unused, c_copy_reshape_is_a_view,
    ascontiguous_reshape_is_a_view, flatten_is_a_copy, ravel_written_base_dead,
    reshape_before_base_write, c_ordered_reshape_view, matmul_is_c_ordered,
    transposed_read_only, transpose_then_reshape_read, loop_sum_of_uncertain_reshape])
def test_numpy_answer(fn):
    check_calls(fn, (X,), (X2,))


def test_unit_axis_reshape_of_fortran_array_is_a_view():
    # (static shapes: with symbolic ones pyonnx cannot see that only a 1 is added)
    check(pyonnx.compile(reshape_adding_unit_axis, static_shapes=True), X)


def test_c_contiguous_argument_reshape_still_writes_through():
    def f(x):
        t = x.reshape(-1)
        t[0] = 5.0
        return t
    x = np.arange(12.0).reshape(3, 4)
    check(f, x)


# ------------------------------------------------ the caller's arrays: C-contiguous, checked
def write_through_argument_reshape(x):
    t = x.reshape(-1)
    t[0] = 5.0
    return x


def write_through_reshape_of_argument_product(x):
    y = x * 2.0
    t = y.reshape(-1)
    t[0] = 5.0
    return y


def write_argument_while_reshape_in_use(x):
    t = x.reshape(2, -1)
    x[0] = 7.0
    return t


def read_argument_reshape(x):
    return x.reshape(-1).sum()


@pytest.mark.parametrize("fn", [write_through_argument_reshape,
                                write_through_reshape_of_argument_product,
                                write_argument_while_reshape_in_use])
def test_argument_layout_is_checked_where_a_write_depends_on_it(fn):
    c = np.arange(6.0).reshape(2, 3)
    check(fn, c)                                  # C-contiguous: numpy's view meaning
    compiled = pyonnx.compile(fn)
    f = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    before = f.copy()
    with pytest.raises(pyonnx.ExecutionError, match="'x' is not C-contiguous"):
        compiled(f)                                # numpy's reshape would be a copy
    np.testing.assert_array_equal(f, before)       # nothing written
    assert pyonnx.compile(fn).to_onnx(c) is not None


def test_argument_layout_is_not_checked_for_reads():
    f = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    check(read_argument_reshape, f)
    check(read_argument_reshape, np.arange(12.0)[::2])


def test_fortran_argument_through_ascontiguousarray():
    def f(x):
        y = np.ascontiguousarray(x * 1.0)
        y[0] = 3.0
        return y
    check(f, np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    check(f, np.arange(6.0).reshape(2, 3))

"""Lists of complex values whose length is only known at run time (complex_lists): appended
in run-time loops and branches, then returned, indexed, measured, iterated and stacked; at the
model boundary one sequence of (..., 2) reals, converted back by the call.

Oracle: tests/oracle.check, both complex dtypes, loops of 0, 1 and several trips.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

DTYPES = [np.complex64, np.complex128]


def _z(dtype, rows=4, cols=3):
    z = np.arange(rows * cols).reshape(rows, cols) + 1j * np.arange(rows * cols)[::-1].reshape(
        rows, cols) - 2.5
    return z.astype(dtype)


def row_sums(z):
    acc = []
    for r in z:
        acc.append(r.sum())
    return acc


def scaled_rows(z, n):
    acc = []
    for i in range(n):
        acc.append(z[i] * (1 + 1j))
    return acc


def indexed_and_measured(z, n):
    acc = []
    for i in range(n):
        acc.append(z[i, 0])
    return acc[0], acc[-1], len(acc)


def iterated_back(z, n):
    acc = []
    for i in range(n):
        acc.append(z[i].sum() * 2)
    s = z[0, 0] * 0  # (0j would stay a Python complex after 0 trips)
    for v in acc:
        s = s + v
    return s


def stacked(z, n):
    acc = []
    for i in range(n):
        acc.append(z[i] - 1j)
    return np.array(acc), np.stack(acc), np.concatenate(acc)


def appended_in_branches(z, n):
    acc = []
    for i in range(n):
        if z[i, 0].real > 0:
            acc.append(z[i, 1])
        else:
            acc.append(-z[i, 2])
    if acc:
        acc.append(z[0, 0])
    return acc


def python_complex_items(z, n):
    acc = []
    for i in range(n):
        acc.append(complex(i, -i))
    return acc, len(acc)


def sliced(z, n):
    acc = []
    for i in range(n):
        acc.append(z[i, 1])
    return acc[1:], acc[::-1]


def row_views_appended(z, n):
    acc = []
    for i in range(n):
        acc.append(z[i])
    return acc


@pytest.mark.parametrize("dtype", DTYPES)
def test_list_of_row_sums(dtype):
    check(row_sums, _z(dtype))
    check(row_sums, _z(dtype, rows=0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 4])
def test_lists_built_in_loops(dtype, n):
    z = _z(dtype)
    check(scaled_rows, z, np.int64(n))
    check(appended_in_branches, z, np.int64(n))
    check(python_complex_items, z, np.int64(n))
    check(row_views_appended, z, np.int64(n))
    check(iterated_back, z, np.int64(n))
    if n:
        check(indexed_and_measured, z, np.int64(n))
        check(stacked, z, np.int64(n))
        check(sliced, z, np.int64(n))


def written_after_append(z, n):
    acc = []
    for i in range(n):
        acc.append(z[i])
    z[0] = 0
    return acc


def mixed_dtypes(z, n):
    acc = [z[0, 0]]
    for i in range(n):
        acc.append(z[i, 0].astype(np.complex64))
    return acc


def mixed_real(z, n):
    acc = []
    for i in range(n):
        acc.append(z[i, 0])
        acc.append(z[i, 0].real)
    return acc


@pytest.mark.parametrize("fn, match", [
    (written_after_append, "appended to a list built at run time"),
    (mixed_dtypes, "different types"),
    (mixed_real, "one type of item|differ in type"),
])
def test_refused(fn, match):
    with pytest.raises(pyonnx.ConversionError, match=match):
        pyonnx.compile(fn)(_z(np.complex128), np.int64(2))


def chosen_in_an_if(z, c):
    acc = [z[0, 0]] if c > 0 else []
    return acc, len(acc)


def returned_in_a_tuple_with_a_view(z, n):
    acc = []
    for i in range(n):
        acc.append(z[i, :2])
    return (acc, z[0])


@pytest.mark.parametrize("dtype", DTYPES)
def test_lists_chosen_in_an_if(dtype):
    for c in (1, -1):
        check(chosen_in_an_if, _z(dtype), np.int64(c))
    for n in (0, 2):
        check(returned_in_a_tuple_with_a_view, _z(dtype), np.int64(n))


def row_view_written_through_index(z, i):
    r = z[i]
    r[0] = 5
    r.imag[1] = -1
    return z


@pytest.mark.parametrize("dtype", DTYPES)
def test_row_of_a_run_time_index_is_a_view(dtype):
    # (z[i] with a run-time i was a copy before: the writes through r never reached z)
    for i in (0, 2, -1):
        check(row_view_written_through_index, _z(dtype), np.int64(i))


def conj_rows_then_write(z, n):
    acc = []
    for r in z:
        acc.append(r.conj())
    z[0] = 0
    return acc, z


@pytest.mark.parametrize("dtype", DTYPES)
def test_new_values_appended_are_not_the_arrays_memory(dtype):
    # (r.conj()'s real part is r's: appending it marked z's memory captured, and the write
    # into z was refused; found by a complex-only fuzz run)
    check(conj_rows_then_write, _z(dtype), np.int64(0))

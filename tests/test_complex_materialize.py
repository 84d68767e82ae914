"""Writes into a complex array made at conversion time that several names hold, or views of it
(lower/complex_materialize.py): numpy changes every array of that memory. Refused before."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check


def alias_in_place(z):
    a = np.zeros(3, complex)
    b = a
    b += z
    return a, b


def view_item(z):
    a = np.zeros(3, complex)
    b = a[1:]
    b[0] = z[0]
    return a, b


def transposed_and_listed(z):
    a = np.zeros((2, 3), np.complex64)
    b = a.T
    c = [a[0]]
    b[1] = z[:2]
    c[0] += 1j
    return a, b, c


def strided_view(z):
    a = np.zeros(4, complex)
    v = a[::2]
    v *= 2
    v[:] = z[:2]
    a[1] = 3
    return a, v


def zero_d(z):
    a = np.zeros((), complex)
    b = a
    b += z[0]
    return a, b


def dict_item(z):
    a = np.ones(3, np.complex64)
    d = {"u": a}
    d["u"][1] = z[1]
    return a, d


@pytest.mark.parametrize("fn", [alias_in_place, view_item, transposed_and_listed, strided_view,
                                zero_d, dict_item])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_write_reaches_every_holder(fn, dtype):
    check(fn, np.array([1 + 2j, 3, -1j], dtype))

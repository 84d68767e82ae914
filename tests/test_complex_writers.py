"""numpy's writing functions on complex arrays (complex_fill) and item assignment of lists with
complex items (complex_writes): ``z.fill``, ``z.put``, ``np.copyto(..., where=)``, ``np.put``,
``np.putmask``, ``np.place``, ``np.put_along_axis``, ``np.fill_diagonal``, ``z[idx] = [1j, 2]``;
each part written by the real writer, through views and into a complex argument (written
back). Oracle: tests/oracle.check, both complex dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

DTYPES = [np.complex64, np.complex128]


def writers(z, w, i):
    if i > 5:
        z.fill(3j)
    v = z[1:]
    v.put([0, 2], [1j, -2])
    np.copyto(w, 1 - 1j, where=w.real > 4)
    np.put(z, [0], 7j)
    np.putmask(w, w.imag > 8, w * 2)
    np.place(z, z.real > 2, [5j])
    np.put_along_axis(w, np.array([[0], [1], [2]]), 9j, axis=1)
    np.fill_diagonal(w, -1j)
    return z, w, v


def fills(z, w):
    o = np.zeros(3, z.dtype)
    o.fill(2 - 2j)
    w[1].fill(z[0])
    return o, w


def list_values(z, w, i):
    z[np.array([0, 2])] = [1j, 2]
    w[1, :2] = [z[1], 3]
    z[i] = complex(1, 2)
    return z, w


@pytest.mark.parametrize("dtype", DTYPES)
def test_writers(dtype):
    z = (np.arange(5) - 1j * np.arange(5)[::-1]).astype(dtype)
    w = (np.arange(12).reshape(3, 4) * (1 + 1j)).astype(dtype)
    check(writers, z, w, np.int64(2))
    check(writers, z, w, np.int64(7))
    check(fills, z, w)
    check(list_values, z, w, np.int64(3))


def copy_complex_into_real(x, z):
    np.copyto(x, z)
    return x


def test_complex_into_real_is_refused():
    with pytest.raises(pyonnx.ConversionError, match="imaginary") as info:
        pyonnx.compile(copy_complex_into_real)(np.zeros(3), np.ones(3) * 1j)
    assert info.value.lineno == copy_complex_into_real.__code__.co_firstlineno + 1

"""Writes into the parts of a complex array, ``z.real[...] = v`` and ``z.imag[...] = v``
(issue 11), against numpy: every index form, into an argument (the caller's array changes),
in a run-time loop; numpy's errors and the writes pyonnx refuses."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

C64, C128 = np.complex64, np.complex128


def part_writes(z, x):
    y = z * 2
    y.real[...] = 1.5
    w = z.copy()
    w.imag[:] = 0
    u = z + 0
    u.real[0] = x[0, 0]
    u.imag[1:, ::2] = x[:2]
    u.real[u.real > 0] = -x[1, 1]
    u.imag[[0, 2], 1] = 7
    return y, w, u


def into_argument(z, x):
    z.imag[0] = x
    z.real[-1, :] = 0.25
    return z.sum()


def in_loop(z, n):
    y = z.copy()
    for i in range(n):
        y.imag[i] = i * 1.5
    return y


def complex_value(z):
    y = z.copy()
    y.real[0] = 1j
    return y


def imag_of_real(x):
    y = x + 1
    y.imag[0] = 1.0
    return y


def view_held(z):
    y = z.copy()
    r = y.real
    y.real[0] = 2.0  # numpy shows it through r
    return r


def view_of_other_part_held(z):
    y = z.copy()
    r = y.real
    y.imag[0] = 2.0  # another buffer than r's: r is unchanged, as in numpy
    return r, y


@pytest.mark.parametrize("dtype", [C64, C128])
def test_part_writes(dtype):
    rng = np.random.default_rng(6)
    z = (rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))).astype(dtype)
    x = rng.normal(size=(3, 2)).astype(np.float32 if dtype == C64 else np.float64)
    check(part_writes, z, x)
    check(into_argument, z.copy(), x.ravel()[:4].copy())
    check(in_loop, z, 2)
    check(in_loop, z, 0)


def empty_writes(z):
    y = z.copy()
    y.real[...] = 1.0
    y.imag[:, ::2] = -1.0
    return y


def test_empty():
    check(empty_writes, np.zeros((3, 0), C128))
    check(empty_writes, np.zeros((0, 2), C64))


def test_refusals_at_the_line():
    z = np.ones((3, 2), C128)
    with pytest.raises(pyonnx.ConversionError, match="numpy raises TypeError") as info:
        pyonnx.compile(complex_value)(z)
    assert info.value.lineno == complex_value.__code__.co_firstlineno + 2
    with pytest.raises(pyonnx.ConversionError, match="read-only"):
        pyonnx.compile(imag_of_real)(np.ones(3))
    check(view_held, z)  # (refused before: r is an alias of y's real part buffer)
    check(view_of_other_part_held, z)

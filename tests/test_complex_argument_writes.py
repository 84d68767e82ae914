"""Writes into a complex argument inside a run-time ``if``/``for``/``while`` (issue 11): the
caller's array is written back with numpy's final contents, whatever path ran and whether the
function reads the argument afterwards; against numpy (tests/oracle.py compares the arguments
after the call), both complex dtypes, 0-, 1- and several-trip loops, special values."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

C64, C128 = np.complex64, np.complex128


def rc(rng, shape, dtype):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


def in_if(z, t):
    if t > 0:
        z[0] = 1j
    return t * 2


def in_if_else(z, t):
    if t > 0:
        z[1:] *= 2
    else:
        z.real[0] = -0.0
    return None


def in_loop(z, n):
    for i in range(n):
        z[i % 3] += 1 + 1j


def in_while(z, n):
    i = 0
    while i < n:
        z *= 1j
        i += 1


def in_if_in_loop(z, x):
    for v in x:
        if v > 0:
            z[0] = z[0] * v
        else:
            z.imag[1] = v
    return x.sum()


def after_early_return(z, t):
    if t < 0:
        return 0.0
    z[2] = complex(np.inf, -0.0)
    return 1.0


def loop_reads_back(z, n):
    s = z[0] * 0  # (a numpy scalar: a Python 0j would keep its type on 0 trips)
    for i in range(n):
        z[0] = z[0] * 2
        s = s + z[0]
    return s


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("t", [-1.0, 1.0])
def test_if(dtype, t):
    rng = np.random.default_rng(1)
    check(in_if, rc(rng, 3, dtype), np.float64(t))
    check(in_if_else, rc(rng, 3, dtype), np.float64(t))
    check(after_early_return, rc(rng, 4, dtype), np.float64(t))


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("n", [0, 1, 5])
def test_loops(dtype, n):
    rng = np.random.default_rng(n)
    tol = dict(rtol=2e-6, atol=2e-6) if dtype == C64 else {}
    check(in_loop, rc(rng, 3, dtype), np.int64(n), **tol)
    check(in_while, rc(rng, (2, 2), dtype), np.int64(n), **tol)
    check(loop_reads_back, rc(rng, 2, dtype), np.int64(n), **tol)
    check(in_if_in_loop, rc(rng, 2, dtype), rng.normal(size=n), **tol)


def alias_then_write(z, t):
    w = z
    if t > 0:
        z[0] = 1
    return w


def view_then_write(z, t):
    v = z[1:]
    if t > 0:
        z[0] = 1
    return v


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("t", [1.0, -1.0])
def test_shared_memory_written_in_if(dtype, t):
    # (refused before: the alias and the view now follow the argument's part buffers)
    z = rc(np.random.default_rng(2), 3, dtype)
    check(alias_then_write, z.copy(), np.float64(t))
    check(view_then_write, z.copy(), np.float64(t))

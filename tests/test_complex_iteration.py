"""``for v in z`` over complex arrays (issue 11), against numpy: 1-D items (numpy scalars),
rows of 2-D arrays, unrolled (short) and run-time (long) loops, enumerate/zip/reversed, both
complex dtypes, special values, arguments after the call; writes numpy would share with the
items are refused."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

C64, C128 = np.complex64, np.complex128
TOL = {C64: dict(rtol=2e-5, atol=2e-6), C128: dict(rtol=1e-12, atol=1e-13)}


def rc(rng, shape, dtype):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


def sum_items(z):
    s = 0j
    for v in z:
        s = s + v * v
    return s


def row_norms(z):
    out = np.zeros(z.shape[0], z.dtype)
    i = 0
    for row in z:
        out[i] = np.abs(row).sum() + row[0]  # (a write into another array while row lives)
        i += 1
    return out


def count_big(z):
    n = 0
    for v in z:
        if abs(v) > 1.0:
            n += 1
    return n


def enumerated(z, x):
    acc = np.zeros(z.shape[1:], z.dtype)
    for i, row in enumerate(z):
        acc = acc + row * i
    for a, b in zip(z, x):
        acc = acc - a * b[0]
    for row in reversed(z):
        acc = acc * 0.5 + row
    return acc


def item_copy_written(z):
    out = z.copy()
    for v in z:
        v += 1
        out = out + v
    return out, z


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("n", [0, 1, 5, 100])
def test_items(dtype, n):
    rng = np.random.default_rng(n)
    z = rc(rng, n, dtype)
    if n > 2:
        z[1] = complex(np.inf, 0.0)
        z[2] = complex(-0.0, np.nan)
    if n:  # (0 trips: numpy keeps the Python complex 0j, pyonnx the loop's dtype, as for reals)
        check(sum_items, z, **TOL[dtype])
    check(count_big, z)
    check(item_copy_written, z, **TOL[dtype])


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("n", [1, 4, 80])
def test_rows(dtype, n):
    rng = np.random.default_rng(n)
    check(row_norms, rc(rng, (n, 3), dtype), **TOL[dtype])
    check(enumerated, rc(rng, (n, 3), dtype), rng.normal(size=(n, 2)), **TOL[dtype])


def write_row(z):
    z = z.copy()
    for row in z:
        row[0] = 0
    return z


def write_while_looping(z):
    w = z.copy()
    for v in w:
        w[0] = v
    return w


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("n", [0, 1, 3, 100])
def test_writes_while_iterating(dtype, n):
    # (refused before: rows are views of the part buffers, items read as the loop reaches
    # them)
    z = rc(np.random.default_rng(1), (n, 2), dtype)
    check(write_row, z)
    check(write_while_looping, z[:, 0].copy())


def test_zero_d_refused():
    with pytest.raises(pyonnx.ConversionError, match="0-d"):
        pyonnx.compile(sum_items)(np.complex128(1 + 2j))

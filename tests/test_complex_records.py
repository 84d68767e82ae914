"""Lists of tuples built at run time whose tuples hold complex numbers (issue 13: the
``P.append((i, z[i]))`` idiom over complex arrays), against numpy: appended in loops and
run-time branches, len(), indexing, iteration, both complex dtypes, special values, empty
lists; what is refused (arrays as items: numpy's list would keep the array itself)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

C64, C128 = np.complex64, np.complex128
NAN, INF = np.nan, np.inf


def pairs(z):
    P = []
    for i in range(z.shape[0]):
        P.append((i, z[i]))
    n = len(P)
    last = P[-1][1] if P else z.sum() * 0
    acc = z.sum() * 0
    for _j, w in P:
        acc = acc + w * _j
    return n, last, acc


def filtered(z):
    P = []
    for i in range(z.shape[0]):
        if z[i].real > 0:
            P.append((z[i] * 2, i))
    s = z.sum() * 0
    k = 0
    for w, j in P:
        s = s + w
        k += j
    return len(P), s, k


def branch(z):
    if z.shape[0] > 2:
        P = [(0, z[0])]
    else:
        P = []
    out = z.sum() * 0
    if P:
        out = P[0][1]
    return out, len(P)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_records(dtype):
    z = np.array([1 - 2j, complex(NAN, -0.0), complex(-0.0, INF), 3 + 0.5j], dtype=dtype)
    for x in (z, z[:1], z[:0]):
        check(pairs, x)
        check(filtered, x)
        check(branch, x)


def returned(z):
    P = []
    for i in range(z.shape[0]):
        P.append((i, z[i]))
    return P


def array_items(z):
    P = []
    for i in range(z.shape[0]):
        P.append((i, z[i:]))
    return len(P)


def returned_python_complex(z):
    P = []
    for i in range(z.shape[0]):
        if z[i].real > 0:
            P.append((complex(z[i]), abs(z[i]), i))
    return P


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("fn", [returned, returned_python_complex])
def test_returned(fn, dtype):
    # a list of tuples, the complex field packed as a returned complex list is (refused before)
    z = np.array([1 - 2j, complex(NAN, -0.0), complex(-0.0, INF), 3 + 0.5j], dtype=dtype)
    for x in (z, z[:1], z[:0]):
        check(fn, x)


def test_refusals():
    z = np.array([1j, 2], C128)
    with pytest.raises(pyonnx.ConversionError, match="complex"):
        pyonnx.compile(array_items)(z)


def constants(z):
    P = []
    for i in range(z.shape[0]):
        P.append((i, 1.5j))
        if z[i].real > 0:
            P.append((i, -2j))
    s = 0j
    for _j, w in P:
        s = s + w
    return len(P), s


def mixed(z):
    P = []
    for i in range(z.shape[0]):
        P.append((i, 1.5j))
        P.append((i, z[i]))
    return len(P)


def test_constant_items():
    z = np.array([1 - 2j, -1, 3j, 4], C128)
    check(constants, z)
    check(constants, z[:0])
    with pytest.raises(pyonnx.ConversionError, match="type"):
        pyonnx.compile(mixed)(z)

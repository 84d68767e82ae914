"""np.r_[...] and np.c_[...] with complex items (issue 11), against numpy: complex arrays and
numbers next to real arrays, numbers and ranges, the axis directive, both complex dtypes,
special values and empty arrays."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check

C64, C128 = np.complex64, np.complex128
NAN, INF = np.nan, np.inf


def r_forms(z, x):
    return (np.r_[z, z], np.r_['-1', z, x], np.r_[z, 1j, 2.5, x[:1]], np.r_[0:3, z],
            np.r_[np.complex64(1 + 1j), z], np.r_[z[0], x])


def c_forms(z, x):
    return np.c_[z, x], np.c_[z, z], np.c_[x, z * 2]


def r_2d(m, y):
    return np.r_[m, m], np.r_['-1', m, y], np.c_[m, y], np.r_['0', m, y]


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("xdtype", [np.float32, np.int16, np.float64])
def test_r_c(dtype, xdtype):
    z = np.array([1 - 2j, complex(NAN, -0.0), complex(-0.0, INF)], dtype=dtype)
    x = np.array([3, -0.0 if xdtype != np.int16 else 0, 7], dtype=xdtype)
    check(r_forms, z, x)
    check(c_forms, z, x)
    m = np.array([[1j, 2], [complex(0, -0.0), complex(INF, NAN)]], dtype=dtype)
    check(r_2d, m, np.ones((2, 2), xdtype))


def empty_forms(z, x):
    return np.r_[z, x], np.c_[z, x]


@pytest.mark.parametrize("dtype", [C64, C128])
def test_empty(dtype):
    check(empty_forms, np.zeros(0, dtype), np.zeros(0))

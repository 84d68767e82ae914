"""A complex number that may still be None (issue 13: the "best = None" sentinel over complex
items), against numpy: loops that may run 0 times, an 'if' that binds it on one path only,
reads guarded by 'is None' tests, returned as it is (None where numpy returns None)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check

C64, C128 = np.complex64, np.complex128
NAN, INF = np.nan, np.inf


def running_max(z):
    best = None
    for i in range(z.shape[0]):
        v = z[i]
        if best is None or v >= best:
            best = v
    t = best if best is not None else z.sum() * 0
    return t


def running_min_iter(z):
    best = None
    for v in z:
        if best is None or not (best < v):
            best = v
    return z.sum() * 0 if best is None else best


def guarded(z, n):
    best = None
    if n > 2:
        for v in z:
            if best is None or v > best:
                best = v
    return best if best is not None else z.sum()


def returned(z):
    best = None
    for v in z:
        if best is None or v.real > best.real:
            best = v
    return best


def in_branch(z, n):
    best = None
    if n > 0:
        best = z[0] * 2
    return best


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("values", [
    [1 + 2j, 1 + 3j, 3 - 1j, -1j, 3 - 1j],
    [complex(NAN, 1), 2 + 0j, complex(1, NAN)],
    [complex(INF, -1), complex(-INF, 5), complex(-0.0, -0.0), 0j],
    [2j],
    [],
])
def test_running_extremes(dtype, values):
    z = np.array(values, dtype=dtype)
    check(running_max, z)
    check(running_min_iter, z)
    check(guarded, z, 3)
    check(guarded, z, 1)
    check(returned, z)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_bound_on_one_path(dtype):
    z = np.array([1 - 2j, complex(NAN, 0)], dtype=dtype)
    check(in_branch, z, 1)
    check(in_branch, z, 0)


def test_real_on_one_path_complex_on_other_is_refused():
    import pyonnx

    def f(z, x, n):
        best = None
        for v in z:
            if best is None or v > best:
                best = v
        if x[0] > n:
            best = x[0]
        return best

    # numpy's result type depends on the path (complex128 or float64): refused at the join
    with pytest.raises(pyonnx.ConversionError, match="complex"):
        pyonnx.compile(f)(np.array([1j], C128), np.array([1.0]), 2)

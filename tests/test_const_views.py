"""Conversion-time arrays that share memory, then written (lower/const_views.py, fuzz seeds
20001083, 20001250: refused as "shares memory with another array computed at conversion time
in a way pyonnx does not follow"). Their common base becomes one buffer and each array a view
of it at the positions numpy's strides give, so a write through any of them reaches the
others as in numpy."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def atleast_2d_then_base_written(a):
    t = np.ones(a.shape, dtype=np.uint32)
    v = t[...]
    w = np.atleast_2d(t)
    t[...] = np.positive(t) + 2
    return v, w, t + a.astype(np.uint32)


def split_then_written(a):
    t = np.arange(6.0)
    p, q = np.split(t, 2)
    q[1] = a[0]
    t[0] += a[1]
    return t, p, q


def transpose_and_slices(a):
    m = np.zeros((2, 3))
    mt = m.T
    c = m[:, ::2]
    mt[2, 1] = a[0]
    c[0, 1] += 1.0
    return m, mt, c


def zero_d_base(a):
    z = np.zeros(())
    v = z[...]
    z[()] -= a.sum()
    return z, v


def written_in_a_branch(a):
    t = np.ones(4)
    v = np.atleast_2d(t)[:, 1:]
    if a.sum() > 0:
        v[0, 0] = 9.0
    else:
        t[3] = -9.0
    return t, v


def written_in_a_loop(a, n):
    t = np.zeros(5)
    p, q = np.split(t, [2])
    for i in range(n):
        q[i % 3] += a[i % a.shape[0]]
        p[0] -= 1.0
    return t, p, q


@pytest.mark.parametrize("fn", [atleast_2d_then_base_written, split_then_written,
                                transpose_and_slices, zero_d_base,
                                written_in_a_branch])
@pytest.mark.parametrize("a", [np.array([1.5, -2.0, 3.0]), np.array([-4.0, 0.5])])
def test_conversion_time_views_are_written_as_numpy_does(fn, a):
    check(fn, a)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_written_in_a_loop(n):
    check(written_in_a_loop, np.array([1.0, -2.0, 0.5]), np.int64(n))


def read_only_view_kept(a):
    t = np.zeros(4)
    u = np.broadcast_to(t, (2, 4))
    t[1] = a[0]
    return u + a


def test_a_read_only_view_is_still_refused():
    with pytest.raises(pyonnx.ConversionError, match="computed at conversion time"):
        pyonnx.compile(read_only_view_kept)(np.ones(4))

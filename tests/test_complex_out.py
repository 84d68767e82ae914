"""``out=`` on reductions of complex arrays (complex_out): the result written into ``out``'s
memory (views and names of it see it, an argument is written back) and ``out`` returned.

Oracle: tests/oracle.check, both complex dtypes.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

DTYPES = [np.complex64, np.complex128]


def _z(dtype):
    return (np.arange(12.0).reshape(4, 3) - 1j * np.arange(12.0).reshape(4, 3)[::-1] + 0.5
            ).astype(dtype)


def sum_into_new(z):
    o = np.zeros(z.shape[1], z.dtype)
    r = np.sum(z, axis=0, out=o)
    return o, r


def methods_into_view(z):
    o = np.zeros((2, 4)) * z[0, 0]
    v = o[1]
    z.T.prod(axis=0, out=v)
    np.mean(z, axis=1, out=o[0])
    return o, v


def into_argument(z, o):
    np.sum(z, axis=1, out=o)
    return z.sum()


def accumulates_in_out_dtype(z):
    o = np.zeros(3, np.complex64)
    np.sum(z, axis=0, out=o)
    return o


def keepdims_into_out(z):
    o = np.ones((1, 3), z.dtype)
    np.sum(z, axis=0, keepdims=True, out=o)
    return o


@pytest.mark.parametrize("dtype", DTYPES)
def test_out(dtype):
    z = _z(dtype)
    check(sum_into_new, z)
    check(methods_into_view, z)
    check(into_argument, z, np.zeros(4, dtype))
    check(accumulates_in_out_dtype, z.astype(np.complex128))
    check(keepdims_into_out, z)


def into_real(z):
    o = np.zeros(3)
    np.sum(z, axis=0, out=o)
    return o


def wrong_rank(z):
    o = np.zeros((1, 3), z.dtype)
    np.sum(z, axis=0, out=o)
    return o


@pytest.mark.parametrize("fn, match", [(into_real, "Cannot cast"),
                                       (wrong_rank, "dimension")])
def test_refused(fn, match):
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(_z(np.complex128))
    assert info.value.lineno == fn.__code__.co_firstlineno + 2


def view_of_constant(z):
    o = np.zeros((2, 3), z.dtype)
    v = o[1]
    np.sum(z, axis=0, out=v)
    return o


def test_out_view_of_a_conversion_time_array_is_refused():
    with pytest.raises(pyonnx.ConversionError, match="conversion time") as info:
        pyonnx.compile(view_of_constant)(_z(np.complex128))
    assert info.value.lineno == view_of_constant.__code__.co_firstlineno + 3

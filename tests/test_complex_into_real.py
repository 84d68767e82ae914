"""Complex values assigned into real arrays (issue 11), against numpy: a numpy complex value
(array or scalar) stores its real part (numpy warns ComplexWarning), into a bool array its
truth; a Python complex is numpy's TypeError. Every index form, both complex dtypes, special
values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

C64, C128 = np.complex64, np.complex128
NAN, INF = np.nan, np.inf


def writes(x, z):
    x[np.array([0, 0])] = z[:1] ** 2
    x[1:3] = z[1:3]
    x[x > 100] = z[0]
    x[-1] = z[3] * 2
    x[...] = x + 0 * z[0].real
    return x


def into_bool(b, z):
    b[:] = z
    return b


def into_view(x, z):
    v = x[1:]
    v[0] = z[2]
    return x


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("xdtype", [np.float32, np.float64, np.int64, np.int16])
def test_real_part(dtype, xdtype):
    floats = np.dtype(xdtype).kind == "f"
    # (NaN and inf only into floats: their integer cast is undefined in numpy too)
    z = np.array([1.5 - 2j, complex(-0.0, 3), complex(NAN if floats else 7.25, 1), -4 + 1j],
                 dtype=dtype)
    x = np.arange(5).astype(xdtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        check(writes, x, z)
        check(into_view, x, z)
        check(into_bool, np.zeros(4, bool),
              np.array([0j, complex(0, -0.0), 1j, complex(NAN, 0)], dtype))


def python_complex(x):
    x[0] = 2 + 3j
    return x


def test_python_complex_is_refused():
    with pytest.raises(TypeError):
        python_complex(np.zeros(3))
    with pytest.raises(pyonnx.ConversionError, match="not 'complex'"):
        pyonnx.compile(python_complex)(np.zeros(3))

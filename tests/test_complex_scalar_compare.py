"""Python's < <= > >= on complex values as numpy evaluates them (issue 13): numpy scalars by
numpy's scalar code (``x.imag OP y.imag if x.real == y.real else x.real OP y.real``: a NaN
imaginary part does not stop a larger real part), arrays and 0-d array arguments by the ufunc
(False where an imaginary part is NaN); a loop-carried value that may be either fails at run
time where the two differ. Both complex dtypes, NaN/inf/±0 in either part."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

C64, C128 = np.complex64, np.complex128
NAN, INF = np.nan, np.inf


def scalars(z):
    return (z[0] > z[1], z[1] >= z[0], z[0] < z[1], z[0] <= z[2], z[2] > 0.5, z[0] >= 1,
            z[1] < np.complex64(2), [v > z[1] for v in z])


def arrays(z, w):
    return z > z[1], z[0] > w, w <= z[2], z >= w


@pytest.mark.parametrize("dtype", [C64, C128])
def test_scalar_and_array_comparisons(dtype):
    for values in ([complex(1, NAN), complex(-0.0, 0), complex(1, 2)],
                   [complex(INF, NAN), complex(-INF, NAN), complex(NAN, 1)],
                   [complex(2, 1), complex(2, NAN), complex(0.0, -0.0)]):
        z = np.array(values, dtype)
        check(scalars, z)
        check(arrays, z, np.array(complex(1.5, NAN), dtype))


def carried(z):
    best = z[0]
    for i in range(z.shape[0]):
        if z[i] > best:
            best = z[i] * 1
    return best


def test_loop_carried_value_is_checked_at_run_time():
    f = pyonnx.compile(carried)
    check(f, np.array([1 + 1j, 2 + 0j, 2 + 3j], C128))
    with pytest.raises(pyonnx.ExecutionError, match="refused"):
        f(np.array([1 + 1j, complex(2, NAN), complex(3, 0)], C128))

"""np.gradient of complex arrays (issue 11), against numpy: uniform and coordinate spacings,
axes, edge orders, both complex dtypes, inf/NaN/±0 in either part (numpy's complex division
and products by the real spacing give its NaNs)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

C64, C128 = np.complex64, np.complex128
NAN, INF = np.nan, np.inf


def grads(z):
    return (np.gradient(z), np.gradient(z, axis=1), np.gradient(z, 0.5, edge_order=2),
            np.gradient(z, 2.0, axis=0), np.gradient(z, np.array([0.0, 1.0, 3.0, 4.0]), axis=1),
            np.gradient(z, np.array([0.0, 1.0, 2.0, 3.0]), axis=-1, edge_order=2))


def grad_1d(z, x):
    return np.gradient(z), np.gradient(z, x), np.gradient(z, x, edge_order=2)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_gradient(dtype):
    z = np.array([[1 - 2j, 3j, complex(-0.0, 2), 4 + 1j],
                  [complex(INF, 1), 2, complex(1, NAN), 0.5 - 0.5j],
                  [2 + 2j, complex(0, -0.0), -1j, 7]], dtype=dtype)
    check(grads, z)
    x = np.array([0.0, 0.5, 2.0, 3.0, 3.5])
    check(grad_1d, np.array([1j, 2, complex(INF, 0), 3 - 1j, 5], dtype), x)
    check(grad_1d, np.array([1j, 2, 3 - 1j, 5, 6 + 6j], dtype), np.arange(5.0))


def test_complex_spacing_refused():
    def f(z):
        return np.gradient(z, 1j)

    with pytest.raises(pyonnx.ConversionError, match="complex spacings"):
        pyonnx.compile(f)(np.ones(4, C128))


def diffs(z, x):
    return (np.diff(z), np.diff(z, n=2), np.diff(z, axis=0), np.diff(z, prepend=1j),
            np.diff(z, append=x[:, :1], axis=1), np.diff(x, prepend=z[:, :1]),
            np.diff(z, n=0))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_diff(dtype):
    z = np.array([[1 - 2j, 3j, complex(-0.0, 2), 4 + 1j],
                  [complex(INF, 1), 2, complex(1, NAN), 0.5 - 0.5j],
                  [2 + 2j, complex(0, -0.0), -1j, 7]], dtype=dtype)
    x = np.array([[1.0, -0.0, 2.5, INF]] * 3)
    check(diffs, z, x)

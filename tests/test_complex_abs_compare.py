"""``abs(z) <op> t`` with a number ``t`` known at conversion time (complex_abs_compare: the
squared modulus against a threshold found at conversion time, no square root), against numpy:
both complex dtypes, both sides, all four orderings, values on the threshold, infinite and NaN
parts, and the Mandelbrot escape count that motivates it."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

C64, C128 = np.complex64, np.complex128
INF, NAN = np.inf, np.nan


def orderings(z):
    return np.abs(z) <= 2.0, np.abs(z) < 2.0, np.abs(z) > 2.0, np.abs(z) >= 2.0, \
        2.5 > abs(z), 2.5 <= np.abs(z), np.abs(z) > 0.1, np.absolute(z) <= 1e10


def reuses_abs(z):
    a = np.abs(z)
    return a > 2.0, a + 1, a <= 2.5


def escape_count(c):
    z = np.zeros_like(c)
    n = np.zeros(c.shape, np.int64)
    for _ in range(12):
        m = np.abs(z) <= 2.0
        z = np.where(m, z * z + c, z)
        n = n + m
    return n


def values(dtype):
    rng = np.random.default_rng(4)
    z = (rng.normal(size=40) + 1j * rng.normal(size=40)) * 1.5
    edge = [2, -2, 2j, -2j, 1.5 + 2j, 2.5, complex(-1.5, -2), complex(INF, NAN),
            complex(NAN, INF), complex(NAN, 1), complex(1, NAN), complex(-INF, 0),
            complex(0, -INF), complex(NAN, NAN), 0j, complex(-0.0, -0.0), 1e-200, 1e200j,
            complex(np.nextafter(2, 3), 0), complex(np.nextafter(2, 1), 0), 0.1, 0.1j]
    return np.concatenate([z, np.array(edge)]).astype(dtype)


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("fn", [orderings, reuses_abs])
def test_against_numpy(fn, dtype):
    check(fn, values(dtype))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_escape_count(dtype):
    x = np.linspace(-2, 0.5, 30)
    c = (x[:, None] + 1j * np.linspace(-1.2, 1.2, 20)[None, :]).astype(dtype)
    check(escape_count, c)


def test_no_square_root_in_the_model():
    model = pyonnx.compile(escape_count).to_onnx(np.zeros(4, C128))
    ops = {n.op_type for n in model.graph.node}
    assert "Sqrt" not in ops  # (the Divs left are np.where's signed-zero repair)

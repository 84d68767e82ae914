"""``acc = max(acc, x[i])`` loops (pyonnx/frontend/vectorize/extremes.py) through the plain
``ReduceMax`` behind an ``If``: Python's result (value, type, the sign of a zero, NaN skipped,
the start kept) for arrays large enough for the guard (>= 4096 elements or of run-time size),
with and without NaN, with zero extremes of either sign, empty and one-element ranges,
descending ranges, float32 and float64, constant and run-time starts."""

import math

import numpy as np
import pytest

import pyonnx
from tests.oracle import check, op_types


def run_max(x):
    m = -np.inf
    for i in range(len(x)):
        m = max(m, x[i])
    return m


def run_min_rev(x):
    m = np.inf
    for i in range(len(x) - 1, -1, -1):
        m = min(m, x[i])
    return m


def run_max_from(x, start):
    m = start
    for v in x:
        m = max(m, v)
    return m


def run_max_zero(x):
    m = 0.0
    for i in range(len(x)):
        m = max(m, x[i])
    return m


FNS = [run_max, run_min_rev, run_max_zero]


def data(dtype, n, seed=0):
    return (np.random.default_rng(seed + n).normal(size=n) * 10).astype(dtype)


def same(got, want):
    # Where no element wins, Python keeps its float start and pyonnx gives a numpy scalar of
    # the array's dtype (a data-dependent type, as on main before the guard): value and sign
    # only then.
    if type(want) is not float:
        assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, float) or isinstance(want, np.floating):
        if math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == want and math.copysign(1, got) == math.copysign(1, want)
    else:
        assert got == want


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", FNS)
def test_sizes(fn, dtype):
    c = pyonnx.compile(fn)
    for n in (0, 1, 2, 5000):
        x = data(dtype, n)
        same(c(x), fn(x))
    assert c.conversions == 1
    check(fn, data(dtype, 5000))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", FNS)
def test_nan_and_zero_extremes(fn, dtype):
    c = pyonnx.compile(fn)
    cases = []
    x = data(dtype, 5000)
    x[[0, 10, 4999]] = np.nan          # NaN never wins (the sum is NaN: the exact branch)
    cases.append(x)
    # All NaN: no element wins, Python keeps its float start; pyonnx gives a numpy scalar of
    # the array's dtype (the result type would depend on the data; as on main): values only.
    got, want = c(np.full(5000, np.nan, dtype)), fn(np.full(5000, np.nan, dtype))
    assert got == want
    z = -np.abs(data(dtype, 5000)) - 1  # all negative, then zeros of both signs on top
    z[100], z[200] = -0.0, 0.0
    cases.append(z)
    z2 = z.copy()
    z2[100], z2[200] = 0.0, -0.0
    cases.append(z2)
    cases.append(-z)
    cases.append(-z2)
    inf = data(dtype, 5000)
    inf[[7, 8]] = np.inf, -np.inf      # a NaN sum without a NaN
    cases.append(inf)
    for x in cases:
        same(c(x), fn(x))


def test_runtime_start():
    c = pyonnx.compile(run_max_from)
    x = data(np.float64, 5000)
    for start in (-1e9, 1e9, 0.0, -0.0, float("nan"), float(np.max(x))):
        same(c(x, start), run_max_from(x, start))
    z = -np.abs(x) - 1
    z[3] = 0.0
    same(c(z, -0.0), run_max_from(z, -0.0))


def test_guard_in_model_and_small_static_arrays_unchanged():
    c = pyonnx.compile(run_max)
    x = data(np.float64, 5000)
    types = op_types(c, x)
    assert "If" in types and "ReduceMax" in types and "Loop" not in types
    s = pyonnx.compile(run_max, static_shapes=True)
    small = data(np.float64, 10)
    assert "If" not in op_types(s, small)
    same(s(small), run_max(small))


def int_max(x):
    m = 0
    for i in range(len(x)):
        m = max(m, x[i])
    return m


def test_integers_keep_the_exact_form():
    x = np.random.default_rng(0).integers(-2 ** 40, 2 ** 40, 5000)
    c = check(int_max, x)
    assert "If" not in op_types(c, x)

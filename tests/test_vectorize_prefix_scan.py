"""Vectorized running maxima/minima of floats (pyonnx/frontend/vectorize/prefix_scan.py):
differential against the Python loop at lengths around the block (16), the static doubling
steps (1,024 values) and several Loop iterations beyond them (16,384+), NaN values (skipped by
Python's max, propagated by np.minimum) and a NaN start, ascending and descending loops."""

import numpy as np
import pytest

from pyonnx.frontend.vectorize.prefix_scan import BLOCK, STATIC
from tests import vectorize_kernels as K
from tests.oracle import check, op_types

FLOATS = [np.float32, np.float64]
LIMIT = BLOCK * 2 ** STATIC
SIZES = [1, 2, BLOCK - 1, BLOCK, BLOCK + 1, LIMIT - 1, LIMIT, LIMIT + 1, LIMIT + BLOCK + 1,
         5000, BLOCK * 2 ** (STATIC + 4) + 3]


def running_min(x):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = min(y[i - 1], x[i])
    return y


def blocked_scan_ran(c, *args):
    ops = op_types(c, *args)
    assert "Split" in ops, sorted(ops)  # the blocked scan ran


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
def test_running_extrema(n, dtype):
    x = np.random.default_rng(n).normal(size=n).astype(dtype)
    for fn in (K.running_max, running_min, K.running_min_reversed):
        blocked_scan_ran(check(fn, x), x)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [3, LIMIT + 5, 20000])
def test_nan_values(n, dtype):
    x = np.random.default_rng(n).normal(size=n).astype(dtype)
    x[n // 3] = np.nan
    x[-1] = np.nan
    for fn in (K.running_max, running_min, K.running_min_reversed):
        check(fn, x)
    x[0] = np.nan  # a NaN start stays NaN in Python's max too
    check(K.running_max, x)


@pytest.mark.parametrize("n", [LIMIT + 1, 20000])
def test_sorted_and_constant_inputs(n):
    check(K.running_max, np.arange(n, dtype=np.float64))          # every value a new maximum
    check(K.running_max, np.arange(n, 0, -1, dtype=np.float64))   # the first one wins
    check(running_min, np.full(n, 2.5, np.float32))

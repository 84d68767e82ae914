"""np.array_equiv against numpy: every dtype, mixed dtypes, broadcasting and non-broadcasting
shapes (known at conversion time, and run-time shapes from boolean masks), empty, 0-d and
size-1 arrays, Python scalars and lists, NaN placements (NaN is never equal)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64]


def equiv(a, b):
    return np.array_equiv(a, b), np.array_equiv(b, a)


def equiv_masked(a, b):
    # Rows picked at run time: the shapes are unknown when converting.
    return np.array_equiv(a[a[:, 0] > 0], b), np.array_equiv(b[b > 0], a[a[:, 0] > 0])


def equiv_constants(a):
    return np.array_equiv(a, [1, 1, 1]), np.array_equiv(2.0, a[0]), np.array_equiv([1, 2], [[1, 2]])


def _vals(shape, dtype, seed=9):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 3, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_and_broadcasting(dtype):
    a = _vals((2, 3), dtype)
    check(equiv, a, a.copy())
    check(equiv, a, a[0])                       # broadcasts; equal only if the rows repeat
    check(equiv, np.tile(a[:1], (4, 1)), a[0])  # broadcasts and equal
    check(equiv, a, a[:, :2])                   # does not broadcast
    check(equiv, a, _vals((1, 1), dtype))
    check(equiv, a[:0], a[0])                   # empty against a row: broadcasts, all() of none
    check(equiv, a[:0], a[:, :2])               # empty, not broadcasting
    check(equiv, _vals((), dtype), _vals((1,), dtype))
    check(equiv, _vals((1,), dtype), _vals((0,), dtype))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_nan_placements(dtype):
    for x in ([np.nan, 1.0], [1.0, np.nan], [np.nan, np.nan], [np.nan]):
        a = np.array(x, dtype)
        check(equiv, a, a.copy())
        check(equiv, a, np.array([1.0], dtype))


def test_mixed_dtypes_and_scalars():
    check(equiv, np.array([2**63, 5], np.uint64), np.array([-(2**63), 5]))
    check(equiv, np.array([-1], np.int8), np.array([2**64 - 1], np.uint64))
    check(equiv, np.array([1.5, 1.5], np.float32), 1.5)
    check(equiv, np.array([1, 1]), True)
    check(equiv, np.array([2**53 + 1]), np.array([2.0**53]))
    check(equiv_constants, np.ones(3))
    check(equiv_constants, np.array([2.0, 1.0, 1.0]))


@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_run_time_shapes(dtype):
    a = np.array([[1, 2, 3], [-1, 0, 0], [1, 2, 3]], dtype)
    for b in (np.array([1, 2, 3], dtype), np.array([1, 2], dtype), np.array([[1], [1]], dtype),
              np.array([[1, 2, 3]], dtype), np.array([[1, 2, 3]] * 2, dtype),
              np.array([[1, 2, 3]] * 3, dtype), np.zeros((0, 3), dtype), np.array(1, dtype)):
        check(equiv_masked, a, b)
    check(equiv_masked, -a, np.array([1, 2, 3], dtype))  # no row picked: (0, 3)

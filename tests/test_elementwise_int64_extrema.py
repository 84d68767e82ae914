"""int64 np.maximum/np.minimum/np.clip/builtin max run as onnxruntime's own Max/Min (exact since
onnxruntime 1.32; 1.31 compared the low 32-bit halves of equal high halves as signed numbers):
against numpy on boundary values (2**31, 2**32, the int64 extremes), every broadcast form, and
the lengths where onnxruntime's vectorized and scalar loops meet."""

import numpy as np
import pytest

import pyonnx
from tests.oracle import check, op_types

EDGES = np.array([2**31, 1, -1, 2**32, -2**31, 2**31 - 1, 2**63 - 1, -2**63, 0, 2**32 + 1,
                  -(2**32) - 1], np.int64)


def maximum(a, b):
    return np.maximum(a, b)


def minimum(a, b):
    return np.minimum(a, b)


def clip(a, lo, hi):
    return np.clip(a, lo, hi)


def clip_literal(a):
    return np.clip(a, -(2**31), 2**31)


def method_clip(a, hi):
    return a.clip(0, hi)


def _data(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    high = rng.integers(-2, 3, n) * 2**32
    return np.where(rng.random(n) < 0.3, rng.choice(EDGES, n),
                    high + rng.integers(-2**31, 2**31, n)).astype(np.int64)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 8, 9, 33, 1000])
def test_maximum_minimum_exact(n):
    a, b = _data(n, n), _data(n, n + 100)
    for fn in (maximum, minimum):
        check(fn, a, b)
        check(fn, a, np.int64(2**31))   # a 0-d operand
        check(fn, np.int64(1), a)
        if n:
            check(fn, a.reshape(-1, 1), b[: min(n, 5)])  # a 2-d broadcast
    assert "Max" in op_types(pyonnx.compile(maximum), a, b)


@pytest.mark.parametrize("n", [0, 1, 9, 1000])
def test_clip_exact(n):
    a = _data(n, n + 7)
    check(clip, a, np.int64(-(2**31)), np.int64(2**31))
    check(clip, a, np.int64(5), np.int64(-5))    # a_min > a_max: a_max everywhere
    check(clip_literal, a)
    check(method_clip, a, np.int64(2**32))


def test_edges_against_each_other():
    a = np.repeat(EDGES, len(EDGES))
    b = np.tile(EDGES, len(EDGES))
    check(maximum, a, b)
    check(minimum, a, b)

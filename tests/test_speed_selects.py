"""Integer selects as ``b + (a - b) * cond`` (elementwise/common.where_): np.where, np.clip,
np.maximum/np.minimum on int32/int64 (and uint64, selected through int64) keep numpy's values
exactly, extremes and wrapping differences included; tiny static shapes keep one Where."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

_INTS = (np.int32, np.int64, np.uint64, np.uint32, np.int8, np.uint8, np.int16)


def _extremes(dt, n, seed):
    info = np.iinfo(dt)
    rng = np.random.default_rng(seed)
    x = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    if n >= 4:
        x[:4] = [info.min, info.max, 0, 1 if info.min == 0 else -1]
    return x


@pytest.mark.parametrize("dt", _INTS)
@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_where_ints(dt, n):
    def f(c, a, b):
        return np.where(c, a, b)

    a, b = _extremes(dt, n, 1), _extremes(dt, n, 2)
    c = np.random.default_rng(3).random(n) < 0.5
    check(f, c, a, b)


@pytest.mark.parametrize("dt", _INTS)
def test_where_scalar_branches(dt):
    def f(a):
        return np.where(a > a[0], a, a[1]), np.where(a < 3, 3, a)

    check(f, _extremes(dt, 300, 4))


@pytest.mark.parametrize("dt", (np.int32, np.int64, np.uint64))
@pytest.mark.parametrize("n", [0, 1, 5, 999])
def test_clip_maximum_minimum_ints(dt, n):
    def f(a, b):
        return np.clip(a, 0, 100), np.maximum(a, b), np.minimum(a, b), a.clip(b[:1], None)

    a, b = _extremes(dt, n, 5), _extremes(dt, n, 6)
    if n:
        b[: n // 2] = a[: n // 2] ^ 1      # equal high halves, nearby low halves
        check(f, a, b)
    else:
        check(_clip_max, a, b)


def _clip_max(a, b):
    return np.clip(a, 0, 100), np.maximum(a, b)


def test_clip_2d_broadcast():
    def f(a, lo, hi):
        return np.clip(a, lo[:, None], hi)

    rng = np.random.default_rng(7)
    check(f, rng.integers(-1000, 1000, (40, 30)), rng.integers(-500, 0, 40),
          rng.integers(0, 500, 30))


def _relu(a):
    return np.where(a > 0, a, 0)


def _ops(fn, *args):
    model = pyonnx.compile(fn).to_onnx(*args)
    return [n.op_type for n in model.graph.node]


def test_large_int_select_avoids_where_small_static_keeps_it():
    big = _ops(_relu, np.arange(10))
    assert "Where" not in big and "Mul" in big
    small = pyonnx.compile(_relu, static_shapes=True)
    model = small.to_onnx(np.arange(10))
    assert [n.op_type for n in model.graph.node].count("Where") == 1

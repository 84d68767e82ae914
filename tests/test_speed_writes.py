"""Slice writes into freshly filled arrays (``y = np.zeros(n); y[a:b] = v``): the regions not
written are made anew at their own shapes (setitem_basic._filled_piece), so the whole filled
array is never materialized; and ``np.repeat`` by a small count as a Concat of copies.
Differential against numpy: bounds at both ends, empty and full ranges, broadcast values,
2-D regions, every dtype the fill takes."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def _tail(x):
    n = x.shape[0]
    y = np.zeros(3 * n)
    y[n:] = np.repeat(x, 2)
    return y


def _middle(x, a, b):
    y = np.full(x.shape[0] + 4, 7.5, dtype=x.dtype)
    y[a:b] = x[: max(0, min(b, y.shape[0]) - max(a, 0))] if a >= 0 else 0
    return y


def _head_scalar(x, k):
    y = np.ones((x.shape[0], 3), dtype=np.int32)
    y[:k] = 5
    return y, x


def _block(u):
    v = np.zeros_like(u)
    w = np.zeros(u.shape)
    w[1:-1, 1:-1] = u[1:-1, 1:-1] * 2.0
    v[2:, :1] = u[:-2, :1]
    return w, v


def _int_row(u, i):
    z = np.empty((u.shape[0], u.shape[1]))
    z[:] = 0.0
    z[i, 1:] = u[i, 1:]
    return z


@pytest.mark.parametrize("n", [0, 1, 2, 1000])
def test_repeat_into_tail(n):
    check(_tail, np.random.default_rng(n).normal(size=n))


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("a,b", [(0, 3), (2, 5), (-3, 100), (4, 2), (0, 0), (1, 4)])
def test_slice_write_into_full(dt, a, b):
    x = (np.arange(3) % 2).astype(dt)
    check(_middle, x, a, b)


@pytest.mark.parametrize("k", [0, 1, 3, 10, -1])
def test_head_write_scalar(k):
    check(_head_scalar, np.arange(4.0), k)


@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (2, 3), (5, 4), (40, 30)])
def test_block_writes(shape):
    check(_block, np.random.default_rng(1).normal(size=shape))


@pytest.mark.parametrize("i", [0, 2, -1])
def test_int_and_slice_write(i):
    check(_int_row, np.random.default_rng(2).normal(size=(3, 4)), i)


def test_zeros_not_materialized_whole():
    model = pyonnx.compile(_tail).to_onnx(np.zeros(4))
    ops = [n.op_type for n in model.graph.node]
    # One Pad of the written span with the fill value (setitem_fills.padded): the fill itself
    # is never made, whole or in regions.
    assert ops.count("Pad") == 1 and "ConstantOfShape" not in ops and "Concat" not in ops[-1:]


@pytest.mark.parametrize("r", [1, 2, 3, 8, 9])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_repeat_counts(r, axis):
    def rep(x):
        return np.repeat(x, r, axis=axis), x.repeat(r)

    check(rep, np.arange(12.0).reshape(3, 4))
    check(rep, np.zeros((0, 2), np.int32))


def test_repeat_small_count_is_concat():
    def rep2(x):
        return np.repeat(x, 2)

    ops = [n.op_type for n in pyonnx.compile(rep2).to_onnx(np.arange(5.0)).graph.node]
    assert "Concat" in ops and "Tile" not in ops

"""``np.argmax``/``np.argmin`` from ReduceMax behind the NaN guard
(frontend/numpy_calls/reductions/fast_argmax.py) and integer ``//``/``%`` of operands known to
be non-negative (elementwise/nonnegative.py), against numpy: ties (±0 included), infinities,
all -inf rows, NaN anywhere, every axis, keepdims, zero and negative divisors."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from tests.oracle import check


def args_all_axes(h):
    return (np.argmax(h, axis=0), np.argmax(h, axis=1), np.argmax(h, axis=2),
            np.argmin(h, axis=1), np.argmax(h, axis=-1, keepdims=True),
            h.argmin(axis=2, keepdims=True), np.argmax(h.reshape(h.shape[0], -1), axis=1))


def _cases(dtype):
    rng = np.random.default_rng(5)
    base = rng.integers(-3, 4, size=(6, 40, 30)).astype(dtype)   # many ties
    yield base
    h = base.copy()
    h[1] = 0.0
    h[1, :, ::2] = -0.0                                          # ±0 ties
    h[2] = -np.inf
    h[3, 5, :] = np.inf
    h[3, :, 7] = np.inf
    yield h
    for spot in [(0, 0, 0), (4, 39, 29), (5, 10, 3)]:
        n = h.copy()
        n[spot] = np.nan                                         # the guard's branch
        yield n
    yield np.full((6, 40, 30), -np.inf, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_argmax_argmin_every_axis(dtype):
    f = pyonnx.compile(args_all_axes)
    for h in _cases(dtype):
        check(f, h)


def test_argmax_static_shapes():
    f = pyonnx.compile(args_all_axes, static_shapes=True)
    for h in _cases(np.float32):
        check(f, h)


def test_argmax_empty_axis_still_raises():
    f = pyonnx.compile(args_all_axes)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        f(np.zeros((6, 0, 3000), np.float32))
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        args_all_axes(np.zeros((6, 0, 3000), np.float32))


def heatmap(h):
    k, rows, w = h.shape
    idx = np.argmax(h.reshape(k, -1), axis=1)
    return idx % w, idx // w, np.divmod(idx, w), idx % 7, idx // 7, idx % rows, idx // (w - w)


def test_heatmap_divmod_of_argmax():
    for h in _cases(np.float32):
        check(heatmap, h)
    check(heatmap, np.random.default_rng(1).normal(size=(3, 1, 5000)).astype(np.float32))


def heatmap_plain(h):
    k, rows, w = h.shape
    idx = np.argmax(h.reshape(k, -1), axis=1)
    return idx % w, idx // w


def test_heatmap_divmod_nodes():
    model = pyonnx.compile(heatmap_plain).to_onnx(np.zeros((17, 64, 48), np.float32))
    onnx.checker.check_model(model, full_check=True)
    ops = [n.op_type for n in model.graph.node]
    assert "ArgMax" not in ops          # only inside the NaN guard's branch
    assert "Xor" not in ops and "Less" not in ops   # no sign fix-ups of // and %


def int_divmod(a, b, s):
    return (a % b, a // b, np.argmax(a, axis=1) % s, np.argmax(a, axis=1) // s,
            np.arange(a.shape[1]) % s, np.arange(a.shape[1]) // s)


@pytest.mark.parametrize("s", [3, 0, -3, 1, -1])
def test_signed_divisors_keep_fixups(s):
    a = np.arange(-12, 12, dtype=np.int64).reshape(4, 6)
    b = np.array([5, -5, 1, -1, 7, 2], np.int64)
    check(int_divmod, a, b, s)
    check(int_divmod, a.astype(np.int32), b.astype(np.int32), np.int32(s))

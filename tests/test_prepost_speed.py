"""The cheaper lowerings the pre/post-processing benchmark asked for (issue 20), against numpy
with the sign of every zero, NaN and infinities: ``np.argmax``/``np.argmin``'s NaN rule behind
an ``If`` (frontend/numpy_calls/reductions/nan_guard.py), ``np.maximum(x, 0)`` as one Max and
``+ 0.0``, and ``np.clip``'s ties (numpy 2.4 keeps ``x``: ``np.clip(-0.0, 0, 1)`` is -0.0)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from tests.oracle import check

SPECIAL = np.array([-0.0, 0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 5.0, 1e-30, -1e-30])


def heatmap_argmax(h):
    k, rows, w = h.shape
    idx = np.argmax(h.reshape(k, -1), axis=1)
    return idx % w, idx // w, np.argmin(h, axis=2), h.argmax()


def _heatmaps(dtype, case: int):
    rng = np.random.default_rng(case)
    h = rng.normal(size=(5, 40, 30)).astype(dtype)
    if case == 1:
        h[3, 5, 7] = np.nan
    elif case == 2:
        h[3, 5, 7], h[4, 1, 1] = np.inf, -np.inf  # the guard's sum is NaN, the rule still holds
    elif case == 3:
        h[:, 0, 0] = np.nan
        h[2, 3, 3] = np.inf
    elif case == 4:
        h[1, 10, :] = np.nan
    elif case == 5:
        h[:] = np.nan
    return h


@pytest.mark.parametrize("case", range(6))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_argmax_nan_rule_behind_guard(dtype, case):
    check(heatmap_argmax, _heatmaps(dtype, case))


def test_argmax_guard_is_an_if_only_for_large_arrays():
    def ops(args):
        model = pyonnx.compile(heatmap_argmax).to_onnx(*args)
        return [n.op_type for n in model.graph.node]
    # symbolic sizes: the If (the NaN rule's ArgMax runs only inside it)
    assert ops([_heatmaps(np.float32, 0)]).count("If") == 3
    small = pyonnx.spec(np.float32, (2, 3, 4))
    assert "If" not in ops([small])  # known to be small: the rule inline


def test_argmax_empty_still_raises():
    f = pyonnx.compile(heatmap_argmax)
    with pytest.raises(Exception):
        f(np.zeros((0, 3, 4), np.float32))
    with pytest.raises(ValueError):
        heatmap_argmax(np.zeros((0, 3, 4), np.float32))


def max_zero(x):
    return np.maximum(x, 0.0), np.minimum(x, 0), np.maximum(x, np.array([0.0, 1.0, 2.0, 0.0]))


def clip_forms(x, w):
    return (np.clip(x, 0, w), x.clip(-0.0, w), np.clip(x, 0, None), np.clip(x, None, 0.0),
            np.clip(x + 0.0, w, 0.0), np.minimum(np.maximum(x, 0), w), np.maximum(0.0, x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_max_with_zero_bound_keeps_numpy_zero_signs(dtype):
    x = np.tile(SPECIAL, 4).astype(dtype).reshape(10, 4)
    check(max_zero, x)
    check(max_zero, x[::-1].copy())


@pytest.mark.parametrize("w", [0.0, -0.0, 3.0, np.nan])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_clip_ties_keep_x_like_numpy(dtype, w):
    x = np.tile(SPECIAL, 4).astype(dtype).reshape(10, 4)
    for xx in (x, x.T.copy(), x[:1, :1].copy()):
        check(clip_forms, xx, dtype(w))


def test_maximum_with_zero_constant_is_two_nodes():
    def f(x):
        return np.maximum(x, 0.0)
    model = pyonnx.compile(f).to_onnx(np.zeros(3))
    assert [n.op_type for n in model.graph.node] == ["Max", "Add"]
    onnx.checker.check_model(model, full_check=True)


def clip_array_bounds(x, lo, hi):
    return np.clip(x, lo, hi), np.clip(x, lo, 100.0), np.clip(x, lo[:1, :1], hi[:1, :1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clip_ties_with_array_bounds_keep_the_bound(dtype):
    x = np.tile([0.0, -0.0, -0.0, 0.0], 6).astype(dtype).reshape(6, 4)
    lo = np.tile([-0.0, 0.0, -0.0, 0.0], 6).astype(dtype).reshape(6, 4)
    check(clip_array_bounds, x, lo, -lo)
    check(clip_array_bounds, x, lo[:, :1].copy(), lo[:1].copy())

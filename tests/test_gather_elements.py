"""Lookups from 1-D data as ``GatherElements`` (pyonnx/passes/gather_elements.py), against
numpy: color maps, audio framing, NMS-style gathers inside a while loop, negative indices,
out-of-range indices (numpy raises: so does the compiled function, at the line), empty,
one-element and many-element index arrays of ranks 1 to 3, every dtype."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check, op_types


def color_map(mask, palette):
    rgb = np.zeros((mask.shape[0], mask.shape[1], 3), dtype=np.uint8)
    rgb[:, :, 0] = palette[:, 0][mask]
    rgb[:, :, 1] = palette[:, 1][mask]
    rgb[:, :, 2] = palette[:, 2][mask]
    return rgb


def framing(signal, frame_length, frame_step):
    num_frames = 1 + (signal.shape[0] - frame_length) // frame_step
    indices = (np.arange(frame_length)[None, :]
               + (np.arange(num_frames) * frame_step)[:, None])
    return signal[indices] * np.hamming(frame_length)


def lookup(table, idx):
    return table[idx], np.take(table, idx), table[idx[..., ::-1]]


def nms(boxes, scores, thresh):
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    areas = (x2 - x1) * (y2 - y1)
    order = scores.argsort()[::-1]
    keep = []
    while order.size > 0:
        i = order[0]
        keep.append(i)
        xx1 = np.maximum(x1[i], x1[order[1:]])
        yy1 = np.maximum(y1[i], y1[order[1:]])
        xx2 = np.minimum(x2[i], x2[order[1:]])
        yy2 = np.minimum(y2[i], y2[order[1:]])
        inter = np.maximum(0.0, xx2 - xx1) * np.maximum(0.0, yy2 - yy1)
        ovr = inter / (areas[i] + areas[order[1:]] - inter)
        order = order[np.where(ovr <= thresh)[0] + 1]
    return keep


@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (3, 5), (64, 48)])
def test_color_map(shape):
    rng = np.random.default_rng(0)
    mask = rng.integers(0, 21, shape)
    palette = rng.integers(0, 255, (21, 3)).astype(np.uint8)
    f = check(color_map, mask, palette)
    assert "GatherElements" in op_types(f, mask, palette)


@pytest.mark.parametrize("n", [400, 401, 1000, 4000])
def test_framing(n):
    check(framing, np.random.default_rng(n).normal(size=n), 400, 160, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int64, np.uint16,
                                   np.bool_, np.float16])
@pytest.mark.parametrize("idx_shape", [(0,), (1,), (7,), (2, 3), (2, 0), (2, 2, 3)])
def test_lookup_dtypes_and_ranks(dtype, idx_shape):
    rng = np.random.default_rng(3)
    table = (rng.random(9) * 50).astype(dtype)
    idx = rng.integers(-9, 9, idx_shape)  # negative indices count from the end
    check(lookup, table, idx)


def test_special_values_kept():
    table = np.array([-0.0, 0.0, np.nan, np.inf, -np.inf])
    check(lookup, table, np.array([[0, 1], [2, 3], [4, -5]]))


@pytest.mark.parametrize("bad", [9, -10])
def test_out_of_range_fails_at_the_line(bad):
    table = np.arange(9.0)
    with pytest.raises(IndexError):
        lookup(table, np.array([[1, bad]]))
    with pytest.raises(pyonnx.PyonnxError, match="return table"):
        pyonnx.compile(lookup)(table, np.array([[1, bad]]))


@pytest.mark.parametrize("n", [0, 1, 2, 60])
def test_nms_gathers_in_loop(n):
    rng = np.random.default_rng(n)
    xy = rng.random((n, 2)) * 100
    boxes = np.concatenate([xy, xy + 5 + rng.random((n, 2)) * 30], axis=1).astype(np.float32)
    scores = rng.permutation(n).astype(np.float32)
    check(nms, boxes, scores, 0.3)


def test_scalar_index_left_as_gather():
    def pick(table, i):
        return table[i] * 2

    ops = op_types(pyonnx.compile(pick), np.arange(5.0), 3)
    assert "GatherElements" not in ops

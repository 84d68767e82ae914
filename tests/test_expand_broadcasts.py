"""Row-vector broadcasts expanded before the op (pyonnx/passes/expand_broadcasts.py), against
numpy: channel-last normalization, box scaling, pairwise IoU, each with empty, one-row and
many-row inputs, spans below and above the threshold, and operands numpy cannot broadcast."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.passes.expand_broadcasts import _plan
from pyonnx.passes.static_dims import broadcast
from tests.oracle import check, op_types


def normalize(img, mean, std):
    x = (img.astype(np.float32) / 255.0 - mean) / std
    return x.transpose(2, 0, 1)[None]


def scale_boxes(boxes, w, h):
    return boxes * np.array([w, h, w, h], dtype=boxes.dtype)


def offset_boxes(boxes, off):
    out = boxes + off
    out -= off  # an in-place op on the same operands
    return out, boxes - off, off - boxes, boxes > off, np.maximum(boxes, off)


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = np.clip(rb - lt, 0, None)
    inter = wh[:, :, 0] * wh[:, :, 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def int_ops(x, row):
    return x + row, x * row, x // np.maximum(row, 1), x & row, x == row


def _boxes(n, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    xy = rng.random((n, 2)) * 600
    return np.concatenate([xy, xy + 1 + rng.random((n, 2)) * 80], axis=1).astype(dtype)


@pytest.mark.parametrize("shape", [(0, 0, 3), (1, 1, 3), (1, 5, 3), (7, 9, 3), (4, 4, 1),
                                   (3, 2, 70)])
def test_normalize_channel_last(shape):
    rng = np.random.default_rng(1)
    img = rng.integers(0, 255, shape, dtype=np.uint8)
    c = shape[-1]
    check(normalize, img, rng.random(c).astype(np.float32),
          (rng.random(c) + 0.1).astype(np.float32))


def test_normalize_scalar_like_mean():
    # mean of length 1 broadcast over 3 channels: the span is 1, the op broadcasts it itself
    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    check(normalize, img, np.array([0.5], np.float32), np.array([0.25], np.float32))


@pytest.mark.parametrize("n", [0, 1, 2, 500])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scale_boxes(n, dtype):
    boxes = _boxes(n, dtype=dtype)
    f = check(scale_boxes, boxes, 640.0, 480.0)
    assert "Expand" in op_types(f, boxes, 640.0, 480.0)  # span 4, known: expanded


@pytest.mark.parametrize("n", [0, 1, 3, 300])
def test_offset_boxes_special_values(n):
    boxes = _boxes(n)
    if n:
        boxes[0, :] = [np.nan, -0.0, np.inf, -np.inf]
    off = np.array([-0.0, 0.0, np.nan, 2.5], np.float32)
    check(offset_boxes, boxes, off)


@pytest.mark.parametrize("n,m", [(0, 0), (0, 5), (1, 1), (1, 7), (20, 30)])
def test_box_iou(n, m):
    a, b = _boxes(n, 1), _boxes(m, 2)
    check(box_iou, a, b, rtol=1e-5)


def test_box_iou_uses_expand():
    a, b = _boxes(4, 1), _boxes(5, 2)
    assert "Expand" in op_types(pyonnx.compile(box_iou), a, b)


@pytest.mark.parametrize("c", [2, 64, 65, 300])
def test_int_rows(c):
    rng = np.random.default_rng(c)
    x = rng.integers(-50, 50, (6, c))
    row = rng.integers(-5, 5, c)
    check(int_ops, x, row)


def test_cannot_broadcast_fails_like_numpy():
    # (5, 4) * (3,): numpy raises ValueError; the compiled function raises too
    def mul(x, row):
        return x * row

    with pytest.raises(ValueError):
        mul(np.ones((5, 4), np.float32), np.ones(3, np.float32))
    # at the user's line, in pyonnx's words (the failing node carries the op's location)
    with pytest.raises(pyonnx.PyonnxError, match=r"return x \* row"):
        pyonnx.compile(mul)(np.ones((5, 4), np.float32), np.ones(3, np.float32))


def test_arguments_not_mutated_inside_loop_body():
    def per_row(x, row):
        acc = np.zeros_like(x)
        for i in range(3):
            acc = acc + x * row * i
        return acc

    check(per_row, np.arange(12.0).reshape(3, 4), np.array([1.0, 2.0, 3.0, 4.0]))


def test_plan_cases():
    # (k innermost dims, static span) or None
    assert _plan((3,), (None, None, 3)) == (1, True)
    assert _plan((None,), (None, None, None)) == (1, False)
    assert _plan((None, 1), (None, 4)) is None  # column broadcast: Expand is slow there
    assert _plan((4,), (None, 1)) is None  # x repeats along its last axis itself
    assert _plan((256,), (None, 256)) is None  # long spans: direct is faster
    assert _plan((None, 4), (None, 4)) is None  # no broadcast axis
    assert _plan((None, 1, 2), (1, None, 2)) == (1, True)  # a[:, None, :2] vs b[None]
    assert _plan((1,), (None, None)) is None
    assert _plan(None, (None,)) is None


def test_static_broadcast():
    assert broadcast([(None, 1), (1, 5)]) == (None, 5)
    assert broadcast([(3,), (None, None, 3)]) == (None, None, 3)
    assert broadcast([(1,), ()]) == (1,)
    assert broadcast([(None,), (1,)]) == (None,)


def where_rows(x, keep, fill):
    return np.where(keep, x, fill), np.where(x > 0.5, keep * 1.0, x), np.where(keep, fill, x)


@pytest.mark.parametrize("n", [0, 1, 50])
def test_where_row_vectors(n):
    rng = np.random.default_rng(n)
    x = rng.random((n, 3))
    keep = np.array([True, False, True])
    fill = np.array([-0.0, np.nan, 7.0])
    f = check(where_rows, x, keep, fill)
    assert "Expand" in op_types(f, x, keep, fill)

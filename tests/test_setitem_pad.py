"""Slice writes into a fill (``np.zeros``/``np.full`` of a run-time or a static shape) as one
``Pad`` (frontend/lower/setitem_fills.py ``padded``), against numpy: letterbox canvases with
run-time offsets (in range, at the edges, beyond, negative), every dtype Pad runs and one it
does not (float16: the Concat form), signed zeros and NaN fills, broadcast values, and values
numpy cannot broadcast. Empty, one-pixel and full-size images."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check, op_types


def letterbox(img, top, left):
    canvas = np.full((64, 64, 3), 114, dtype=np.uint8)
    h, w = img.shape[0], img.shape[1]
    canvas[top:top + h, left:left + w] = img
    return canvas


def letterbox_dynamic(img, size, top, left, fill):
    canvas = np.full((size, size, img.shape[2]), fill, dtype=img.dtype)
    h, w = img.shape[0], img.shape[1]
    canvas[top:top + h, left:left + w] = img
    return canvas


def zeros_rows(x, a):
    out = np.zeros((x.shape[0] + 10, x.shape[1]), dtype=x.dtype)
    out[a:a + x.shape[0]] = x
    return out


def zeros_row_int(v, i):
    out = np.zeros((5, v.shape[0]), dtype=v.dtype)
    out[i, 1:] = v[1:]
    return out


def broadcast_write(v):
    out = np.full((6, 4), -0.0)
    out[1:4, 1:3] = v
    return out


@pytest.mark.parametrize("shape,top,left", [((48, 64, 3), 8, 0), ((1, 1, 3), 0, 0),
                                            ((0, 64, 3), 10, 0), ((64, 64, 3), 0, 0),
                                            ((4, 14, 3), 60, 50), ((10, 20, 3), -20, -30)])
def test_letterbox(shape, top, left):
    img = np.random.default_rng(0).integers(0, 255, shape, dtype=np.uint8)
    f = check(letterbox, img, top, left)
    assert "Pad" in op_types(f, img, top, left)


def test_letterbox_value_beyond_canvas_raises():
    # rows 60..70 of a 64-row canvas: numpy cannot broadcast (10, 20, 3) into (4, 20, 3)
    img = np.zeros((10, 20, 3), np.uint8)
    with pytest.raises(ValueError):
        letterbox(img, 60, 0)
    with pytest.raises(pyonnx.PyonnxError):
        pyonnx.compile(letterbox)(img, 60, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int16, np.int32,
                                   np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                                   np.bool_, np.float16])
def test_letterbox_dtypes(dtype):
    rng = np.random.default_rng(1)
    img = (rng.random((5, 7, 2)) * 100).astype(dtype)
    check(letterbox_dynamic, img, 9, 2, 1, dtype(1))


@pytest.mark.parametrize("fill", [-0.0, 0.0, np.nan, np.inf])
def test_float_fills(fill):
    img = np.random.default_rng(2).random((3, 4, 1))
    img[0, 0, 0] = -0.0
    check(letterbox_dynamic, img, 6, 1, 2, fill)


@pytest.mark.parametrize("n,a", [(0, 0), (1, 3), (4, 10), (4, 6), (4, -5)])
def test_zeros_rows(n, a):
    x = np.arange(n * 3, dtype=np.float32).reshape(n, 3) + 1
    check(zeros_rows, x, a)


@pytest.mark.parametrize("i", [0, 4, -1, -5])
def test_zeros_row_int_index(i):
    check(zeros_row_int, np.arange(1, 5, dtype=np.int64), i)


def test_zeros_row_int_index_out_of_range():
    with pytest.raises(IndexError):
        zeros_row_int(np.arange(4), 5)
    with pytest.raises(pyonnx.PyonnxError):
        pyonnx.compile(zeros_row_int)(np.arange(4), 5)


@pytest.mark.parametrize("v", [np.float64(2.5), np.array([1.0, -0.0]), np.array([[3.0], [4.0],
                                                                                 [5.0]])])
def test_broadcast_values(v):
    check(broadcast_write, v)

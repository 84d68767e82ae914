"""ColumnsFromTransposePass: column reads rewritten to read a transposed copy (ONNX text:
fires or not, same results), and end to end on the column-write family of box converters
(differential with numpy: values, dtypes, arguments after the call)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.passes.columns_from_transpose import ColumnsFromTransposePass
from pyonnx.passes.remove_unused import RemoveUnusedPass
from tests.oracle import check
from tests.passes.helpers import checked, model, ops, same_results

CONSTS = """
    <int64 k = {K}, int64[1] s = {START}, int64[1] e = {9223372036854775807},
     int64[1] ax = {AXIS}, int64[1] st = {STEP}>
"""


def rewritten(text: str, **subs):
    for key, value in {"K": 2, "START": 0, "AXIS": 1, "STEP": 1, **subs}.items():
        text = text.replace(key, str(value))
    m = model(text)
    before = checked(m)
    result = ColumnsFromTransposePass()(m)
    RemoveUnusedPass()(m)
    after = checked(m)
    return result.modified, ops(m), before, after


def test_a_column_gather_reads_a_row_of_the_transposed_copy():
    text = "g (float[N,4] x) => (float[N] y, float[4,N] t)" + CONSTS + """{
        y = Gather <axis = 1> (x, k)
        t = Transpose <perm = [1, 0]> (x)
    }"""
    modified, got, before, after = rewritten(text)
    assert modified and got == ["Transpose", "Gather"]  # (the Transpose moved before it)
    node = [n for n in after.graph.node if n.op_type == "Gather"][0]
    assert node.input[0] == "t" and node.attribute[0].i == 0
    same_results(before, after)


@pytest.mark.parametrize("k", [0, 3, -1, -4])
def test_negative_axis_and_index(k):
    text = "g (float[N,4] x) => (float[N] y, float[4,N] t)" + CONSTS + """{
        t = Transpose <perm = [1, 0]> (x)
        y = Gather <axis = -1> (x, k)
    }"""
    modified, _, before, after = rewritten(text, K=k)
    assert modified
    same_results(before, after)


def test_rank3_moves_only_when_the_other_axes_keep_their_order():
    keep = "g (float[A,B,3] x) => (float[A,B] y, float[3,A,B] t)" + CONSTS + """{
        t = Transpose <perm = [2, 0, 1]> (x)
        y = Gather <axis = 2> (x, k)
    }"""
    modified, _, before, after = rewritten(keep)
    assert modified
    same_results(before, after)
    swapped = keep.replace("[2, 0, 1]", "[2, 1, 0]").replace("float[3,A,B] t", "float[3,B,A] t")
    modified, _, _, _ = rewritten(swapped)
    assert not modified


def test_no_rewrite_without_a_matching_transpose_or_constant_index():
    other_axis = "g (float[N,4] x) => (float[4] y, float[4,N] t)" + CONSTS + """{
        t = Transpose <perm = [1, 0]> (x)
        y = Gather <axis = 0> (x, k)
    }"""
    assert not rewritten(other_axis)[0]
    no_transpose = "g (float[N,4] x) => (float[N] y)" + CONSTS + """{
        y = Gather <axis = 1> (x, k)
    }"""
    assert not rewritten(no_transpose)[0]
    runtime_index = "g (float[N,4] x, int64 i) => (float[N] y, float[4,N] t)" + CONSTS + """{
        t = Transpose <perm = [1, 0]> (x)
        y = Gather <axis = 1> (x, i)
    }"""
    assert not rewritten(runtime_index)[0]


@pytest.mark.parametrize("start,step", [(0, 2), (1, 2), (1, 1), (3, -1)])
def test_a_last_axis_slice_of_an_array_with_a_transposed_copy(start, step):
    text = "g (float[N,4] x) => (float[N,?] y, float[4,N] t)" + CONSTS + """{
        t = Transpose <perm = [1, 0]> (x)
        y = Slice (x, s, e, ax, st)
    }"""
    if step < 0:
        text = text.replace("9223372036854775807", "-9223372036854775807")
    modified, got, before, after = rewritten(text, START=start, STEP=step)
    assert modified and got.count("Transpose") == 2 and "Slice" in got
    same_results(before, after)


def test_a_last_axis_slice_of_a_transpose():
    text = "g (float[4,N] t) => (float[N,?] y)" + CONSTS + """{
        x = Transpose <perm = [1, 0]> (t)
        y = Slice (x, s, e, ax, st)
    }"""
    modified, got, before, after = rewritten(text, START=1, STEP=2)
    assert modified and got == ["Slice", "Transpose"]
    same_results(before, after)
    first_axis = text.replace("ax = {AXIS}", "ax = {0}")
    assert not rewritten(first_axis, START=1, STEP=2)[0]


def test_transposes_around_elementwise_ops_with_scalars_cancel():
    text = "g (float[4,N] r, float sc) => (float[4,N] y)" + CONSTS + """{
        t = Transpose <perm = [1, 0]> (r)
        d = Div (t, sc)
        u = Sub (sc, d)
        y = Transpose <perm = [1, 0]> (u)
    }"""
    modified, got, before, after = rewritten(text)
    assert modified and got == ["Div", "Sub"]
    same_results(before, after)


def test_transposes_stay_around_a_broadcast_or_a_shared_value():
    broadcast = "g (float[4,N] r, float[1,N] sc) => (float[4,N] y)" + CONSTS + """{
        t = Transpose <perm = [1, 0]> (r)
        d = Div (t, sc)
        y = Transpose <perm = [1, 0]> (d)
    }"""
    assert not rewritten(broadcast)[0]
    shared = "g (float[4,N] r, float sc) => (float[4,N] y, float[N,4] d)" + CONSTS + """{
        t = Transpose <perm = [1, 0]> (r)
        d = Div (t, sc)
        y = Transpose <perm = [1, 0]> (d)
    }"""
    assert not rewritten(shared)[0]
    rank3 = "g (float[2,3,N] r, float sc) => (float[N,3,2] y)" + CONSTS + """{
        t = Transpose <perm = [2, 0, 1]> (r)
        d = Div (t, sc)
        y = Transpose <perm = [2, 0, 1]> (d)
    }"""
    assert not rewritten(rank3)[0]


@pytest.mark.parametrize("start,end,fires", [(0, 1, True), (1, 2, True), (0, 2, True),
                                               (-1, 3, True), (0, 3, False), (2, 2, False)])
def test_a_shape_of_a_transpose_reads_the_input(start, end, fires):
    text = "g (float[A,B,C] r) => (int64[?] y)" + """{
        t = Transpose <perm = [1, 2, 0]> (r)
        y = Shape <start = START, end = END> (t)
    }"""
    text = text.replace("START", str(start)).replace("END", str(end))
    m = model(text)
    before = checked(m)
    modified = ColumnsFromTransposePass()(m).modified
    RemoveUnusedPass()(m)
    after = checked(m)
    assert modified == fires and (ops(m) == ["Shape"]) == fires
    same_results(before, after)


def color_map(mask, palette):
    rgb = np.zeros((mask.shape[0], mask.shape[1], 3), dtype=np.uint8)
    rgb[:, :, 0] = palette[:, 0][mask]
    rgb[:, :, 1] = palette[:, 1][mask]
    rgb[:, :, 2] = palette[:, 2][mask]
    return rgb


@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (6, 5)])
def test_channel_writes_keep_one_transposed_copy(shape):
    mask = rng.integers(0, 4, shape)
    palette = rng.integers(0, 255, (4, 3)).astype(np.uint8)
    f = check(color_map, mask, palette)
    nodes = [n.op_type for n in f.to_onnx(mask, palette).graph.node]
    # (at most the write chain's two: column reads inside If bodies are no longer rewritten,
    # fuzz seed 26004079, and the chain then keeps one)
    assert nodes.count("Transpose") <= 2


# ---------------------------------------------------------------- end to end
def xywh2xyxy(x):
    y = np.copy(x)
    y[:, 0] = x[:, 0] - x[:, 2] / 2
    y[:, 1] = x[:, 1] - x[:, 3] / 2
    y[:, 2] = x[:, 0] + x[:, 2] / 2
    y[:, 3] = x[:, 1] + x[:, 3] / 2
    return y


def xyxy2xywh(x):
    y = x.copy()
    y[:, 0] = (x[:, 0] + x[:, 2]) / 2
    y[:, 1] = (x[:, 1] + x[:, 3]) / 2
    y[:, 2] = x[:, 2] - x[:, 0]
    y[:, 3] = x[:, 3] - x[:, 1]
    return y


def negative_columns(x):
    y = x.copy()
    y[:, -1] = x[:, -4] + x[:, -1]
    y[:, -4] = y[:, -1] * 2  # reads the column just written
    return y


def scale_coords(coords, gain, pad_w, pad_h, w, h):
    coords = coords.copy()
    coords[:, 0] -= pad_w
    coords[:, 2] -= pad_w
    coords[:, 1] -= pad_h
    coords[:, 3] -= pad_h
    coords[:, :4] /= gain
    coords[:, 0] = coords[:, 0].clip(0, w)
    coords[:, 1] = coords[:, 1].clip(0, h)
    coords[:, 2] = coords[:, 2].clip(0, w)
    coords[:, 3] = coords[:, 3].clip(0, h)
    return coords


def clip_boxes(boxes, w, h):
    boxes = boxes.copy()
    boxes[..., 0::2] = boxes[..., 0::2].clip(0, w)
    boxes[..., 1::2] = boxes[..., 1::2].clip(0, h)
    return boxes


def in_place(boxes, dx):
    """Writes into the argument (the caller sees it) and reads it back."""
    boxes[:, 0] += dx
    boxes[:, 2] += dx
    return boxes[:, 2] - boxes[:, 0]


def through_a_view(boxes, s):
    """Writes through a view of the argument: the argument changes."""
    xy = boxes[:, :2]
    xy[:, 1] = xy[:, 0] * s
    xy[:, 0] = boxes[:, 3]
    return boxes[:, 1] + xy[:, 0]


FLOATS = [np.float32, np.float64]
NUMBERS = [np.float32, np.float64, np.int32, np.int64]
rng = np.random.default_rng(1)


def boxes(n, dtype, width=4):
    return (rng.random((n, width)) * 100 - 20).astype(dtype)


@pytest.mark.parametrize("fn", [xywh2xyxy, xyxy2xywh, negative_columns])
@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", [0, 1, 7])
def test_box_converters(fn, dtype, n):
    check(fn, boxes(n, dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [0, 1, 9])
@pytest.mark.parametrize("width", [4, 6])
def test_scale_coords(dtype, n, width):
    t = dtype
    check(scale_coords, boxes(n, dtype, width), t(0.5), t(3.0), t(-2.0), t(50.0), t(40.0))


def test_scale_coords_nan_and_signed_zeros():
    b = np.array([[np.nan, -0.0, 0.0, 3.0], [1.0, np.nan, -5.0, 60.0]], np.float32)
    t = np.float32
    check(scale_coords, b, t(1.0), t(0.0), t(0.0), t(50.0), t(np.nan))
    check(scale_coords, b, t(-1.0), t(-0.0), t(0.0), t(0.0), t(-0.0))


@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", [0, 1, 9])
def test_clip_boxes(dtype, n):
    check(clip_boxes, boxes(n, dtype), dtype(30), dtype(20))


def test_clip_boxes_nan_and_odd_widths():
    b = np.array([[np.nan, -0.0, 70.0], [0.0, np.nan, -3.0]], np.float64)
    check(clip_boxes, b, 50.0, 0.0)
    check(clip_boxes, boxes(5, np.float32, 5), np.float32(30), np.float32(np.nan))
    check(clip_boxes, boxes(5, np.float32, 1), np.float32(30), np.float32(10))


@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", [0, 1, 5])
def test_writes_into_the_argument(dtype, n):
    check(in_place, boxes(n, dtype), dtype(3))
    check(through_a_view, boxes(n, dtype), dtype(2))


def test_rank3_channels_and_the_transposed_copy():
    def channels(z, v):
        z = z.copy()
        z[:, :, 0] = v
        z[:, :, 2] = z[:, :, 1] - z[:, :, 0]
        return z[:, :, 1] + z[..., 2]
    check(channels, rng.random((3, 4, 3)), rng.random((3, 4)))
    check(channels, rng.random((0, 4, 3)), rng.random((0, 4)))


def test_column_reads_use_no_strided_slice():
    f = pyonnx.compile(xyxy2xywh)
    x = boxes(10, np.float32)
    model = f.to_onnx(x)
    transposes = [n for n in model.graph.node if n.op_type == "Transpose"]
    assert len(transposes) == 2  # in once, out once
    assert not [n for n in model.graph.node if n.op_type in ("Slice", "Reshape")]

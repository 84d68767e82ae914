"""Box-column code on symbolic shapes (issue 20): chains of column writes, strided column
slices, clip against run-time bounds, column reads inside an NMS loop, argmax by ``TopK`` and
``//``/``%`` of non-negative indices, each against numpy (values, dtype, shape, the sign of
zeros, NaN and infinities, numpy's errors) and with the lowering it is for checked on the
model."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from tests import prepost_kernels
from tests.oracle import check
from tests.passes.test_columns_from_transpose import clip_boxes, scale_coords

SPECIAL = np.array([-0.0, 0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 5.0, 700.0, -3.5],
                   np.float32)


def clip_reversed(boxes, w):
    boxes = boxes.copy()
    boxes[..., ::-2] = boxes[..., ::-2].clip(-1, w)
    return boxes


def _boxes(n: int, cols: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    b = (rng.random((n, cols)) * 900 - 100).astype(np.float32)
    if n:
        b.reshape(-1)[: min(b.size, SPECIAL.size)] = SPECIAL[: min(b.size, SPECIAL.size)]
    return b


@pytest.mark.parametrize("n", [0, 1, 7, 300])
@pytest.mark.parametrize("cols", [4, 6])
def test_scale_coords_on_symbolic_shapes(n, cols):
    f32 = np.float32
    for bounds in [(f32(640), f32(480)), (f32(np.nan), f32(480)), (f32(-0.0), f32(np.inf))]:
        check(scale_coords, _boxes(n, cols), f32(0.5), f32(12), f32(80), *bounds)


def test_scale_coords_three_columns_raises_numpys_index_error():
    f32 = np.float32
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 1 with size 3"):
        pyonnx.compile(scale_coords)(_boxes(5, 3), f32(1), f32(0), f32(0), f32(9), f32(9))


def test_scale_coords_transposes_once_and_clips_without_if():
    f32 = np.float32
    args = (_boxes(10, 4), f32(0.5), f32(12), f32(80), f32(640), f32(480))
    model = pyonnx.compile(scale_coords).to_onnx(*args)
    ops = [n.op_type for n in model.graph.node]
    # the Transposes of the column writes cancel across coords[:, :4] /= gain (its Reshape to
    # the array's own shape dropped): one in, one out
    assert "If" not in ops and ops.count("Transpose") == 2 and "Reshape" not in ops, ops


@pytest.mark.parametrize("n", [0, 1, 5, 1000])
@pytest.mark.parametrize("cols", [1, 2, 3, 4, 5])
def test_clip_boxes_on_symbolic_shapes(n, cols):
    f32 = np.float32
    b = _boxes(n, cols, seed=cols)
    for w, h in [(f32(600), f32(500)), (f32(np.nan), f32(5)), (f32(3), f32(-0.0))]:
        check(clip_boxes, b, w, h)
        check(clip_reversed, b, w)
    check(clip_boxes, b.reshape(1, n, cols), f32(600), f32(500))


def test_clip_boxes_reads_columns_without_scatters():
    f32 = np.float32
    model = pyonnx.compile(clip_boxes).to_onnx(_boxes(8, 4), f32(6), f32(5))
    ops = [n.op_type for n in model.graph.node]
    assert "If" not in ops, ops


def test_clip_against_a_nan_bound_is_nan_everywhere_and_keeps_zero_signs():
    def clip(x, lo, hi):
        return np.clip(x, lo, hi), x.clip(lo, hi)

    x = np.concatenate([SPECIAL, -SPECIAL]).astype(np.float32)
    for dtype in (np.float16, np.float32, np.float64):
        for lo, hi in [(0.0, 1.0), (-0.0, 0.0), (np.nan, 1.0), (0.0, np.nan), (-np.inf, np.inf),
                       (2.0, 1.0)]:
            check(clip, x.astype(dtype), dtype(lo), dtype(hi))
            check(clip, x.astype(dtype).reshape(4, 5), np.array(lo, dtype), np.array(hi, dtype))


def nms_per_class(boxes, scores, labels, thresh):
    return prepost_kernels.nms_per_class(boxes, scores, labels, 3, thresh)


def _detections(n: int, seed: int = 0, cols: int = 4):
    rng = np.random.default_rng(seed)
    xy = rng.random((n, 2)) * 200
    boxes = np.concatenate([xy, xy + 20 + rng.random((n, 2)) * 80], axis=1)
    if cols > 4:
        boxes = np.concatenate([boxes, rng.random((n, cols - 4))], axis=1)
    scores = rng.permutation(n).astype(np.float32) / max(n, 1)
    return boxes.astype(np.float32), scores, rng.integers(0, 3, n)


@pytest.mark.parametrize("n", [0, 1, 2, 40, 300])
def test_nms_per_class_reads_columns_of_a_transposed_copy(n):
    boxes, scores, labels = _detections(n, seed=n)
    check(nms_per_class, boxes, scores, labels, 0.5)
    check(nms_per_class, *_detections(n, seed=n, cols=6), 0.3)


def test_nms_loop_columns_come_from_one_transpose():
    model = pyonnx.compile(nms_per_class).to_onnx(*_detections(30), 0.5)
    loops = [n for n in model.graph.node if n.op_type in ("Loop", "Scan")]
    assert loops
    for loop in loops:
        body = next(a.g for a in loop.attribute if a.type == onnx.AttributeProto.GRAPH)
        column_reads = [n for n in body.node if n.op_type == "Gather" and
                        any(a.name == "axis" and a.i != 0 for a in n.attribute)]
        assert not column_reads, [n.name for n in column_reads]
    assert any(n.op_type == "Transpose" for n in model.graph.node)


def loop_columns(boxes, n):
    total = np.float32(0)
    i = 0
    while i < n:  # (a real Loop: the break depends on the running total)
        total = total + boxes[i, 0] * boxes[i, 5]
        if total > 1e30:
            break
        i += 1
    return total


def test_loop_column_out_of_range_fails_only_when_the_loop_runs():
    boxes = _boxes(4, 3)
    f = pyonnx.compile(loop_columns)
    check(loop_columns, boxes, np.int64(0))  # numpy never reads column 5: no error
    # (the peeled first iteration's GatherND fails first: onnxruntime's message names no
    # axis, so it stays an ExecutionError at the line; a later iteration's is numpy's)
    with pytest.raises((IndexError, pyonnx.ExecutionError), match="index.* 5"):
        f(boxes, np.int64(2))
    for n in (1, 2, 4):
        check(loop_columns, _boxes(4, 6), np.int64(n))
    model = f.to_onnx(_boxes(4, 6), np.int64(3))
    assert any(n.op_type == "Transpose" for n in model.graph.node)


# ---------------------------------------------------------------- fixed trailing dimensions
# A model exported for (N, 4) boxes (pyonnx.spec) or compiled with static_shapes: the column
# writes cover every column, so they become one Concat (passes/scatter_rows.py, a strided
# column slice read row by row: passes/unit_row_slices.py).
def _static_check(fn, *args):
    from tests.oracle import assert_same

    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    f = pyonnx.compile(fn, static_shapes=True)
    assert_same(f(*args), want)
    return f


@pytest.mark.parametrize("n", [0, 1, 9])
def test_static_columns_become_one_concat(n):
    f32 = np.float32
    for bounds in [(f32(640), f32(480)), (f32(np.nan), f32(-0.0))]:
        f = _static_check(scale_coords, _boxes(n, 4), f32(0.5), f32(12), f32(80), *bounds)
        g = _static_check(clip_boxes, _boxes(n, 4), *bounds)
        _static_check(clip_reversed, _boxes(n, 5), bounds[0])
    for compiled, args in ((f, (_boxes(n, 4), f32(0.5), f32(12), f32(80), f32(1), f32(1))),
                           (g, (_boxes(n, 4), f32(1), f32(1)))):
        ops = [node.op_type for node in compiled.to_onnx(*args).graph.node]
        assert "ScatterND" not in ops and "ScatterElements" not in ops, ops


def test_exported_box_model_with_named_rows():
    f32 = np.float32
    model = pyonnx.compile(clip_boxes).to_onnx(pyonnx.spec("float32", ("N", 4)),
                                               pyonnx.spec("float32", ()),
                                               pyonnx.spec("float32", ()))
    onnx.checker.check_model(model, full_check=True)
    import onnxruntime as ort

    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in (0, 3, 50):
        b = _boxes(n, 4)
        names = [i.name for i in sess.get_inputs()]
        got = sess.run(None, dict(zip(names, [b, np.array(f32(7)), np.array(f32(-0.0))])))[0]
        want = clip_boxes(b, f32(7), f32(-0.0))
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    ops = [n.op_type for n in model.graph.node]
    assert "ScatterND" not in ops and ops.count("Transpose") <= 2, ops

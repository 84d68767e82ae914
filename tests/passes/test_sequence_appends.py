"""SequenceAppendsPass: a list of numbers appended to in a loop is carried as a 1-D tensor.

On ONNX text (fires, keeps the list's items and order; does not fire when the body does
anything else with the list), then end to end against numpy: NMS forms with empty, one-box
and many-box inputs, tied scores, IoU exactly at the threshold; the reads of the list that
become tensor reads (``len``, ``lst[-1]``, ``np.array``, slices, indexing, truth)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from pyonnx.passes.sequence_appends import SequenceAppendsPass
from tests.oracle import check, op_types
from tests.passes.helpers import checked, model, ops

LOOP = """
g (int64[N] x, int64 n) => (seq(int64[]) out)
    <int64 zero = {0}, int64[1] one = {1}>
{
    empty = SequenceEmpty <dtype = 7> ()
    cond = Constant <value = bool {1}> ()
    out = Loop (n, cond, empty) <body = body (int64 i, bool c, seq(int64[]) s) =>
                                        (bool c_out, seq(int64[]) s_out) {
        c_out = Identity (c)
        v = Gather <axis = 0> (x, i)
        BODY
    }>
}
"""


def _run(proto: onnx.ModelProto, feeds: dict) -> list:
    import onnxruntime as ort

    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _same_lists(before, after, feeds):
    want, got = _run(before, feeds), _run(after, feeds)
    for w, g in zip(want, got):
        assert type(w) is type(g)
        if isinstance(w, list):
            assert len(w) == len(g)
            for a, b in zip(w, g):
                assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
        else:
            assert w.dtype == g.dtype and w.shape == g.shape and np.array_equal(w, g)


@pytest.mark.parametrize("body,concats", [
    ("s_out = SequenceInsert (s, v)", 0),  # one append per iteration: a scan output
    ("w = Add (v, v)\n        t = SequenceInsert (s, v)\n        s_out = SequenceInsert (t, w)", 2),
])
def test_appends_in_a_loop_become_tensors(body, concats):
    m = model(LOOP.replace("BODY", body))
    before = checked(m)
    assert SequenceAppendsPass()(m).modified
    after = checked(m)
    got = ops(m)
    assert "SequenceInsert" not in got and "SequenceEmpty" not in got
    assert got.count("Concat") == concats and got.count("SplitToSequence") == 1
    loop = next(n for n in m.graph if n.op_type == "Loop")
    assert len(loop.outputs) == 1 and len(loop.inputs) == 2 + (concats > 0)
    x = np.arange(10, 20, dtype=np.int64)
    for n in (0, 1, 7):
        _same_lists(before, after, {"x": x, "n": np.array(n, np.int64)})


@pytest.mark.parametrize("body", [
    # the body reads the list: not only appended to
    "k = SequenceLength (s)\n        w = Add (v, k)\n        s_out = SequenceInsert (s, w)",
    # an item that is not 0-d
    "w = Unsqueeze (v, one)\n        s_out = SequenceInsert (s, w)",
    # an append at a position
    "s_out = SequenceInsert (s, v, zero)",
])
def test_other_uses_of_the_list_are_left_alone(body):
    m = model(LOOP.replace("BODY", body))
    assert not SequenceAppendsPass()(m).modified
    assert "SequenceInsert" in ops(m)


# ------------------------------------------------------------------- end to end, numpy oracle
def nms(boxes, scores, thresh):
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    areas = (x2 - x1) * (y2 - y1)
    order = np.argsort(-scores, kind="stable")
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


def nms_reads(boxes, scores, thresh, k):
    keep = nms(boxes, scores, thresh)
    if not keep:
        return boxes[:0], 0, -1
    top = keep[:k]
    return boxes[top], len(keep), keep[-1]


def nms_array(boxes, scores):
    keep = nms(boxes, scores, 0.5)
    kept = np.array(keep, dtype=np.int64)
    boxes[kept, 0] += 1.0  # the argument written through the kept list
    return kept


def per_class(boxes, scores, labels):
    keep = []
    for c in range(3):
        idx = np.where(labels == c)[0]
        order = idx[np.argsort(-scores[idx], kind="stable")]
        while order.size > 0:
            i = order[0]
            keep.append(i)
            rest = order[1:]
            xx1 = np.maximum(boxes[i, 0], boxes[rest, 0])
            xx2 = np.minimum(boxes[i, 2], boxes[rest, 2])
            order = rest[xx2 - xx1 <= 0]
    return keep


def counted(x):
    out = []
    for v in x:
        out.append(v * 2)
    return out


def conditional(x):
    out = []
    for v in x:
        if v > 0:
            out.append(v)
    return out


def boxes_and_scores(n, ties=False, seed=0):
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 60, (n, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(5, 40, (n, 2))], axis=1).astype(np.float32)
    scores = (rng.integers(0, 3, n) / 3 if ties else rng.permutation(n) / max(n, 1))
    return boxes, scores.astype(np.float32)


@pytest.mark.parametrize("n", [0, 1, 2, 60])
@pytest.mark.parametrize("ties", [False, True])
def test_nms_forms(n, ties):
    boxes, scores = boxes_and_scores(n, ties, seed=n)
    check(nms, boxes, scores, 0.3)
    check(nms_reads, boxes, scores, 0.3, 3)
    check(nms_array, boxes, scores)
    labels = np.random.default_rng(n).integers(0, 3, n)
    check(per_class, boxes, scores, labels)


def test_loops_carry_tensors():
    boxes, scores = boxes_and_scores(5)
    labels = np.arange(5) % 3
    for fn, args in ((nms, (boxes, scores, 0.3)), (nms_reads, (boxes, scores, 0.3, 3)),
                     (per_class, (boxes, scores, labels)), (counted, (np.arange(3.0),))):
        found = op_types(pyonnx.compile(fn), *args)
        assert not {"SequenceInsert", "SequenceEmpty"} & found, fn
        # a for loop appending once per iteration carries nothing: a Scan (LoopToScanPass)
        assert ("Scan" if fn is counted else "Loop") in found, (fn, found)


def test_iou_exactly_at_the_threshold():
    # IoU of the first box with each other box: 0.5 exactly, then just above and just below.
    boxes = np.array([[0, 0, 4, 1], [0, 0, 2, 1], [0, 0, 4, 1], [2, 0, 6, 1], [0, 0, 3, 1]],
                     np.float64)
    scores = np.array([0.9, 0.8, 0.8, 0.7, 0.6])
    for thresh in (0.5, np.nextafter(0.5, 0), np.nextafter(0.5, 1), 0.75):
        check(nms, boxes, scores, thresh)


@pytest.mark.parametrize("x", [np.zeros(0), np.array([1.5]), np.array([-1.0, 2.0, -0.0, 3.0])])
def test_for_loops_appending(x):
    check(counted, x)
    check(conditional, x)


def nms_at_most(boxes, scores, thresh, max_out):
    order = np.argsort(-scores, kind="stable")
    keep = []
    while len(order) > 0:
        i = order[0]
        keep.append(i)
        if len(keep) >= max_out:  # the body reads the list after appending: left a sequence
            break
        ovr = np.minimum(boxes[i, 2], boxes[order[1:], 2]) - np.maximum(boxes[i, 0],
                                                                         boxes[order[1:], 0])
        order = order[1:][ovr <= thresh]
    return np.array(keep, dtype=np.int64)


def kept_as_array(boxes, scores):
    keep = nms(boxes, scores, 0.3)
    return np.asarray(keep)  # float64 when empty in numpy: fails at run time then


@pytest.mark.parametrize("n", [0, 1, 30])
def test_list_read_in_the_body_and_empty_np_array(n):
    boxes, scores = boxes_and_scores(n, seed=11)
    for max_out in (1, 3, 100):
        check(nms_at_most, boxes, scores, 0.0, max_out)
    if n:
        check(kept_as_array, boxes, scores)
    else:
        with pytest.raises(pyonnx.ExecutionError, match="ConcatFromSequence"):
            pyonnx.compile(kept_as_array)(boxes, scores)


def pairs_of_small_ints(a0, a1):
    # (fuzzer seed 44000312: a uint32 list; onnxruntime has no uint32 SplitToSequence)
    t2 = a1.flat[-1:]
    P10 = []
    for i11 in range(t2.shape[0]):
        P10.append((i11, t2[i11]))
    for _j, _w in P10:
        pass
    return _w


@pytest.mark.parametrize("dtype", [np.uint32, np.int8, np.uint8, np.int16, np.uint64, np.bool_])
def test_lists_of_every_dtype(dtype):
    check(pairs_of_small_ints, np.zeros((3, 1, 3), np.float16), np.array([0, 1, 5]).astype(dtype))
    check(counted, np.array([1, 0, 3]).astype(dtype))

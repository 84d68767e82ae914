"""UnobservedZeroSignsPass: numpy's exact sign of a ``±0`` tie in ``maximum``/``minimum`` is
kept where something can see it and dropped where nothing can; results against numpy with
zeros of both signs in every position (the oracle compares the sign of every zero)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from pyonnx.passes.zero_signs import MARK, UnobservedZeroSignsPass
from tests.oracle import check
from tests.passes.helpers import model

ZEROS = [np.array([0.0, -0.0, 0.0, -0.0, 1.5, -2.0, np.nan, 0.0]),
         np.array([-0.0, 0.0, 0.0, -0.0, -0.0, 3.0, 1.0, np.inf])]


def _ifs(compiled, *args) -> int:
    def walk(graph: onnx.GraphProto) -> int:
        n = 0
        for node in graph.node:
            n += node.op_type == "If"
            n += sum(walk(a.g) for a in node.attribute if a.type == onnx.AttributeProto.GRAPH)
        return n
    return walk(compiled.to_onnx(*args).graph)


def widths(a, b):
    return np.maximum(a, b) - np.minimum(a, b) + 1.0   # x ± 1: the zero's sign is gone


def compared(a, b):
    return (np.maximum(a, b) <= 0) & (np.minimum(a, b) == 0)


def overlap(a, b):
    inter = np.maximum(0.0, np.minimum(a, b))
    return inter / (np.abs(a) + np.abs(b) - inter) <= 0.5   # n / (s - n): NaN either way


def returned(a, b):
    return np.maximum(a, b)


def reciprocal(a, b):
    return 1.0 / np.maximum(a, b)   # ±inf: the sign is seen


def sum_then_divide(a, b):
    return 1.0 / (np.maximum(a, b) + np.minimum(a, b))


def in_denominator_of_other(a, b):
    m = np.minimum(a, b)
    return a / (b - m)   # not n / (s - n): the sign of b - m is seen


@pytest.mark.parametrize("fn,dropped", [
    (widths, True), (compared, True), (overlap, True),
    (returned, False), (reciprocal, False), (sum_then_divide, False),
    (in_denominator_of_other, False),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_zero_sign_picks_against_numpy(fn, dropped, dtype):
    a, b = (x.astype(dtype) for x in ZEROS)
    compiled = check(fn, a, b)
    check(fn, b, a)
    if dropped:
        assert _ifs(compiled, a, b) == 0
    else:
        assert _ifs(compiled, a, b) > 0


def nms_widths(boxes, i):
    x1, x2 = boxes[:, 0], boxes[:, 2]
    xx1 = np.maximum(x1[i], x1)
    xx2 = np.minimum(x2[i], x2)
    w = np.maximum(0.0, xx2 - xx1 + 1)
    return w * 2.0 > 1.0


def test_box_arithmetic_in_loops_and_mixed_zeros():
    boxes = np.array([[0.0, 0, -0.0, 1], [-0.0, 0, 0.0, 2], [-1.0, 0, -0.0, 1]], np.float32)
    for i in range(3):
        compiled = check(nms_widths, boxes, i)
    assert _ifs(compiled, boxes, 0) == 0


TEXT = """
g (float[N] a, float[N] b) => (OUT)
    <float one = {1.0}>
{
    m = Max (a, b)
    flag = Constant <value = bool {1}> ()
    pick = If (flag) <then_branch = t () => (float[N] x) { x = Min (a, b) },
                     else_branch = e () => (float[N] y) { y = Identity (m) }>
    USE
}
"""


@pytest.mark.parametrize("out,use,dropped", [
    ("bool[N] r", "r = Less (pick, one)", True),
    ("float[N] r", "r = Add (pick, one)", True),
    ("float[N] r", "r = Div (one, pick)", False),
    ("float[N] pick", "", False),
    ("float[N] r", "r = Pow (pick, one)", False),
])
def test_uses_that_see_or_not(out, use, dropped):
    m = model(TEXT.replace("OUT", out).replace("USE", use))
    if_node = next(n for n in m.graph if n.op_type == "If")
    assert not UnobservedZeroSignsPass()(m).modified  # unmarked: never touched
    if_node.meta[MARK] = True
    assert UnobservedZeroSignsPass()(m).modified is dropped
    assert any(n.op_type == "If" for n in m.graph) is not dropped

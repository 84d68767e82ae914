"""DropSameShapeExpandsPass: an Expand to its input's own shape reads the input.

On ONNX text (dropped or kept, same results) and end to end (column writes with values that
do and do not broadcast, differential with numpy).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.passes.remove_unused import RemoveUnusedPass
from pyonnx.passes.same_shape_expands import DropSameShapeExpandsPass
from tests.oracle import check
from tests.passes.helpers import checked, model, ops, same_results

CONSTS = ("<int64 k = {1}, int64[1] zero = {0}, int64[1] one = {1}, float two = {2}, "
          "int64[1,1] ix = {2}>")


def rewritten(text: str):
    m = model(text)
    before = checked(m)
    result = DropSameShapeExpandsPass()(m)
    RemoveUnusedPass()(m)
    after = checked(m)
    return result.modified, ops(m), before, after


COLUMN = "g (float[N,4] x) => (float[4,N] y)" + CONSTS + """{
    t = Transpose <perm = [1, 0]> (x)
    c = Gather <axis = 0> (t, k)
    d = Div (c, two)
    u = Unsqueeze (d, zero)
    n = Shape <start = 0, end = 1> (x)
    target = Concat <axis = 0> (one, n)
    e = Expand (u, target)
    y = ScatterND (t, ix, e)
}"""


def test_a_column_value_is_not_expanded():
    modified, got, before, after = rewritten(COLUMN)
    assert modified and "Expand" not in got and "Shape" not in got
    same_results(before, after)


def test_a_value_that_may_broadcast_is_expanded():
    # The target's dim comes from another input: equal names are not checked at run time.
    other = COLUMN.replace("float[N,4] x)", "float[N,4] x, float[N] z)").replace(
        "Shape <start = 0, end = 1> (x)", "Shape (z)")
    modified, got, _, _ = rewritten(other)
    assert not modified and "Expand" in got
    # A length-1 value into N rows.
    one_row = COLUMN.replace("c = Gather <axis = 0> (t, k)",
                             "c = Slice (v, zero, one)").replace(
        "float[N,4] x)", "float[N,4] x, float[M] v)")
    modified, got, _, _ = rewritten(one_row)
    assert not modified and "Expand" in got


def test_a_static_shape_and_a_transposed_value():
    text = "g (float[3,5] x) => (float[5,3] y)" + CONSTS + """{
        t = Transpose <perm = [1, 0]> (x)
        s = Shape (t)
        y = Expand (t, s)
    }"""
    m = model(text)
    result = DropSameShapeExpandsPass()(m)
    assert not result.modified  # (the Expand is the graph's output: it stays)
    inner = text.replace("float[5,3] y)", "float[5,3] y)").replace(
        "y = Expand (t, s)", "e = Expand (t, s)\n        y = Neg (e)")
    modified, got, before, after = rewritten(inner)
    assert modified and got == ["Transpose", "Neg"]
    same_results(before, after)


# ---------------------------------------------------------------- end to end
def xyxy2xywh(x):
    y = x.copy()
    y[:, 0] = (x[:, 0] + x[:, 2]) / 2
    y[:, 1] = (x[:, 1] + x[:, 3]) / 2
    y[:, 2] = x[:, 2] - x[:, 0]
    y[:, 3] = x[:, 3] - x[:, 1]
    return y


def broadcast_columns(b, v, w):
    b = b.copy()
    b[:, 0] = v          # (N,) or (1,) or 0-d
    b[:, 1] = w * 2      # may broadcast
    b[:, 2] = b[:, 0] - b[:, 1]
    return b


def clip_columns(c, w):
    c = c.copy()
    c[:, 0] = c[:, 0].clip(0, w)
    c[:, 1] = np.maximum(c[:, 1], w)
    return c


rng = np.random.default_rng(3)


@pytest.mark.parametrize("n", [0, 1, 6])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_column_writes(n, dtype):
    x = (rng.random((n, 4)) * 10).astype(dtype)
    check(xyxy2xywh, x)
    for v in (x[:, 3].copy(), x[:1, 3].copy(), dtype(5)):
        for w in (x[:, 2].copy(), np.ones(1, dtype)):
            check(broadcast_columns, x, v, w)


def test_writes_of_values_numpy_cannot_broadcast_fail():
    x = rng.random((4, 4))
    with pytest.raises((ValueError, pyonnx.PyonnxError)):
        pyonnx.compile(broadcast_columns)(x, rng.random(3), rng.random(4))


@pytest.mark.parametrize("n", [0, 1, 7])
def test_columns_through_the_exact_maximum(n):
    c = rng.normal(size=(n, 3))
    if n:
        c[0, :2] = [-0.0, 0.0]
    check(clip_columns, c, 0.0)
    check(clip_columns, c, -0.0)
    check(clip_columns, c, np.nan)


def test_the_column_model_has_no_expand():
    f = pyonnx.compile(xyxy2xywh)
    x = rng.random((5, 4)).astype(np.float32)
    assert "Expand" not in {n.op_type for n in f.to_onnx(x).graph.node}

"""LoopToScanPass on ONNX text (pyonnx/passes/loop_to_scan.py): which Loops it rewrites, and the
rewritten model against the Loop in onnxruntime at 0, 1 and many trips."""

import numpy as np
import onnx
import onnx_ir as ir
import onnxruntime as ort
import pytest

from pyonnx.passes.loop_to_scan import LoopToScanPass
from pyonnx.passes.serialize import serialize_model

HEAD = '<ir_version: 10, opset_import: ["" : 21]>\n'

ACC = HEAD + """
acc_loop (int64 n, double[N] x) => (double acc, double[K] rows) <double half = {0.5},
                                                                 double zero = {0}> {
  go = Constant <value = bool {1}> ()
  acc, rows = Loop (n, go, zero) <body = body (int64 i, bool c, double a) => (bool c_out,
                                                                          double a_out,
                                                                          double row) {
    c_out = Identity (c)
    xi = Gather <axis = 0> (x, i)
    scaled = Mul (a, half)
    a_out = Add (scaled, xi)
    row = Identity (a_out)
  }>
}"""

SWAP = HEAD + """
swap (int64 n) => (int64 a, int64 b) <int64 zero = {0}, int64 one = {1}> {
  go = Constant <value = bool {1}> ()
  a, b = Loop (n, go, zero, one) <body = body (int64 i, bool c, int64 p, int64 q) =>
                                              (bool c_out, int64 p_out, int64 q_out) {
    c_out = Identity (c)
    p_out = Identity (q)
    q_out = Add (p, q)
  }>
}"""

WHILE = HEAD + """
halving (double x) => (double y) <double half = {0.5}, double one = {1}> {
  go = Greater (x, one)
  y = Loop ("", go, x) <body = body (int64 i, bool c, double v) => (bool c_out, double v_out) {
    v_out = Mul (v, half)
    c_out = Greater (v_out, one)
  }>
}"""

GROWING = HEAD + """
grow (int64 n, double[N] x) => (double[M] y) <int64[1] axes = {0}> {
  go = Constant <value = bool {1}> ()
  start = Slice (x, axes, axes)
  y = Loop (n, go, start) <body = body (int64 i, bool c, double[K] v) => (bool c_out,
                                                                         double[L] v_out) {
    c_out = Identity (c)
    xi = Gather <axis = 0> (x, i)
    row = Unsqueeze (xi, axes)
    v_out = Concat <axis = 0> (v, row)
  }>
}"""


def run(model: ir.Model, feeds: dict) -> list:
    proto = serialize_model(model)
    onnx.checker.check_model(proto, full_check=True)
    return ort.InferenceSession(proto.SerializeToString(),
                                providers=["CPUExecutionProvider"]).run(None, feeds)


def ops(model: ir.Model) -> set[str]:
    return {n.op_type for n in ir.traversal.RecursiveGraphIterator(model.graph)}


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_full_trip_loop_becomes_a_guarded_scan(n):
    feeds = {"n": np.array(n, np.int64), "x": np.linspace(-1, 1, 7)}
    want = run(ir.from_onnx_text(ACC), feeds)
    model = ir.from_onnx_text(ACC)
    assert LoopToScanPass()(model).modified
    assert "Loop" not in ops(model) and {"If", "Scan"} <= ops(model)
    got = run(model, feeds)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("n", [0, 1, 2, 10])
def test_state_passed_through_gets_its_own_output(n):
    # p_out = q: a state output that is a state input (onnxruntime's Scan swaps buffers)
    model = ir.from_onnx_text(SWAP)
    assert LoopToScanPass()(model).modified
    a, b = run(model, {"n": np.array(n, np.int64)})
    x, y = 0, 1
    for _ in range(n):
        x, y = y, x + y
    assert (int(a), int(b)) == (x, y)


def test_loops_with_a_condition_or_a_growing_state_stay():
    for text in (WHILE, GROWING):
        model = ir.from_onnx_text(text)
        assert not LoopToScanPass()(model).modified
        assert "Loop" in ops(model)

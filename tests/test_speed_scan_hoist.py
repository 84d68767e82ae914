"""HoistScanMapsPass: elementwise maps of a Scan's input elements move before the Scan, onto
the whole input; nothing that reads a state moves; results stay numpy's (differential, 0/1/2/
many iterations, float and integer dtypes, reversed ranges)."""

from __future__ import annotations

import numpy as np
import onnx
import onnx_ir as ir
import pytest

import pyonnx
from pyonnx.passes.hoist_scan_maps import HoistScanMapsPass
from tests.oracle import check


def ewma(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def scaled_recurrence(x, a):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * a + (x[i] * 3 - 1)
    return y


def two_inputs(x, w):
    acc = 0.0
    out = np.zeros_like(x)
    for i in range(len(x)):
        acc = acc * 0.5 + x[i] * 2.0 - w[i]
        out[i] = acc
    return out


def backwards(x):
    out = np.zeros_like(x)
    s = 0.0
    for i in range(len(x) - 1, -1, -1):
        s = s * 0.9 + abs(x[i])
        out[i] = s
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [1, 2, 3, 50])
def test_ewma(dtype, n):
    x = np.random.default_rng(n).normal(size=n).astype(dtype)
    check(ewma, x, 0.3)
    check(ewma, x, np.float64(0.7))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 2, 40])
def test_integer_recurrence(dtype, n):
    x = (np.arange(n) * 7919 % 1000).astype(dtype)
    with np.errstate(over="ignore"):
        check(scaled_recurrence, x, dtype(3))


@pytest.mark.parametrize("n", [0, 1, 2, 30])
def test_two_scan_inputs_and_reversed(n):
    rng = np.random.default_rng(n)
    check(two_inputs, rng.normal(size=n), rng.normal(size=n))
    check(backwards, rng.normal(size=n))


_TEXT = """
<ir_version: 10, opset_import: ["" : 21]>
g (double[N] x, double a, double init) => (double fin, double[N] ys) {
  fin, ys = Scan <num_scan_inputs: int = 1, body: graph = body (double s, double xe) => (double t, double u) {
      ax = Mul(a, xe)
      sa = Mul(s, a)
      t = Add(ax, sa)
      u = Identity(t)
  }> (init, x)
}
"""


def test_pass_moves_the_map_not_the_state_product():
    model = ir.from_onnx_text(_TEXT)
    assert HoistScanMapsPass()(model).modified
    scan = next(n for n in model.graph if n.op_type == "Scan")
    body = scan.attributes["body"].value
    assert sorted(n.op_type for n in body) == ["Add", "Identity", "Mul"]
    assert scan.attributes["num_scan_inputs"].value == 1   # x itself is no longer read
    proto = ir.serde.serialize_model(model)
    onnx.checker.check_model(proto, full_check=True)
    import onnxruntime as ort
    x = np.linspace(-1, 1, 7)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    fin, ys = sess.run(None, {"x": x, "a": np.array(0.25), "init": np.array(1.0)})
    want, s = [], 1.0
    for v in x:
        s = 0.25 * v + s * 0.25
        want.append(s)
    assert np.array_equal(ys, np.array(want)) and fin == want[-1]


def test_pass_leaves_a_scan_without_maps():
    text = _TEXT.replace("ax = Mul(a, xe)", "ax = Mul(s, xe)")
    model = ir.from_onnx_text(text)
    assert not HoistScanMapsPass()(model).modified


def test_compiled_ewma_body(monkeypatch):
    monkeypatch.setenv("PYONNX_VECTORIZE", "0")  # the Loop lowering (the EWMA vectorizes)
    model = pyonnx.compile(ewma).to_onnx(np.linspace(0, 1, 9), 0.3)
    bodies = []

    def walk(g):
        for n in g.node:
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    if n.op_type == "Scan":
                        bodies.append(a.g)
                    walk(a.g)

    walk(model.graph)
    # (UnrollScansPass: the old Scan, its copy for the remainder trips, and the unrolled one)
    assert sorted(n.op_type for n in bodies[-1].node) == ["Add", "Identity", "Mul"]
    assert all("Mul" in {n.op_type for n in b.node} and len(b.node) <= 18 for b in bodies)

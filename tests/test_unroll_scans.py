"""UnrollScansPass: a scalar recurrence's Scan runs 8 of its iterations per Scan iteration
behind a trip-count If; results stay numpy's bit for bit (differential, trip counts around the
unroll factor, float and integer dtypes, several states, a select in the body, reversed
ranges); Scans of other forms are left alone."""

from __future__ import annotations

import numpy as np
import onnx
import onnx_ir as ir
import onnxruntime as ort
import pytest

import pyonnx
from pyonnx.passes.unroll_scans import UnrollScansPass
from tests.loops_speed_kernels import linear_recurrence as recurrence
from tests.oracle import check
from tests.test_speed_scan_hoist import backwards

# Trip counts around the unroll factor 8: below 2K (the old Scan), 2K exactly, remainders 1..K.
TRIPS = [0, 1, 2, 7, 15, 16, 17, 23, 24, 25, 40, 103]


def two_states(x):
    a = x[0] * 0
    b = a + 1
    out = np.zeros_like(x)
    for i in range(len(x)):
        a, b = b, a + b * x[i]
        out[i] = a
    return out


def clipped(x, hi):
    s = 0.0
    out = np.zeros_like(x)
    for i in range(len(x)):
        s = s + x[i]
        if s > hi:
            s = hi
        out[i] = s
    return out


def final_only(x, a):
    s = x[0] * 0
    for i in range(len(x)):
        s = s * a + x[i]
    return s


@pytest.fixture(autouse=True)
def _loops(monkeypatch):
    # The Loop lowering (vectorize/linear.py would turn the float recurrences into scans of
    # whole arrays).
    monkeypatch.setenv("PYONNX_VECTORIZE", "0")


def _scans(model: onnx.ModelProto) -> list[onnx.NodeProto]:
    found = []

    def walk(g):
        for n in g.node:
            if n.op_type == "Scan":
                found.append(n)
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    walk(a.g)

    walk(model.graph)
    return found


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
@pytest.mark.parametrize("n", TRIPS)
def test_recurrence(dtype, n):
    x = (np.arange(n) * 7919 % 1000 - 500).astype(dtype)
    with np.errstate(over="ignore"):
        check(recurrence, x, dtype(-3) if dtype in (np.int64, np.int32) else dtype(0.5))


@pytest.mark.parametrize("n", TRIPS)
def test_two_states_select_reversed_final(n):
    rng = np.random.default_rng(n)
    x = rng.normal(size=n)
    check(two_states, x) if n else None  # (x[0] of an empty x raises in both)
    check(clipped, x, 0.75)
    check(backwards, x)
    if n:
        check(final_only, x, 0.25)


def test_model_has_the_unrolled_scan_and_the_old_one():
    model = pyonnx.compile(recurrence).to_onnx(np.arange(50.0), 0.5)
    bodies = sorted((sorted(n.op_type for n in s.attribute[0].g.node) for s in _scans(model)),
                    key=len)
    # the old Scan (few trips), the remainder's copy, the unrolled body: Split, 8 x (Mul, Add),
    # Concat (no Identity: the state and the scan output are different values)
    assert bodies[0] == bodies[1] == ["Add", "Identity", "Mul"]
    assert bodies[2] == sorted(["Split", "Concat"] + ["Mul", "Add"] * 8)


_TEXT = """
<ir_version: 10, opset_import: ["" : 21]>
g (double[N] x, double a, double init) => (double fin, double[N] ys) {
  fin, ys = Scan <num_scan_inputs: int = 1, body: graph = body (double s, double xe) => (double t, double u) {
      sa = Mul(s, a)
      t = Add(xe, sa)
      u = Identity(t)
  }> (init, x)
}
"""


@pytest.mark.parametrize("n", [1, 15, 16, 17, 64, 71])
def test_pass_on_a_written_scan(n):
    model = ir.from_onnx_text(_TEXT)
    assert UnrollScansPass()(model).modified
    proto = ir.serde.serialize_model(model)
    onnx.checker.check_model(proto, full_check=True)
    x = np.random.default_rng(n).normal(size=n)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    fin, ys = sess.run(None, {"x": x, "a": np.array(0.25), "init": np.array(1.0)})
    want, s = [], 1.0
    for v in x:
        s = v + s * 0.25
        want.append(s)
    assert np.array_equal(ys, np.array(want)) and fin == want[-1]
    ref = onnx.reference.ReferenceEvaluator(proto).run(
        None, {"x": x, "a": np.array(0.25), "init": np.array(1.0)})
    assert np.array_equal(ref[1], ys) and ref[0] == fin


@pytest.mark.parametrize("change", [
    ("sa = Mul(s, a)", "sa = ReduceSum(s)"),                   # not elementwise
    ("double[N] x, double a", "double[N,2] x, double a"),     # a row per iteration
    ("sa = Mul(s, a)", "sa = Mul(s, w)"),                     # an outer value not 0-d
])
def test_pass_leaves_other_scans(change):
    text = _TEXT.replace(*change)
    if "Mul(s, w)" in text:
        text = text.replace("double init)", "double init, double[3] w)")
    if "double[N,2] x" in text:
        text = text.replace("double xe", "double[2] xe").replace("double u", "double[2] u") \
            .replace("double fin, double[N] ys", "double[2] fin, double[N,2] ys") \
            .replace("double s,", "double[2] s,").replace("double t,", "double[2] t,") \
            .replace("double init", "double[2] init")
    model = ir.from_onnx_text(text)
    assert not UnrollScansPass()(model).modified


def squares_with_sum(x):
    s = x.sum() * 0
    for i in range(20 + x.shape[0]):
        s = s * s - i + x.sum()
    return s


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
@pytest.mark.parametrize("n", [0, 1, 5])
def test_outer_sum_read_in_the_body(dtype, n):
    # x.sum() of integers is a MatMul with ones (exact): proved 0-d through its operands'
    # ranks, so the body is unrolled (16+ trips for every n here)
    x = (np.arange(n) % 5 - 2).astype(dtype)
    with np.errstate(over="ignore"):
        c = check(squares_with_sum, x)
    assert len(_scans(c.to_onnx(x))) == 3

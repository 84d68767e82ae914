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


# --------------------------------------------------------------------- random bodies
_BINARY = ["Add", "Sub", "Mul", "Max", "Min"]
_UNARY = ["Neg", "Abs", "Identity"]


def _random_scan(rng, dt):
    """A Scan of 1-2 states, 1-2 scan inputs and 0-1 scan outputs, all 0-d, whose body is 1-5
    random elementwise nodes (a Greater + Where among them) over the states, the elements and
    an outer 0-d ``a``; its outputs any body values (a state passed through, one value twice)."""
    from onnx import helper as h

    ns, nx, no = rng.randint(1, 2), rng.randint(1, 2), rng.randint(0, 1)
    vals = [f"s{i}" for i in range(ns)] + [f"e{i}" for i in range(nx)] + ["a"]
    varying = set(vals[:-1])  # (the values that depend on a state or an element)
    nodes = []
    for k in range(rng.randint(1, 5)):
        r = rng.random()
        if r < 0.6:
            ins = [rng.choice(vals), rng.choice(vals)]
            nodes.append(h.make_node(rng.choice(_BINARY), ins, [f"v{k}"]))
        elif r < 0.8:
            ins = [rng.choice(vals)]
            nodes.append(h.make_node(rng.choice(_UNARY), ins, [f"v{k}"]))
        else:
            ins = [rng.choice(vals) for _ in range(4)]
            nodes += [h.make_node("Greater", ins[:2], [f"c{k}"]),
                      h.make_node("Where", [f"c{k}", *ins[2:]], [f"v{k}"])]
        vals.append(f"v{k}")
        if varying.intersection(ins):
            varying.add(f"v{k}")
    # (an output made of the outer value alone: the pass leaves such a Scan as it is)
    outs = [rng.choice(sorted(varying)) for _ in range(ns + no)]
    nodes += [h.make_node("Identity", [v], [f"out{i}"]) for i, v in enumerate(outs)]
    t = lambda name, shape=(): h.make_tensor_value_info(name, dt, list(shape))  # noqa: E731
    body = h.make_graph(nodes, "body", [t(f"s{i}") for i in range(ns)] +
                        [t(f"e{i}") for i in range(nx)], [t(f"out{i}") for i in range(ns + no)])
    scan = h.make_node("Scan", [f"S{i}" for i in range(ns)] + [f"X{i}" for i in range(nx)],
                       [f"F{i}" for i in range(ns)] + [f"Y{i}" for i in range(no)], body=body,
                       num_scan_inputs=nx)
    graph = h.make_graph([scan], "g", [t(f"S{i}") for i in range(ns)] +
                         [t(f"X{i}", ["n"]) for i in range(nx)] + [t("a")],
                         [t(f"F{i}") for i in range(ns)] + [t(f"Y{i}", ["n"]) for i in range(no)])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 21)]), ns, nx


@pytest.mark.parametrize("seed", range(30))
def test_random_bodies_unroll_to_the_same_values(seed):
    import random

    rng = random.Random(seed)
    dt, np_dt = rng.choice([(onnx.TensorProto.DOUBLE, np.float64),
                            (onnx.TensorProto.INT64, np.int64)])
    model, ns, nx = _random_scan(rng, dt)
    before = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    unrolled = ir.from_proto(model)
    assert UnrollScansPass()(unrolled).modified
    proto = ir.serde.serialize_model(unrolled)
    onnx.checker.check_model(proto, full_check=True)
    after = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in (1, 2, 15, 16, 17, 24, 25, 33):
        feeds = {f"S{i}": np.array(rng.randint(-3, 3), np_dt) for i in range(ns)}
        feeds.update({f"X{i}": np.array([rng.randint(-5, 5) for _ in range(n)], np_dt)
                      for i in range(nx)})
        feeds["a"] = np.array(rng.randint(-2, 2), np_dt)
        for want, got in zip(before.run(None, feeds), after.run(None, feeds)):
            assert want.shape == got.shape and np.array_equal(want, got), (seed, n)

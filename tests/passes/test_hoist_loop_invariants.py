"""HoistLoopInvariantsPass on ONNX-text fixtures: invariant, non-failing nodes leave Loop bodies
(nested loops through both levels), failing or iteration-dependent ones stay, and the model
computes what it computed before."""

from __future__ import annotations

import copy

import numpy as np
import onnx
import onnxruntime as ort

from pyonnx.passes.hoist_loop_invariants import HoistLoopInvariantsPass
from tests.passes.helpers import checked, model

LOOP = """
g (float[N] x, int64 n) => (float acc_out) <float zero = {0}, bool t = {1}> {
  acc_out = Loop (n, t, zero) <body = b (int64 i, bool cond, float acc) => (bool co, float ao) {
      co = Identity(cond)
      s = ReduceSum<keepdims=0>(x)
      s2 = Mul(s, s)
      xi = Gather(x, i)
      step = Add(xi, s2)
      ao = Add(acc, step)
    }>
}"""

NESTED = """
g (float[N] x, int64 n) => (float acc_out) <float zero = {0}, bool t = {1}> {
  acc_out = Loop (n, t, zero) <body = outer (int64 i, bool c1, float acc) => (bool co1, float ao) {
      co1 = Identity(c1)
      inner_out = Loop (n, t, acc) <body = inner (int64 j, bool c2, float a2) => (bool co2, float bo) {
          co2 = Identity(c2)
          m = ReduceMax<keepdims=0>(x)
          sz = Size(x)
          szf = Cast<to=1>(sz)
          ij = Add(i, j)
          ijf = Cast<to=1>(ij)
          bo = Add(a2, szf)
        }>
      ao = Add(inner_out, acc)
    }>
}"""


def _run(proto, feeds):
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def _body_ops(m) -> list[str]:
    loop = next(n for n in m.graph if n.op_type == "Loop")
    return [n.op_type for n in loop.attributes["body"].as_graph()]


def test_invariants_leave_the_body_and_results_stay():
    m = model(LOOP)
    before = copy.deepcopy(checked(m))
    result = HoistLoopInvariantsPass()(m)
    assert result.modified
    assert _body_ops(m) == ["Identity", "Gather", "Add", "Add"]
    assert [n.op_type for n in m.graph][:2] == ["ReduceSum", "Mul"]
    after = checked(m)
    for n in (0, 1, 5):
        feeds = {"x": np.arange(6, dtype=np.float32), "n": np.array(n, np.int64)}
        np.testing.assert_array_equal(_run(after, feeds)[0], _run(before, feeds)[0])


def test_nested_loops_hoist_through_both_levels_but_not_failing_ops():
    m = model(NESTED)
    before = copy.deepcopy(checked(m))
    HoistLoopInvariantsPass()(m)
    main_ops = [n.op_type for n in m.graph]
    # Size and its Cast leave both loops; ReduceMax of an empty x fails: it stays inside
    # (a loop that never runs must not fail on it); i + j depends on the iteration.
    assert main_ops[:2] == ["Size", "Cast"]
    outer = next(n for n in m.graph if n.op_type == "Loop").attributes["body"].as_graph()
    inner = next(n for n in outer if n.op_type == "Loop").attributes["body"].as_graph()
    assert "ReduceMax" in [n.op_type for n in inner]
    assert "Add" in [n.op_type for n in inner]
    after = checked(m)
    for n in (0, 2):
        feeds = {"x": np.arange(4, dtype=np.float32), "n": np.array(n, np.int64)}
        np.testing.assert_array_equal(_run(after, feeds)[0], _run(before, feeds)[0])


def test_nothing_to_move():
    m = model("""
g (float[N] x, int64 n) => (float[N] y) <bool t = {1}> {
  y = Loop (n, t, x) <body = b (int64 i, bool c, float[N] a) => (bool co, float[N] ao) {
      co = Identity(c)
      ao = Neg(a)
    }>
}""")
    assert not HoistLoopInvariantsPass()(m).modified
    onnx.checker.check_model(checked(m), full_check=True)

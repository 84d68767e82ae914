"""RemoveUnusedPass on a dead If/Loop whose body captures an outer value: the body's uses do
not keep the outer producer alive (onnx-ir's RemoveUnusedNodesPass keeps it), and the model
still computes what it computed."""

from __future__ import annotations

from pyonnx.passes.remove_unused import RemoveUnusedPass
from tests.passes.helpers import checked, model, ops, same_results

DEAD_IF = """
g (bool c, float[3] x) => (float[3] y) {
  m = ReduceMax <keepdims: int = 1> (x)
  s = Neg(x)
  dead = If (c) <
    then_branch = t () => (float[1] r) { k = Exp(m)
                                         r = Abs(k) },
    else_branch = e () => (float[1] q) { q = Identity(m) }>
  y = Abs(s)
}"""

DEAD_LOOP = """
g (bool c, float[3] x) => (float[3] y) <int64 n = {2}> {
  m = Exp(x)
  dead = Loop (n, c, x) <body = b (int64 i, bool cond, float[3] acc) => (bool co, float[3] ao) {
      co = Identity(cond)
      ao = Add(acc, m)
    }>
  y = Neg(x)
}"""

LIVE_IF = """
g (bool c, float[3] x) => (float[1] y) {
  m = ReduceMax <keepdims: int = 1> (x)
  y = If (c) <
    then_branch = t () => (float[1] r) { r = Abs(m) },
    else_branch = e () => (float[1] q) { q = Identity(m) }>
}"""


def test_dead_if_releases_its_captures():
    m = model(DEAD_IF)
    before = checked(m)
    assert RemoveUnusedPass()(m).modified
    assert ops(m) == ["Neg", "Abs"]
    same_results(before, checked(m))
    assert not RemoveUnusedPass()(m).modified


def test_dead_loop_releases_its_captures():
    m = model(DEAD_LOOP)
    before = checked(m)
    RemoveUnusedPass()(m)
    assert ops(m) == ["Neg"]
    same_results(before, checked(m))


def test_live_if_keeps_its_captures():
    m = model(LIVE_IF)
    before = checked(m)
    RemoveUnusedPass()(m)
    assert ops(m) == ["ReduceMax", "If", "Abs", "Identity"]
    same_results(before, checked(m))

"""EliminateCommonSubexpressionsPass: ONNX-text fixtures; in the main graph it must merge what
onnx-ir's CommonSubexpressionEliminationPass merges; it also merges inside and across subgraph
scopes; results stay identical under onnxruntime."""

from __future__ import annotations

import numpy as np
import onnx_ir as ir
import onnxruntime as ort
import onnx_ir.passes.common as common
import pytest

from pyonnx.passes.common_subexpressions import EliminateCommonSubexpressionsPass
from pyonnx.passes.remove_unused import RemoveUnusedPass
from tests.passes.helpers import checked, model, ops, same_results

MAIN_GRAPH = {
    "chain": """
g (float[N] x, float[N] y) => (float[N] z) {
  a = Add(x, y)
  b = Add(x, y)
  c = Exp(a)
  d = Exp(b)
  z = Mul(c, d)
}""",
    "attributes": """
g (float[2, 3] x) => (float[3] z) <int64[1] ax = {0}> {
  a = ReduceSum <keepdims = 0> (x, ax)
  b = ReduceSum <keepdims = 0> (x, ax)
  c = ReduceSum <keepdims = 1> (x, ax)
  t1 = Transpose <perm = [1, 0]> (x)
  t2 = Transpose <perm = [1, 0]> (x)
  s1 = ReduceSum <keepdims = 0> (t1)
  s2 = ReduceSum <keepdims = 0> (t2)
  k = Add(a, b)
  m = Add(s1, s2)
  r = Squeeze(c, ax)
  n = Add(k, r)
  z = Add(n, m)
}""",
    "constant_attributes": """
g (float[2] x) => (float[2] z) {
  c1 = Constant <value = float[2] {1, 2}> ()
  c2 = Constant <value = float[2] {1, 2}> ()
  c3 = Constant <value = float[2] {1, 3}> ()
  a = Add(x, c1)
  b = Add(x, c2)
  d = Add(x, c3)
  e = Mul(a, b)
  z = Mul(e, d)
}""",
    "argument_order_matters": """
g (float[N] x, float[N] y) => (float[N] z) {
  a = Sub(x, y)
  b = Sub(y, x)
  z = Mul(a, b)
}""",
}


@pytest.mark.parametrize("name", list(MAIN_GRAPH))
def test_merges_what_onnx_ir_merges(name):
    mine, theirs = model(MAIN_GRAPH[name]), model(MAIN_GRAPH[name])
    before = checked(mine)
    modified = EliminateCommonSubexpressionsPass()(mine).modified
    common.CommonSubexpressionEliminationPass()(theirs)
    RemoveUnusedPass()(mine)
    RemoveUnusedPass()(theirs)
    assert ops(mine) == ops(theirs)
    assert modified == (name != "argument_order_matters")
    same_results(before, checked(mine))


def test_chain_merges_transitively():
    m = model(MAIN_GRAPH["chain"])
    assert EliminateCommonSubexpressionsPass()(m).modified
    assert ops(m) == ["Add", "Exp", "Mul"]
    mul = m.graph.node(2)
    assert mul.inputs[0] is mul.inputs[1]


def test_random_ops_and_twin_graph_outputs_are_not_merged():
    m = model("""
g (float[2] x) => (float[2] y, float[2] z, float[2] w) {
  r1 = RandomUniformLike(x)
  r2 = RandomUniformLike(x)
  y = Add(r1, r2)
  z = Neg(x)
  w = Neg(x)
}""")
    assert not EliminateCommonSubexpressionsPass()(m).modified
    assert ops(m) == ["RandomUniformLike", "RandomUniformLike", "Add", "Neg", "Neg"]


def test_a_duplicate_graph_output_is_taken_over_by_the_earlier_node():
    # return (x + 1) * 2, x + 1
    m = model("""
g (float[N] x) => (float[N] y, float[N] z) <float one = {1}, float two = {2}> {
  a = Add(x, one)
  y = Mul(a, two)
  z = Add(x, one)
}""")
    before = checked(m)
    assert EliminateCommonSubexpressionsPass()(m).modified
    assert ops(m) == ["Add", "Mul"]
    y, z = m.graph.outputs
    assert (y.name, z.name) == ("y", "z")
    assert z.producer() is m.graph.node(0) and y.producer().inputs[0] is z
    assert z.dtype == ir.DataType.FLOAT and z.shape is not None
    same_results(before, checked(m))


SUBGRAPHS = """
g (bool c, float[2] x, float[2] y) => (float[2] o, float[2] p) <int64 n = {3}> {
  e = Exp(x)
  o = If (c) <
    then_branch = t () => (float[2] ty) {
      e2 = Exp(x)
      a = Add(e2, y)
      b = Add(e2, y)
      ty = Mul(a, b)
    },
    else_branch = f () => (float[2] fy) {
      s1 = Sin(x)
      s2 = Sin(x)
      fy = Sub(s1, s2)
    }>
  p = Loop (n, c, x) <body = b (int64 i, bool cond, float[2] acc) => (bool co, float[2] ao) {
      co = Identity(cond)
      k = Exp(x)
      m1 = Mul(acc, k)
      m2 = Mul(acc, k)
      ao = Add(m1, m2)
    }>
  later = Sin(x)
  q = Add(later, e)
}"""


def test_merges_inside_subgraphs_and_reuses_earlier_outer_nodes():
    m = model(SUBGRAPHS)
    before = checked(m)
    assert EliminateCommonSubexpressionsPass()(m).modified
    assert ops(m) == ["Exp", "If", "Add", "Mul", "Sin", "Sub", "Loop", "Identity", "Mul", "Add",
                      "Sin", "Add"]
    # The branches and the body read the outer Exp(x) instead of computing their own.
    outer_exp = m.graph.node(0).outputs[0]
    then_add = m.graph.node(1).attributes["then_branch"].as_graph().node(0)
    assert then_add.inputs[0] is outer_exp
    same_results(before, checked(m))


def test_a_later_outer_node_is_not_merged_into_a_branch():
    # "later = Sin(x)" comes after the If: the else-branch Sin must not stand in for it.
    m = model(SUBGRAPHS)
    EliminateCommonSubexpressionsPass()(m)
    later = m.graph.node(3)
    assert later.op_type == "Sin" and later.inputs[0] is m.graph.inputs[1]


def test_second_run_changes_nothing():
    m = model(SUBGRAPHS)
    EliminateCommonSubexpressionsPass()(m)
    assert not EliminateCommonSubexpressionsPass()(m).modified


def test_equal_constant_initializers_merge_by_value():
    """Two initializers with the same small value (a pass after folding made the second) are
    the same input; a different value, or a graph input with a default, is not."""
    text = """
g (float[N,4] x, int64[1] fed) => (float[?] z)
    <int64[1] a = {-1}, int64[1] b = {-1}, int64[1] c = {8}, int64[1] fed = {-1}> {
  r1 = Reshape(x, a)
  r2 = Reshape(x, b)
  r3 = Reshape(x, c)
  r4 = Reshape(x, fed)
  s = Add(r1, r2)
  z = Concat <axis = 0> (s, r3, r4)
}"""
    m = model(text)
    before = checked(m)
    assert EliminateCommonSubexpressionsPass()(m).modified
    RemoveUnusedPass()(m)
    after = checked(m)
    assert ops(m).count("Reshape") == 3
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    for fed in (np.array([-1]), np.array([8])):
        want, got = (ort.InferenceSession(p.SerializeToString()).run(None, {"x": x, "fed": fed})
                     for p in (before, after))
        np.testing.assert_array_equal(got[0], want[0])

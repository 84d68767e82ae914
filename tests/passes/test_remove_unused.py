"""RemoveUnusedPass: ONNX-text fixtures; the result must equal onnx-ir's RemoveUnusedNodesPass
followed by RemoveUnusedOpsetsPass (which it replaces because it is faster), pass the full
checker and compute what the original computes."""

from __future__ import annotations

import onnx_ir as ir
import onnx_ir.passes.common as common
import pytest

from pyonnx.passes.remove_unused import RemoveUnusedPass
from tests.passes.helpers import checked, model, ops, same_results

FIXTURES = {
    "dead_chain": """
g (float[N] x) => (float[N] y) <float[2] unused = {1, 2}, float[1] used = {3}> {
  a = Neg(x)
  b = Abs(a)
  c = Exp(b)
  y = Add(x, used)
}""",
    "subgraphs": """
g (bool c, float[2] x) => (float[2] y, float[2] z) <int64 n = {3}> {
  y = If (c) <
    then_branch = t () => (float[2] ty) {
      dead = Neg(x)
      ty = Abs(x)
    },
    else_branch = e () => (float[2] ey) { ey = Identity(x) }>
  z = Loop (n, c, x) <body = b (int64 i, bool cond, float[2] acc) => (bool co, float[2] ao) {
      co = Identity(cond)
      d1 = Exp(acc)
      d2 = Log(d1)
      ao = Neg(acc)
    }>
  unused_if = If (c) <
    then_branch = t2 () => (float[2] r) { r = Neg(x) },
    else_branch = e2 () => (float[2] s) { s = Abs(x) }>
}""",
    "optional_outputs": """
g (float[4] x) => (float[2] v, float[4] y) <int64[1] k = {2}> {
  v, i = TopK(x, k)
  y, m = Dropout(x)
}""",
    "trailing_inputs": """
g (float[N] x) => (float[N] y) {
  y = Clip(x, "", "")
}""",
    "opsets": """
<ir_version: 10, opset_import: ["" : 21, "custom" : 1, "other" : 1]>
g (float[N] x) => (float[N] y) {
  a = custom.Op(x)
  b = other.Op(x)
  y = Add(x, a)
}""",
    "initializer_input": """
g (float[2] x, float[2] w) => (float[2] y) <float[2] w = {1, 2}, float[2] dead = {3, 4}> {
  y = Neg(x)
}""",
}


def _summary(m: ir.Model) -> tuple:
    return (ops(m), [[o.name for o in n.outputs] for n in ir.traversal.RecursiveGraphIterator(
        m.graph)], [len(n.inputs) for n in ir.traversal.RecursiveGraphIterator(m.graph)],
        list(m.graph.initializers), dict(m.graph.opset_imports))


@pytest.mark.parametrize("name", list(FIXTURES))
def test_same_result_as_onnx_ir(name):
    mine, theirs = model(FIXTURES[name]), model(FIXTURES[name])
    before = checked(mine)
    assert RemoveUnusedPass()(mine).modified
    common.RemoveUnusedNodesPass()(theirs)
    common.RemoveUnusedOpsetsPass()(theirs)
    assert _summary(mine) == _summary(theirs)
    after = checked(mine)
    if "custom" not in FIXTURES[name]:  # onnxruntime cannot run the made-up custom ops
        same_results(before, after)
    assert not RemoveUnusedPass()(mine).modified


def test_dead_chains_go_in_one_walk_and_live_nodes_stay():
    m = model(FIXTURES["dead_chain"])
    RemoveUnusedPass()(m)
    assert ops(m) == ["Add"]
    assert list(m.graph.initializers) == ["used"]


def test_subgraph_dead_nodes_and_unused_control_flow_go():
    m = model(FIXTURES["subgraphs"])
    RemoveUnusedPass()(m)
    assert ops(m) == ["If", "Abs", "Identity", "Loop", "Identity", "Neg"]


def test_unused_optional_outputs_are_dropped():
    m = model(FIXTURES["optional_outputs"])
    RemoveUnusedPass()(m)
    topk, dropout = m.graph
    assert len(topk.outputs) == 2  # TopK's indices are not optional
    assert len(dropout.outputs) == 1


def test_initializers_that_are_inputs_stay():
    m = model(FIXTURES["initializer_input"])
    RemoveUnusedPass()(m)
    assert list(m.graph.initializers) == ["w"]

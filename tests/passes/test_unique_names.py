"""UniqueNamesPass: unchanged when names are already valid; NameFixPass's renaming otherwise."""

from __future__ import annotations

import onnx

from pyonnx.passes.unique_names import UniqueNamesPass
from tests.passes.helpers import checked, model, same_results

VALID = """
g (float[N] x) => (float[N] y) <float[1] c = {2}> {
  a = Mul(x, c)
  y = Neg(a)
}"""


def _named(text):
    m = model(text)
    for i, node in enumerate(m.graph):
        node.name = f"n{i}"
    return m


def test_valid_names_are_left_alone():
    m = _named(VALID)
    before = checked(m).SerializeToString()
    assert not UniqueNamesPass()(m).modified
    assert checked(m).SerializeToString() == before


def test_a_reused_value_name_is_renamed():
    m = _named(VALID)
    m.graph.node(0).outputs[0].name = "x"  # the same name as the input
    assert UniqueNamesPass()(m).modified
    names = [m.graph.inputs[0].name, m.graph.node(0).outputs[0].name]
    assert names[0] == "x" and names[1] != "x"
    same_results(checked(_named(VALID)), checked(m))


def test_missing_and_duplicate_node_names_are_fixed():
    m = model(VALID)  # ONNX text leaves node names empty
    assert UniqueNamesPass()(m).modified
    assert all(n.name for n in m.graph)
    m = _named(VALID)
    m.graph.node(1).name = "n0"
    assert UniqueNamesPass()(m).modified
    assert len({n.name for n in m.graph}) == 2


def test_names_shadowed_in_subgraphs_are_renamed():
    m = _named("""
g (bool c, float[2] x) => (float[2] y, float[2] v) {
  v = Exp(x)
  y = If (c) <
    then_branch = t () => (float[2] ty) { v2 = Neg(x)  ty = Abs(v2) },
    else_branch = e () => (float[2] ey) { v3 = Abs(x)  ey = Neg(v3) }>
}""")
    then = m.graph.node(1).attributes["then_branch"].as_graph()
    for node in then:
        node.name = "t" + node.name
    then.node(0).outputs[0].name = "v"  # shadows the outer v: invalid ONNX
    assert UniqueNamesPass()(m).modified
    assert then.node(0).outputs[0].name != "v"
    onnx.checker.check_model(checked(m), full_check=True)


def test_an_omitted_optional_output_stays_omitted():
    m = _named("""
g (float[4] x) => (float[4] y) {
  y, mask = Dropout(x)
}""")
    m.graph.node(0).outputs[1].name = ""
    assert not UniqueNamesPass()(m).modified
    assert list(checked(m).graph.node[0].output) == ["y"]

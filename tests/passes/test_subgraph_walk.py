"""passes/subgraph_walk.py: graph-carrying nodes are visited inner graphs first, in graph
order, with the graph that holds each node."""

import onnx
import onnx_ir as ir

from pyonnx.passes.subgraph_walk import inner_graphs, visit_innermost_first

NESTED = """<ir_version: 10, opset_import: ["" : 21]>
nested (int64 n, bool c, double x) => (double y, double z) <double one = {1}> {
  y = Loop (n, c, x) <body = outer_body (int64 i, bool ci, double a) => (bool co, double b) {
    co = Identity (ci)
    b = If (ci) <then_branch = then_g () => (double t) { t = Add (a, one) },
                 else_branch = else_g () => (double e) { e = Sub (a, one) }>
  }>
  z = If (c) <then_branch = then2 () => (double t2) { t2 = Neg (x) },
              else_branch = else2 () => (double e2) { e2 = Identity (x) }>
}"""


def _model() -> ir.Model:
    return ir.serde.deserialize_model(onnx.parser.parse_model(NESTED))


def test_inner_graphs_come_first_and_counts_add_up():
    model = _model()
    seen = []

    def visit(graph, node):
        seen.append((node.op_type, graph.name, [g.name for g in inner_graphs(node)]))
        return 2

    assert visit_innermost_first(model.graph, visit) == 6
    assert seen == [("If", "outer_body", ["then_g", "else_g"]),
                    ("Loop", "nested", ["outer_body"]),
                    ("If", "nested", ["then2", "else2"])]


def test_visit_may_replace_the_node_it_is_given():
    model = _model()

    def visit(graph, node):
        if node.op_type != "If" or graph is not model.graph:
            return 0
        ident = ir.node("Identity", [model.graph.inputs[2]])
        graph.insert_before(node, ident)
        node.outputs[0].replace_all_uses_with(ident.outputs[0], replace_graph_outputs=True)
        graph.remove(node, safe=True)
        return 1

    assert visit_innermost_first(model.graph, visit) == 1
    assert [n.op_type for n in model.graph] == ["Loop", "Identity"]
    assert model.graph.outputs[1].producer().op_type == "Identity"

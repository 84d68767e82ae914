"""Puts a pyonnx graph into skl2onnx's container, in place of one pipeline step.

Input: the :class:`~pyonnx.sklearn.graph.MethodGraph` of a step, the skl2onnx scope, operator
and container, and the names of the step's input and output variables. Output: the graph's
nodes and initializers added to the container under fresh names, and an ``Identity`` (or a
``Cast`` where skl2onnx fixes the output type) from each graph output to the operator's output.

Every name the graph defines, in subgraphs too (ONNX forbids a subgraph from shadowing an outer
name), is replaced by one the scope reserves, so nothing collides with the names skl2onnx gives
the other steps. Node names keep pyonnx's source-line names (``transform_L12_Mul_3``), made
unique by the scope, so onnxruntime's errors still name the user's line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["add_graph"]


def add_graph(scope: Any, container: Any, graph_model: Any, input_name: str,
              output_names: Sequence[str], prefix: str,
              output_casts: Sequence[np.dtype | None] = ()) -> None:
    """Adds ``graph_model``'s graph to ``container`` between the given variable names.

    Args:
        scope: the skl2onnx scope (it reserves unique variable and node names).
        container: the skl2onnx ModelComponentContainer.
        graph_model: the ``onnx.ModelProto`` with one input.
        input_name: the variable the graph's input reads.
        output_names: the variables its outputs write, in order.
        prefix: the start of every new name (the step's operator name).
        output_casts: per output, a dtype to cast to on the way out (None: as computed).
    """
    import onnx
    from onnx import helper

    graph = onnx.GraphProto()
    graph.CopyFrom(graph_model.graph)
    if graph_model.functions:  # pragma: no cover - an invariant: pyonnx emits no local functions
        raise RuntimeError("pyonnx bug: a converted model has local functions, which pyonnx "
                           "never emits and this inliner does not copy")

    def fresh(name: str) -> str:
        return scope.get_unique_variable_name(f"{prefix}_{name}")

    def node_name(name: str) -> str:
        return scope.get_unique_operator_name(f"{prefix}_{name}")

    names = {graph.input[0].name: input_name}
    _rename(graph, names, fresh, node_name, top=True)
    for init in graph.initializer:
        container.initializers.append(init)
    container.nodes.extend(graph.node)
    for imp in graph_model.opset_import:
        container.node_domain_version_pair_sets.add((imp.domain, imp.version))
    for out, target, cast in zip(graph.output, output_names,
                                 list(output_casts) + [None] * len(output_names)):
        if cast is None:
            node = helper.make_node("Identity", [out.name], [target], name=node_name("output"))
        else:
            node = helper.make_node("Cast", [out.name], [target], name=node_name("output"),
                                    to=helper.np_dtype_to_tensor_dtype(np.dtype(cast)))
        container.nodes.append(node)


def _rename(graph: Any, names: dict[str, str], fresh: Callable[[str], str],
            node_name: Callable[[str], str], top: bool = False) -> None:
    """Renames every name ``graph`` defines (in place); ``names`` maps outer names."""
    names = dict(names)  # a subgraph's definitions are not visible outside it
    for value in graph.input:
        if not (top and value.name in names):
            names[value.name] = fresh(value.name)
        value.name = names[value.name]
    for init in graph.initializer:
        names[init.name] = fresh(init.name)
        init.name = names[init.name]
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name:
                node.input[i] = names[name]
        for attr in node.attribute:
            if attr.HasField("g"):
                _rename(attr.g, names, fresh, node_name)
            for sub in attr.graphs:
                _rename(sub, names, fresh, node_name)
        for i, name in enumerate(node.output):
            if name:
                names[name] = fresh(name)
                node.output[i] = names[name]
        node.name = node_name(node.name or node.op_type)
    for value in graph.output:
        value.name = names[value.name]
    for value in graph.value_info:
        if value.name in names:
            value.name = names[value.name]
    if top:
        del graph.value_info[:]

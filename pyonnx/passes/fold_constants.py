"""Constant folding on onnx-ir: nodes whose inputs are all constants become initializers.

Input: an ``ir.Model``. Output: the same model with foldable nodes replaced by constant values
(their users rewired); dead nodes are left for ``RemoveUnusedNodesPass``. Evaluation uses
``onnx.reference``'s per-op implementations for any op, bounded in output size.
"""

from __future__ import annotations

import logging

import numpy as np
import onnx_ir as ir

__all__ = ["FoldConstantsPass"]

logger = logging.getLogger(__name__)

# Results with more elements than this stay computed at run time (they would bloat the model).
MAX_FOLDED_SIZE = 1 << 16
# Ops never folded: random or side-effecting, or with subgraphs.
_NEVER = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
          "Bernoulli", "If", "Loop", "Scan", "SequenceConstruct", "Identity"}


def _const(value: ir.Value | None) -> np.ndarray | None:
    if value is None:
        return None
    c = value.const_value
    if c is None:
        return None
    return c.numpy()


class FoldConstantsPass(ir.passes.InPlacePass):
    """Folds nodes of the default domain whose inputs are all constant."""

    def call(self, model: ir.Model) -> ir.passes.PassResult:
        modified = False
        graph = model.graph
        for node in list(graph):  # main graph only: subgraph constants are captured values
            if node.domain not in ("", "ai.onnx") or node.op_type in _NEVER:
                continue
            if not node.inputs:
                continue
            inputs = [_const(v) if v is not None else None for v in node.inputs]
            if any(a is None and v is not None for a, v in zip(inputs, node.inputs)):
                continue
            try:
                outputs = _evaluate(node, inputs, model.opset_imports.get("", 21))
            except Exception as e:  # unsupported by the reference implementation: keep the node
                logger.debug("not folding %s: %s", node.name, e)
                continue
            if outputs is None or any(np.asarray(o).size > MAX_FOLDED_SIZE for o in outputs):
                continue
            if any(out in graph.outputs for out in node.outputs):
                continue  # a graph output keeps its producer (and its name)
            for out, arr in zip(node.outputs, outputs):
                arr = np.asarray(arr)
                if out.dtype is not None and arr.dtype != out.dtype.numpy():
                    arr = arr.astype(out.dtype.numpy())
                name = f"{node.name}_folded_{out.index()}"
                tensor = ir.tensor(arr, name=name)
                new = ir.Value(name=name, shape=ir.Shape(arr.shape),
                               type=ir.TensorType(tensor.dtype), const_value=tensor)
                graph.register_initializer(new)
                out.replace_all_uses_with(new)
                modified = True
        if modified:
            _drop_unused_initializers(graph)
        return ir.passes.PassResult(model, modified)


def _drop_unused_initializers(graph: ir.Graph) -> None:
    for name, value in list(graph.initializers.items()):
        if not value.uses() and value not in graph.outputs and value not in graph.inputs:
            del graph.initializers[name]


def _evaluate(node: ir.Node, inputs: list[np.ndarray | None], opset: int) -> list[np.ndarray] | None:
    from onnx.reference.op_run import to_array_extended  # noqa: F401  (import check)
    from onnx.reference import ReferenceEvaluator
    import onnx

    proto = ir.serde.serialize_node(node)
    names = [f"i{i}" if v is not None else "" for i, v in enumerate(inputs)]
    del proto.input[:]
    proto.input.extend(names)
    outs = [f"o{i}" for i in range(len(node.outputs))]
    del proto.output[:]
    proto.output.extend(outs)
    ev = ReferenceEvaluator(proto, opsets={"": opset})
    return ev.run(None, {n: a for n, a in zip(names, inputs) if n})

"""The IR pass pipeline: an ``onnx_ir.Model`` from the frontend → a serialized, checked model.

Order matters where commented. Input: the lowered model (node names carry source lines,
``meta["pyonnx.loc"]`` locations). Output: ``onnx.ModelProto`` bytes, deterministic for the
same source and signature.
"""

from __future__ import annotations

import logging

import onnx
import onnx_ir as ir
import onnx_ir.passes.common as common

from pyonnx.passes.fold_constants import FoldConstantsPass

__all__ = ["optimize", "serialize"]

logger = logging.getLogger(__name__)


def optimize(model: ir.Model) -> ir.Model:
    """Runs the optimization passes in place and returns the model."""
    passes = ir.passes.Sequential(
        # Folding first: it turns shape computations on known dimensions into constants, which
        # makes more nodes identical for CSE and more nodes dead for removal.
        ir.passes.PassManager([FoldConstantsPass(), common.RemoveUnusedNodesPass()], steps=2,
                              early_stop=True),
        common.CommonSubexpressionEliminationPass(),
        common.RemoveUnusedNodesPass(),
        # Unused initializers and opsets go after the last removal of nodes.
        common.RemoveUnusedOpsetsPass(),
        # Sibling subgraphs may both have named a value val_0: make every name unique last.
        common.NameFixPass(),
    )
    return passes(model).model


def serialize(model: ir.Model) -> onnx.ModelProto:
    """Serializes and runs the ONNX checker (the cheap structural check).

    Raises:
        onnx.checker.ValidationError: the model is invalid (a pyonnx bug).
    """
    proto = ir.serde.serialize_model(model)
    onnx.checker.check_model(proto)
    return proto

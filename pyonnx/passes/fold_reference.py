"""Folding an op without a rule (step 2 of :mod:`pyonnx.passes.fold_constants`): ONNX shape
inference gives the output dtypes and static shapes, then onnx's reference implementation
evaluates the node; either failing means the node is kept."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx_ir as ir

__all__: list[str] = []

# The pass's logger: these messages are the pass's.
logger = logging.getLogger("pyonnx.passes.fold_constants")


def _infer_outputs(node: ir.Node, args: list[np.ndarray | None],
                   opset: int) -> list[tuple[np.dtype, tuple[int, ...] | None]] | None:
    """Output (dtype, static shape or None) per output from ONNX shape inference, or None."""
    import onnx
    from onnx import numpy_helper

    proto, names = _node_proto(node, args)
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, "")
        types = {}
        data = {}
        for name, arr in zip(names, args):
            if arr is None:
                continue
            types[name] = onnx.helper.make_tensor_type_proto(
                onnx.helper.np_dtype_to_tensor_dtype(arr.dtype), arr.shape)
            data[name] = numpy_helper.from_array(arr, name)
        inferred = onnx.shape_inference.infer_node_outputs(schema, proto, types, data)
    except Exception as e:  # no schema, or inference rejects the node: do not fold
        logger.debug("not folding %s (%s): %s", node.name, node.op_type, e)
        return None
    out = []
    for name in proto.output:
        t = inferred.get(name)
        if t is None or not t.HasField("tensor_type") or not t.tensor_type.elem_type:
            return None
        try:
            dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(t.tensor_type.elem_type))
        except (KeyError, TypeError):
            return None
        shape = None
        if t.tensor_type.HasField("shape"):
            dims = t.tensor_type.shape.dim
            if all(d.HasField("dim_value") for d in dims):
                shape = tuple(d.dim_value for d in dims)
        out.append((dtype, shape))
    return out


def _node_proto(node: ir.Node, args: list[np.ndarray | None]):
    proto = ir.serde.serialize_node(node)
    names = [f"i{i}" if a is not None else "" for i, a in enumerate(args)]
    del proto.input[:]
    proto.input.extend(names)
    del proto.output[:]
    proto.output.extend(f"o{i}" for i in range(len(node.outputs)))
    return proto, names


def _reference_eval(node: ir.Node, args: list[np.ndarray | None],
                    opset: int) -> list[np.ndarray] | None:
    from onnx.reference.ops import load_op

    try:
        impl = load_op("", node.op_type, opset)
        attrs = {name: _attr_value(attr) for name, attr in node.attributes.items()}
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = impl.eval(*args, **attrs)
    except Exception as e:  # not implemented by the reference runtime: keep the node
        logger.debug("not folding %s (%s): %s", node.name, node.op_type, e)
        return None
    if not isinstance(outs, (tuple, list)):
        outs = [outs]
    return list(outs)


def _attr_value(attr: ir.Attr) -> Any:
    if attr.type == ir.AttributeType.TENSOR:
        return ir.serde.serialize_tensor(attr.as_tensor())
    if attr.type == ir.AttributeType.TENSORS:
        return [ir.serde.serialize_tensor(t) for t in attr.as_tensors()]
    value = attr.value
    if isinstance(value, Sequence) and not isinstance(value, str):
        return list(value)
    return value

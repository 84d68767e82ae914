"""``ir.Model`` → ``onnx.ModelProto``, byte-identical to ``onnx_ir.serde.serialize_model``, faster.

Input: a model as the pipeline leaves it. Output: the ModelProto onnx-ir's serde would make
(same fields in the same order, so the same bytes).

onnx-ir's generic serializer costs ~10 µs a node, a fifth of a small function's conversion:
an error-capturing wrapper around every call, a ``MetadataStore`` created on every value only to
look for quantization annotations, protocol checks. This one writes the common node directly
(ONNX-domain or custom-domain node, ``INT``/``FLOAT``/``STRING``/``INTS``/``FLOATS`` attributes)
and hands everything else to ``onnx_ir.serde``: tensor and graph attributes (graph attributes
come back here through :func:`_graph_into`; in-memory ``ir.Tensor`` initializers are written here), reference attributes, node metadata, overloads,
device configurations, values with metadata or a non-tensor type (plain tensor value infos are
written here); a model with functions or device configurations
goes to ``serde.serialize_model`` whole. ``tests/test_passes_serialize.py`` compares the bytes.
"""

from __future__ import annotations

import onnx
import onnx_ir as ir
from onnx_ir import serde

__all__ = ["serialize_model"]

_A = ir.AttributeType
_INT, _FLOAT, _STRING, _INTS, _FLOATS, _GRAPH = (_A.INT, _A.FLOAT, _A.STRING, _A.INTS, _A.FLOATS,
                                                 _A.GRAPH)
_P = onnx.AttributeProto
_P_INT, _P_FLOAT, _P_STRING, _P_INTS, _P_FLOATS, _P_GRAPH = (_P.INT, _P.FLOAT, _P.STRING, _P.INTS,
                                                             _P.FLOATS, _P.GRAPH)
_QUANT = serde._QUANT_PARAMETER_TENSOR_NAMES_FIELD  # noqa: SLF001 (serde's own key)


def serialize_model(model: ir.Model) -> onnx.ModelProto:
    """The ModelProto of ``model``, as ``onnx_ir.serde.serialize_model`` makes it."""
    if model.functions or getattr(model, "device_configurations", ()):
        return serde.serialize_model(model)
    proto = onnx.ModelProto()
    proto.ir_version = model.ir_version
    if model.producer_name:
        proto.producer_name = model.producer_name
    if model.producer_version:
        proto.producer_version = model.producer_version
    if model.domain:
        proto.domain = model.domain
    if model.model_version:
        proto.model_version = model.model_version
    if model.doc_string:
        proto.doc_string = model.doc_string
    opsets = proto.opset_import
    for domain, version in model.opset_imports.items():
        opsets.add(domain=domain, version=version)
    if model.metadata_props:
        for key in sorted(model.metadata_props):
            proto.metadata_props.add(key=key, value=model.metadata_props[key])
    _graph_into(proto.graph, model.graph, model.ir_version)
    return proto


def _plain(value: ir.Value) -> bool:
    """True when ``value`` has no metadata (so no quantization annotation): onnx-ir's
    ``value.meta`` would create a store just to look, so its slot is read directly."""
    store = getattr(value, "_metadata", None)
    return store is None or _QUANT not in store


def _graph_into(proto: onnx.GraphProto, graph: ir.Graph, ir_version: int | None) -> None:
    """serde.serialize_graph_into, with nodes written by :func:`_node_into`."""
    if graph.name:
        proto.name = graph.name
    if graph.doc_string:
        proto.doc_string = graph.doc_string
    inits = graph.initializers
    for v in graph.inputs:
        _value_into(proto.input.add(), v)
        if v.name not in inits and not _plain(v):
            serde._maybe_add_quantization_annotation(proto, v)  # noqa: SLF001
    input_names = {v.name for v in graph.inputs}
    for v in inits.values():
        if not _plain(v):
            serde._maybe_add_quantization_annotation(proto, v)  # noqa: SLF001
        if serde._should_create_value_info_for_value(v) and v.name not in input_names:  # noqa: SLF001
            _value_into(proto.value_info.add(), v)
        if v.const_value is None:
            serde.logger.warning("Initializer '%s' does not have a constant value set.", v.name)
            continue
        v.const_value.name = v.name
        _tensor_into(proto.initializer.add(), v.const_value)
    add_node = proto.node.add
    for node in graph:
        _node_into(add_node(), node, ir_version)
        for out in node.outputs:
            if out.is_graph_output():
                continue
            if not _plain(out):
                serde._maybe_add_quantization_annotation(proto, out)  # noqa: SLF001
            # serde._should_create_value_info_for_value, inlined: most values have nothing.
            if (out.shape is None and out.type is None and not out.metadata_props
                    and not out.doc_string) or not out.name:
                continue
            _value_into(proto.value_info.add(), out)
    for v in graph.outputs:
        _value_into(proto.output.add(), v)
        if not _plain(v):
            serde._maybe_add_quantization_annotation(proto, v)  # noqa: SLF001
    if graph.metadata_props:
        for key in sorted(graph.metadata_props):
            proto.metadata_props.add(key=key, value=graph.metadata_props[key])


def _value_into(proto: onnx.ValueInfoProto, v: ir.Value) -> None:
    """serde.serialize_value_into for a plain tensor value (typed, dims ints or symbolic, no
    denotations or metadata); anything else goes to serde."""
    t = v.type
    shape = v.shape
    if type(t) is not ir.TensorType or t.denotation or v.metadata_props or (
            shape is not None and not _plain_shape(shape)):
        serde.serialize_value_into(proto, v)
        return
    proto.name = v.name
    tensor_type = proto.type.tensor_type
    tensor_type.elem_type = t.dtype.value
    if shape is not None:
        shape_proto = tensor_type.shape
        shape_proto.ClearField("dim")          # an empty shape is still written (rank 0)
        add = shape_proto.dim.add
        for d in shape.dims:
            if type(d) is int:
                add().dim_value = d
            elif d.value is not None:
                add().dim_param = str(d.value)
            else:
                add()
    if v.doc_string:
        proto.doc_string = v.doc_string


def _tensor_into(proto: onnx.TensorProto, t: ir.TensorProtocol) -> None:
    """serde.serialize_tensor_into for an in-memory ``ir.Tensor`` (raw bytes); others to serde."""
    if type(t) is not ir.Tensor:
        serde.serialize_tensor_into(proto, from_=t)
        return
    if t.name:
        proto.name = t.name
    if t.doc_string:
        proto.doc_string = t.doc_string
    proto.data_type = t.dtype.value
    proto.dims.extend(t.shape.numpy())
    proto.raw_data = t.tobytes()
    if t.metadata_props:
        for key in sorted(t.metadata_props):
            proto.metadata_props.add(key=key, value=t.metadata_props[key])


def _plain_shape(shape: ir.Shape) -> bool:
    if type(shape) is not ir.Shape:
        return False
    for i, d in enumerate(shape.dims):
        if (type(d) is not int and type(d) is not ir.SymbolicDim) or shape.get_denotation(i):
            return False
    return True


def _node_into(proto: onnx.NodeProto, node: ir.Node, ir_version: int | None) -> None:
    if node.overload or node.metadata_props or node.device_configurations:
        serde.serialize_node_into(proto, from_=node, model_ir_version=ir_version)
        return
    proto.op_type = node.op_type
    if node.domain:
        proto.domain = node.domain
    if node.name:
        proto.name = node.name
    if node.doc_string:
        proto.doc_string = node.doc_string
    proto.input.extend(["" if v is None else v.name for v in node.inputs])
    outputs = node.outputs
    names = [v.name for v in outputs]
    # Trailing outputs without a name are left out (serde._remove_trailing_outputs).
    while names and not names[-1]:
        names.pop()
    proto.output.extend(names)
    # (The UserDict's own dict: its ValuesView costs ~1 µs an item.)
    for attr in node.attributes.data.values():
        a = proto.attribute.add()
        if attr.is_ref():
            serde.serialize_reference_attribute_into(a, from_=attr)
            continue
        a.name = attr.name
        if attr.doc_string:
            a.doc_string = attr.doc_string
        t = attr.type
        value = attr.value
        if t == _INT:
            a.i = value
            a.type = _P_INT
        elif t == _FLOAT:
            a.f = value
            a.type = _P_FLOAT
        elif t == _STRING and type(value) is str:
            a.s = value.encode("utf-8")
            a.type = _P_STRING
        elif t == _INTS:
            a.ints.extend(value)
            a.type = _P_INTS
        elif t == _FLOATS:
            a.floats.extend(value)
            a.type = _P_FLOATS
        elif t == _GRAPH:
            _graph_into(a.g, value, None)
            a.type = _P_GRAPH
        else:
            serde._fill_in_value_for_attribute(a, t, value)  # noqa: SLF001

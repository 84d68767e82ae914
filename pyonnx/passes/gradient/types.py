"""Types and source locations for the gradient pass: ONNX shape inference on a copy of the
model (value name → dtype, dims) and the Python line a node came from."""

from __future__ import annotations

import logging
import re

import numpy as np
import onnx
import onnx_ir as ir

from pyonnx.loc import SourceLoc

__all__ = ["FLOAT_TYPES", "TAPE", "Dims", "infer_types", "loc_of"]

logger = logging.getLogger(__name__)

FLOAT_TYPES = frozenset({ir.DataType.FLOAT16, ir.DataType.FLOAT, ir.DataType.DOUBLE,
                         ir.DataType.BFLOAT16})
_LOC = "pyonnx.loc"
# Set on the sequence ops a Loop VJP records states with (a tape): a later differentiation
# that reaches them says so (second derivatives through a tape have no rule).
TAPE = "pyonnx.tape"
_DOC_LOC = re.compile(r"^(.*):(\d+):(\d+): ")

Dims = tuple  # of int (known size), str (symbolic size: equal names, equal sizes) or None


# ------------------------------------------------------------------ locations and types
def loc_of(node: ir.Node) -> SourceLoc | None:
    """The Python source location of ``node``: its ``meta["pyonnx.loc"]``, else parsed from the
    ``doc_string`` pyonnx writes (``file:line:col: source``), which survives serialization."""
    loc = node.meta.get(_LOC)
    if loc is not None:
        return loc
    doc = node.doc_string or ""
    m = _DOC_LOC.match(doc)
    if m is None:
        return None
    import linecache

    filename, line, col = m.group(1), int(m.group(2)), int(m.group(3)) - 1
    return SourceLoc(filename, line, col, "", linecache.getline(filename, line))


def infer_types(model: ir.Model) -> dict[str, tuple[ir.DataType | None, Dims | None]]:
    """Value name → (dtype, dims) from ONNX shape inference, without changing the model.

    dims is None when the rank is unknown; a dim is an int, a symbol name, or None.
    Inference failures leave the values it could not type out (rules then fall back to
    run-time shapes or say what they need).
    """
    from pyonnx.passes.serialize import serialize_model

    proto = serialize_model(model)
    _constants_into_subgraphs(proto)
    inferred = None
    for strict in (True, False):
        try:
            inferred = onnx.shape_inference.infer_shapes(proto, strict_mode=strict,
                                                         data_prop=True)
            break
        except Exception as e:  # noqa: BLE001 - inference is an optimization here
            logger.debug("shape inference (strict=%s) failed: %s", strict, e)
    info: dict[str, tuple[ir.DataType | None, Dims | None]] = {}
    if inferred is None:
        return info

    def read(vi) -> None:
        t = vi.type
        if not t.HasField("tensor_type"):
            return
        tt = t.tensor_type
        dtype = ir.DataType(tt.elem_type) if tt.elem_type else None
        dims = None
        if tt.HasField("shape"):
            dims = tuple(d.dim_value if d.HasField("dim_value")
                         else (d.dim_param or None) for d in tt.shape.dim)
        info[vi.name] = (dtype, dims)

    def walk(g: onnx.GraphProto) -> None:
        for vi in (*g.input, *g.value_info, *g.output):
            read(vi)
        for init in g.initializer:
            info[init.name] = (ir.DataType(init.data_type), tuple(init.dims))
        for node in g.node:
            for attr in node.attribute:
                if attr.HasField("g"):
                    walk(attr.g)
                for sub in attr.graphs:
                    walk(sub)

    walk(inferred.graph)
    return info


def _constants_into_subgraphs(proto: onnx.ModelProto, limit: int = 64) -> None:
    """Copies the small main-graph initializers that If/Loop bodies use into those bodies (in
    this copy of the model, made for inference only): ONNX shape inference does not read outer
    constants' values inside subgraphs, so it lost ranks there (``Unsqueeze`` axes, ``Reshape``
    targets) that the rules need."""
    small = {t.name: t for t in proto.graph.initializer
             if int(np.prod(t.dims, dtype=np.int64)) <= limit}

    def walk(g: onnx.GraphProto, top: bool) -> None:
        if not top:
            defined = {t.name for t in g.initializer} | {v.name for v in g.input}
            used = {name for n in g.node for name in n.input}
            for name in sorted(used - defined):
                if name in small:
                    g.initializer.append(small[name])
        for n in g.node:
            for attr in n.attribute:
                if attr.HasField("g"):
                    walk(attr.g, False)
                for sub in attr.graphs:
                    walk(sub, False)

    walk(proto.graph, True)

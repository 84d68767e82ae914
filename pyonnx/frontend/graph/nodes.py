"""How :meth:`Lowering.op <pyonnx.frontend.graph.context.Lowering.op>` builds a node: its
attributes from Python values, and the key under which an identical node is reused."""

from __future__ import annotations

from typing import Any

import onnx_ir as ir

__all__: list[str] = []


def _memo_key(op_type: str, values: list, outputs: int, attributes: dict[str, Any]) -> tuple | None:
    """The memo key of a ``context._MEMO_OPS`` node, or None when an attribute is not an int."""
    attrs = []
    for k, v in attributes.items():
        t = type(v)
        if t is int or t is bool or v is None:
            attrs.append((k, v if v is None else int(v)))
        elif isinstance(v, ir.DataType):
            attrs.append((k, int(v)))
        else:
            return None
    # Values hash by identity: the same input objects, not equal-looking ones.
    return (op_type, outputs, *values, None, *sorted(attrs))


def _attributes(attributes: dict[str, Any]) -> list[ir.Attr]:
    """Node attributes from Python values (None values dropped).

    The common kinds are built directly: onnx-ir's generic ``convert_attributes`` costs about
    three times as much per attribute, which shows in conversion time.
    """
    out = []
    generic = {}
    for k, v in attributes.items():
        if v is None:
            continue
        t = type(v)
        if t is int or t is bool:
            out.append(ir.AttrInt64(k, int(v)))
        elif t is float:
            out.append(ir.AttrFloat32(k, v))
        elif t is str:
            out.append(ir.AttrString(k, v))
        elif isinstance(v, ir.DataType):
            out.append(ir.AttrInt64(k, int(v)))
        elif (t is list or t is tuple) and v and all(type(e) is int for e in v):
            out.append(ir.AttrInt64s(k, list(v)))
        else:
            generic[k] = v
    if generic:
        out.extend(ir.convenience.convert_attributes(generic))
    return out

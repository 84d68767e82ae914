"""Helpers shared by the folding rule families: attributes, static dims, constants of values."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx_ir as ir

__all__ = ["const_of"]


# ---------------------------------------------------------------------------- helpers
def _attr(node: ir.Node, name: str, default: Any = None) -> Any:
    attr = node.attributes.get(name)
    if attr is None or attr.is_ref():
        return default
    value = attr.value
    if isinstance(value, Sequence) and not isinstance(value, str):
        return list(value)
    return value


def _ints(arr: np.ndarray | None) -> list[int] | None:
    if arr is None or arr.dtype.kind not in "iu" or arr.ndim > 1:
        return None
    return [int(v) for v in arr.reshape(-1)]


def _size(shape: Sequence[int]) -> int:
    return math.prod(shape)


def _static_dims(value: ir.Value | None) -> list[int | None] | None:
    """The dims of ``value``'s shape (int when fixed, None when not), or None if rank unknown."""
    if value is None:
        return None
    if value.const_value is not None:
        return list(value.const_value.shape.numpy())
    shape = value.shape
    if shape is None:
        return None
    return [d if isinstance(d, int) else None for d in shape.dims]


def const_of(value: ir.Value | None) -> np.ndarray | None:
    """The constant value of ``value``, or None (absent, computed, or an overridable input)."""
    if value is None or value.const_value is None or value.is_graph_input():
        return None
    return value.const_value.numpy()


def _producer(value: ir.Value | None, op_type: str) -> ir.Node | None:
    """The producer of ``value`` if it is a default-domain ``op_type`` node."""
    if value is None:
        return None
    node = value.producer()
    if node is None or node.op_type != op_type or node.domain not in ("", "ai.onnx"):
        return None
    return node


def _normalize_axes(axes: list[int], rank: int) -> list[int] | None:
    out = [a + rank if a < 0 else a for a in axes]
    if any(not 0 <= a < rank for a in out) or len(set(out)) != len(out):
        return None
    return out

"""Helpers shared by the VJP rule families."""

from __future__ import annotations

import onnx_ir as ir


__all__: list[str] = []


def _inputs(node: ir.Node, n: int) -> list[ir.Value | None]:
    ins = list(node.inputs)
    return ins + [None] * (n - len(ins))


def _axis(node, default: int) -> int:
    return node.attributes.get_int("axis", default)

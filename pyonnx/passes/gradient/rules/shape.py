"""VJP rules of shape and indexing ops: reshapes, transposes, concat/split, gathers and slices
(by scattering positions back), pads, scatters, TopK, Trilu, Range."""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.passes.gradient.registry import RULES, vjp
from pyonnx.passes.gradient.rules.common import _axis, _inputs

__all__: list[str] = []


# ------------------------------------------------------------------ shapes and data movement
@vjp("Reshape", "Flatten", "Squeeze", "Unsqueeze")
def _reshape(b, node, gs):
    x = node.inputs[0]
    return [b.op("Reshape", gs[0], b.shape(x), dtype=b.dtype(x), dims=b.dims(x))] + \
        [None] * (len(node.inputs) - 1)


@vjp("Transpose")
def _transpose(b, node, gs):
    perm = node.attributes.get_ints("perm", None)
    if perm is None:
        return [b.op("Transpose", gs[0])]        # reversing twice is the identity
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return [b.op("Transpose", gs[0], perm=inverse)]


@vjp("Expand")
def _expand(b, node, gs):
    x = node.inputs[0]
    return [b.sum_to(gs[0], x), None]


@vjp("Concat")
def _concat(b, node, gs):
    axis = _axis(node, 0)
    g = gs[0]
    sizes = [b.op("Shape", x, start=axis, end=axis + 1 if axis != -1 else None)
             for x in node.inputs]
    parts = b.op("Split", g, b.op("Concat", *sizes, axis=0), axis=axis, outputs=len(sizes))
    if len(sizes) == 1:
        parts = (parts,)
    return [p if b.needs(i) else None for i, p in enumerate(parts)]


@vjp("Split")
def _split(b, node, gs):
    axis = _axis(node, 0)
    parts = [g if g is not None else b.zeros_like(out) for g, out in zip(gs, node.outputs)]
    return [b.op("Concat", *parts, axis=axis)] + [None] * (len(node.inputs) - 1)


def _index_map(b, node, gs, data_index: int = 0):
    """Ops that only move elements of their data input (gathers, slices, tiles): the same op
    applied to element positions says where each output element came from, and the cotangent
    is scattered back (added, for repeated positions)."""
    x = node.inputs[data_index]
    ins = list(node.inputs)
    ins[data_index] = b.iota(x)
    positions = b.op(node.op_type, *ins, copy_attrs=node)
    result: list[ir.Value | None] = [None] * len(node.inputs)
    result[data_index] = b.scatter_add_flat(gs[0], positions, x)
    return result


for _op in ("Slice", "Gather", "GatherElements", "GatherND", "Compress", "Tile",
            "ReverseSequence"):
    RULES[_op] = _index_map


@vjp("Pad")
def _pad(b, node, gs):
    """Like the gathers, with one more slot standing for the fill value (constant mode):
    what lands there is the fill value's cotangent."""
    x, pads, fill, axes = _inputs(node, 4)
    n = b.op("Size", x)
    positions = b.op("Pad", b.iota(x), pads, n, axes, copy_attrs=node)
    gx, gfill = b.scatter_add_flat(gs[0], positions, x, extra_slot=True)
    out: list[ir.Value | None] = [gx, None, None, None]
    if fill is not None and b.needs(2):
        out[2] = b.op("Reshape", gfill, b.shape(fill))
    return out[:len(node.inputs)]


@vjp("TopK")
def _topk(b, node, gs):
    x = node.inputs[0]
    positions = b.op("GatherElements", b.iota(x), node.outputs[1], axis=_axis(node, -1))
    return [b.scatter_add_flat(gs[0], positions, x), None]


@vjp("Trilu")
def _trilu(b, node, gs):
    return [b.op("Trilu", gs[0], *node.inputs[1:], copy_attrs=node)] + \
        [None] * (len(node.inputs) - 1)


@vjp("ScatterND", "ScatterElements")
def _scatter(b, node, gs):
    """Overwrite (reduction none): the data keeps the cotangent where it was not overwritten,
    the updates get it where they landed; with reduction "add" the data keeps all of it."""
    g = gs[0]
    data, idx, upd = node.inputs
    reduction = node.attributes.get_string("reduction", "none")
    gather = "GatherND" if node.op_type == "ScatterND" else "GatherElements"
    attrs = {} if node.op_type == "ScatterND" else {"axis": _axis(node, 0)}
    if reduction not in ("none", "add"):
        raise b.error(f"the gradient of {node.op_type} with reduction '{reduction}' is not "
                      "supported")
    gd = gu = None
    if b.needs(0):
        gd = g if reduction == "add" else b.op(node.op_type, g, idx, b.zeros_like(upd),
                                                 **attrs)
    if b.needs(2):
        gu = b.op(gather, g, idx, **attrs)
    return [gd, None, gu]


@vjp("Range")
def _range(b, node, gs):
    """start + i * delta: start gets the sum, delta the position-weighted sum; the limit only
    sets the (integer) length."""
    g = gs[0]
    start, limit, delta = node.inputs
    y = node.outputs[0]
    gs_ = gd = None
    if b.needs(0):
        gs_ = b.op("ReduceSum", g, keepdims=0)
    if b.needs(2):
        i = b.op("CastLike", b.op("Range", b.const(np.int64(0)), b.op("Size", y),
                                  b.const(np.int64(1))), y)
        gd = b.op("ReduceSum", b.op("Mul", g, i), keepdims=0)
    return [gs_, None, gd]

"""Folding rules for data movement and shapes: Gather, Slice, Concat, Transpose, Expand, Reshape,
Unsqueeze, Squeeze, Range, ConstantOfShape (and their chains)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx_ir as ir

from pyonnx.passes.fold_rules.common import (
    _attr,
    _ints,
    _normalize_axes,
    _producer,
    _size,
    _static_dims,
    const_of,
)
from pyonnx.passes.fold_rules.registry import Inputs, Result, register


# -------------------------------------------------------------------- data movement
@register("Gather")
def gather(node: ir.Node, f: Inputs) -> Result:
    data, idx = f.const(0), f.const(1)
    if data is None or idx is None or idx.dtype.kind not in "iu" or data.ndim == 0:
        return None
    axis = _attr(node, "axis", 0)
    if not -data.ndim <= axis < data.ndim:
        return None
    axis %= data.ndim
    dim = data.shape[axis]
    idx = idx.astype(np.int64)
    if np.any((idx < -dim) | (idx >= dim)):
        return None  # out of range: an error at run time, keep it there
    if _size(data.shape[:axis] + idx.shape + data.shape[axis + 1:]) > f.limit:
        return None
    return [np.take(data, np.where(idx < 0, idx + dim, idx), axis=axis)]


@register("Slice")
def slice_(node: ir.Node, f: Inputs) -> Result:
    args = f.consts()
    if args is None or len(args) < 3 or args[0] is None:
        return None
    data = args[0]
    starts, ends = _ints(args[1]), _ints(args[2])
    axes = _ints(args[3]) if len(args) > 3 and args[3] is not None else None
    steps = _ints(args[4]) if len(args) > 4 and args[4] is not None else None
    if starts is None or ends is None or len(starts) != len(ends):
        return None
    if axes is None:
        if len(args) > 3 and args[3] is not None:
            return None
        axes = list(range(len(starts)))
    if steps is None:
        if len(args) > 4 and args[4] is not None:
            return None
        steps = [1] * len(starts)
    if len(axes) != len(starts) or len(steps) != len(starts) or 0 in steps:
        return None
    norm = _normalize_axes(axes, data.ndim)
    if norm is None:
        return None
    index = [slice(None)] * data.ndim
    for a, s, e, st in zip(norm, starts, ends, steps):
        # ONNX clamps starts/ends per step sign exactly as Python slices do.
        index[a] = slice(s, e, st)
    return [np.array(data[tuple(index)])]


@register("Concat")
def concat(node: ir.Node, f: Inputs) -> Result:
    args = f.consts()
    if args is None or not args or any(a is None for a in args):
        return None
    axis = _attr(node, "axis")
    rank = args[0].ndim
    if axis is None or rank == 0 or not -rank <= axis < rank:
        return None
    if any(a.dtype != args[0].dtype or a.ndim != rank for a in args):
        return None
    try:
        out = np.concatenate(args, axis=axis)
    except ValueError:
        return None
    return [out] if out.size <= f.limit else None


def _perm(node: ir.Node, rank: int) -> list[int] | None:
    perm = _attr(node, "perm")
    if perm is None:
        return list(range(rank))[::-1]
    if sorted(perm) != list(range(rank)):
        return None
    return perm


@register("Transpose", partial=True)
def transpose(node: ir.Node, f: Inputs) -> Result:
    data = f.const(0)
    if data is not None:
        perm = _perm(node, data.ndim)
        return None if perm is None else [np.ascontiguousarray(np.transpose(data, perm))]
    inner = _producer(node.inputs[0], "Transpose")
    if inner is None or "perm" not in node.attributes or "perm" not in inner.attributes:
        return None
    p, q = _perm(inner, len(_attr(inner, "perm"))), _perm(node, len(_attr(node, "perm")))
    if p is None or q is None or len(p) != len(q):
        return None
    # out[i] = mid[q[i]] = x[p[q[i]]]
    combined = [p[i] for i in q]
    if combined == list(range(len(p))):
        return [inner.inputs[0]]
    middle = node.inputs[0]
    node.replace_input_with(0, inner.inputs[0])
    node.attributes["perm"] = ir.AttrInt64s("perm", combined)
    f.rewired(middle)
    return None


@register("Expand")
def expand(node: ir.Node, f: Inputs) -> Result:
    data, shape_ = f.const(0), _ints(f.const(1))
    if data is None or shape_ is None:
        return None
    try:
        out_shape = np.broadcast_shapes(data.shape, tuple(shape_))
    except ValueError:
        return None
    if _size(out_shape) > f.limit:
        return None
    return [np.array(np.broadcast_to(data, out_shape))]


def _reshape_target(in_shape: Sequence[int], target: list[int], allowzero: int) -> tuple | None:
    out = list(target)
    for i, d in enumerate(out):
        if d == 0 and not allowzero:
            if i >= len(in_shape):
                return None
            out[i] = in_shape[i]
    if out.count(-1) > 1 or any(d < -1 for d in out):
        return None
    total = _size(in_shape)
    if -1 in out:
        known = _size(d for d in out if d != -1)
        if known == 0 or total % known:
            return None
        out[out.index(-1)] = total // known
    return tuple(out) if _size(out) == total else None


@register("Reshape", partial=True)
def reshape(node: ir.Node, f: Inputs) -> Result:
    target = _ints(f.const(1))
    if target is None:
        return None
    allowzero = _attr(node, "allowzero", 0)
    data = f.const(0)
    if data is not None:
        shape_ = _reshape_target(data.shape, target, allowzero)
        return None if shape_ is None else [data.reshape(shape_)]
    x = node.inputs[0]
    inner = _producer(x, "Reshape")
    # Reshape(Reshape(x, a), b) == Reshape(x, b) unless b copies dims of the middle (0 entries).
    if inner is not None and inner.inputs[0] is not None and (allowzero or 0 not in target):
        source = inner.inputs[0]
        node.replace_input_with(0, source)
        f.rewired(x)
        x = source
    dims = _static_dims(x)
    if dims is not None and None not in dims:
        shape_ = _reshape_target(dims, target, allowzero)  # type: ignore[arg-type]
        if shape_ is not None and list(shape_) == dims:
            return [x]
    return None


def _axes(node: ir.Node) -> tuple[bool, list[int] | None]:
    """(known, axes): from input 1 (opset >= 13) or the ``axes`` attribute; known=False when
    the axes input is given but not constant."""
    if len(node.inputs) > 1 and node.inputs[1] is not None:
        axes = _ints(const_of(node.inputs[1]))
        return axes is not None, axes
    return True, _attr(node, "axes")


@register("Unsqueeze")
def unsqueeze(node: ir.Node, f: Inputs) -> Result:
    known, axes = _axes(node)
    data = f.const(0)
    if not known or axes is None or data is None:
        return None
    norm = _normalize_axes(axes, data.ndim + len(axes))
    if norm is None:
        return None
    return [np.expand_dims(data, tuple(norm))]


@register("Squeeze", partial=True)
def squeeze(node: ir.Node, f: Inputs) -> Result:
    data = f.const(0)
    if data is None and _producer(node.inputs[0], "Unsqueeze") is None:
        return None
    known, axes = _axes(node)
    if not known:
        return None
    if data is not None:
        if axes is None:
            return [np.squeeze(data)]
        norm = _normalize_axes(axes, data.ndim)
        if norm is None or any(data.shape[a] != 1 for a in norm):
            return None
        return [np.squeeze(data, axis=tuple(norm))]
    # Squeeze(Unsqueeze(x, axes), axes) == x: the same (non-negative, so rank-independent)
    # positions are inserted then removed.
    inner = _producer(node.inputs[0], "Unsqueeze")
    if inner is None or axes is None or any(a < 0 for a in axes) or len(set(axes)) != len(axes):
        return None
    inner_known, inner_axes = _axes(inner)
    if inner_known and inner_axes is not None and sorted(inner_axes) == sorted(axes):
        return [inner.inputs[0]]
    return None


@register("Range")
def range_(node: ir.Node, f: Inputs) -> Result:
    args = f.consts()
    if args is None or len(args) != 3 or any(a is None or a.size != 1 for a in args):
        return None
    dtype = args[0].dtype
    # Only integers: float ranges depend on how the runtime rounds the element count.
    if dtype.kind not in "iu" or any(a.dtype != dtype for a in args):
        return None
    start, limit, delta = (int(a.reshape(())) for a in args)
    if delta == 0:
        return None
    n = max(-((start - limit) // delta), 0)  # ceil((limit - start) / delta)
    if n > f.limit:
        return None
    return [(start + delta * np.arange(n, dtype=np.int64)).astype(dtype)]


@register("ConstantOfShape")
def constant_of_shape(node: ir.Node, f: Inputs) -> Result:
    shape_ = _ints(f.const(0))
    if shape_ is None or any(d < 0 for d in shape_) or _size(shape_) > f.limit:
        return None
    attr = node.attributes.get("value")
    if attr is None:
        fill = np.zeros((1,), np.float32)
    elif attr.is_ref():
        return None
    else:
        fill = attr.as_tensor().numpy()
    if fill.size != 1:
        return None
    return [np.full(shape_, fill.reshape(()), dtype=fill.dtype)]

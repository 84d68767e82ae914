"""The advanced stage of a subscript: index arrays, boolean masks and 0-d booleans.

Input: the Array left by the basic stage (integers removed, slices applied, new axes added) and
the :class:`~pyonnx.frontend.graph.indexing.plan.IndexPlan`. Output: numpy's result, with the
advanced dimensions where numpy puts them (in place when the advanced items are adjacent in the
subscript, else first; integers count as advanced items for that rule).

Strategies form a registry tried in order; each docstring lists the syntax it serves. Masks are
checked against the lengths they index: at conversion time when both are known, else by a
``Reshape`` with ``allowzero=1`` that fails at run time on a mismatch (``Compress`` itself
would silently treat a short mask as padded with False). The check is skipped when the mask is
provably shaped like the array (``x[x > 0]``: elementwise ops on ``x`` and scalar constants).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from pyonnx.frontend.graph.indexing.basic import i64, to_index
from pyonnx.frontend.graph.indexing.forms import ARRAY, BOOL0, MASK
from pyonnx.frontend.graph.indexing.plan import IndexPlan
from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array

__all__ = ["apply_advanced", "STRATEGIES", "same_shape", "move_dims"]


@dataclasses.dataclass
class _Component:
    """One advanced item on the basic stage's output.

    Attributes:
        kind: ARRAY (integer indices) or MASK (a 1-D bool mask, once multi-d masks are
            flattened together with the axes they index).
        value: np.ndarray (static) or Array.
        axis: the axis it indexes.
        checked: a mask whose length is known to match (no run-time check needed).
        true: a static ``True`` (``x[True]``): its axis of length 1 is already the result.
    """

    kind: str
    value: Any
    axis: int
    checked: bool = False
    true: bool = False


# A strategy: (ctx, array, components) -> (result, first advanced dim, number of them) or None.
Strategy = Callable[[Any, Array, list[_Component]], "tuple[Array, int, int] | None"]
STRATEGIES: list[Strategy] = []


def strategy(fn: Strategy) -> Strategy:
    """Registers an advanced-indexing strategy (tried in registration order)."""
    STRATEGIES.append(fn)
    return fn


def apply_advanced(ctx, xb: Array, plan: IndexPlan) -> Array:
    """numpy's advanced indexing of ``xb`` (the basic stage's output) for ``plan``."""
    comps: list[_Component] = []
    for i, it in enumerate(plan.items):
        p = plan.out_position(i)
        if it.kind == ARRAY:
            comps.append(_Component(ARRAY, it.value, p))
        elif it.kind == MASK:
            comps.append(_Component(MASK, it.value, p))
        elif it.kind == BOOL0:
            if isinstance(it.value, bool):
                # nonzero() of a 0-d True/False: the index [0] or [] on the new axis of length 1.
                comps.append(_Component(ARRAY, np.arange(int(it.value), dtype=np.int64), p,
                                        true=it.value))
            else:
                b = Array(ctx.op("Reshape", it.value, i64(ctx, [1])), np.bool_, (1,))
                comps.append(_Component(MASK, b, p, checked=True))
    # Every mask becomes one validated 1-D mask over one (merged) axis.
    shift = 0
    for c in comps:
        c.axis -= shift
        if c.kind == MASK:
            k = c.value.ndim
            xb, c.value = _flat_mask(ctx, xb, c)
            shift += k - 1
    for s in STRATEGIES:
        done = s(ctx, xb, comps)
        if done is not None:
            out, at, n = done
            return move_dims(ctx, out, at, n, plan.advanced_position)
    raise AssertionError("no advanced-indexing strategy applied")  # gather_nd takes all


@strategy
def lone_true(ctx, xb: Array, comps: list[_Component]) -> tuple[Array, int, int] | None:
    """``x[True]``, ``x[..., True]``, ``x[0, True]``: the new axis of length 1 is the result."""
    if len(comps) == 1 and comps[0].true:
        return xb, comps[0].axis, 1
    return None


@strategy
def gather(ctx, xb: Array, comps: list[_Component]) -> tuple[Array, int, int] | None:
    """``x[I]``, ``x[:, I]``, ``x[1:, I, None]``, ``x[0, :, I]``, ``x[False]`` with one integer
    index array ``I`` (static or an Array of any integer dtype and rank): one ``Gather``;
    out-of-bounds entries make it fail at run time (numpy raises IndexError)."""
    if len(comps) != 1 or comps[0].kind != ARRAY:
        return None
    c = comps[0]
    if isinstance(c.value, np.ndarray):
        idx, ishape = ctx.const(c.value), c.value.shape
    else:
        a = to_index(ctx, c.value, int32_ok=True)
        idx, ishape = a.value, a.shape
    p = c.axis
    out = ctx.op("Gather", xb, idx, axis=p)
    return Array(out, xb.dtype, xb.shape[:p] + tuple(ishape) + xb.shape[p + 1:]), p, len(ishape)


@strategy
def compress(ctx, xb: Array, comps: list[_Component]) -> tuple[Array, int, int] | None:
    """``x[m]``, ``x[x > 0]``, ``x[:, m]``, ``x[m, 1:]``, ``x[0, m]``, ``x[b]`` (0-d bool
    Array) with one boolean mask of any rank: one ``Compress`` (a multi-d mask and the axes it
    indexes are flattened first)."""
    if len(comps) != 1 or comps[0].kind != MASK:
        return None
    c = comps[0]
    m = c.value
    n = int(np.count_nonzero(m)) if isinstance(m, np.ndarray) else None
    mv = ctx.const(m) if isinstance(m, np.ndarray) else m.value
    p = c.axis
    out = ctx.op("Compress", xb, mv, axis=p)
    return Array(out, xb.dtype, xb.shape[:p] + (n,) + xb.shape[p + 1:]), p, 1


@strategy
def gather_nd(ctx, xb: Array, comps: list[_Component]) -> tuple[Array, int, int] | None:
    """``x[I, J]``, ``x[I, :, J]``, ``x[:, I, J]``, ``x[m, I]``, ``x[[0, 1], [True, False,
    True]]``, ``x[True, I]``: several advanced indices, broadcast together (masks as their
    nonzero positions): the indexed axes are moved to the front, and one ``GatherND`` reads
    them with the stacked indices."""
    axes = [c.axis for c in comps]
    rest = [a for a in range(xb.ndim) if a not in axes]
    xt = xb
    if axes + rest != list(range(xb.ndim)):
        xt = Array(ctx.op("Transpose", xb, perm=axes + rest), xb.dtype,
                   tuple(xb.shape[a] for a in axes + rest))
    columns: list[Any] = []
    for c in comps:
        if c.kind == MASK and isinstance(c.value, np.ndarray):
            columns.append(np.nonzero(c.value)[0].astype(np.int64))
        else:
            columns.append(c.value)
    if all(isinstance(col, np.ndarray) for col in columns):
        try:
            stacked = np.stack(np.broadcast_arrays(*columns), axis=-1)
        except ValueError:
            raise _mismatch(ctx, [col.shape for col in columns]) from None
        idx, bshape = ctx.const(stacked), stacked.shape[:-1]
    else:
        idx, bshape = _stack_dynamic(ctx, comps, columns)
    out = ctx.op("GatherND", xt, idx)
    return Array(out, xb.dtype, tuple(bshape) + xt.shape[len(axes):]), 0, len(bshape)


def _mismatch(ctx, shapes: list[tuple]) -> Exception:
    text = " ".join(str(tuple("?" if d is None else d for d in s)).replace(",)", ")")
                    .replace(" ", "") for s in shapes)
    return ctx.error("shape mismatch: indexing arrays could not be broadcast together with "
                     f"shapes {text} (numpy raises IndexError)")


def _stack_dynamic(ctx, comps: list[_Component], columns: list[Any]) -> tuple[Any, tuple]:
    """The (B..., m) int64 GatherND indices from columns of which some are run-time values."""
    pieces: list[Any] = []
    shapes: list[tuple] = []
    for c, col in zip(comps, columns):
        if isinstance(col, np.ndarray):
            pieces.append(ctx.const(col[..., None]))
            shapes.append(col.shape)
        elif c.kind == MASK:
            nz = ctx.op("NonZero", col)
            pieces.append(ctx.op("Transpose", nz, perm=[1, 0]))
            shapes.append((None,))
        else:
            a = to_index(ctx, col)
            pieces.append(ctx.op("Unsqueeze", a, i64(ctx, [-1])))
            shapes.append(a.shape)
    try:
        bshape = broadcast_shapes(*shapes)
    except ValueError:
        raise _mismatch(ctx, shapes) from None
    arrays = [col for col in columns if isinstance(col, Array)]
    same = (all(s == shapes[0] and None not in s for s in shapes)
            or (len(arrays) == len(columns) and all(c.kind == ARRAY for c in comps)
                and len({a.ndim for a in arrays}) == 1
                and all(same_shape(a.value, arrays[0].value) for a in arrays)))
    if not same:
        # onnxruntime 1.31's ExpandElimination drops an Expand whose constant target holds a 0
        # (it reads 0 like 1), so a target that is or may fold to a constant never holds one.
        if None not in bshape and 0 not in bshape:
            target = i64(ctx, list(bshape) + [1])
            pieces = [p if s == bshape else ctx.op("Expand", p, target)
                      for p, s in zip(pieces, shapes)]
        else:
            # Expand broadcasts both ways: chaining it over the run-time pieces' shapes, from
            # the static pieces' broadcast (a constant input, never a target), gives B + (1,).
            static = [col.shape for col in columns if isinstance(col, np.ndarray)]
            dynamic = [p for p, col in zip(pieces, columns) if not isinstance(col, np.ndarray)]
            if static:
                acc = ctx.const(np.zeros(np.broadcast_shapes(*static) + (1,), np.int64))
                rest = dynamic
            else:
                acc, rest = dynamic[0], dynamic[1:]
            for p in rest:
                acc = ctx.op("Expand", acc, ctx.op("Shape", p))
            target = ctx.op("Shape", acc)
            pieces = [p if p is acc else ctx.op("Expand", p, target) for p in pieces]
    idx = pieces[0] if len(pieces) == 1 else ctx.op("Concat", *pieces, axis=-1)
    return idx, bshape


def move_dims(ctx, a: Array, src: int, n: int, dst: int) -> Array:
    """``a`` with its dimensions ``[src, src + n)`` moved to start at ``dst``."""
    if src == dst or n == 0:
        return a
    others = [d for d in range(a.ndim) if not src <= d < src + n]
    perm = others[:dst] + list(range(src, src + n)) + others[dst:]
    return Array(ctx.op("Transpose", a, perm=perm), a.dtype, tuple(a.shape[d] for d in perm))


# ------------------------------------------------------------------------------- masks
def _flat_mask(ctx, xb: Array, c: _Component) -> tuple[Array, Any]:
    """Validates mask ``c`` against the axes it indexes; for a k-d mask, merges those axes of
    ``xb`` into one and flattens the mask. Returns (array, 1-D mask)."""
    m = c.value
    p = c.axis
    k = m.ndim
    dims = xb.shape[p:p + k]
    known = all(d is not None for d in dims) and all(d is not None for d in m.shape)
    check = not (c.checked or known)  # known pairs were compared when planning
    if check and isinstance(m, Array) and p == 0 and k == xb.ndim and same_shape(m.value, xb.value):
        check = False
    static = isinstance(m, np.ndarray)
    if not check:
        if k == 1:
            return xb, m
        flat = m.reshape(-1) if static else Array(
            ctx.op("Reshape", m, i64(ctx, [-1])), np.bool_, (_prod(m.shape),))
    elif k == 1:
        mv = ctx.const(m) if static else m.value
        flat = Array(ctx.op("Reshape", mv, ctx.op("Shape", xb, start=p, end=p + 1),
                            allowzero=1), np.bool_, dims)
        return xb, flat
    else:
        mv = ctx.const(m) if static else m.value
        mshape = i64(ctx, list(m.shape)) if None not in m.shape else ctx.op("Shape", mv)
        equal = ctx.op("Equal", mshape, ctx.op("Shape", xb, start=p, end=p + k))
        ok = ctx.op("ReduceMin", equal, keepdims=1)
        # Reshape fails on -2: the run-time form of numpy's IndexError.
        target = ctx.op("Where", ok, i64(ctx, [-1]), i64(ctx, [-2]))
        flat = Array(ctx.op("Reshape", mv, target), np.bool_, (_prod(m.shape),))
    return _merge_axes(ctx, xb, p, k, flat), flat


def _prod(shape: tuple) -> int | None:
    return None if None in shape else math.prod(shape)


def _merge_axes(ctx, xb: Array, p: int, k: int, flat: Any) -> Array:
    """``xb`` with axes ``[p, p + k)`` merged into one (of the flattened mask's length)."""
    lead, mid, trail = xb.shape[:p], xb.shape[p:p + k], xb.shape[p + k:]
    merged = _prod(mid)
    if not lead and not trail:
        target: Any = i64(ctx, [-1])
    elif None not in lead + trail and merged is not None:
        target = i64(ctx, list(lead) + [merged] + list(trail))
    else:
        parts: list[Any] = []
        if lead:
            parts.append(i64(ctx, list(lead)) if None not in lead
                         else ctx.op("Shape", xb, start=0, end=p))
        if merged is not None:
            parts.append(i64(ctx, [merged]))
        elif isinstance(flat, np.ndarray):
            parts.append(i64(ctx, [flat.size]))
        else:
            parts.append(ctx.op("Shape", flat))
        if trail:
            parts.append(i64(ctx, list(trail)) if None not in trail
                         else ctx.op("Shape", xb, start=p + k))
        target = parts[0] if len(parts) == 1 else ctx.op("Concat", *parts, axis=0)
    # allowzero=1: a run-time 0 is a length, never "copy this dimension".
    out = ctx.op("Reshape", xb, target, allowzero=1)
    return Array(out, xb.dtype, lead + (merged,) + trail)


# ------------------------------------------------------------------- shape proofs
_ELEMENTWISE = frozenset({
    "Add", "Sub", "Mul", "Div", "Pow", "Mod", "Equal", "Less", "LessOrEqual", "Greater",
    "GreaterOrEqual", "And", "Or", "Xor", "Not", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
    "BitwiseNot", "BitShift", "Max", "Min", "Where", "Cast", "CastLike", "Neg", "Abs", "Sign",
    "Exp", "Log", "Sqrt", "Reciprocal", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh",
    "Cosh", "Tanh", "Asinh", "Acosh", "Atanh", "Floor", "Ceil", "Round", "IsNaN", "IsInf",
    "Erf", "Relu", "Sigmoid", "Identity",
})


def _shape_key(v: Any, depth: int = 0) -> Any:
    """A key equal for values of provably the same shape (given the same rank): the value an
    elementwise chain with scalar-like constants starts from, seen through ``Gather`` of one
    constant position (the rows of ``np.nonzero``'s result share a shape)."""
    node = v.producer() if hasattr(v, "producer") else None
    if node is None or node.domain not in ("", "ai.onnx") or depth > 32:
        return v
    if node.op_type == "Gather":
        idx = node.inputs[1].const_value if node.inputs[1] is not None else None
        if idx is not None and idx.shape == ():
            attr = node.attributes.get("axis")
            return ("Gather", _shape_key(node.inputs[0], depth + 1),
                    attr.as_int() if attr is not None else 0)
        return v
    if node.op_type not in _ELEMENTWISE:
        return v
    keys = set()
    for inp in node.inputs:
        if inp is None:
            continue
        const = inp.const_value
        if const is not None and all(d == 1 for d in const.shape):
            continue
        keys.add(_shape_key(inp, depth + 1))
    return keys.pop() if len(keys) == 1 else v


def same_shape(a: Any, b: Any) -> bool:
    """True when the ir values ``a`` and ``b`` provably have the same shape, given that they
    have the same rank (see :func:`_shape_key`)."""
    return a is b or _shape_key(a) == _shape_key(b)

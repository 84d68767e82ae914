"""Sums and products: ``np.sum``, ``np.prod``, ``np.nansum``.

Input: an Array (or anything ``np.asarray`` takes) and numpy's keywords, ``axis``, ``dtype``,
``keepdims`` static. Output: an Array of numpy's accumulation dtype (int64/uint64 for smaller
integers and bool) and static shape.

* Integer sums and products: onnxruntime's int64 ``ReduceSum``/``ReduceProd`` go through double
  (``sum([2**60 + 1])`` gives ``2**60``) and saturate instead of wrapping. numpy accumulates
  integers in int64/uint64 modulo 2**64, so integer sums use a float64 ``ReduceSum`` only when
  every partial sum stays below 2**53 (elements of at most 16 bits); otherwise a ``MatMul``
  with ones, which is exact in int64. Integer products multiply pairs in a ``Loop`` (log2(n)
  steps); see :mod:`.exact`. uint64 is computed as int64 (the cast wraps both ways, so sums and
  products modulo 2**64 are the same).
* Float sums: numpy sums float32 pairwise; onnxruntime's float32 ``ReduceSum`` accumulates with
  up to 2e-6 relative error at 1e6 elements, while summing in float64 and rounding matched
  numpy's pairwise result bit for bit in our measurements, so float32 sums accumulate in float64
  (float16 in float32, as numpy's pairwise loop for float16 does).

Not bit for bit (float rounding order only, within a few ulps): float products (numpy
multiplies in sequence), float16 sums along a non-contiguous axis (numpy rounds every partial
sum to float16), and float sums along non-contiguous axes, where numpy adds in sequence rather
than pairwise.

Supported syntax::

    np.sum(a, axis=None, dtype=None, keepdims=False, initial=...)       a.sum(...)
    np.prod(a, axis=None, dtype=None, keepdims=False, initial=...)      a.prod(...)
    np.nansum(a, axis=None, dtype=None, keepdims=False, initial=...)
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.reductions.common import (
    _BOOL,
    _F16,
    _F32,
    _F64,
    _I64,
    _NOVALUE,
    _SUM_ACC,
    _U64,
    _arr,
    _axes,
    _binary,
    _reduce_all,
    _reduce_op,
    _refuse,
    _static_bool,
    _static_dtype,
    reduce_any,
    select,
    widen_f16,
)
from pyonnx.frontend.numpy_calls.reductions.masked import has_where, masked
from pyonnx.frontend.numpy_calls.reductions.exact import (
    _along_merged,
    _int_prod_along,
    _int_sum_along,
)

__all__ = ["reduce_sum"]


def _sum_dtype(x: np.dtype) -> np.dtype:
    """numpy's default accumulation dtype of ``np.sum``/``np.prod``/``np.cumsum``."""
    if x.kind == "b" or (x.kind == "i" and x.itemsize < 8):
        return _I64
    if x.kind == "u" and x.itemsize < 8:
        return _U64
    return x


def reduce_sum(ctx, x: Array, axes: tuple[int, ...], keepdims: bool, t: np.dtype,
               axes_value: ir.Value | None = None, identity: bool = True) -> Array:
    """``np.add.reduce(x, axes, dtype=t, keepdims)``: ``x`` cast to ``t``, summed as numpy does.

    ``identity``: float sums start from numpy's identity ``+0.0``, so a sum of ``-0.0`` values
    (of none, or over no axes) is ``+0.0`` as numpy's; ``np.sum(..., initial=v)`` starts from
    ``v`` instead (the caller adds it)."""
    plus_zero = t.kind == "f" and identity and not _no_negative_zero(x)
    if not axes:
        if not plus_zero:
            return ctx.cast(x, t)
        if t != _F16:  # (+0.0 is exact in t)
            return _plus_zero(ctx, ctx.cast(x, t))
        # float16 adds in float32 (no float16 compute); kept, not marked: once dropped, the
        # float16 -> float32 -> float16 Casts left behind are a chain onnxruntime's optimizer
        # removes without updating the If/Loop bodies that read it ("Missing Input", fuzz
        # seed 26011196 with float32 -> float64 -> float32)
        wide = ctx.cast(ctx.cast(x, t), _F32)
        out = ctx.op("Add", wide, ctx.const(np.array(0.0, np.float32)))
        return ctx.cast(Array(out, _F32, wide.shape), t)
    if t.kind == "b":  # add on bool is logical or
        return reduce_any(ctx, x, axes, keepdims)
    if t.kind in "iu":
        xt = ctx.cast(x, t)
        small = x if x.dtype.kind in "biu" and x.dtype.itemsize <= 2 else \
            xt if t.itemsize <= 2 else None
        if small is not None:
            # Elements of at most 16 bits: float64 sums them exactly (partial sums stay below
            # 2**53), 4x faster than int64 ReduceSum, which converts through double anyway.
            # Summing x's own values then wrapping into t equals numpy's sum of x cast to t.
            r = _reduce_op(ctx, "ReduceSum", ctx.cast(small, _F64), axes, keepdims, axes_value)
            return ctx.cast(ctx.cast(r, _I64), t)
        wide = ctx.cast(xt, _I64)  # uint64 wraps into int64 and back exactly
        return ctx.cast(_along_merged(ctx, wide, axes, keepdims, _int_sum_along), t)
    acc = _SUM_ACC[t]
    r = _reduce_op(ctx, "ReduceSum", ctx.cast(ctx.cast(x, t), acc), axes, keepdims, axes_value)
    return ctx.cast(_plus_zero(ctx, r) if plus_zero else r, t)


def _no_negative_zero(x: Array) -> bool:
    """Whether ``x`` holds no ``-0.0`` by construction (``exp``, ``abs``, ``x * x``, integers
    or bools): its sum needs no ``+0.0`` (and the idioms over it, softmax, the L2 norm,
    log-sum-exp, stay recognizable)."""
    if x.dtype.kind in "biu":
        return True
    node = x.value.producer() if isinstance(x.value, ir.Value) else None
    while node is not None and node.op_type == "Cast" and not node.domain:
        source = node.inputs[0]
        if source is not None and source.dtype is not None and not source.dtype.is_floating_point():
            return True
        node = source.producer() if source is not None else None
    if node is None or node.domain:
        return False
    if node.op_type in ("Exp", "Abs"):
        return True
    return node.op_type == "Mul" and len(node.inputs) == 2 and node.inputs[0] is node.inputs[1]


def _plus_zero(ctx, r: Array) -> Array:
    """``r + 0.0``: ``-0.0`` becomes ``+0.0``, every other value stays. Marked for
    passes/zero_signs.py, which drops it where nothing observes the sign of a zero."""
    out = ctx.op("Add", r, ctx.const(np.array(0.0, r.dtype)))
    out.producer().meta["pyonnx.zero_sign_only"] = True
    return Array(out, r.dtype, r.shape, r.weak)


def _reduce_prod(ctx, x: Array, axes: tuple[int, ...], keepdims: bool, t: np.dtype) -> Array:
    if not axes:
        return ctx.cast(x, t)
    if t.kind == "b":  # multiply on bool is logical and
        return _reduce_all(ctx, x, axes, keepdims)
    if t.kind in "iu":
        wide = ctx.cast(ctx.cast(x, t), _I64)
        return ctx.cast(_along_merged(ctx, wide, axes, keepdims, _int_prod_along), t)
    if t == _F16:
        # In float32, rounded once (numpy rounds every step; see emit for why not float16).
        r = _reduce_op(ctx, "ReduceProd", ctx.cast(ctx.cast(x, t), _F32), axes, keepdims)
        return ctx.cast(r, t)
    return _reduce_op(ctx, "ReduceProd", ctx.cast(x, t), axes, keepdims)


def _initial(ctx, name: str, initial, t: np.dtype) -> Array:
    if isinstance(initial, Array):
        if initial.ndim != 0:
            raise ctx.error(f"{name}: initial must be a scalar")
        return ctx.cast(initial, t)
    initial = ctx.static(initial, "initial")
    if not isinstance(initial, (bool, int, float, np.generic)):
        raise ctx.error(f"{name}: initial must be a number, not {initial!r}")
    return Array(ctx.const(initial, t), t, ())


def _add_initial(ctx, name: str, r: Array, initial, ufunc: np.ufunc) -> Array:
    if initial is _NOVALUE:
        return r
    init = _initial(ctx, name, initial, r.dtype)
    op = {np.add: "Add", np.multiply: "Mul"}[ufunc]
    if r.dtype.kind == "b":
        op = {"Add": "Or", "Mul": "And"}[op]
        return Array(ctx.op(op, r, init), _BOOL, r.shape)
    return _binary(ctx, op, r, init)


@register(np.sum, methods=("sum",))
def sum_(ctx, a, axis=None, dtype=None, out=None, keepdims=False, initial=_NOVALUE,
         where=True):
    _refuse(ctx, "np.sum", out)
    x = _arr(ctx, a)
    if x.dtype.kind == "f" and initial is not _NOVALUE and has_where(where):
        # -0.0 where nothing is selected: the sum then keeps the sign of every zero
        # (initial=-0.0 over -0.0 values is -0.0, as numpy's). onnxruntime's Where turns a
        # -0.0 in its first branch into +0.0, so the fill is +0.0 on -x, negated back.
        wide = ctx.cast(x, _F32) if x.dtype == _F16 else x  # (exact: no float16 compute)
        neg = Array(ctx.op("Neg", wide), wide.dtype, x.shape)
        back = masked(ctx, "np.sum", neg, where, 0)
        x = ctx.cast(Array(ctx.op("Neg", back), wide.dtype, x.shape), x.dtype)
    else:
        x = masked(ctx, "np.sum", x, where, 0)
    axes = _axes(ctx, "np.sum", x, axis)
    t = _static_dtype(ctx, dtype) or _sum_dtype(x.dtype)
    r = reduce_sum(ctx, x, axes, _static_bool(ctx, keepdims, "keepdims"), t,
                   identity=initial is _NOVALUE)
    return _add_initial(ctx, "np.sum", r, initial, np.add)


@register(np.prod, methods=("prod",))
def prod(ctx, a, axis=None, dtype=None, out=None, keepdims=False, initial=_NOVALUE, where=True):
    _refuse(ctx, "np.prod", out)
    x = masked(ctx, "np.prod", _arr(ctx, a), where, 1)
    axes = _axes(ctx, "np.prod", x, axis)
    t = _static_dtype(ctx, dtype) or _sum_dtype(x.dtype)
    r = _reduce_prod(ctx, x, axes, _static_bool(ctx, keepdims, "keepdims"), t)
    return _add_initial(ctx, "np.prod", r, initial, np.multiply)


@register(np.nansum)
def nansum(ctx, a, axis=None, dtype=None, out=None, keepdims=_NOVALUE, initial=_NOVALUE,
           where=_NOVALUE):
    x = _arr(ctx, a)
    return sum_(ctx, _zero_nans(ctx, x), axis, dtype, out, keepdims, initial, where)


def _zero_nans(ctx, x: Array) -> Array:
    """numpy's ``_replace_nan(a, 0)`` for float arrays."""
    if x.dtype.kind != "f":
        return x
    xw = widen_f16(ctx, x)
    return select(ctx, ctx.op("IsNaN", xw), ctx.const_array(np.array(0, x.dtype)), x, x.shape)

"""Helpers shared by the reductions: arguments, shapes, float16-safe ops, ``any``/``all``.

Input: numpy's reduction arguments (``axis``, ``keepdims``, ``dtype``, ``out=``, ``where=``) and
Arrays. Output: normalized static arguments (or a ConversionError with numpy's message) and
Arrays. float16 arithmetic is written as float32 ops with explicit casts (see :func:`emit`);
``_ordered`` maps a dtype onto one ArgMax/ArgMin, Greater and Where all run in, keeping the order
(uint64 by flipping the top bit); :func:`reduce_any` is ``np.logical_or.reduce`` (and
``logical_and``), also used for bool sums and products.

Public: :func:`emit`, :func:`widen_f16`, :func:`select`, :func:`binary_ufunc` (add, subtract,
multiply, true_divide with numpy 2's promotion) and :func:`reduce_any`, which other numpy_calls
modules use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes, kernels, path_weak
from pyonnx.frontend.graph.shapes import normalize_axes
from pyonnx.frontend.graph.shapes import single_axis as _axis1  # (moved to graph; re-exported)
from pyonnx.frontend.graph.values import Array

__all__ = ["reduce_any", "emit", "binary_ufunc", "widen_f16", "select"]


_NOVALUE: Any = np._NoValue
_BOOL = np.dtype(np.bool_)
_U8 = np.dtype(np.uint8)
_I32 = np.dtype(np.int32)
_I64 = np.dtype(np.int64)
_U64 = np.dtype(np.uint64)
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_INT64_MAX = np.iinfo(np.int64).max
# Float sums accumulate one step wider (see :mod:`.sums`).
_SUM_ACC = {_F16: _F32, _F32: _F64, _F64: _F64}


def _arr(ctx, a: Any) -> Array:
    """``np.asanyarray(a)``: a strong Array (numpy's reductions return numpy scalars)."""
    x = ctx.asarray(a)
    if x.weak:
        x = Array(x.value, x.dtype, x.shape)
    if x.dtype not in dtypes.SUPPORTED_DTYPES:
        raise ctx.error(f"arrays of dtype {x.dtype} are not supported")
    return x


def _i64(ctx, values) -> ir.Value:
    return ctx.const(np.asarray(values, dtype=np.int64))


def _refuse(ctx, name: str, out=None, where=True) -> None:
    if out is not None:
        raise ctx.error(f"{name}(..., out=...) is not supported; assign the result instead")
    if where is not True and where is not _NOVALUE:
        raise ctx.error(f"{name}(..., where=...) is not supported; mask the input with "
                        "np.where first")


def _static_bool(ctx, v, what: str) -> bool:
    v = ctx.static(v, what)
    return False if v is _NOVALUE else bool(v)


def _static_dtype(ctx, dtype) -> np.dtype | None:
    if dtype is None:
        return None
    try:
        dt = np.dtype(ctx.static(dtype, "dtype"))
    except TypeError as e:
        raise ctx.error(f"invalid dtype: {e}") from None
    if dt not in dtypes.SUPPORTED_DTYPES:
        raise ctx.error(f"dtype {dt} is not supported")
    return dt


def _axes(ctx, name: str, x: Array, axis, ufunc_reduce: bool = True) -> tuple[int, ...]:
    """numpy's ``axis`` argument, normalized and sorted (None → every axis).

    ``ufunc_reduce``: numpy's ufunc reductions (sum, max, any, ...) also take ``axis=0`` or
    ``-1`` on a 0-d array, as no reduction; mean, var and median refuse it.
    """
    axis = ctx.static(axis, "axis")
    if isinstance(axis, np.integer):
        axis = int(axis)
    if ufunc_reduce and x.ndim == 0 and type(axis) is int and axis in (0, -1):
        return ()
    if isinstance(axis, list):
        raise ctx.error(f"{name}: axis must be an int or a tuple of ints, not a list "
                        f"(write axis={tuple(axis)!r})")
    if isinstance(axis, tuple):
        axis = tuple(int(a) if isinstance(a, np.integer) else a for a in axis)
    try:
        return normalize_axes(axis, x.ndim)
    except ValueError as e:
        raise ctx.error(f"{name}: {e}") from None


def _out_shape(shape: tuple, axes: tuple[int, ...], keepdims: bool) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _reduce_op(ctx, op: str, x: Array, axes: tuple[int, ...], keepdims: bool,
               axes_value: ir.Value | None = None) -> Array:
    """One ONNX Reduce* node over non-empty ``axes`` in ``x``'s dtype."""
    assert axes
    value = ctx.op(op, x, axes_value if axes_value is not None else _i64(ctx, axes),
                   keepdims=int(keepdims))
    return Array(value, x.dtype, _out_shape(x.shape, axes, keepdims))


def _flatten(ctx, x: Array) -> Array:
    size = x.static_size
    value = ctx.op("Reshape", x, _i64(ctx, [-1]))
    return Array(value, x.dtype, (size,))


def _squeeze(ctx, x: Array, axes: list[int]) -> Array:
    if not axes:
        return x
    value = ctx.op("Squeeze", x, _i64(ctx, axes))
    return Array(value, x.dtype, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def _unsqueeze(ctx, x: Array, axes: list[int]) -> Array:
    if not axes:
        return x
    shape = list(x.shape)
    for a in sorted(axes):
        shape.insert(a, 1)
    return Array(ctx.op("Unsqueeze", x, _i64(ctx, axes)), x.dtype, tuple(shape))


def _count(ctx, x: Array, axes: tuple[int, ...]) -> int | Array:
    """How many elements each output of a reduction over ``axes`` combines (numpy's rcount)."""
    known = 1
    dynamic = []
    for a in axes:
        if x.shape[a] is None:
            dynamic.append(a)
        else:
            known *= x.shape[a]
    if not dynamic:
        return known
    if len(dynamic) == 1:
        dims = ctx.op("Shape", x, start=dynamic[0], end=dynamic[0] + 1)
    else:
        dims = ctx.op("Gather", ctx.op("Shape", x), _i64(ctx, dynamic))
    # ReduceProd on int64 goes through double, exact for any real element count (< 2**53).
    n = ctx.op("ReduceProd", dims, keepdims=0)
    if known != 1:
        n = ctx.op("Mul", n, _i64(ctx, known))
    return Array(n, _I64, ())


def _as_f64(ctx, v: int | float | Array) -> Array:
    if isinstance(v, Array):
        return ctx.cast(v, _F64)
    return ctx.const_array(np.float64(v))


def emit(ctx, op: str, inputs: list[Array], dtype: np.dtype, **attrs) -> Array:
    """``kernels.emit``, but float16 arithmetic is written as float32 ops and explicit casts.

    numpy computes float16 ufuncs in float32 and rounds each result to float16. onnxruntime
    runs most float16 ops through casts it inserts itself, and drops the rounding to float16
    when the op's result feeds a Cast (measured: ``Cast(Add(f16 0.1, f16 0.2), to=double)``
    gives 0.2999267578125, numpy's float16 sum is 0.2998046875); explicit casts are kept.
    """
    dtype = np.dtype(dtype)
    if dtype != _F16:
        return kernels.emit(ctx, op, inputs, dtype, **attrs)
    r = kernels.emit(ctx, op, [ctx.cast(a, _F32) for a in inputs], _F32, **attrs)
    return r if r.dtype == _BOOL else ctx.cast(r, _F16)


def widen_f16(ctx, x: Array) -> Array:
    """float16 as float32 (exactly) for ops other than casts and data movement: around a
    float16 op that onnxruntime runs through its own casts (Where, ReduceMax, IsNaN, Pad ...)
    it also drops an explicit ``Cast(float32 → float16)`` before it, so values stop being
    rounded to float16 (measured)."""
    return ctx.cast(x, _F32) if x.dtype == _F16 else x


def select(ctx, cond: ir.Value, a: Array, b: Array, shape: tuple) -> Array:
    """``Where(cond, a, b)`` for same-dtype ``a`` and ``b`` (float16 selected in float32)."""
    ac, bc = widen_f16(ctx, a), widen_f16(ctx, b)
    r = Array(ctx.op("Where", cond, ac, bc), ac.dtype, shape)
    return ctx.cast(r, a.dtype)


_UFUNC_OPS = {np.add: "Add", np.subtract: "Sub", np.multiply: "Mul", np.true_divide: "Div"}


def binary_ufunc(ctx, ufunc: np.ufunc, a: Any, b: Any) -> Array:
    """``ufunc(a, b)`` for add/subtract/multiply/true_divide, with numpy 2's promotion."""
    try:
        ins, outs, weak = dtypes.ufunc_dtypes(ufunc, a, b)
    except TypeError as e:
        raise ctx.error(f"np.{ufunc.__name__}: {e}") from None
    finish = path_weak.check(ctx, ufunc, (a, b), outs) if ctx.path_weak else None
    arrays = [ctx.cast(o, dt) if isinstance(o, Array) else ctx.asarray(o, dt)
              for o, dt in zip((a, b), ins)]
    r = ctx.cast(emit(ctx, _UFUNC_OPS[ufunc], arrays, ins[0]), outs[0])
    r = Array(r.value, r.dtype, r.shape, weak)
    return r if finish is None else finish(r)


def _binary(ctx, op: str, a: Array, b: Array) -> Array:
    """Same-dtype elementwise op with broadcasting of the static shapes."""
    return emit(ctx, op, [a, b], a.dtype)


def _div_f64(ctx, total: Array, count: int | float | Array) -> Array:
    """``true_divide(total, intp(count))``: numpy's loop is float64 for every dtype we support."""
    return _binary(ctx, "Div", ctx.cast(total, _F64), _as_f64(ctx, count))


def _check_nonempty(ctx, name: str, ufunc: str, x: Array, axes: tuple[int, ...]) -> None:
    """numpy's ValueError for a reduction without identity over a statically empty axis."""
    if any(x.shape[a] == 0 for a in axes):
        raise ctx.error(f"{name}: zero-size array to reduction operation {ufunc} which has "
                        "no identity (numpy raises ValueError); pass initial=... to allow it")


_SIGN_BIT = np.uint64(1 << 63)


def _ordered(ctx, dtype: np.dtype) -> tuple[Callable[[Array], Array], Callable[[Array], Array]]:
    """Maps ``dtype`` onto one ArgMax/ArgMin, Greater and Where all run in, keeping the order.

    Returns:
        (forward, back): bool → uint8, int16/uint16 → int32, uint32 → int64, float16 →
        float32 (see widen_f16), and uint64 → int64 by flipping the top bit (then the cast
        wraps); other dtypes map to themselves.
    """
    if dtype == _U64:
        flip = ctx.const(np.array(_SIGN_BIT))

        def fwd(a: Array) -> Array:
            return ctx.cast(Array(ctx.op("BitwiseXor", ctx.cast(a, _U64), flip), _U64, a.shape),
                            _I64)

        def back(r: Array) -> Array:
            return Array(ctx.op("BitwiseXor", ctx.cast(r, _U64), flip), _U64, r.shape)
        return fwd, back
    wide = {_BOOL: _U8, np.dtype(np.int16): _I32, np.dtype(np.uint16): _I32,
            np.dtype(np.uint32): _I64, _F16: _F32}.get(dtype, dtype)
    return (lambda a: ctx.cast(a, wide)), (lambda r: ctx.cast(r, dtype))


def reduce_any(ctx, x: Array, axes: tuple[int, ...], keepdims: bool, all_: bool = False,
               allow_empty: bool = True) -> Array:
    """``np.logical_or.reduce`` (``all_``: ``logical_and``) of ``x != 0``.

    With ``allow_empty=False`` the bool ReduceMax itself fails at run time on an empty
    reduction, which the NaN check of ``np.max`` relies on.
    """
    b = x if x.dtype == _BOOL else ctx.cast(x, _BOOL)
    if not axes:
        return b
    op = "ReduceMin" if all_ else "ReduceMax"
    if not allow_empty:
        return _reduce_op(ctx, op, b, axes, keepdims)
    # onnxruntime refuses bool ReduceMax/Min over an empty set; uint8 gives 0 / 255 there.
    r = _reduce_op(ctx, op, ctx.cast(b, _U8), axes, keepdims)
    return ctx.cast(r, _BOOL)


def _reduce_all(ctx, x, axes, keepdims):
    return reduce_any(ctx, x, axes, keepdims, all_=True)

"""Extrema: ``np.max``/``np.min`` (``amax``/``amin``), ``np.ptp``, ``np.argmax``/``np.argmin``.

Input: an Array (or anything ``np.asarray`` takes) and numpy's keywords, ``axis``, ``keepdims``
and ``initial`` static. Output: an Array of the input's dtype (int64 indices for argmax/argmin)
and numpy's static shape.

* ``max``/``min`` propagate NaN as numpy does (``ReduceMax`` skips it); ``argmax``/``argmin``
  return the first NaN's index as numpy does (``ArgMax`` does not).
* Integer ``max``/``min`` pick the element with ``ArgMax``/``ArgMin`` + ``GatherElements``:
  onnxruntime's int64 ``ReduceMax``/``ReduceMin`` and elementwise ``Max``/``Min`` compare only
  the low 32 bits in their vectorized loops (``max([3653403231, 2735729615, 1322117304,
  175979945])`` gives 1322117304). Kernels missing for a dtype are widened exactly (int16 →
  int32, uint32 → int64); uint64 is mapped to int64 by flipping the top bit, which keeps order.

An empty reduction known at conversion time is a ConversionError (numpy raises ValueError);
one only known at run time makes the model fail at run time.

Supported syntax::

    np.max / np.amax / np.min / np.amin(a, axis=None, keepdims=False, initial=..., where=...)
    np.argmax / np.argmin(a, axis=None, keepdims=False)                 a.argmax(...)
    np.ptp(a, axis=None, keepdims=False)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.reductions.common import (
    _BOOL,
    _F16,
    _F32,
    _I64,
    _NOVALUE,
    _U8,
    _arr,
    _axes,
    _axis1,
    _check_nonempty,
    _flatten,
    _i64,
    _ordered,
    _out_shape,
    _reduce_op,
    _refuse,
    _static_bool,
    binary_ufunc,
    reduce_any,
    widen_f16,
)
from pyonnx.frontend.numpy_calls.reductions.exact import _along_merged
from pyonnx.frontend.numpy_calls.reductions.first_extreme import first_extreme_index
from pyonnx.frontend.numpy_calls.reductions.nan_guard import nan_rule
from pyonnx.frontend.numpy_calls.reductions.masked import has_where, masked
from pyonnx.frontend.numpy_calls.reductions.sums import _initial


def _extreme2(ctx, a: Array, b: Array, is_max: bool) -> Array:
    """``np.maximum(a, b)`` (``np.minimum``) of same-dtype arrays, NaN propagating.

    Built from Greater/Less and Where: onnxruntime's int64 Max/Min compare only the low 32 bits
    in their vectorized loops (``Max(3653403231, 1322117304)`` gives 1322117304 on 8 lanes).
    """
    fwd, back = _ordered(ctx, a.dtype)
    ac, bc = fwd(a), fwd(b)
    shape = broadcast_shapes(a.shape, b.shape)
    keep = ctx.op("Greater" if is_max else "Less", ac, bc)
    if a.dtype.kind == "f":
        keep = ctx.op("Or", keep, ctx.op("IsNaN", ac))
    return back(Array(ctx.op("Where", keep, ac, bc), ac.dtype, shape))


def raises_on_empty(value, ufunc: str) -> None:
    """Marks the node making ``value``, which onnxruntime fails to run on an empty reduction,
    with numpy's error there (the runtime raises it: frontend/graph/checks.py runtime_check).
    (An empty reduction whose result is empty too, ``np.max`` of a ``(0, 0)`` array over one
    axis, runs: pyonnx returns the empty result where numpy raises.)"""
    value.producer().metadata_props["pyonnx.raises"] = (
        f"ValueError: zero-size array to reduction operation {ufunc} which has no identity")


def _pick_extreme(is_max: bool, init: Array | None) -> Callable[[Any, Array, int], Array]:
    """A reduction along one axis (kept with size 1) choosing the max/min element exactly."""

    def fn(ctx, v: Array, k: int) -> Array:
        if init is not None:
            # Append the initial value along k, so an empty reduction returns it.
            mask = np.ones(v.ndim, np.int64)
            mask[k] = 0
            target = ctx.op("Add", ctx.op("Mul", ctx.shape_of(v), _i64(ctx, mask)),
                            _i64(ctx, 1 - mask))
            column = ctx.op("Expand", ctx.cast(init, v.dtype), target)
            n = v.shape[k]
            v = Array(ctx.op("Concat", v, column, axis=k), v.dtype,
                      v.shape[:k] + (None if n is None else n + 1,) + v.shape[k + 1:])
        idx = ctx.op("ArgMax" if is_max else "ArgMin", v, axis=k, keepdims=1)
        if init is None:  # onnxruntime's ArgMax fails on an empty axis: numpy's error there
            raises_on_empty(idx, "maximum" if is_max else "minimum")
        value = ctx.op("GatherElements", v, idx, axis=k)
        return Array(value, v.dtype, v.shape[:k] + (1,) + v.shape[k + 1:])
    return fn


def _minmax(ctx, name: str, is_max: bool, a, axis, out, keepdims, initial, where) -> Array:
    """numpy's ``maximum.reduce``/``minimum.reduce``.

    Floats use ReduceMax/ReduceMin and restore NaN; bool uses its ReduceMax/ReduceMin kernel.
    Integers pick the element with ArgMax/ArgMin + GatherElements: onnxruntime's int64
    ReduceMax/ReduceMin compare only the low 32 bits (measured: wrong on most arrays of values
    in [0, 2**32)). ArgMax and the bool and float reductions also fail at run time on an empty
    reduction, where numpy raises.
    """
    _refuse(ctx, name, out)
    x = _arr(ctx, a)
    axes = _axes(ctx, name, x, axis)
    kd = _static_bool(ctx, keepdims, "keepdims")
    init = None if initial is _NOVALUE else _initial(ctx, name, initial, x.dtype)
    if has_where(where):
        if init is None:
            raise ctx.error(f"{name}(..., where=...) needs initial=: the reduction operation "
                            f"'{'maximum' if is_max else 'minimum'}' does not have an identity, "
                            "so to use a where mask one has to specify 'initial' (numpy raises "
                            "ValueError)")
        x = masked(ctx, name, x, where, init)
    if x.dtype == _F16:
        # Selection is exact in float32 (see widen_f16); the result is cast back.
        r = _minmax_impl(ctx, name, is_max, widen_f16(ctx, x), axes, kd,
                         None if init is None else widen_f16(ctx, init))
        return ctx.cast(r, _F16)
    return _minmax_impl(ctx, name, is_max, x, axes, kd, init)


def _minmax_impl(ctx, name: str, is_max: bool, x: Array, axes: tuple[int, ...], kd: bool,
                 init: Array | None) -> Array:
    op = "ReduceMax" if is_max else "ReduceMin"
    if not axes:
        return x if init is None else _extreme2(ctx, x, init, is_max)
    if init is None:
        _check_nonempty(ctx, name, "maximum" if is_max else "minimum", x, axes)
    if x.dtype.kind == "f":
        r = _reduce_op(ctx, op, x, axes, kd)

        def exact(ctx) -> Array:
            # ReduceMax skips NaN; numpy's maximum propagates it. The NaN flag is reduced in
            # uint8: onnxruntime's bool ReduceMax is 7-14x slower over long axes (757 against
            # 55 µs over 1e6 elements).
            isnan = Array(ctx.op("IsNaN", x), _BOOL, x.shape)
            nan = reduce_any(ctx, isnan, axes, kd)
            return Array(ctx.op("Where", nan, ctx.const(np.array(np.nan, x.dtype)), r),
                         x.dtype, r.shape)
        # The flag costs three passes (IsNaN, Cast, ReduceMax); a ReduceSum over x (one pass,
        # NaN whenever an element is) decides whether to pay them (see nan_guard).
        plain = r
        r = nan_rule(ctx, x, plain, exact)
        if init is None and not all(isinstance(x.shape[a], int) for a in axes):
            # numpy raises on an empty reduction: a bool ReduceMax fails there at run time,
            # here over the first element of each reduced axis only (its NaN flag, which
            # can only make a NaN result NaN: or'ed in, so that the check stays in the graph).
            k = len(axes)
            head = ctx.op("IsNaN", ctx.op("Slice", x, _i64(ctx, [0] * k), _i64(ctx, [1] * k),
                                          _i64(ctx, axes)))
            head = Array(head, _BOOL, tuple(None if a in axes else d
                                            for a, d in enumerate(x.shape)))
            empty = _reduce_op(ctx, "ReduceMax", head, axes, kd)
            raises_on_empty(empty.value, "maximum" if is_max else "minimum")
            r = Array(ctx.op("Where", empty, ctx.const(np.array(np.nan, x.dtype)), r),
                      x.dtype, r.shape)
        return r if init is None else _extreme2(ctx, r, init, is_max)
    if x.dtype == _BOOL and init is None:
        r = _reduce_op(ctx, op, x, axes, kd)  # (fails on an empty set in onnxruntime)
        raises_on_empty(r.value, "maximum" if is_max else "minimum")
        return r
    fwd, back = _ordered(ctx, x.dtype)
    r = _along_merged(ctx, fwd(x), axes, kd,
                      _pick_extreme(is_max, None if init is None else fwd(init)))
    return back(r)


@register(np.max, np.amax, methods=("max",))
def amax(ctx, a, axis=None, out=None, keepdims=False, initial=_NOVALUE, where=True):
    return _minmax(ctx, "np.max", True, a, axis, out, keepdims, initial, where)


@register(np.min, np.amin, methods=("min",))
def amin(ctx, a, axis=None, out=None, keepdims=False, initial=_NOVALUE, where=True):
    return _minmax(ctx, "np.min", False, a, axis, out, keepdims, initial, where)


@register(np.ptp)
def ptp(ctx, a, axis=None, out=None, keepdims=_NOVALUE):
    _refuse(ctx, "np.ptp", out)
    x = _arr(ctx, a)
    hi = _minmax(ctx, "np.ptp", True, x, axis, None, keepdims, _NOVALUE, True)
    lo = _minmax(ctx, "np.ptp", False, x, axis, None, keepdims, _NOVALUE, True)
    return binary_ufunc(ctx, np.subtract, hi, lo)


def _arg(ctx, name: str, is_max: bool, a, axis, out, keepdims) -> Array:
    _refuse(ctx, name, out)
    x = _arr(ctx, a)
    kd = _static_bool(ctx, keepdims, "keepdims")
    nd = x.ndim
    axis = ctx.static(axis, "axis")
    if axis is None or (nd == 0 and type(axis) is int and axis in (0, -1)):
        flat = _flatten(ctx, x)
        k = 0
    else:
        flat, k = x, _axis1(ctx, name, x, axis)
    if flat.shape[k] == 0:
        raise ctx.error(f"{name}: attempt to get {name.split('.')[-1]} of an empty sequence "
                        "(numpy raises ValueError)")
    fwd, _ = _ordered(ctx, flat.dtype)
    keep = 1 if kd and flat is x else 0
    shape = _out_shape(flat.shape, (k,), bool(keep))
    # (bool: float32, exact for 0 and 1; onnxruntime's uint8 ArgMax is 2-3x slower than its
    # float32 one, which pays for the wider Cast: 1e5 elements, 35 against 27 µs)
    mapped = ctx.cast(flat, _F32) if flat.dtype == _BOOL else fwd(flat)
    # It fails at run time on an empty axis, where numpy raises too.
    raises = f"ValueError: attempt to get {name.split('.')[-1]} of an empty sequence"
    r = first_extreme_index(ctx, mapped, k, keep, is_max, shape, raises)
    if x.dtype.kind == "f":
        # numpy returns the first NaN's index; ArgMax/ArgMin (and TopK) compare NaN
        # inconsistently.

        def first_nan(ctx, r=r) -> Array:
            nan = ctx.cast(Array(ctx.op("IsNaN", mapped), _BOOL, flat.shape), _U8)
            first = ctx.op("ArgMax", nan, axis=k, keepdims=keep)
            first.producer().metadata_props["pyonnx.raises"] = raises
            any_nan = ctx.cast(Array(ctx.op("ReduceMax", nan, _i64(ctx, [k]), keepdims=keep),
                                     _U8, shape), _BOOL)
            return Array(ctx.op("Where", any_nan, first, r), _I64, shape)
        r = nan_rule(ctx, mapped, r, first_nan)
    if kd and flat is not x:
        r = Array(ctx.op("Reshape", r, _i64(ctx, [1] * nd)), _I64, (1,) * nd)
    return r


@register(np.argmax, methods=("argmax",))
def argmax(ctx, a, axis=None, out=None, *, keepdims=_NOVALUE):
    return _arg(ctx, "np.argmax", True, a, axis, out, keepdims)


@register(np.argmin, methods=("argmin",))
def argmin(ctx, a, axis=None, out=None, *, keepdims=_NOVALUE):
    return _arg(ctx, "np.argmin", False, a, axis, out, keepdims)

"""Ranges: ``np.arange`` and ``np.linspace`` with numpy's values, bit for bit.

Input: start, stop, step or num as frontend values (scalars, static or Arrays; ``linspace``'s
start and stop may be arrays), ``dtype`` and ``axis`` static. Output: a 1-D Array of run-time
length (``linspace``: numpy's shape, with ``retstep`` the step too). ``arange`` fills
``start + i*delta`` in the result dtype with ``delta = dtype(start + step) - dtype(start)``
(float16 in float32), as numpy's ``fill`` does, and computes the length as numpy does
(``ceil((stop - start) / step)`` with numpy's scalar promotion); ``linspace`` follows numpy's
Python code step by step. Run-time values numpy rejects (a zero or non-finite ``arange`` step,
``linspace`` with a negative ``num``) make the model fail at run time at the user's line.

Supported syntax::

    np.arange([start,] stop[, step], dtype=None)
    np.linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes, path_weak
from pyonnx.frontend.graph.shapes import broadcast_shapes, normalize_axis
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.creation.common import (
    _BOOL,
    _F16,
    _F32,
    _F64,
    _I64,
    _dtype,
    _i64,
    _scalar_i64,
    _strong,
)
from pyonnx.frontend.numpy_calls.reductions import binary_ufunc, emit, select, widen_f16


def _descr(v: Any) -> np.dtype:
    """numpy's ``PyArray_DescrFromObject`` for an arange argument."""
    if isinstance(v, Array):
        return dtypes.default_dtype_of_scalar({"b": True, "i": 0, "u": 0, "f": 0.0}[
            v.dtype.kind]) if v.weak else v.dtype
    return np.asarray(v).dtype


def _ufunc(ctx, ufunc, a, b) -> Array:
    return binary_ufunc(ctx, ufunc, a, b)


def _finite_check(ctx, value: Array) -> ir.Value:
    """[0], or a run-time failure (``Range`` with step 0) when ``value`` (0-d float) is not
    finite; numpy raises there."""
    diff = ctx.op("Sub", value, value)   # NaN for inf and NaN
    ok = ctx.cast(Array(ctx.op("Not", ctx.op("IsNaN", diff)), _BOOL, ()), _I64)
    return ctx.op("Range", _i64(ctx, 0), _i64(ctx, 1), ok)


def _bool_range(ctx, start, step, length: Array) -> Array:
    """``np.arange(..., dtype=bool)``: ``[bool(start), bool(start + step)][:length]``; numpy
    raises TypeError for a longer result, the model fails at run time there."""
    from pyonnx.frontend.graph.checks import runtime_check

    first = ctx.cast(_strong(ctx.asarray(start)), _BOOL)
    second = ctx.cast(_strong(_ufunc(ctx, np.add, start, step)), _BOOL)
    axis0 = ctx.const(np.array([0], np.int64))
    pair = ctx.op("Concat", ctx.op("Unsqueeze", first, axis0), ctx.op("Unsqueeze", second, axis0),
                  axis=0)
    too_long = Array(ctx.op("Greater", length, _i64(ctx, 2)), _BOOL, ())
    length = runtime_check(ctx, too_long, length, "arange_bool_longer_than_2",
                           "TypeError: arange() is only supported for booleans when the result "
                           "has at most length 2.")
    end = ctx.op("Unsqueeze", length, axis0)
    return Array(ctx.op("Slice", pair, axis0, end), _BOOL, (None,))


@register(np.arange)
def arange(ctx, start=None, stop=None, step=None, dtype=None, *, device=None, like=None):
    if like is not None:
        raise ctx.error("np.arange(..., like=...) is not supported")
    if stop is None:
        start, stop = 0, start
    if start is None:
        raise ctx.error("np.arange() requires stop to be specified")
    if step is None:
        step = 1
    for v in (start, stop, step):
        if isinstance(v, Array) and v.ndim != 0:
            raise ctx.error("np.arange: start, stop and step must be scalars")
    dt = _dtype(ctx, "np.arange", dtype)
    if dt is None:
        # "intentionally made to be at least NPY_LONG" (numpy's PyArray_ArangeObj)
        dt = np.result_type(_I64, _descr(start), _descr(stop), _descr(step))
    if is_static(step) and ctx.static(step, "step") == 0:
        raise ctx.error("np.arange: the step is 0 (numpy raises ZeroDivisionError)")
    # Length: ceil((stop - start) / step) with numpy's scalar arithmetic, as _calc_length does.
    span = _ufunc(ctx, np.subtract, stop, start)
    ratio = _ufunc(ctx, np.true_divide, span, step)
    value = ctx.cast(_strong(ratio), _F64)
    length = ctx.cast(Array(ctx.op("Ceil", value), _F64, ()), _I64)
    # With integers and a fixed non-zero step the ratio is finite and never rounds to 0.
    if not (is_static(step) and all(_descr(v).kind in "biu" for v in (start, stop, step))):
        # Underflow or division by inf: numpy gives 1 (or 0 below zero) when stop != start.
        zero = ctx.op("Equal", value, ctx.const(np.float64(0)))
        moved = ctx.op("Not", ctx.op("Equal", ctx.cast(_strong(span), _F64),
                                     ctx.const(np.float64(0))))
        negative = ctx.op("Less", ctx.op("Div", ctx.const(np.float64(1)), value),
                          ctx.const(np.float64(0)))
        tiny = ctx.op("Where", negative, _i64(ctx, 0), _i64(ctx, 1))
        length = Array(ctx.op("Where", ctx.op("And", zero, moved), tiny, length), _I64, ())
        # numpy raises for a zero step (ZeroDivisionError) or a NaN/inf length.
        check = ctx.op("ReduceSum", _finite_check(ctx, value), keepdims=0)
        length = Array(ctx.op("Add", length, check), _I64, ())
    # (Where, not Max: onnxruntime's int64 Max compares only the low 32 bits in its vector loop.)
    length = ctx.op("Where", ctx.op("Less", length, _i64(ctx, 0)), _i64(ctx, 0), length)
    if dt == _BOOL:
        return _bool_range(ctx, start, step, Array(length, _I64, ()))
    idx = Array(ctx.op("Range", _i64(ctx, 0), length, _i64(ctx, 1)), _I64, (None,))
    # buffer[0] = start, buffer[1] = start + step, then fill: start + i * (buffer[1] - buffer[0])
    first = ctx.cast(_strong(ctx.asarray(start)), dt)
    second = ctx.cast(_strong(_ufunc(ctx, np.add, start, step)), dt)
    if dt.kind in "iu":
        s, d = ctx.cast(first, _I64), ctx.cast(second, _I64)
        delta = emit(ctx, "Sub", [d, s], _I64)
        out = emit(ctx, "Add", [s, emit(ctx, "Mul", [idx, delta], _I64)], _I64)
        return ctx.cast(out, dt)
    run = _F32 if dt == _F16 else dt   # numpy's HALF_fill computes in float
    s, d = ctx.cast(first, run), ctx.cast(second, run)
    delta = emit(ctx, "Sub", [d, s], run)
    out = emit(ctx, "Add", [s, emit(ctx, "Mul", [ctx.cast(idx, run), delta], run)], run)
    out = ctx.cast(out, dt)
    # The first two elements are stored as given (the formula can round or give NaN there).
    out = select(ctx, ctx.op("Equal", idx, _i64(ctx, 1)), second, out, (None,))
    return select(ctx, ctx.op("Equal", idx, _i64(ctx, 0)), first, out, (None,))


# ------------------------------------------------------------------------------ linspace
@register(np.linspace)
def linspace(ctx, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    name = "np.linspace"
    num = _scalar_i64(ctx, name, num, "num")
    if isinstance(num, int) and num < 0:
        raise ctx.error(f"{name}: Number of samples, {num}, must be non-negative.")
    endpoint = bool(ctx.static(endpoint, "endpoint"))
    retstep = bool(ctx.static(retstep, "retstep"))
    axis = ctx.static(axis, "axis")
    start_a, stop_a = ctx.asarray(start), ctx.asarray(stop)
    dt = dtypes.result_type(start_a, stop_a)
    if dt.kind not in "f":
        dt = _F64   # ensure_inexact
    out_dtype = _dtype(ctx, name, dtype, dt)
    if isinstance(num, int):
        n_value = _i64(ctx, num)
    else:
        # numpy raises for a negative num; fail at run time there too.
        nonneg = ctx.cast(Array(ctx.op("GreaterOrEqual", num, _i64(ctx, 0)), _BOOL, ()), _I64)
        ok = ctx.op("Range", _i64(ctx, 0), _i64(ctx, 1), nonneg)
        n_value = ctx.op("Add", num, ctx.op("ReduceSum", ok, keepdims=0))
    div = (num - 1 if endpoint else num) if isinstance(num, int) else \
        (ctx.op("Sub", n_value, _i64(ctx, 1)) if endpoint else n_value)
    bshape = broadcast_shapes(start_a.shape, stop_a.shape)
    nd = len(bshape)
    delta = emit(ctx, "Sub", [ctx.cast(stop_a, dt), ctx.cast(start_a, dt)], dt)
    idx = Array(ctx.op("Range", _i64(ctx, 0), n_value, _i64(ctx, 1)), _I64,
                (num if isinstance(num, int) else None,))
    y = _unsqueezed(ctx, idx, dt, nd)   # arange(0, num, dtype=dt).reshape(-1, 1, ...)
    out_shape = y.shape[:1] + bshape
    nan = ctx.const_array(np.array(np.nan, dt))
    positive = None
    if isinstance(div, int) and div <= 0:
        step = nan
        y = emit(ctx, "Mul", [y, delta], dt)
    else:
        div_a = ctx.cast(Array(_i64(ctx, div) if isinstance(div, int) else div, _I64, ()), dt)
        step = emit(ctx, "Div", [delta, div_a], dt)
        # numpy divides first when any step underflows to 0 (denormal spacing, gh-5437).
        stepw = widen_f16(ctx, step)
        zero_step = Array(ctx.op("Equal", stepw, ctx.const(np.array(0, stepw.dtype))), _BOOL,
                          step.shape)
        if nd:
            zero_step = Array(ctx.op("Cast", ctx.op("ReduceMax", ctx.cast(zero_step, np.uint8),
                                                    keepdims=0), to=dtypes.to_ir(_BOOL)),
                              _BOOL, ())
        y_div = emit(ctx, "Mul", [emit(ctx, "Div", [y, div_a], dt), delta], dt)
        y_step = emit(ctx, "Mul", [y, step], dt)
        y = select(ctx, zero_step.value, y_div, y_step, out_shape)
        if not isinstance(div, int):
            positive = ctx.op("Greater", div, _i64(ctx, 0))
            y_delta = emit(ctx, "Mul", [_unsqueezed(ctx, idx, dt, nd), delta], dt)
            y = select(ctx, positive, y, y_delta, out_shape)
            step = select(ctx, positive, step, nan, step.shape)
    y = ctx.cast(_strong(_ufunc(ctx, np.add, y, start_a)), dt)   # y += start (same_kind)
    y = Array(y.value, dt, out_shape)
    if endpoint and not (isinstance(num, int) and num <= 1):
        # y[-1, ...] = stop, for num > 1
        last = ctx.op("Sub", n_value, _i64(ctx, 1))
        is_last = ctx.op("Equal", idx, last)
        if not isinstance(num, int):
            is_last = ctx.op("And", is_last, ctx.op("Greater", n_value, _i64(ctx, 1)))
        if nd:
            is_last = ctx.op("Unsqueeze", is_last, _i64(ctx, list(range(1, nd + 1))))
        y = select(ctx, is_last, ctx.cast(stop_a, dt), y, out_shape)
    if axis != 0:
        try:
            ax = normalize_axis(axis, y.ndim)
        except ValueError as e:
            raise ctx.error(f"{name}: {e}") from None
        perm = list(range(1, ax + 1)) + [0] + list(range(ax + 1, y.ndim))
        y = Array(ctx.op("Transpose", y, perm=perm), dt, tuple(y.shape[p] for p in perm))
    if out_dtype.kind in "iu":
        y = emit(ctx, "Floor", [y], dt)
    y = ctx.cast(y, out_dtype)
    if retstep:
        return y, _step_kind(ctx, step, div, positive)
    return y


def _step_kind(ctx, step: Array, div: Any, positive: Any) -> Array:
    """numpy's scalar step is the Python float nan where ``div <= 0`` (num <= 1 with endpoint)
    and a numpy scalar elsewhere (graph/path_weak.py marks which on which run-time path)."""
    if step.shape != ():
        return step
    if isinstance(div, int):
        return Array(step.value, step.dtype, (), weak=div <= 0)
    step = Array(step.value, step.dtype, ())
    path_weak.mark(ctx, step, "np.linspace's step: nan where num <= 1",
                   ctx.op("Not", positive))
    return step


def _unsqueezed(ctx, idx: Array, dt: np.dtype, nd: int) -> Array:
    y = ctx.cast(idx, dt)
    if nd:
        y = Array(ctx.op("Unsqueeze", y, _i64(ctx, list(range(1, nd + 1)))), dt,
                  y.shape + (1,) * nd)
    return y

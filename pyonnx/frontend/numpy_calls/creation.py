"""Array creation with numpy 2's dtypes and values, for shapes and values known only at run time.

Input: numpy's arguments as frontend values; at least one is an Array (calls whose arguments are
all static run in numpy at conversion time and become constants). Output: an Array with numpy's
dtype and the static shape where it is known (None for the dimensions only the run time knows).

Supported syntax::

    np.zeros / np.ones / np.empty(shape, dtype=float)
    np.full(shape, fill_value, dtype=None)
    np.zeros_like / np.ones_like / np.empty_like(a, dtype=None, shape=None)
    np.full_like(a, fill_value, dtype=None, shape=None)
    np.arange([start,] stop[, step], dtype=None)
    np.linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)
    np.eye(N, M=None, k=0, dtype=float), np.identity(n, dtype=None)
    np.tri(N, M=None, k=0, dtype=float)
    np.tril(m, k=0), np.triu(m, k=0)
    np.array(obj, dtype=None, copy=True, ndmin=0), np.asarray / np.asanyarray(a, dtype=None,
    copy=None), np.ascontiguousarray(a, dtype=None)

``shape`` is an int, a 0-d integer Array, a tuple or list mixing both (``(x.shape[0], 3)``), or
a 1-D integer Array of known length. ``np.empty`` gives zeros (numpy's values are arbitrary, so
zeros are one correct choice). ``obj`` in ``np.array`` is an Array, a static value, or nested
lists/tuples mixing both: the elements are stacked along new leading axes as numpy does (their
shapes must agree); with ``dtype=`` each element is converted to it directly, as numpy does.

Values match numpy bit for bit where numpy's algorithm is reproducible: ``arange`` fills
``start + i*delta`` in the result dtype with ``delta = dtype(start + step) - dtype(start)``
(float16 in float32), as numpy's ``fill`` does, and computes the length as numpy does
(``ceil((stop - start) / step)`` with numpy's scalar promotion); ``linspace`` follows numpy's
Python code step by step. Run-time values numpy rejects (a zero or non-finite ``arange`` step,
``linspace`` with a negative ``num``) make the model fail at run time at the user's line.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.lower import dtypes, kernels
from pyonnx.frontend.lower.shapes import broadcast_shapes, normalize_axis
from pyonnx.frontend.lower.values import Array, is_static
from pyonnx.frontend.numpy_calls import register
from pyonnx.frontend.numpy_calls.reductions import binary_ufunc, emit, select, widen_f16

__all__ = ["shape_arg"]

_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_F16 = np.dtype(np.float16)


# ------------------------------------------------------------------------------ helpers
def _strong(a: Array) -> Array:
    return Array(a.value, a.dtype, a.shape) if a.weak else a


def _i64(ctx, values) -> ir.Value:
    return ctx.const(np.asarray(values, dtype=np.int64))


def _dtype(ctx, name: str, dtype, default=None) -> np.dtype | None:
    if dtype is None:
        return default
    try:
        dt = np.dtype(ctx.static(dtype, "dtype"))
    except TypeError as e:
        raise ctx.error(f"{name}: invalid dtype: {e}") from None
    if dt not in dtypes.SUPPORTED_DTYPES:
        raise ctx.error(f"{name}: dtype {dt} is not supported")
    return dt


def _refuse_order(ctx, name: str, order, like=None) -> None:
    order = ctx.static(order, "order")
    if order not in ("C", "K", "A", None, "F"):
        raise ctx.error(f"{name}: order must be one of 'C', 'F', 'A', 'K' (got {order!r})")
    if like is not None:
        raise ctx.error(f"{name}(..., like=...) is not supported")


def _scalar_i64(ctx, name: str, v: Any, what: str) -> ir.Value | int:
    """An integer argument: a Python int (static) or an int64 0-d value."""
    if isinstance(v, Array):
        if v.ndim != 0 or v.dtype.kind not in "iub":
            raise ctx.error(f"{name}: {what} must be an integer scalar, not an array of "
                            f"{v.dtype} with {v.ndim} dimensions")
        return ctx.cast(v, _I64).value
    try:
        return operator.index(ctx.static(v, what))
    except TypeError:
        raise ctx.error(f"{name}: '{type(v).__name__}' object cannot be interpreted as an "
                        f"integer ({what})") from None


def _as_i64(ctx, v: ir.Value | int) -> ir.Value:
    return _i64(ctx, v) if isinstance(v, int) else v


def shape_arg(ctx, name: str, shape: Any) -> tuple[ir.Value, tuple[int | None, ...]]:
    """numpy's ``shape`` argument as an int64 1-D value and its static dims.

    Raises:
        ConversionError: a dimension is not an integer, is negative, or the rank is unknown.
    """
    if isinstance(shape, Array) and shape.ndim == 1:
        n = shape.shape[0]
        if n is None or shape.dtype.kind not in "iu":
            raise ctx.error(f"{name}: a shape array must be 1-D of integers with a length known "
                            "at conversion time; pass a tuple such as (x.shape[0], 3)")
        return ctx.cast(shape, _I64).value, (None,) * n
    if isinstance(shape, Array) and shape.ndim > 1:
        raise ctx.error(f"{name}: the shape must be an int or a sequence of ints")
    items = list(shape) if isinstance(shape, (tuple, list)) else [shape]
    pieces: list[ir.Value] = []
    run: list[int] = []
    dims: list[int | None] = []
    for d in items:
        if isinstance(d, Array):
            v = _scalar_i64(ctx, name, d, "a dimension")
            const = d.value.const_value
            if const is not None:
                run.append(int(const.numpy()))
                dims.append(run[-1])
                continue
            if run:
                pieces.append(_i64(ctx, run))
                run = []
            pieces.append(ctx.op("Unsqueeze", v, _i64(ctx, [0])))
            dims.append(None)
        else:
            d = _scalar_i64(ctx, name, d, "a dimension")
            if d < 0:
                raise ctx.error(f"{name}: negative dimensions are not allowed")
            run.append(d)
            dims.append(d)
    if not pieces:
        return _i64(ctx, np.array(run, dtype=np.int64).reshape(len(run))), tuple(dims)
    if run:
        pieces.append(_i64(ctx, run))
    value = pieces[0] if len(pieces) == 1 else ctx.op("Concat", *pieces, axis=0)
    return value, tuple(dims)


def _constant_of_shape(ctx, shape_value: ir.Value, dims: tuple, fill: np.ndarray) -> Array:
    """An array of ``dims`` filled with the 0-d ``fill``."""
    tensor = ir.tensor(np.asarray(fill).reshape(1))
    return Array(ctx.op("ConstantOfShape", shape_value, value=tensor), fill.dtype, dims)


def _broadcast_fill(ctx, name: str, fill: Array, shape_value: ir.Value,
                    dims: tuple) -> Array:
    """``np.copyto(empty(dims), fill)``: ``fill`` broadcast one way onto ``dims``."""
    if fill.ndim > len(dims):
        raise ctx.error(f"{name}: could not broadcast the fill value of rank {fill.ndim} into "
                        f"shape of rank {len(dims)}")
    out = list(dims)
    guard = False
    for i, f in enumerate(fill.shape):
        j = len(dims) - fill.ndim + i
        t = dims[j]
        if f is not None and f != 1 and t is not None and f != t:
            raise ctx.error(f"{name}: could not broadcast the fill value of shape "
                            f"{fill.shape} into shape {dims}")
        if t is None and f is not None and f != 1:
            out[j] = f
        # Expand broadcasts both ways: where the fill could be larger, check the result's shape.
        guard = guard or (f != 1 and (f is None or t is None))
    if fill.ndim == 0 and fill.value.const_value is not None:
        return _constant_of_shape(ctx, shape_value, dims, fill.value.const_value.numpy())
    value = ctx.op("Expand", fill, shape_value)
    if guard:
        value = ctx.op("Reshape", value, shape_value)
    return Array(value, fill.dtype, tuple(out))


def _static_fill(ctx, name: str, fill_value: Any, dtype: np.dtype | None) -> Array:
    """A static fill value converted as ``np.copyto(..., casting='unsafe')`` does."""
    try:
        arr = np.asarray(fill_value)
        dt = dtype or arr.dtype
        out = np.empty(arr.shape, dt)
        np.copyto(out, fill_value, casting="unsafe")
    except (TypeError, ValueError, OverflowError) as e:
        raise ctx.error(f"{name}: {type(e).__name__}: {e}") from None
    if out.dtype not in dtypes.SUPPORTED_DTYPES:
        raise ctx.error(f"{name}: dtype {out.dtype} is not supported")
    return ctx.const_array(out)


def _fill(ctx, name: str, shape_value, dims, fill_value, dtype: np.dtype | None) -> Array:
    if isinstance(fill_value, Array):
        fill = _strong(fill_value)
        fill = ctx.cast(fill, dtype) if dtype is not None else fill
    elif is_static(fill_value):
        fill = _static_fill(ctx, name, fill_value, dtype)
    else:
        fill = _strong(ctx.asarray(fill_value))
        fill = ctx.cast(fill, dtype) if dtype is not None else fill
    return _broadcast_fill(ctx, name, fill, shape_value, dims)


# ------------------------------------------------------------------------ zeros, full, ...
def _filled(ctx, name, shape, dtype, value) -> Array:
    dt = _dtype(ctx, name, dtype, _F64)
    shape_value, dims = shape_arg(ctx, name, shape)
    return _constant_of_shape(ctx, shape_value, dims, np.array(value, dt))


@register(np.zeros)
def zeros(ctx, shape, dtype=float, order="C", *, device=None, like=None):
    _refuse_order(ctx, "np.zeros", order, like)
    return _filled(ctx, "np.zeros", shape, dtype, 0)


@register(np.empty)
def empty(ctx, shape, dtype=float, order="C", *, device=None, like=None):
    # numpy leaves the values arbitrary; zeros are one of them.
    _refuse_order(ctx, "np.empty", order, like)
    return _filled(ctx, "np.empty", shape, dtype, 0)


@register(np.ones)
def ones(ctx, shape, dtype=None, order="C", *, device=None, like=None):
    _refuse_order(ctx, "np.ones", order, like)
    return _filled(ctx, "np.ones", shape, dtype, 1)


@register(np.full)
def full(ctx, shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    _refuse_order(ctx, "np.full", order, like)
    dt = _dtype(ctx, "np.full", dtype)
    shape_value, dims = shape_arg(ctx, "np.full", shape)
    return _fill(ctx, "np.full", shape_value, dims, fill_value, dt)


def _like(ctx, name: str, a, dtype, shape) -> tuple[np.dtype, ir.Value, tuple]:
    x = _strong(ctx.asarray(a))
    dt = _dtype(ctx, name, dtype, x.dtype)
    if shape is None:
        return dt, ctx.shape_of(x), x.shape
    shape_value, dims = shape_arg(ctx, name, shape)
    return dt, shape_value, dims


@register(np.zeros_like)
def zeros_like(ctx, a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dt, shape_value, dims = _like(ctx, "np.zeros_like", a, dtype, shape)
    return _constant_of_shape(ctx, shape_value, dims, np.zeros((), dt))


@register(np.empty_like)
def empty_like(ctx, prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dt, shape_value, dims = _like(ctx, "np.empty_like", prototype, dtype, shape)
    return _constant_of_shape(ctx, shape_value, dims, np.zeros((), dt))


@register(np.ones_like)
def ones_like(ctx, a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dt, shape_value, dims = _like(ctx, "np.ones_like", a, dtype, shape)
    return _constant_of_shape(ctx, shape_value, dims, np.ones((), dt))


@register(np.full_like)
def full_like(ctx, a, fill_value, dtype=None, order="K", subok=True, shape=None, *,
              device=None):
    dt, shape_value, dims = _like(ctx, "np.full_like", a, dtype, shape)
    return _fill(ctx, "np.full_like", shape_value, dims, fill_value, dt)


# -------------------------------------------------------------------------------- arange
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
    if dt == _BOOL:
        raise ctx.error("np.arange with dtype=bool is not supported (numpy allows it only for "
                        "lengths up to 2)")
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
        return y, step
    return y


def _unsqueezed(ctx, idx: Array, dt: np.dtype, nd: int) -> Array:
    y = ctx.cast(idx, dt)
    if nd:
        y = Array(ctx.op("Unsqueeze", y, _i64(ctx, list(range(1, nd + 1)))), dt,
                  y.shape + (1,) * nd)
    return y


# ------------------------------------------------------------------- eye, tri, tril, triu
def _grid(ctx, name: str, N, M, k) -> tuple[ir.Value, ir.Value, tuple, ir.Value | int]:
    """Row indices (N, 1) + k and column indices (1, M) as int64, for eye and tri."""
    n = _scalar_i64(ctx, name, N, "N")
    m = n if M is None else _scalar_i64(ctx, name, M, "M")
    k = _scalar_i64(ctx, name, k, "k")
    for v, what in ((n, "N"), (m, "M")):
        if isinstance(v, int) and v < 0:
            raise ctx.error(f"{name}: negative dimensions are not allowed ({what}={v})")
    rows = ctx.op("Range", _i64(ctx, 0), _as_i64(ctx, n), _i64(ctx, 1))
    cols = ctx.op("Range", _i64(ctx, 0), _as_i64(ctx, m), _i64(ctx, 1))
    rows = ctx.op("Add", ctx.op("Unsqueeze", rows, _i64(ctx, [1])), _as_i64(ctx, k))
    cols = ctx.op("Unsqueeze", cols, _i64(ctx, [0]))
    dims = (n if isinstance(n, int) else None, m if isinstance(m, int) else None)
    return rows, cols, dims, k


@register(np.eye)
def eye(ctx, N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    _refuse_order(ctx, "np.eye", order, like)
    dt = _dtype(ctx, "np.eye", dtype, _F64)
    rows, cols, dims, _ = _grid(ctx, "np.eye", N, M, k)
    return ctx.cast(Array(ctx.op("Equal", rows, cols), _BOOL, dims), dt)


@register(np.identity)
def identity(ctx, n, dtype=None, *, like=None):
    return eye(ctx, n, dtype=dtype if dtype is not None else float, like=like)


@register(np.tri)
def tri(ctx, N, M=None, k=0, dtype=float, *, like=None):
    dt = _dtype(ctx, "np.tri", dtype, _F64)
    rows, cols, dims, _ = _grid(ctx, "np.tri", N, M, k)
    return ctx.cast(Array(ctx.op("GreaterOrEqual", rows, cols), _BOOL, dims), dt)


def _trilu(ctx, name: str, m, k, upper: int) -> Array:
    x = _strong(ctx.asarray(m))
    if x.ndim == 0:
        raise ctx.error(f"{name} needs an array of at least 1 dimension")
    kk = _scalar_i64(ctx, name, k, "k")
    if x.ndim == 1:
        # numpy broadcasts a 1-D input against the (n, n) mask.
        shp = ctx.shape_of(x)
        x = Array(ctx.op("Expand", x, ctx.op("Concat", shp, shp, axis=0)), x.dtype,
                  (x.shape[0], x.shape[0]))
    run = kernels.compute_dtype("Trilu", x.dtype)
    if run is None:
        # uint64: the int64 cast wraps both ways, and Trilu only moves values.
        run = _I64
    xc = ctx.cast(x, run)
    out = Array(ctx.op("Trilu", xc, _as_i64(ctx, kk), upper=upper), run, x.shape)
    return ctx.cast(out, x.dtype)


@register(np.tril)
def tril(ctx, m, k=0):
    return _trilu(ctx, "np.tril", m, k, 0)


@register(np.triu)
def triu(ctx, m, k=0):
    return _trilu(ctx, "np.triu", m, k, 1)


# ---------------------------------------------------------------------- array / asarray
def _build(ctx, obj, dtype: np.dtype | None) -> Array:
    """``np.array(obj, dtype)`` for an Array, a static value, or nested sequences of both."""
    if isinstance(obj, Array):
        out = Array(obj.value, obj.dtype, obj.shape)   # strong, and a new array object
        return ctx.cast(out, dtype) if dtype is not None else out
    if not isinstance(obj, (list, tuple)) or is_static(obj):
        try:
            arr = np.array(obj, dtype=dtype)
        except (ValueError, TypeError, OverflowError) as e:
            raise ctx.error(f"np.array: {type(e).__name__}: {e}") from None
        if arr.dtype not in dtypes.SUPPORTED_DTYPES:
            raise ctx.error(f"np.array: arrays of dtype {arr.dtype} are not supported")
        return ctx.const_array(arr)
    items = [_build(ctx, o, dtype) for o in obj]
    ranks = {a.ndim for a in items}
    if len(ranks) != 1:
        raise ctx.error("np.array: the nested sequences have different ranks (an inhomogeneous "
                        "shape, which numpy refuses)")
    first = items[0].shape
    for a in items[1:]:
        for p, q in zip(a.shape, first):
            if p is not None and q is not None and p != q:
                raise ctx.error("np.array: the nested sequences have different lengths (an "
                                "inhomogeneous shape, which numpy refuses)")
    dt = dtype if dtype is not None else np.result_type(*(a.dtype for a in items))
    axis0 = _i64(ctx, [0])
    parts = [ctx.op("Unsqueeze", ctx.cast(a, dt), axis0) for a in items]
    shape = tuple(next((a.shape[i] for a in items if a.shape[i] is not None), None)
                  for i in range(len(first)))
    value = parts[0] if len(parts) == 1 else ctx.op("Concat", *parts, axis=0)
    return Array(value, dt, (len(items),) + shape)


def _array(ctx, name: str, obj, dtype, ndmin=0, copy=True) -> Array:
    """``np.array``: ``copy`` True always makes a new array; None returns ``obj`` itself when
    it needs no conversion (``np.asarray``); False also, and refuses when it would need one."""
    dt = _dtype(ctx, name, dtype)
    ndmin = ctx.static(ndmin, "ndmin")
    copy = ctx.static(copy, "copy")
    if copy is not True:
        same = isinstance(obj, Array) and not obj.weak and dt in (None, obj.dtype) \
            and ndmin <= obj.ndim
        if same:
            return obj
        if copy is False:
            raise ctx.error(f"{name}(..., copy=False): a copy is needed here (numpy raises "
                            "ValueError); use copy=None")
    out = _build(ctx, obj, dt)
    if ndmin > out.ndim:
        extra = ndmin - out.ndim
        out = Array(ctx.op("Unsqueeze", out, _i64(ctx, list(range(extra)))),
                    out.dtype, (1,) * extra + out.shape)
    return out


@register(np.array)
def array(ctx, object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    _refuse_order(ctx, "np.array", order, like)
    return _array(ctx, "np.array", object, dtype, ndmin, copy)


@register(np.asarray, np.asanyarray)
def asarray(ctx, a, dtype=None, order=None, *, device=None, copy=None, like=None):
    _refuse_order(ctx, "np.asarray", order, like)
    return _array(ctx, "np.asarray", a, dtype, 0, copy)


@register(np.ascontiguousarray)
def ascontiguousarray(ctx, a, dtype=None, *, like=None):
    _refuse_order(ctx, "np.ascontiguousarray", None, like)
    return _array(ctx, "np.ascontiguousarray", a, dtype, 1, None)

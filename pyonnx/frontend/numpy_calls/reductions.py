"""numpy reductions with numpy 2's result dtypes, NaN rules and errors.

Input: an Array (or anything ``np.asarray`` takes, holding Arrays) and numpy's keywords, with
``axis``, ``keepdims``, ``ddof`` and ``dtype`` known at conversion time. Output: an Array whose
dtype and static shape are numpy's (a 0-d Array where numpy returns a scalar).

Supported syntax (functions, and the array methods where numpy has them)::

    np.sum(a, axis=None, dtype=None, keepdims=False, initial=...)       a.sum(...)
    np.prod(a, axis=None, dtype=None, keepdims=False, initial=...)      a.prod(...)
    np.mean(a, axis=None, dtype=None, keepdims=False)                   a.mean(...)
    np.var / np.std(a, axis=None, dtype=None, ddof=0, keepdims=False, mean=..., correction=...)
    np.max / np.amax / np.min / np.amin(a, axis=None, keepdims=False, initial=...)
    np.argmax / np.argmin(a, axis=None, keepdims=False)                 a.argmax(...)
    np.any / np.all(a, axis=None, keepdims=False)                       a.any(...)
    np.cumsum / np.cumprod(a, axis=None, dtype=None)                    a.cumsum(...)
    np.count_nonzero(a, axis=None, keepdims=False)
    np.average(a, axis=None, weights=None, returned=False, keepdims=False)
    np.ptp(a, axis=None, keepdims=False)
    np.nansum(a, axis=None, dtype=None, keepdims=False, initial=...)
    np.nanmean(a, axis=None, dtype=None, keepdims=False)
    np.median(a, axis=None, keepdims=False)

``axis`` is None, an int (negative counts from the end) or a tuple of ints; ``out=`` and
``where=`` are refused with a hint.

How numpy's results are reproduced where onnxruntime's kernels differ (measured with
onnxruntime 1.31.1):

* Integer sums and products: onnxruntime's int64 ``ReduceSum``/``ReduceProd`` go through double
  (``sum([2**60 + 1])`` gives ``2**60``) and saturate instead of wrapping. numpy accumulates
  integers in int64/uint64 modulo 2**64, so integer sums use a float64 ``ReduceSum`` only when
  every partial sum stays below 2**53 (elements of at most 16 bits); otherwise a ``MatMul``
  with ones, which is exact in int64. Integer products multiply pairs in a ``Loop`` (log2(n)
  steps); ``cumprod`` is a Hillis-Steele scan in a ``Loop``. uint64 is computed as int64 (the
  cast wraps both ways, so sums and products modulo 2**64 are the same).
* Float sums: numpy sums float32 pairwise; onnxruntime's float32 ``ReduceSum`` accumulates with
  up to 2e-6 relative error at 1e6 elements, while summing in float64 and rounding matched
  numpy's pairwise result bit for bit in our measurements, so float32 sums accumulate in float64
  (float16 in float32, as numpy's pairwise loop for float16 does).
* ``max``/``min`` propagate NaN as numpy does (``ReduceMax`` skips it); ``argmax``/``argmin``
  return the first NaN's index as numpy does (``ArgMax`` does not).
* Integer ``max``/``min`` pick the element with ``ArgMax``/``ArgMin`` + ``GatherElements``:
  onnxruntime's int64 ``ReduceMax``/``ReduceMin`` and elementwise ``Max``/``Min`` compare only
  the low 32 bits in their vectorized loops (``max([3653403231, 2735729615, 1322117304,
  175979945])`` gives 1322117304). Kernels missing for a dtype are widened exactly (int16 →
  int32, uint32 → int64); uint64 is mapped to int64 by flipping the top bit, which keeps order.
* ``mean``/``var`` divide in float64 by the element count and cast back, as numpy's
  ``true_divide(ret, intp(count), out=ret, casting='unsafe')`` does.
* float16 arithmetic is written as float32 ops with explicit casts (see :func:`emit`).

Not bit for bit (float rounding order only, within a few ulps): float products (numpy
multiplies in sequence), float ``cumprod`` (computed one dtype wider), float16 ``cumsum`` and
float16 sums along a non-contiguous axis (numpy rounds every partial sum to float16), and float
sums along non-contiguous axes, where numpy adds in sequence rather than pairwise.

Errors numpy raises: bad axes, ``max``/``min``/``argmax`` of an empty reduction known at
conversion time → ConversionError. When the emptiness is only known at run time the model fails
instead of returning a value (onnxruntime refuses ``ArgMax`` and bool ``ReduceMax`` over an empty
axis, and float ``max`` checks NaN with the bool one), with an ExecutionError at the user's line.
``np.average`` with weights summing to zero fails at run time the same way (a ``Range`` with
step 0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.lower import dtypes, kernels
from pyonnx.frontend.lower.shapes import broadcast_shapes, normalize_axis, normalize_axes
from pyonnx.frontend.lower.values import Array
from pyonnx.frontend.numpy_calls import register

__all__ = ["reduce_sum", "reduce_any", "emit", "binary_ufunc", "widen_f16", "select"]

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
# Float sums accumulate one step wider (see the module docstring).
_SUM_ACC = {_F16: _F32, _F32: _F64, _F64: _F64}


# ---------------------------------------------------------------------------------- helpers
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


def _axis1(ctx, name: str, x: Array, axis) -> int:
    """A single axis (numpy's ``normalize_axis_index``)."""
    axis = ctx.static(axis, "axis")
    if isinstance(axis, np.integer):
        axis = int(axis)
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise ctx.error(f"{name}: axis must be an int or None, not {axis!r}")
    try:
        return normalize_axis(axis, x.ndim)
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
    arrays = [ctx.cast(o, dt) if isinstance(o, Array) else ctx.asarray(o, dt)
              for o, dt in zip((a, b), ins)]
    r = ctx.cast(emit(ctx, _UFUNC_OPS[ufunc], arrays, ins[0]), outs[0])
    return Array(r.value, r.dtype, r.shape, weak)


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


def _loop(ctx, cond: ir.Value, states: list[Array],
          body: Callable[[list[Array]], tuple[ir.Value, list[Array]]]) -> list[Array]:
    """``while cond: states = body(states)`` as an ONNX Loop (no trip count).

    The body gets the loop-carried values as Arrays with unknown dims and returns the next
    condition (a bool scalar) and the next values (same dtypes and ranks).
    """
    iteration = ir.Value(type=ir.TensorType(ir.DataType.INT64), shape=ir.Shape([]))
    cond_in = ir.Value(type=ir.TensorType(ir.DataType.BOOL), shape=ir.Shape([]))
    inputs = [ir.Value(type=ir.TensorType(dtypes.to_ir(s.dtype)),
                       shape=ir.Shape([None] * s.ndim)) for k, s in enumerate(states)]
    with ctx.subgraph() as nodes:
        cond_out, outs = body([Array(v, s.dtype, (None,) * s.ndim)
                               for v, s in zip(inputs, states)])
        out_values = [cond_out] + [o.value for o in outs]
        # A body output must be produced inside the body under its own name.
        seen: set[int] = set()
        for k, v in enumerate(out_values):
            if v.producer() is None or v.producer() not in nodes or id(v) in seen:
                out_values[k] = ctx.op("Identity", v)
            seen.add(id(out_values[k]))
    # Explicit names from the (unique) node names: onnx-ir's NameFixPass forgets a body's names
    # when it leaves the body and may give a later main-graph value the same "val_N", which
    # onnxruntime rejects (names must be unique across nested graphs).
    base = nodes[0].name
    for k, v in enumerate([iteration, cond_in, *inputs]):
        v.name = f"{base}_in{k}"
    for node in nodes:
        for j, o in enumerate(node.outputs):
            o.name = o.name or f"{node.name}_{j}"
    graph = ir.Graph([iteration, cond_in, *inputs], out_values, nodes=nodes, name="loop_body")
    results = ctx.op("Loop", None, cond, *states, outputs=len(states), body=graph)
    if len(states) == 1:
        results = (results,)
    return [Array(r, s.dtype, (None,) * s.ndim) for r, s in zip(results, states)]


def _scalar_bool(ctx, v: ir.Value) -> ir.Value:
    """A [1]-shaped bool as the 0-d bool a Loop condition must be."""
    return ctx.op("Squeeze", v, _i64(ctx, [0]))


# ---------------------------------------------------------- exact integer reductions
def _along_merged(ctx, x: Array, axes: tuple[int, ...], keepdims: bool,
                  fn: Callable[[Any, Array, int], Array]) -> Array:
    """Applies ``fn(ctx, x, k)`` (a reduction along one axis that keeps it with size 1) to the
    reduced axes merged into one: transposed to the end and reshaped.
    """
    nd = x.ndim
    if len(axes) == 1:
        k = axes[0]
        r = fn(ctx, x, k)
        shape = _out_shape(x.shape, axes, True)
        r = Array(r.value, r.dtype, shape)
        return r if keepdims else _squeeze(ctx, r, [k])
    kept = [i for i in range(nd) if i not in axes]
    if not kept:
        flat = _flatten(ctx, x)
    else:
        perm = kept + list(axes)
        xt = x
        if perm != list(range(nd)):
            xt = Array(ctx.op("Transpose", x, perm=perm), x.dtype, tuple(x.shape[p] for p in perm))
        count = _count(ctx, x, axes)
        kept_shape = tuple(x.shape[i] for i in kept)
        if isinstance(count, int) and all(d is not None for d in kept_shape):
            target = _i64(ctx, list(kept_shape) + [count])
        else:
            head = ctx.op("Shape", xt, start=0, end=len(kept))
            tail = _i64(ctx, [count]) if isinstance(count, int) else \
                ctx.op("Unsqueeze", count.value, _i64(ctx, [0]))
            target = ctx.op("Concat", head, tail, axis=0)
        # allowzero: a 0 in the target is a 0, not "copy this input dimension".
        flat = Array(ctx.op("Reshape", xt, target, allowzero=1), x.dtype,
                     kept_shape + (count if isinstance(count, int) else None,))
    r = fn(ctx, flat, flat.ndim - 1)
    r = _squeeze(ctx, Array(r.value, r.dtype, flat.shape[:-1] + (1,)), [flat.ndim - 1])
    return _unsqueeze(ctx, r, list(axes)) if keepdims else r


def _first_or(ctx, x: Array, k: int, fill: int) -> Array:
    """``x`` (size 0 or 1 along ``k``) with size exactly 1: ``fill`` where it was empty."""
    if x.shape[k] == 1:
        return x
    padded = ctx.op("Pad", x, _i64(ctx, [0, 1]), ctx.const(np.array(fill, x.dtype)),
                    _i64(ctx, [k]))
    value = ctx.op("Slice", padded, _i64(ctx, [0]), _i64(ctx, [1]), _i64(ctx, [k]))
    return Array(value, x.dtype, x.shape[:k] + (1,) + x.shape[k + 1:])


def _int_sum_along(ctx, x: Array, k: int) -> Array:
    """Exact int64 sum along ``k``, wrapping like numpy: a MatMul with ones (onnxruntime's int64
    MatMul is exact; measured 2.5x faster than taking the last element of CumSum)."""
    nd = x.ndim
    n = _i64(ctx, [x.shape[k]]) if x.shape[k] is not None else \
        ctx.op("Shape", x, start=k, end=k + 1)
    one = ir.tensor(np.array([1], np.int64))
    if k == nd - 1:
        ones = ctx.op("ConstantOfShape", ctx.op("Concat", n, _i64(ctx, [1]), axis=0), value=one)
        return Array(ctx.op("MatMul", x, ones), _I64, x.shape[:k] + (1,))
    # A row of ones from the left, with the axes after k merged into one.
    ones = ctx.op("ConstantOfShape", ctx.op("Concat", _i64(ctx, [1]), n, axis=0), value=one)
    if k == nd - 2:
        return Array(ctx.op("MatMul", ones, x), _I64, x.shape[:k] + (1,) + x.shape[k + 1:])
    head = ctx.op("Shape", x, start=0, end=k + 1)
    tail = ctx.op("ReduceProd", ctx.op("Shape", x, start=k + 1), keepdims=1)
    merged = ctx.op("Reshape", x, ctx.op("Concat", head, tail, axis=0), allowzero=1)
    r = ctx.op("MatMul", ones, merged)
    target = ctx.op("Concat", ctx.op("Shape", x, start=0, end=k), _i64(ctx, [1]),
                    ctx.op("Shape", x, start=k + 1), axis=0)
    return Array(ctx.op("Reshape", r, target, allowzero=1), _I64,
                 x.shape[:k] + (1,) + x.shape[k + 1:])


def _int_prod_along(ctx, x: Array, k: int) -> Array:
    """Exact int64 product along ``k``: multiply even and odd elements until one is left."""
    nd = x.ndim
    n0 = ctx.op("Shape", x, start=k, end=k + 1)
    cond0 = _scalar_bool(ctx, ctx.op("Greater", n0, _i64(ctx, [1])))
    one = ctx.const(np.array(1, np.int64))

    def body(states):
        (v,) = states
        n = ctx.op("Shape", v, start=k, end=k + 1)
        big = _i64(ctx, [_INT64_MAX])
        even = ctx.op("Slice", v, _i64(ctx, [0]), big, _i64(ctx, [k]), _i64(ctx, [2]))
        odd = ctx.op("Slice", v, _i64(ctx, [1]), big, _i64(ctx, [k]), _i64(ctx, [2]))
        # An odd count leaves the last even element without a partner: pair it with 1.
        missing = ctx.op("Mod", n, _i64(ctx, [2]))
        pads = ctx.op("Concat", _i64(ctx, [0]), missing, axis=0)
        odd = ctx.op("Pad", odd, pads, one, _i64(ctx, [k]))
        v2 = ctx.op("Mul", even, odd)
        half = ctx.op("Shape", v2, start=k, end=k + 1)
        cond = _scalar_bool(ctx, ctx.op("Greater", half, _i64(ctx, [1])))
        return cond, [Array(v2, x.dtype, (None,) * nd)]

    (r,) = _loop(ctx, cond0, [x], body)
    return _first_or(ctx, r, k, 1)


def _cumprod_along(ctx, x: Array, k: int) -> Array:
    """Inclusive product scan along ``k`` (Hillis-Steele: log2(n) shifted multiplies)."""
    nd = x.ndim
    n = ctx.op("Shape", x, start=k, end=k + 1)
    s0 = _i64(ctx, [1])
    cond0 = _scalar_bool(ctx, ctx.op("Greater", n, s0))
    one = ctx.const(np.array(1, x.dtype))

    def body(states):
        v, s = states
        keep = ctx.op("Sub", n, s)
        head = ctx.op("Slice", v, _i64(ctx, [0]), keep, _i64(ctx, [k]))
        pads = ctx.op("Concat", s, _i64(ctx, [0]), axis=0)
        shifted = ctx.op("Pad", head, pads, one, _i64(ctx, [k]))   # s ones, then v[:n-s]
        v2 = ctx.op("Mul", v, shifted)
        s2 = ctx.op("Add", s, s)
        cond = _scalar_bool(ctx, ctx.op("Less", s2, n))
        return cond, [Array(v2, x.dtype, (None,) * nd), Array(s2, _I64, (1,))]

    r, _ = _loop(ctx, cond0, [x, Array(s0, _I64, (1,))], body)
    return Array(r.value, x.dtype, x.shape)


# ------------------------------------------------------------------------------- sum/prod
def _sum_dtype(x: np.dtype) -> np.dtype:
    """numpy's default accumulation dtype of ``np.sum``/``np.prod``/``np.cumsum``."""
    if x.kind == "b" or (x.kind == "i" and x.itemsize < 8):
        return _I64
    if x.kind == "u" and x.itemsize < 8:
        return _U64
    return x


def reduce_sum(ctx, x: Array, axes: tuple[int, ...], keepdims: bool, t: np.dtype,
               axes_value: ir.Value | None = None) -> Array:
    """``np.add.reduce(x, axes, dtype=t, keepdims)``: ``x`` cast to ``t``, summed as numpy does."""
    if not axes:
        return ctx.cast(x, t)
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
    return ctx.cast(r, t)


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
    _refuse(ctx, "np.sum", out, where)
    x = _arr(ctx, a)
    axes = _axes(ctx, "np.sum", x, axis)
    t = _static_dtype(ctx, dtype) or _sum_dtype(x.dtype)
    r = reduce_sum(ctx, x, axes, _static_bool(ctx, keepdims, "keepdims"), t)
    return _add_initial(ctx, "np.sum", r, initial, np.add)


@register(np.prod, methods=("prod",))
def prod(ctx, a, axis=None, dtype=None, out=None, keepdims=False, initial=_NOVALUE, where=True):
    _refuse(ctx, "np.prod", out, where)
    x = _arr(ctx, a)
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


# ------------------------------------------------------------------------ mean/var/std
def _is_result_scalar(shape: tuple, keepdims: bool) -> bool:
    # numpy's reductions return a numpy scalar (not an array) for 0-d results without keepdims;
    # its mean/var then round once from float64 instead of through the array's dtype.
    return len(shape) == 0 and not keepdims


def _mean(ctx, x: Array, axes: tuple[int, ...], dtype: np.dtype | None,
          keepdims: bool) -> Array:
    """numpy's ``_methods._mean``."""
    f16_result = False
    t = dtype
    if t is None:
        if x.dtype.kind in "biu":
            t = _F64
        elif x.dtype == _F16:
            t, f16_result = _F32, True
        else:
            t = x.dtype
    total = reduce_sum(ctx, x, axes, keepdims, t)
    q = _div_f64(ctx, total, _count(ctx, x, axes))
    if f16_result:
        if not _is_result_scalar(total.shape, keepdims):
            q = ctx.cast(q, t)  # true_divide(..., out=ret) stores float32 first
        return ctx.cast(q, _F16)
    return ctx.cast(q, t)


@register(np.mean, methods=("mean",))
def mean(ctx, a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    _refuse(ctx, "np.mean", out, where)
    x = _arr(ctx, a)
    return _mean(ctx, x, _axes(ctx, "np.mean", x, axis, False), _static_dtype(ctx, dtype),
                 _static_bool(ctx, keepdims, "keepdims"))


@register(np.nanmean)
def nanmean(ctx, a, axis=None, dtype=None, out=None, keepdims=_NOVALUE, *, where=_NOVALUE):
    _refuse(ctx, "np.nanmean", out, where)
    x = _arr(ctx, a)
    axes = _axes(ctx, "np.nanmean", x, axis, False)
    dt = _static_dtype(ctx, dtype)
    kd = _static_bool(ctx, keepdims, "keepdims")
    if x.dtype.kind != "f":
        return _mean(ctx, x, axes, dt, kd)
    if dt is not None and dt.kind != "f":
        raise ctx.error("np.nanmean: if a is inexact, then dtype must be inexact")
    isnan = ctx.op("IsNaN", widen_f16(ctx, x))
    valid = Array(ctx.op("Not", isnan), _BOOL, x.shape)
    cnt = reduce_sum(ctx, valid, axes, kd, _I64)
    tot = reduce_sum(ctx, _zero_nans(ctx, x), axes, kd, dt or x.dtype)
    # _divide_by_count: divide(tot, cnt, out=tot, casting='unsafe'), a float64 loop.
    q = _binary(ctx, "Div", ctx.cast(tot, _F64), ctx.cast(cnt, _F64))
    return ctx.cast(q, tot.dtype)


def _var(ctx, name: str, a, axis, dtype, out, ddof, keepdims, where, mean_, correction,
         std: bool) -> Array:
    """numpy's ``_methods._var`` (and ``_std``: its square root)."""
    _refuse(ctx, name, out, where)
    x = _arr(ctx, a)
    if x.dtype.kind not in "biuf":
        raise ctx.error(f"{name} of {x.dtype} is not supported")
    axes = _axes(ctx, name, x, axis, False)
    kd = _static_bool(ctx, keepdims, "keepdims")
    ddof = ctx.static(ddof, "ddof")
    if correction is not _NOVALUE:
        correction = ctx.static(correction, "correction")
        if ddof != 0:
            raise ctx.error(f"{name}: ddof and correction can't be provided simultaneously")
        ddof = correction
    if not isinstance(ddof, (int, float, np.integer, np.floating)) or isinstance(ddof, bool):
        raise ctx.error(f"{name}: ddof must be a number, not {ddof!r}")
    t = _static_dtype(ctx, dtype)
    if t is None and x.dtype.kind in "biu":
        t = _F64
    count = _count(ctx, x, axes)
    if mean_ is not _NOVALUE:
        arrmean = ctx.asarray(mean_)
    else:
        total = reduce_sum(ctx, x, axes, True, t or x.dtype)
        # true_divide(arrmean, intp(count), out=arrmean, casting='unsafe')
        arrmean = ctx.cast(_div_f64(ctx, total, count), total.dtype)
    dev = binary_ufunc(ctx, np.subtract, x, arrmean)
    sq = binary_ufunc(ctx, np.multiply, dev, dev)
    ret = reduce_sum(ctx, sq, axes, kd, t or sq.dtype)
    # rcount = maximum(rcount - ddof, 0), then true_divide in float64 (rcount is an intp).
    if isinstance(count, int):
        rcount: int | float | Array = max(count - ddof, 0)
    else:
        diff = _binary(ctx, "Sub", ctx.cast(count, _F64), ctx.const_array(np.float64(ddof)))
        rcount = _binary(ctx, "Max", diff, ctx.const_array(np.float64(0)))
    r = ctx.cast(_div_f64(ctx, ret, rcount), ret.dtype)
    if std:
        if r.dtype.kind != "f":
            raise ctx.error(f"{name} with an integer dtype= is not supported; use a float dtype")
        r = emit(ctx, "Sqrt", [r], r.dtype)
    return r


@register(np.var, methods=("var",))
def var(ctx, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=_NOVALUE, correction=_NOVALUE):
    return _var(ctx, "np.var", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                False)


@register(np.std, methods=("std",))
def std(ctx, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=_NOVALUE, correction=_NOVALUE):
    return _var(ctx, "np.std", a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                True)


# --------------------------------------------------------------------------- max/min/arg
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
    _refuse(ctx, name, out, where)
    x = _arr(ctx, a)
    axes = _axes(ctx, name, x, axis)
    kd = _static_bool(ctx, keepdims, "keepdims")
    init = None if initial is _NOVALUE else _initial(ctx, name, initial, x.dtype)
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
        # ReduceMax skips NaN; numpy's maximum propagates it. Without initial, the bool
        # reduction also fails at run time on an empty reduction, as numpy raises.
        nan = reduce_any(ctx, Array(ctx.op("IsNaN", x), _BOOL, x.shape), axes, kd,
                         allow_empty=init is not None)
        r = Array(ctx.op("Where", nan, ctx.const(np.array(np.nan, x.dtype)), r), x.dtype, r.shape)
        return r if init is None else _extreme2(ctx, r, init, is_max)
    if x.dtype == _BOOL and init is None:
        return _reduce_op(ctx, op, x, axes, kd)
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
    op = "ArgMax" if is_max else "ArgMin"
    fwd, _ = _ordered(ctx, flat.dtype)
    keep = 1 if kd and flat is x else 0
    shape = _out_shape(flat.shape, (k,), bool(keep))
    mapped = fwd(flat)
    # ArgMax fails at run time on an empty axis, where numpy raises too.
    r = Array(ctx.op(op, mapped, axis=k, keepdims=keep), _I64, shape)
    if x.dtype.kind == "f":
        # numpy returns the first NaN's index; ArgMax/ArgMin compare NaN inconsistently.
        nan = ctx.cast(Array(ctx.op("IsNaN", mapped), _BOOL, flat.shape), _U8)
        first = ctx.op("ArgMax", nan, axis=k, keepdims=keep)
        any_nan = ctx.cast(Array(ctx.op("ReduceMax", nan, _i64(ctx, [k]), keepdims=keep),
                                 _U8, shape), _BOOL)
        r = Array(ctx.op("Where", any_nan, first, r), _I64, shape)
    if kd and flat is not x:
        r = Array(ctx.op("Reshape", r, _i64(ctx, [1] * nd)), _I64, (1,) * nd)
    return r


@register(np.argmax, methods=("argmax",))
def argmax(ctx, a, axis=None, out=None, *, keepdims=_NOVALUE):
    return _arg(ctx, "np.argmax", True, a, axis, out, keepdims)


@register(np.argmin, methods=("argmin",))
def argmin(ctx, a, axis=None, out=None, *, keepdims=_NOVALUE):
    return _arg(ctx, "np.argmin", False, a, axis, out, keepdims)


# -------------------------------------------------------------------------- any/all/count
@register(np.any, methods=("any",))
def any_(ctx, a, axis=None, out=None, keepdims=_NOVALUE, *, where=_NOVALUE):
    _refuse(ctx, "np.any", out, where)
    x = _arr(ctx, a)
    return reduce_any(ctx, x, _axes(ctx, "np.any", x, axis), _static_bool(ctx, keepdims,
                                                                             "keepdims"))


@register(np.all, methods=("all",))
def all_(ctx, a, axis=None, out=None, keepdims=_NOVALUE, *, where=_NOVALUE):
    _refuse(ctx, "np.all", out, where)
    x = _arr(ctx, a)
    return reduce_any(ctx, x, _axes(ctx, "np.all", x, axis),
                      _static_bool(ctx, keepdims, "keepdims"), all_=True)


@register(np.count_nonzero)
def count_nonzero(ctx, a, axis=None, *, keepdims=False):
    x = _arr(ctx, a)
    axes = _axes(ctx, "np.count_nonzero", x, axis)
    b = x if x.dtype == _BOOL else ctx.cast(x, _BOOL)
    return reduce_sum(ctx, b, axes, _static_bool(ctx, keepdims, "keepdims"), _I64)


# ------------------------------------------------------------------------- cumsum/cumprod
def _cum(ctx, name: str, a, axis, dtype, out, product: bool) -> Array:
    _refuse(ctx, name, out)
    x = _arr(ctx, a)
    axis = ctx.static(axis, "axis")
    if axis is None or (x.ndim == 0 and type(axis) is int and axis in (0, -1)):
        x, k = _flatten(ctx, x), 0
    else:
        k = _axis1(ctx, name, x, axis)
    t = _static_dtype(ctx, dtype) or _sum_dtype(x.dtype)
    if t.kind == "b":
        raise ctx.error(f"{name} with dtype=bool is not supported; use np.logical_or.accumulate "
                        "semantics explicitly")
    if t.kind in "iu":
        wide = ctx.cast(ctx.cast(x, t), _I64)  # int64 arithmetic wraps like numpy's
        if product:
            r = _cumprod_along(ctx, wide, k)
        else:
            r = Array(ctx.op("CumSum", wide, _i64(ctx, k)), _I64, x.shape)
        return ctx.cast(r, t)
    xt = ctx.cast(x, t)
    if product:
        # Float products scan in a wider dtype: the scan multiplies in another order than
        # numpy's running product, so rounding is kept below numpy's own.
        return ctx.cast(_cumprod_along(ctx, ctx.cast(xt, _SUM_ACC[t]), k), t)
    # float16 runs in float32 (numpy rounds each partial sum to float16: a few ulps apart).
    run = _F32 if t == _F16 else kernels.compute_dtype("CumSum", t)
    r = Array(ctx.op("CumSum", ctx.cast(xt, run), _i64(ctx, k)), run, x.shape)
    return ctx.cast(r, t)


@register(np.cumsum, methods=("cumsum",))
def cumsum(ctx, a, axis=None, dtype=None, out=None):
    return _cum(ctx, "np.cumsum", a, axis, dtype, out, False)


@register(np.cumprod, methods=("cumprod",))
def cumprod(ctx, a, axis=None, dtype=None, out=None):
    return _cum(ctx, "np.cumprod", a, axis, dtype, out, True)


# -------------------------------------------------------------------------------- median
@register(np.median)
def median(ctx, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """numpy's ``_median``: the mean of the middle one or two sorted values (NaN if any NaN).

    The smallest ``n // 2 + 1`` values come from TopK, so the middle ones are its last one or
    two; their mean follows ``np.mean``'s dtypes and rounding exactly.
    """
    _refuse(ctx, "np.median", out)
    x = _arr(ctx, a)
    kd = _static_bool(ctx, keepdims, "keepdims")
    axes = _axes(ctx, "np.median", x, axis, False)
    if x.ndim == 0:
        # A 0-d input stays 0-d, keepdims or not.
        x, axes, kd = _flatten(ctx, x), (0,), False
    nd = x.ndim
    kept = [i for i in range(nd) if i not in axes]
    # The reduced axes merged into the last one (numpy's _ureduce does the same).
    perm = kept + list(axes)
    if perm != list(range(nd)):
        x = Array(ctx.op("Transpose", x, perm=perm), x.dtype, tuple(x.shape[p] for p in perm))
    if len(axes) > 1:
        count = _count(ctx, x, tuple(range(len(kept), nd)))
        kept_shape = x.shape[:len(kept)]
        tail = _i64(ctx, [count]) if isinstance(count, int) else \
            ctx.op("Unsqueeze", count.value, _i64(ctx, [0]))
        target = ctx.op("Concat", ctx.op("Shape", x, start=0, end=len(kept)), tail, axis=0)
        x = Array(ctx.op("Reshape", x, target, allowzero=1), x.dtype,
                  kept_shape + (count if isinstance(count, int) else None,))
    k = x.ndim - 1
    n_static = x.shape[k]
    out_shape = x.shape[:k]
    if n_static == 0:
        # numpy: the mean of an empty slice, nan (with a RuntimeWarning).
        nan_dt = _F64 if x.dtype.kind in "biu" else x.dtype
        r = Array(ctx.op("ConstantOfShape", ctx.shape_of(Array(x.value, x.dtype, out_shape))
                         if all(d is not None for d in out_shape) else
                         ctx.op("Shape", x, start=0, end=k),
                         value=ir.tensor(np.array([np.nan], nan_dt))), nan_dt, out_shape)
        return _unsqueeze(ctx, r, list(axes)) if kd else r
    fwd, back = _ordered(ctx, x.dtype)
    xm = fwd(x)
    n = _i64(ctx, n_static) if n_static is not None else \
        ctx.op("Squeeze", ctx.op("Shape", x, start=k, end=k + 1), _i64(ctx, [0]))
    if n_static is None:
        # Append the largest value, so TopK has an element even when n is 0 (the result is
        # then NaN, as numpy's mean of an empty slice) and the smallest n//2 + 1 are unchanged.
        big = np.inf if xm.dtype.kind == "f" else np.iinfo(xm.dtype).max
        shape = ctx.op("Concat", ctx.op("Shape", xm, start=0, end=k), _i64(ctx, [1]), axis=0)
        column = ctx.op("ConstantOfShape", shape, value=ir.tensor(np.array([big], xm.dtype)))
        xm = Array(ctx.op("Concat", xm, column, axis=k), xm.dtype, xm.shape)
    half = ctx.op("Div", n, _i64(ctx, 2))
    count_k = ctx.op("Unsqueeze", ctx.op("Add", half, _i64(ctx, 1)), _i64(ctx, [0]))
    smallest, _ = ctx.op("TopK", xm, count_k, axis=k, largest=0, sorted=1, outputs=2)
    lo_i = ctx.op("Unsqueeze", ctx.op("Div", ctx.op("Sub", n, _i64(ctx, 1)), _i64(ctx, 2)),
                  _i64(ctx, [0]))
    hi_i = ctx.op("Unsqueeze", half, _i64(ctx, [0]))
    col_shape = x.shape[:k] + (1,)
    lo = back(Array(ctx.op("Gather", smallest, lo_i, axis=k), xm.dtype, col_shape))
    hi = back(Array(ctx.op("Gather", smallest, hi_i, axis=k), xm.dtype, col_shape))
    odd = _mean(ctx, lo, (k,), None, False)
    pair = Array(ctx.op("Concat", lo, hi, axis=k), x.dtype, x.shape[:k] + (2,))
    even = _mean(ctx, pair, (k,), None, False)
    if n_static is not None:
        r = odd if n_static % 2 else even
    else:
        is_odd = ctx.op("Equal", ctx.op("Mod", n, _i64(ctx, 2)), _i64(ctx, 1))
        r = select(ctx, is_odd, odd, even, out_shape)
        empty = ctx.op("Equal", n, _i64(ctx, 0))
        r = select(ctx, empty, ctx.const_array(np.array(np.nan, r.dtype)), r, out_shape)
    if x.dtype.kind == "f":
        # numpy's _median_nancheck: any NaN makes the median NaN.
        nan = reduce_any(ctx, Array(ctx.op("IsNaN", widen_f16(ctx, x)), _BOOL, x.shape), (k,),
                         False)
        r = select(ctx, nan.value, ctx.const_array(np.array(np.nan, r.dtype)), r, out_shape)
    return _unsqueeze(ctx, r, list(axes)) if kd else r


# ------------------------------------------------------------------------------- average
@register(np.average)
def average(ctx, a, axis=None, weights=None, returned=False, *, keepdims=_NOVALUE):
    x = _arr(ctx, a)
    axis_s = ctx.static(axis, "axis")
    axes = _axes(ctx, "np.average", x, axis_s, False)
    kd = _static_bool(ctx, keepdims, "keepdims")
    returned = _static_bool(ctx, returned, "returned")
    if weights is None:
        avg = _mean(ctx, x, axes, None, kd)
        if not returned:
            return avg
        # scl = avg.dtype.type(a.size / avg.size): the reduced element count.
        count = _count(ctx, x, axes)
        scl = ctx.cast(_as_f64(ctx, count), avg.dtype)
        return avg, _broadcast_to(ctx, scl, avg)
    w = _arr(ctx, weights)
    if w.ndim != x.ndim or any(p is not None and q is not None and p != q
                               for p, q in zip(w.shape, x.shape)):
        if axis_s is None:
            raise ctx.error("np.average: axis must be specified when shapes of a and weights "
                            "differ")
        wanted = tuple(x.shape[ax] for ax in _axes_in_order(ctx, x, axis_s))
        if w.ndim != len(wanted) or any(p is not None and q is not None and p != q
                                        for p, q in zip(w.shape, wanted)):
            raise ctx.error("np.average: shape of weights must be consistent with shape of a "
                            "along specified axis")
        order = _axes_in_order(ctx, x, axis_s)
        perm = [int(p) for p in np.argsort(order)]
        if perm != list(range(len(perm))):
            w = Array(ctx.op("Transpose", w, perm=perm), w.dtype, tuple(w.shape[p] for p in perm))
        w = _unsqueeze(ctx, w, [i for i in range(x.ndim) if i not in axes])
    if x.dtype.kind in "biu":
        rt = np.result_type(x.dtype, w.dtype, np.float64)
    else:
        rt = np.result_type(x.dtype, w.dtype)
    scl = reduce_sum(ctx, w, axes, kd, rt)
    # numpy raises ZeroDivisionError when a weight sum is 0: fail at run time there too.
    sclw = widen_f16(ctx, scl)
    zero = ctx.op("Equal", sclw, ctx.const(np.array(0, sclw.dtype)))
    bad = reduce_any(ctx, Array(zero, _BOOL, scl.shape), tuple(range(scl.ndim)), False)
    ok = ctx.cast(Array(ctx.op("Not", bad), _BOOL, ()), _I64)
    check = ctx.op("Range", _i64(ctx, 0), _i64(ctx, 1), ok)
    axes_value = ctx.op("Add", _i64(ctx, axes), check) if axes else None
    # np.multiply(a, wgt, dtype=result_dtype): both operands cast, multiplied in result_dtype.
    prod_ = emit(ctx, "Mul", [ctx.cast(x, rt), ctx.cast(w, rt)], rt)
    total = reduce_sum(ctx, prod_, axes, kd, rt, axes_value=axes_value)
    avg = binary_ufunc(ctx, np.true_divide, total, scl)
    if not returned:
        return avg
    return avg, _broadcast_to(ctx, scl, avg)


def _axes_in_order(ctx, x: Array, axis) -> tuple[int, ...]:
    axis = axis if isinstance(axis, tuple) else (axis,)
    try:
        return tuple(normalize_axis(int(a), x.ndim) for a in axis)
    except ValueError as e:
        raise ctx.error(f"np.average: {e}") from None


def _broadcast_to(ctx, v: Array, like: Array) -> Array:
    if v.shape == like.shape:
        return v
    shape = broadcast_shapes(v.shape, like.shape)
    return Array(ctx.op("Expand", v, ctx.shape_of(like)), v.dtype, shape)

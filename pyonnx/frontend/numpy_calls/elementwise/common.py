"""Building blocks shared by the elementwise families.

Input: Arrays already in the dtype to compute in. Output: Arrays. ``_emit`` runs an op in a dtype
onnxruntime has a kernel for (widening exactly, casting back); ``_logic``/``_not``/``_flip``
combine bool Arrays; ``_cmp`` compares; :func:`where_` selects in any supported dtype;
``_zeros_like``/``_full_like`` fill x's run-time shape; ``runtime_check`` (defined in
graph/checks.py, re-exported for the families) makes the model fail at run time where numpy
raises; ``_max_min`` is onnxruntime's Max/Min made exact for int64 and for the sign of zero of floats
(:func:`select_exact`: a Where that keeps a selected -0.0); ``_isnan`` is false for non-float
dtypes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.gather_select import gather_select, worth_gathering
from pyonnx.frontend.graph.rare_case import only_if

__all__ = ["where_", "select_exact", "runtime_check"]


_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)
_U64 = np.dtype(np.uint64)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _emit(ctx, op: str, arrays: Sequence[Array], dtype, out=None, **attrs) -> Array:
    return kernels.emit(ctx, op, arrays, dtype, out_dtype=out, **attrs)


def _const(ctx, value, dtype) -> Array:
    with np.errstate(over="ignore"):    # e.g. 1e25 in float16 is inf, as numpy converts it
        return ctx.const_array(np.asarray(value, dtype=dtype))


def _logic(ctx, op: str, *arrays: Array) -> Array:
    """And/Or/Xor/Not on bool Arrays."""
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return Array(ctx.op(op, *arrays), _BOOL, shape)


def _not(ctx, a: Array) -> Array:
    return _logic(ctx, "Not", a)


def _flip(ctx, a: Array) -> Array:
    """Logical not for a Where condition: Xor with True, because onnxruntime's NotWhereFusion
    would turn Where(Not(c), a, b) back into Where(c, b, a), moving a -0.0 into the branch
    that loses its sign (see :func:`where_`)."""
    return _logic(ctx, "Xor", a, _const(ctx, True, _BOOL))


def _cmp(ctx, op: str, a: Array, b: Array, dtype=None) -> Array:
    """A comparison of two Arrays in ``dtype`` (default a's), as a bool Array."""
    dtype = np.dtype(dtype or a.dtype)
    if op == "NotEqual":
        return _not(ctx, _emit(ctx, "Equal", [a, b], dtype, _BOOL))
    return _emit(ctx, op, [a, b], dtype, _BOOL)


# Where's kernels lack these dtypes (float16: see kernels.has_kernel); the replacement holds
# every value exactly (uint64 goes through int64 by wrapping casts, which keep the bits).
_WHERE_VIA = {"bool": np.uint8, "int16": np.int32, "uint16": np.int32, "uint64": np.int64,
              "float16": np.float32}


def where_(ctx, cond: Array, a: Array, b: Array, dtype=None) -> Array:
    """``Where(cond, a, b)`` in ``dtype`` (default a's), for any supported dtype.

    ``cond`` must be bool; ``a`` and ``b`` are cast to ``dtype``. onnxruntime's Where returns
    +0.0 for a selected -0.0 (always from its first branch, and from its second in some
    broadcasting paths; measured), so callers that must keep -0.0 put it in the second branch
    with operands of one shape.
    """
    dtype = np.dtype(dtype or a.dtype)
    run = dtype if kernels.has_kernel("Where", dtype) else np.dtype(_WHERE_VIA[dtype.name])
    a2, b2 = ctx.cast(a, run), ctx.cast(b, run)
    shape = broadcast_shapes(cond.shape, a.shape, b.shape)
    if run in _ARITHMETIC_SELECT and not _small(shape):
        out = _arithmetic_select(ctx, cond, a2, b2, run, shape)
    else:
        out = Array(ctx.op("Where", cond, a2, b2), run, shape)
    return ctx.cast(out, dtype) if run != dtype else out


# onnxruntime's Where is ~20x slower than an Add per element (7.4 against 0.3 ms on 1e6 int64,
# measured with 1.32); for integers ``b + (a - b) * cond`` selects exactly (two's-complement
# arithmetic wraps and unwraps: b + (a - b) == a for every pair), in 4 cheap passes.
_ARITHMETIC_SELECT = frozenset({np.dtype(np.int32), np.dtype(np.int64)})


def _small(shape) -> bool:
    """Whether a broadcast result is known to be small (0-d, or static dims with at most 256
    elements): there one Where node costs less than the 4 nodes of the arithmetic select."""
    return not worth_gathering(shape)


def _arithmetic_select(ctx, cond: Array, a: Array, b: Array, run: np.dtype, shape) -> Array:
    """``Where(cond, a, b)`` for int32/int64 operands as ``b + (a - b) * int(cond)`` (exact:
    the wrapped difference is added back)."""
    pick = Array(ctx.op("Cast", cond, to=_ir_int(run)), run, cond.shape)
    diff = Array(ctx.op("Sub", a, b), run, broadcast_shapes(a.shape, b.shape))
    scaled = Array(ctx.op("Mul", diff, pick), run, broadcast_shapes(diff.shape, cond.shape))
    return Array(ctx.op("Add", b, scaled), run, shape)


def _ir_int(dtype: np.dtype):
    import onnx_ir as ir

    return ir.DataType.INT64 if dtype == _I64 else ir.DataType.INT32


def _zeros_like(ctx, x: Array, dtype=None) -> Array:
    """A constant-filled Array of x's (run-time) shape."""
    return _full_like(ctx, x, 0, dtype)


def _full_like(ctx, x: Array, value, dtype=None) -> Array:
    dtype = np.dtype(dtype or x.dtype)
    c = _const(ctx, value, dtype)
    if x.ndim == 0:
        return c
    return Array(ctx.op("Expand", c, ctx.shape_of(x)), dtype, x.shape)


def _via(ctx, fn: Callable[..., Array], arrays: Sequence[Array], compute, out) -> Array:
    """``fn`` computed in dtype ``compute`` and rounded once to ``out``."""
    res = fn(ctx, *[ctx.cast(a, compute) for a in arrays])
    return ctx.cast(res, out)


_UNSIGNED = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
             8: np.dtype(np.uint64)}


def _max_min(ctx, op: str, a: Array, b: Array, dt: np.dtype,
             first_on_tie: bool | Array = False) -> Array:
    """onnxruntime's Max/Min in dtype ``dt`` (float zeros and ties picked as numpy picks them).

    int64 runs onnxruntime's own Max/Min: 1.31's vectorized kernels compared the low 32-bit
    halves as signed numbers when the high halves were equal (Max(2**31, 1) == 1), 1.32 (the
    floor in pyproject.toml) is exact (measured on random and boundary int64 pairs, every
    broadcast form; tests/test_elementwise_int64_extrema.py); one node where the select took
    five (Greater, then the arithmetic select of ``where_``).
    """
    if dt.kind == "f" and _has_zero(a) is not False and _has_zero(b) is not False:
        if first_on_tie is False and _zero_bound(op, b, dt):
            # Of a ±0 tie numpy keeps b, a +0.0 here; onnxruntime may keep a's -0.0, and
            # adding +0.0 turns exactly that -0.0 into +0.0 (every other value is unchanged).
            return _emit(ctx, "Add", [_emit(ctx, op, [a, b], dt), _const(ctx, 0, dt)], dt)
        return _float_max_min(ctx, op, a, b, dt, first_on_tie)
    run = {"b": np.dtype(np.uint8), "f": _F32 if dt == np.float16 else dt}.get(dt.kind, dt)
    return ctx.cast(_emit(ctx, op, [ctx.cast(a, run), ctx.cast(b, run)], run), dt)


def _zero_bound(op: str, b: Array, dt: np.dtype) -> bool:
    """Whether ``op(a, b)`` (float32/float64 Max/Min) is exact as onnxruntime's ``op`` then
    ``+ 0.0``: ``b`` is a constant without -0.0, all ``>= 0`` for Max (``<= 0`` for Min), as
    in ``np.maximum(x, 0)`` and ``np.clip(x, 0, hi)``. Then a zero result is either a ±0 tie,
    where numpy keeps ``b``'s +0.0, or ``b``'s own +0.0; a non-zero result is not changed by
    adding +0.0 and NaN stays NaN."""
    const = b.value.const_value
    if dt not in (_F32, _F64) or const is None:
        return False
    v = const.numpy()
    if np.any(np.isnan(v)) or np.any(np.signbit(v) & (v == 0)):
        return False
    return bool(np.all(v >= 0)) if op == "Max" else bool(np.all(v <= 0))


def no_negative_zero(a: Array) -> bool:
    """Whether float ``a`` provably holds no -0.0: it is ``Add(x, c)`` with ``c`` a constant
    +0.0 (``-0.0 + +0.0`` is +0.0; a non-zero sum is not a zero)."""
    node = a.value.producer()
    if node is None or node.op_type != "Add" or node.domain != "" or len(node.inputs) != 2:
        return False
    for v in node.inputs:
        const = v.const_value if v is not None else None
        if const is not None:
            arr = const.numpy()
            if arr.size and not np.any(arr) and not np.any(np.signbit(arr)):
                return True
    return False


def _has_zero(a: Array) -> bool | None:
    """Whether the constant ``a`` holds a zero (None: computed at run time)."""
    const = a.value.const_value
    return None if const is None else bool(np.any(const.numpy() == 0))


def _float_max_min(ctx, op: str, a: Array, b: Array, dt: np.dtype,
                   first_on_tie: bool | Array = False) -> Array:
    """numpy's float ``maximum``/``minimum`` exactly, the sign of a zero included.

    numpy selects ``a if (a > b or isnan(a)) else b`` in float32/float64 (of equal values, the
    second) and ``a if (a >= b or isnan(a)) else b`` in float16 (the first: npy_half's
    comparison). onnxruntime's Max/Min keep either zero of a ``±0`` pair (it varies between the
    vectorized body and the tail of one array; measured), so the pick is made here and selected
    by :func:`select_exact`. (Without a zero in a constant operand no such tie exists: the
    caller keeps Max/Min.) The pick runs only when both operands hold a zero (an ``If``,
    :mod:`~pyonnx.frontend.numpy_calls.rare_case`), onnxruntime's Max/Min otherwise: the pick
    costs about 15 full passes (a 200x1000 IoU matrix: 8.6x numpy's time). ``first_on_tie``:
    ``a`` of equal values in every dtype (numpy 2.4's ``clip`` loop for one-element bounds:
    ``np.clip(-0.0, 0.0, 1.0)`` is -0.0); a 0-d bool Array decides at run time.
    """
    if a.ndim or b.ndim:
        # A ±0 tie needs a zero in both operands: the exact pick below runs only then.
        flags = [f for f in (_any_zero(ctx, a), _any_zero(ctx, b)) if f is not None]
        if not flags:
            return _exact_max_min(ctx, op, a, b, dt, first_on_tie)
        run = _F32 if dt == np.float16 else dt
        plain = ctx.cast(_emit(ctx, op, [ctx.cast(a, run), ctx.cast(b, run)], run), dt)
        flag = flags[0] if len(flags) == 1 else _logic(ctx, "And", *flags)
        out = only_if(ctx, flag, plain, lambda ctx: _exact_max_min(
            ctx, op, a, b, dt, first_on_tie), "signed_zero")
        # It differs from ``plain`` at most in the sign of zeros: the IR pass
        # pyonnx.passes.zero_signs keeps ``plain`` where nothing can see that sign.
        out.value.producer().meta["pyonnx.zero_sign_only"] = True
        return out
    return _exact_max_min(ctx, op, a, b, dt, first_on_tie)


def _any_zero(ctx, a: Array) -> Array | None:
    """0-d bool Array: whether float ``a`` holds a zero (None: a constant that does)."""
    if a.value.const_value is not None:
        return None  # (only called for operands that may hold a zero: _has_zero)
    zero = _cmp(ctx, "Equal", a, _const(ctx, 0, a.dtype))
    if not zero.ndim:
        return zero
    flat = ctx.cast(zero, np.dtype(np.uint8))  # (onnxruntime's bool ReduceMax is slow)
    return ctx.cast(Array(ctx.op("ReduceMax", flat, keepdims=0), flat.dtype, ()), _BOOL)


def _exact_max_min(ctx, op: str, a: Array, b: Array, dt: np.dtype,
                   first_on_tie: bool | Array) -> Array:
    """The pick of :func:`_float_max_min`, emitted unconditionally."""
    tie_a = first_on_tie is True or dt == np.float16
    cmp = {"Max": "Greater", "Min": "Less"}[op] + ("OrEqual" if tie_a else "")
    run = _F32 if dt == np.float16 else dt
    a_run, b_run = ctx.cast(a, run), ctx.cast(b, run)
    keep_a = _logic(ctx, "Or", _cmp(ctx, cmp, a_run, b_run), _isnan(ctx, a_run))
    if isinstance(first_on_tie, Array) and not tie_a:
        tie = _logic(ctx, "And", _cmp(ctx, "Equal", a_run, b_run), first_on_tie)
        keep_a = _logic(ctx, "Or", keep_a, tie)
    return select_exact(ctx, keep_a, a, b, dt)


def _negative_zero(ctx, a: Array) -> Array | None:
    """Bool Array: where float ``a`` is -0.0 (None: a constant without one)."""
    const = a.value.const_value
    if const is not None and not np.any(np.signbit(const.numpy()) & (const.numpy() == 0)):
        return None
    if no_negative_zero(a):
        return None
    run = _F32 if a.dtype == np.float16 else a.dtype
    x = ctx.cast(a, run)
    with np.errstate(divide="ignore"):
        inv = _emit(ctx, "Div", [_const(ctx, 1, run), x], run)     # -inf exactly at -0.0
    zero = _const(ctx, 0, run)
    return _logic(ctx, "And", _cmp(ctx, "Equal", x, zero), _cmp(ctx, "Less", inv, zero))


def select_exact(ctx, cond: Array, a: Array, b: Array, dtype) -> Array:
    """``np.where(cond, a, b)`` in ``dtype`` with the sign of a selected zero kept.

    onnxruntime's Where returns +0.0 for a selected -0.0 (see :func:`where_`); for floats the
    selected zeros that must be -0.0 are found (a bool Where of where each operand is -0.0:
    bools are copied exactly), set to +0.0, then multiplied by -1 — exact, as multiplying any
    other value by 1 is. Costs 5 to 12 more elementwise ops than Where: for the functions whose
    result is a pick between operands (``maximum``, ``fmax``, ``clip``...). That form is kept
    for results known to be small; larger ones gather from the stacked operands
    (:mod:`gather_select`), exact by construction and 3x faster than Where alone.
    """
    dtype = np.dtype(dtype)
    if dtype.kind == "f" and worth_gathering(broadcast_shapes(cond.shape, a.shape, b.shape)):
        # Bit-exact by construction (gather_select.py): no fix-up needed.
        return gather_select(ctx, cond, ctx.cast(a, dtype), ctx.cast(b, dtype), dtype)
    out = where_(ctx, cond, a, b, dtype)
    if dtype.kind != "f":
        return out
    na, nb = _negative_zero(ctx, a), _negative_zero(ctx, b)
    if na is None and nb is None:
        return out
    false = _const(ctx, False, _BOOL)
    fix = where_(ctx, cond, na if na is not None else false, nb if nb is not None else false,
                 _BOOL)
    # (the value to negate goes in Where's second branch: a -0.0 there is what is replaced)
    positive = where_(ctx, fix, _const(ctx, 0, dtype), out, dtype)
    sign = where_(ctx, fix, _const(ctx, -1, dtype), _const(ctx, 1, dtype), dtype)
    return _emit(ctx, "Mul", [positive, sign], dtype)


def _isnan(ctx, a: Array) -> Array:
    if a.dtype.kind != "f":
        return _full_like(ctx, a, False, _BOOL)
    return _emit(ctx, "IsNaN", [a], a.dtype, _BOOL)

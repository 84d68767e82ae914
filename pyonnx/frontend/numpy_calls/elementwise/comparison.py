"""Comparisons, logic, maximum/minimum, ``np.where`` and ``np.clip``.

Input: operands as frontend values (comparisons decide themselves how to convert them). Output:
bool Arrays for comparisons and logic, numpy's result dtype otherwise:

* comparisons of int64 with uint64 and with out-of-range Python ints are exact, as numpy 2's;
* ``maximum``/``minimum`` propagate NaN, ``fmax``/``fmin`` ignore it; ``clip`` is
  ``min(max(x, lo), hi)`` with NaN propagating from x and the bounds, ``a_min > a_max`` giving
  ``a_max``, and Python int bounds beyond an integer array's range dropped (NEP 50);
* ``maximum``/``minimum``/``clip``/``fmax``/``fmin`` pick the operand numpy picks, the sign of
  a zero included: of equal values ``maximum``/``minimum`` keep the second in float32/float64
  and the first in float16, ``clip`` likewise except in numpy's loop for stride-0 bounds
  (then the first, ``x``; ``clip_scalar.ties_keep_x`` follows numpy's choice of loop from the
  shapes; numpy's buffered iteration also reaches that loop for some larger broadcast bounds,
  by sizes and memory layout, which is not followed), ``fmax``/``fmin`` the first (numpy 2.4's
  loops;
  numpy's own float32/float64 ``fmax``/``fmin`` pick between ``±0`` varies with the array's
  length, vectorized body or not: there the sign of a zero is unspecified;
  onnxruntime's Max/Min keep either zero of a ``±0`` pair, so the pick is explicit, see
  ``common.select_exact``); a NaN's payload and sign are not reproduced;
* ``np.where`` keeps a selected -0.0 too (onnxruntime's Where returns +0.0 for it): the exact
  select costs ~1.7x a Where (measured on 10^6 float64), nothing where an operand is a
  constant without -0.0 (``np.where(m, x, 0.0)`` still pays for ``x``).

Float ``clip`` between one-element bounds is one onnxruntime ``Clip`` (``clip_scalar.py``).

Supported: ``np.less less_equal greater greater_equal equal not_equal logical_and logical_or
logical_not logical_xor maximum minimum fmax fmin`` and the operators ``== != < <= > >=``;
``np.where(c, a, b)`` (``np.where(c)`` is ``np.nonzero``); ``np.clip(a, a_min, a_max)``,
``np.clip(a, min=, max=)``, ``x.clip(min, max)`` (None leaves a side open).
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.numpy_calls.registry import lookup, register
from pyonnx.frontend.numpy_calls.elementwise.common import (
    _BOOL,
    _I64,
    _U64,
    _cmp,
    _const,
    _full_like,
    _isnan,
    _logic,
    _max_min,
    _not,
    select_exact,
    where_,
)
from pyonnx.frontend.numpy_calls.elementwise.ufunc import (
    UFUNCS,
    _operand,
    _register,
    _strong,
    _UfuncSpec,
    ufunc_call,
)
from pyonnx.frontend.numpy_calls.elementwise.clip_scalar import (
    clip_one_element_bounds,
    ties_keep_x,
)


_CMP_OPS = {np.less: "Less", np.less_equal: "LessOrEqual", np.greater: "Greater",
            np.greater_equal: "GreaterOrEqual", np.equal: "Equal", np.not_equal: "NotEqual"}
# For ``x OP v`` with v beyond every value of x's dtype: the answer when v is above / below.
_CMP_BEYOND = {"Less": (True, False), "LessOrEqual": (True, False), "Greater": (False, True),
               "GreaterOrEqual": (False, True), "Equal": (False, False),
               "NotEqual": (True, True)}
_CMP_SWAP = {"Less": "Greater", "LessOrEqual": "GreaterOrEqual", "Greater": "Less",
             "GreaterOrEqual": "LessOrEqual", "Equal": "Equal", "NotEqual": "NotEqual"}


def _comparison(op: str):
    def emit(ctx, operands, ins, outs):
        a, b = operands
        if ins[0].kind in "iu" and ins[1].kind in "iu":
            # numpy compares integer arrays (not bool ones) with any Python int exactly
            if (_is_py_int(b) and _is_int_array(a)) or (_is_py_int(a) and _is_int_array(b)) \
                    or (_is_py_int(a) and _is_py_int(b)):
                return _compare_python_int(ctx, op, a, b, ins)
            if ins[0] != ins[1]:
                return _compare_mixed_sign(ctx, op, _operand(ctx, a, ins[0]),
                                           _operand(ctx, b, ins[1]))
        return _cmp(ctx, op, _operand(ctx, a, ins[0]), _operand(ctx, b, ins[1]), ins[0])
    return emit


def _is_int_array(v) -> bool:
    return not _is_py_int(v) and dtypes.proxy(v) not in (bool, float) and \
        np.dtype(dtypes.proxy(v)).kind in "iu"


def _is_py_int(v) -> bool:
    if isinstance(v, Array):
        return v.weak and v.dtype.kind in "iu"
    return isinstance(v, int) and not isinstance(v, (bool, np.generic))


def _compare_python_int(ctx, op: str, a, b, ins) -> Array:
    """numpy 2 compares integer arrays with Python ints exactly, even out of the dtype's range."""
    if _is_py_int(a) and not _is_py_int(b):
        return _compare_python_int(ctx, _CMP_SWAP[op], b, a, ins[::-1])
    dt = ins[0]
    x = _operand(ctx, a, dt) if not _is_py_int(a) else ctx.asarray(a)
    if not isinstance(b, Array):
        info = np.iinfo(dt)
        if info.min <= b <= info.max:
            return _cmp(ctx, op, x, _const(ctx, b, dt), dt)
        value = _CMP_BEYOND[op][0 if b > info.max else 1]
        return _full_like(ctx, x, value, _BOOL)
    if b.value.const_value is not None and b.ndim == 0:  # (the vectorizer's weak aranges: not)
        return _compare_python_int(ctx, op, a, int(b.value.const_value.numpy()), ins)
    # A run-time Python int (int64): compare exactly in int64, or int64 against uint64.
    if x.dtype == _U64:
        return _compare_mixed_sign(ctx, op, x, ctx.cast(b, _I64))
    return _cmp(ctx, op, ctx.cast(x, _I64), ctx.cast(b, _I64), _I64)


def _compare_mixed_sign(ctx, op: str, a: Array, b: Array) -> Array:
    """Exact comparison of int64 with uint64 (numpy 2's mixed loops)."""
    if a.dtype == _U64:
        return _compare_mixed_sign(ctx, _CMP_SWAP[op], b, a)
    a = ctx.cast(a, _I64)
    b = ctx.cast(b, _U64)
    neg = _cmp(ctx, "Less", a, _const(ctx, 0, _I64))
    au = ctx.cast(a, _U64)                      # wraps negatives, masked by ``neg``
    lt = _logic(ctx, "Or", neg, _cmp(ctx, "Less", au, b))
    eq = _logic(ctx, "And", _not(ctx, neg), _cmp(ctx, "Equal", au, b))
    return {"Less": lambda: lt, "Equal": lambda: eq,
            "LessOrEqual": lambda: _logic(ctx, "Or", lt, eq),
            "Greater": lambda: _not(ctx, _logic(ctx, "Or", lt, eq)),
            "GreaterOrEqual": lambda: _not(ctx, lt),
            "NotEqual": lambda: _not(ctx, eq)}[op]()


def _to_bool(ctx, a: Array) -> Array:
    """numpy's truth of each element: nonzero (nan is true)."""
    return ctx.cast(a, _BOOL) if a.dtype != _BOOL else a


def _logical(op: str):
    def emit(ctx, arrays, ins, outs):
        return _logic(ctx, op, *[_to_bool(ctx, a) for a in arrays])
    return emit


def _logical_not(ctx, arrays, ins, outs):
    return _not(ctx, _to_bool(ctx, arrays[0]))


def _minmax(greater: bool, nan_propagates: bool):
    op_bool = "Or" if greater else "And"
    op_int = "Max" if greater else "Min"

    def emit(ctx, arrays, ins, outs):
        a, b = arrays
        dt = ins[0]
        if dt == _BOOL:
            return _logic(ctx, op_bool, a, b)
        if dt.kind in "iu" or nan_propagates:
            # onnxruntime's float Max/Min propagate NaN as numpy's maximum/minimum do
            # (measured, broadcasting included); float16 runs exactly in float32.
            return _max_min(ctx, op_int, a, b, dt)
        # fmax/fmin: numpy's ``a if (a >= b or isnan(b)) else b`` (``<=`` for fmin; of equal
        # values the first: float16 always, float32/64 when not vectorized), selected keeping
        # the sign of a zero.
        run = np.dtype(np.float32) if dt == np.float16 else dt
        a_run, b_run = ctx.cast(a, run), ctx.cast(b, run)
        cmp = "GreaterOrEqual" if greater else "LessOrEqual"
        keep_a = _logic(ctx, "Or", _cmp(ctx, cmp, a_run, b_run), _isnan(ctx, b_run))
        return select_exact(ctx, keep_a, a, b, dt)
    return emit


@register(np.where)
def where(ctx, condition, *args):
    """``np.where(c, a, b)`` (numpy's result_type of a and b, weak scalars included);
    ``np.where(c)`` is ``np.nonzero(c)``."""
    if not args:
        entry = lookup(np.nonzero)
        if entry is None:
            raise ctx.error("np.where(c) with one argument (np.nonzero) is not supported yet")
        return entry.fn(ctx, condition)
    if len(args) != 2:
        raise ctx.error("np.where() takes 1 or 3 arguments: either both or neither of x and y "
                        "should be given")
    a, b = args
    a, b = (ctx.asarray(v) if isinstance(v, (list, tuple)) and not is_static(v) else v
            for v in (a, b))
    try:
        dt = dtypes.result_type(a, b)
    except TypeError as e:
        raise ctx.error(f"np.where: {e}") from None
    if dt not in dtypes.SUPPORTED_DTYPES:
        raise ctx.error(f"np.where: dtype {dt} is not supported")
    c = _to_bool(ctx, ctx.asarray(condition))
    x, y = (ctx.cast(v, dt) if isinstance(v, Array) else ctx.asarray(_cast_static(v, dt))
            for v in (a, b))
    return select_exact(ctx, c, x, y, dt)


def _cast_static(v, dt):
    """A conversion-time operand of np.where in ``dt`` as numpy makes it: ``np.asarray`` then
    a C cast (``np.where(c, -1, uint8_array)`` wraps -1 to 255; no OverflowError)."""
    try:
        arr = np.asarray(v)
    except Exception:
        return v
    if arr.dtype.kind not in "biuf":
        return v
    with np.errstate(all="ignore"):
        return arr.astype(dt)


_NoValue = getattr(np, "_NoValue", object())


@register(np.clip)
def clip(ctx, a, a_min=_NoValue, a_max=_NoValue, out=None, *, min=_NoValue, max=_NoValue,
         **kwargs):
    """``np.clip(a, a_min, a_max)``, ``np.clip(a, min=..., max=...)``; None leaves a side open.

    As numpy: NaN in ``a`` or a bound gives NaN, ``a_min > a_max`` gives ``a_max``, and Python
    int bounds beyond an integer array's range are dropped (NEP 50).
    """
    if a_min is _NoValue and a_max is _NoValue:
        lo = None if min is _NoValue else min
        hi = None if max is _NoValue else max
    elif a_min is _NoValue or a_max is _NoValue:
        raise ctx.error("clip() missing 1 required positional argument: "
                        f"'{'a_min' if a_min is _NoValue else 'a_max'}'")
    elif min is not _NoValue or max is not _NoValue:
        raise ctx.error("Passing `min` or `max` keyword argument when `a_min` and `a_max` are "
                        "provided is forbidden (numpy raises ValueError)")
    else:
        lo, hi = a_min, a_max
    return _strong(_clip(ctx, a, lo, hi, out, **kwargs))


@register(name="ndarray.clip", methods=("clip",))
def clip_method(ctx, a, min=None, max=None, out=None, **kwargs):
    """``x.clip(min, max)``."""
    return _strong(_clip(ctx, a, min, max, out, **kwargs))


def _clip(ctx, a, lo, hi, out, **kwargs):
    if out is not None:
        raise ctx.error("clip(..., out=...) is not supported; assign the result instead")
    if kwargs.get("where", True) is not True:
        raise ctx.error("clip(..., where=...) is not supported; use np.where")
    dtype = kwargs.get("dtype")
    a = ctx.asarray(a)
    if a.dtype.kind in "iu":
        info = np.iinfo(a.dtype)
        if _is_static_py_int(lo) and lo <= info.min:
            lo = None
        if _is_static_py_int(hi) and hi >= info.max:
            hi = None
    if lo is None and hi is None:
        return lookup(np.positive).fn(ctx, a, dtype=dtype)
    if lo is None:
        return lookup(np.minimum).fn(ctx, a, hi, dtype=dtype)
    if hi is None:
        return lookup(np.maximum).fn(ctx, a, lo, dtype=dtype)
    return ufunc_call(ctx, _CLIP_UFUNC, a, lo, hi, dtype=dtype)


def _is_static_py_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, (bool, np.generic))


def _clip_emit(ctx, arrays, ins, outs):
    x, lo, hi = arrays
    dt = ins[0]
    if dt in _CLIP_INTS and lo.ndim == 0 and hi.ndim == 0 and x.dtype == lo.dtype == hi.dtype:
        # One pass: onnxruntime's Clip is min(max(x, lo), hi) for these (lo > hi gives hi, as
        # numpy; int64 exact since 1.32, measured on boundary values), where Max then Min
        # made two.
        return Array(ctx.op("Clip", x, lo, hi), dt, x.shape)
    if dt.kind == "f":
        # One-element bounds (the common np.clip(x, 0, w)): one Clip keeps x on ties as
        # numpy's loop for them does (clip_scalar.py).
        one = clip_one_element_bounds(ctx, x, lo, hi, dt)
        if one is not None:
            return one
    # numpy's clip is min(max(x, lo), hi) with NaN propagating from x and from the bounds,
    # which is what onnxruntime's Max/Min do (bool through uint8, float16 exactly in float32,
    # int16/uint16 widened by the kernel ladder). Of a ±0 tie numpy 2.4 keeps the bound, as
    # np.maximum does, except in its loop for stride-0 bounds, which keeps x
    # (np.clip(-0.0, 0.0, 1.0) is -0.0; measured): clip_scalar.ties_keep_x.
    scalar_bounds = ties_keep_x(ctx, x, lo, hi, dt) if dt.kind == "f" else False
    m = _max_min(ctx, "Max", x, lo, dt, first_on_tie=scalar_bounds)
    return _max_min(ctx, "Min", m, hi, dt, first_on_tie=scalar_bounds)


_CLIP_UFUNC = getattr(np._core.umath, "clip")
_CLIP_INTS = frozenset(np.dtype(t) for t in (np.int8, np.uint8, np.int32, np.uint32, np.int64))
UFUNCS[_CLIP_UFUNC] = _UfuncSpec(_clip_emit)


def _register_all() -> None:
    reg = _register
    for uf, op in _CMP_OPS.items():
        reg(uf, _comparison(op), raw=True)
    reg(np.logical_and, _logical("And"))
    reg(np.logical_or, _logical("Or"))
    reg(np.logical_xor, _logical("Xor"))
    reg(np.logical_not, _logical_not)
    reg(np.maximum, _minmax(True, True))
    reg(np.minimum, _minmax(False, True))
    reg(np.fmax, _minmax(True, False))
    reg(np.fmin, _minmax(False, False))


_register_all()

"""Arithmetic ufuncs: ``+ - * / // %`` and their relatives.

Input: operands already in numpy's loop dtypes (see :mod:`.ufunc`). Output: Arrays of numpy's
values:

* integers wrap as numpy's C loops do (``int8 127 + 1 == -128``, ``abs(int8 -128) == -128``);
  ``//``, ``%`` and ``np.fmod`` give 0 for a zero divisor, as numpy does (with a warning), and
  never run onnxruntime's Div/Mod on 0 or ``MIN // -1`` (which would crash the process);
* float ``//`` and ``%`` follow numpy's ``npy_divmod`` (floor, sign of the divisor, its inf and
  zero cases); bool ``+`` is logical or, bool ``*`` logical and.

Supported: ``np.add subtract multiply divide/true_divide floor_divide remainder/mod fmod divmod
negative positive absolute/abs fabs conjugate/conj square reciprocal sign`` and the operators
``+ - * / // % -x +x``; the builtin ``divmod(a, b)``; methods ``x.conj()``, ``x.conjugate()``.
"""

from __future__ import annotations

import builtins

import numpy as np

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import lookup, register
from pyonnx.frontend.numpy_calls.elementwise import precise as pm
from pyonnx.frontend.numpy_calls.elementwise.common import (
    _BOOL,
    _F32,
    _cmp,
    _const,
    _emit,
    _logic,
    _not,
    _zeros_like,
    where_,
)
from pyonnx.frontend.numpy_calls.elementwise.nonnegative import nonnegative
from pyonnx.frontend.numpy_calls.elementwise.ufunc import _register


def _add(ctx, arrays, ins, outs):
    if ins[0] == _BOOL:                            # numpy's bool add is logical or
        return _logic(ctx, "Or", *arrays)
    return _emit(ctx, "Add", arrays, ins[0])


def _subtract(ctx, arrays, ins, outs):
    return _emit(ctx, "Sub", arrays, ins[0])


def _multiply(ctx, arrays, ins, outs):
    if ins[0] == _BOOL:
        return _logic(ctx, "And", *arrays)
    return _emit(ctx, "Mul", arrays, ins[0])


def _true_divide(ctx, arrays, ins, outs):
    return _emit(ctx, "Div", arrays, ins[0])


def _int_divmod(ctx, a: Array, b: Array, dt: np.dtype, kind: str) -> Array:
    """Integer ``floor_divide`` ("floor"), ``remainder`` ("mod") or ``fmod`` ("fmod").

    onnxruntime's Div/Mod would crash on a zero divisor and on MIN // -1, so those divisors are
    replaced by 1 first; numpy's results for them (0, and -a wrapping for // -1) are put back.
    """
    zero, one = _const(ctx, 0, dt), _const(ctx, 1, dt)
    if dt.kind == "i" and nonnegative(a) and nonnegative(b):
        return _nonnegative_divmod(ctx, a, b, dt, kind)
    bz = _cmp(ctx, "Equal", b, zero)
    signed = dt.kind == "i"
    if signed:
        bm1 = _cmp(ctx, "Equal", b, _const(ctx, -1, dt))
        unsafe = _logic(ctx, "Or", bz, bm1)
    else:
        unsafe = bz
    bs = where_(ctx, unsafe, one, b, dt)
    q = _emit(ctx, "Div", [a, bs], dt)                 # truncated quotient
    r = _emit(ctx, "Sub", [a, _emit(ctx, "Mul", [q, bs], dt)], dt)   # its remainder
    if kind == "fmod":
        res = r
    elif not signed:
        res = q if kind == "floor" else r
    else:
        # floor: step down when the remainder is nonzero and of the other sign than b.
        rnz = _not(ctx, _cmp(ctx, "Equal", r, zero))
        differ = _logic(ctx, "Xor", _cmp(ctx, "Less", r, zero), _cmp(ctx, "Less", b, zero))
        adjust = _logic(ctx, "And", rnz, differ)
        if kind == "floor":
            res = where_(ctx, adjust, _emit(ctx, "Sub", [q, one], dt), q, dt)
            neg_a = _emit(ctx, "Sub", [zero, a], dt)   # a // -1 == -a, wrapping at MIN
            res = where_(ctx, bm1, neg_a, res, dt)
        else:
            res = where_(ctx, adjust, _emit(ctx, "Add", [r, bs], dt), r, dt)
    return where_(ctx, bz, zero, res, dt)


def _nonnegative_divmod(ctx, a: Array, b: Array, dt: np.dtype, kind: str) -> Array:
    """:func:`_int_divmod` of operands known to be ``>= 0`` (``nonnegative.py``): the truncated
    quotient is the floor, ``a - q * b`` the remainder and fmod; no sign fix-ups and no ``-1``
    divisor. A zero divisor is run as 1 (``a % 1`` is numpy's 0 already; ``a // 1`` is set to
    numpy's 0 by a multiplication with ``b > 0``); a constant divisor without zeros needs
    neither. (``idx % w`` and ``idx // w`` of an argmax by a run-time width: 14 and 22 nodes
    before, 5 and 4 here, 3 of them on the 0-d width.)"""
    const = b.value.const_value
    safe = const is not None and bool(np.all(const.numpy() != 0))
    bs = b if safe else _emit(ctx, "Max", [b, _const(ctx, 1, dt)], dt)
    q = _emit(ctx, "Div", [a, bs], dt)
    if kind != "floor":
        return _emit(ctx, "Sub", [a, _emit(ctx, "Mul", [q, bs], dt)], dt)
    if safe:
        return q
    nonzero = ctx.cast(_cmp(ctx, "Greater", b, _const(ctx, 0, dt)), dt)
    return _emit(ctx, "Mul", [q, nonzero], dt)


def _float_divmod(ctx, a: Array, b: Array, dt: np.dtype) -> tuple[Array, Array]:
    """numpy's ``npy_divmod`` for floats: (floor quotient, remainder with the divisor's sign)."""
    run = _F32 if dt == np.float16 else dt
    a, b = ctx.cast(a, run), ctx.cast(b, run)
    E = pm.Ex
    x, y = E.of(ctx, a), E.of(ctx, b)
    c = lambda v: E(ctx, ctx.const(np.asarray(v, run)), run, ())  # noqa: E731
    mod = E(ctx, ctx.op("Mod", x.value, y.value, fmod=1), run, broadcast_shapes(a.shape, b.shape))
    div = (x - mod) / y
    fix = (~mod.eq(c(0))) & (y.lt(c(0)) ^ mod.lt(c(0)))
    mod2 = pm.where(fix, mod + y, mod)
    div = pm.where(fix, div - c(1), div)
    # A zero remainder takes the divisor's sign. (-0.0 only ever goes into Where's second
    # branch, which keeps it.)
    zero_mod = pm.where(~_ex_signbit(y, c), c(0.0), c(-0.0))
    mod2 = pm.where(~mod.eq(c(0)), mod2, zero_mod)
    fl = div.floor()
    fl = pm.where((div - fl).gt(c(0.5)), fl + c(1), fl)
    # a zero quotient takes the sign of a/b
    q0 = x / y
    zero_div = pm.where(~_ex_signbit(q0, c), c(0.0), c(-0.0))
    floordiv = pm.where(~div.eq(c(0)), fl, zero_div)
    # b == 0: a/b and fmod's nan
    bz = y.eq(c(0))
    floordiv = pm.where(bz, q0, floordiv)
    mod2 = pm.where(bz, mod, mod2)
    return ctx.cast(floordiv.array(), dt), ctx.cast(mod2.array(), dt)


def _ex_signbit(v, c):
    return v.lt(c(0)) | (v.eq(c(0)) & (c(1) / v).lt(c(0)))


def _floor_divide(ctx, arrays, ins, outs):
    dt = ins[0]
    if dt.kind in "iu":
        return _int_divmod(ctx, *arrays, dt, "floor")
    return _float_divmod(ctx, *arrays, dt)[0]


def _remainder(ctx, arrays, ins, outs):
    dt = ins[0]
    if dt.kind in "iu":
        return _int_divmod(ctx, *arrays, dt, "mod")
    return _float_divmod(ctx, *arrays, dt)[1]


def _divmod(ctx, arrays, ins, outs):
    dt = ins[0]
    if dt.kind in "iu":
        return (_int_divmod(ctx, *arrays, dt, "floor"), _int_divmod(ctx, *arrays, dt, "mod"))
    return _float_divmod(ctx, *arrays, dt)


def _fmod(ctx, arrays, ins, outs):
    dt = ins[0]
    if dt.kind in "iu":
        return _int_divmod(ctx, *arrays, dt, "fmod")
    run = dt if kernels.has_kernel("Mod_fmod", dt) else _F32
    a, b = (ctx.cast(x, run) for x in arrays)
    shape = broadcast_shapes(a.shape, b.shape)
    return ctx.cast(Array(ctx.op("Mod", a, b, fmod=1), run, shape), dt)


def _negative(ctx, arrays, ins, outs):
    (a,) = arrays
    dt = ins[0]
    if dt.kind == "u":  # numpy wraps: -x == 0 - x modulo 2**bits
        return _emit(ctx, "Sub", [_const(ctx, 0, dt), a], dt)
    return _emit(ctx, "Neg", arrays, dt)


def _identity(ctx, arrays, ins, outs):
    (a,) = arrays
    # A new value, so the result never aliases its operand.
    return Array(ctx.op("Identity", a), a.dtype, a.shape)


def _absolute(ctx, arrays, ins, outs):
    dt = ins[0]
    if dt.kind in "bu":
        return _identity(ctx, arrays, ins, outs)
    return _emit(ctx, "Abs", arrays, dt)


def _square(ctx, arrays, ins, outs):
    (a,) = arrays
    return _emit(ctx, "Mul", [a, a], ins[0])


def _reciprocal(ctx, arrays, ins, outs):
    (a,) = arrays
    dt = ins[0]
    if dt.kind == "f":
        return _emit(ctx, "Reciprocal", arrays, dt)
    # numpy computes 1.0/x in double and converts: 1 -> 1, -1 -> -1, others -> 0, and 0 ->
    # inf converted to the integer type, which x86 turns into MIN for int32/int64 and 0 for
    # the narrower and unsigned types (where the conversion goes through a wider int).
    zero_val = np.iinfo(dt).min if dt.name in ("int32", "int64") else 0
    res = _zeros_like(ctx, a, dt)
    res = where_(ctx, _cmp(ctx, "Equal", a, _const(ctx, 1, dt)), _const(ctx, 1, dt), res, dt)
    if dt.kind == "i":
        res = where_(ctx, _cmp(ctx, "Equal", a, _const(ctx, -1, dt)), _const(ctx, -1, dt), res, dt)
    if zero_val:
        res = where_(ctx, _cmp(ctx, "Equal", a, _const(ctx, 0, dt)), _const(ctx, zero_val, dt),
                     res, dt)
    return res


def _sign(ctx, arrays, ins, outs):
    (a,) = arrays
    dt = ins[0]
    # onnxruntime's float32/float64 Sign gives numpy's +0.0 for ±0 and nan for nan (measured);
    # its float16 Sign gives 0 for nan, so float16 goes through float32.
    run = _F32 if dt == np.float16 else dt
    return ctx.cast(_emit(ctx, "Sign", [ctx.cast(a, run)], run), dt)


@register(builtins.divmod)
def divmod_builtin(ctx, a, b):
    """``divmod(a, b)`` on arrays is ``np.divmod(a, b)`` (ndarray.__divmod__)."""
    return lookup(np.divmod).fn(ctx, a, b)


@register(name="ndarray.conj", methods=("conj", "conjugate"))
def conj_method(ctx, a):
    """``x.conj()``, ``x.conjugate()``: a copy for real arrays (the ufunc would turn bool into
    int8; the method keeps the dtype)."""
    return _identity(ctx, [ctx.asarray(a)], None, None)


def _register_all() -> None:
    reg = _register
    reg(np.add, _add)
    reg(np.subtract, _subtract)
    reg(np.multiply, _multiply)
    reg(np.true_divide, _true_divide)
    reg(np.floor_divide, _floor_divide)
    reg(np.remainder, _remainder)
    reg(np.fmod, _fmod)
    reg(np.divmod, _divmod)
    reg(np.negative, _negative)
    reg(np.positive, _identity)
    reg(np.absolute, _absolute)
    reg(np.fabs, _absolute)
    reg(np.conjugate, _identity)
    reg(np.square, _square)
    reg(np.reciprocal, _reciprocal)
    reg(np.sign, _sign)


_register_all()

"""Rounding: floor, ceil, trunc, rint, ``np.round``/``np.around`` and ``np.fix``.

Input: an Array (or a static value) of any supported dtype. Output: an Array of numpy's dtype:
numpy 2 keeps integers and bools as they are; ``trunc`` keeps the sign of a zero (``trunc(-0.5)
== -0.0``); ``np.round(a, decimals)`` is numpy's multiply-rint-divide (halves to even), integers
unchanged for decimals >= 0 and through float64 below.

Supported: ``np.floor ceil trunc rint(x)``, ``np.round(a, decimals=0)``, ``np.around``,
``x.round(decimals)``, ``np.fix(x)``.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import lookup, register
from pyonnx.frontend.numpy_calls.elementwise.arithmetic import _identity
from pyonnx.frontend.numpy_calls.elementwise.common import (
    _BOOL,
    _F64,
    _cmp,
    _const,
    _emit,
    _logic,
    where_,
)
from pyonnx.frontend.numpy_calls.elementwise.ufunc import _register, _strong


def _trunc_arr(ctx, a: Array) -> Array:
    dt = a.dtype
    neg = _cmp(ctx, "Less", a, _const(ctx, 0, dt))
    r = where_(ctx, neg, _emit(ctx, "Ceil", [a], dt), _emit(ctx, "Floor", [a], dt), dt)
    # Ceil gives -0.0 on (-1, 0), which Where's first branch loses: multiply it back.
    small = _logic(ctx, "And", neg, _cmp(ctx, "Greater", a, _const(ctx, -1, dt)))
    sign = where_(ctx, small, _const(ctx, -1, dt), _const(ctx, 1, dt), dt)
    return _emit(ctx, "Mul", [r, sign], dt)


def _rounding(op: str | None):
    def emit(ctx, arrays, ins, outs):
        (a,) = arrays
        if ins[0].kind in "biu":                  # numpy 2 keeps integers (and bools) as is
            return _identity(ctx, arrays, ins, outs)
        if op is None:
            return _trunc_arr(ctx, a)
        return _emit(ctx, op, arrays, ins[0])
    return emit


def _power_of_ten(n: int) -> float:
    """numpy's ``power_of_ten`` (calculation.c): exact table to 1e8, then repeated * 10."""
    if n < 9:
        return (1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8)[n]
    ret = 1e9
    while n > 9:
        ret *= 10.0
        n -= 1
    return ret


@register(np.round, np.around, methods=("round",))
def round_(ctx, a, decimals=0, out=None):
    """``np.round(a, decimals=0)``, ``np.around``, ``x.round(decimals)``.

    numpy's algorithm: ``rint(a * 10**d) / 10**d`` (``rint(a / 10**-d) * 10**-d`` for d < 0) in
    a's float dtype, so halves go to even; integers are unchanged for d >= 0 and go through
    float64 for d < 0.
    """
    if out is not None:
        raise ctx.error("np.round(..., out=...) is not supported; assign the result instead")
    d = ctx.static(decimals, "decimals")
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
        raise ctx.error(f"decimals must be an integer, got {d!r}")
    d = int(d)
    a = ctx.asarray(a)
    dt = a.dtype
    if dt.kind in "iu" and d >= 0:
        return _strong(lookup(np.positive).fn(ctx, a))
    if d == 0:
        return _strong(lookup(np.rint).fn(ctx, a))
    if dt == _BOOL:
        raise ctx.error("Cannot cast ufunc 'multiply' output from dtype('float64') to "
                        "dtype('bool') with casting rule 'same_kind' (numpy raises "
                        "UFuncTypeError); round a numeric array, e.g. x.astype(float)")
    f = _power_of_ten(abs(d))
    work = _F64 if dt.kind in "iu" else dt
    x = ctx.cast(a, work)
    fc = _const(ctx, f, work)
    op1, op2 = ("Mul", "Div") if d >= 0 else ("Div", "Mul")
    y = _emit(ctx, op1, [x, fc], work)
    y = _emit(ctx, "Round", [y], work)
    y = _emit(ctx, op2, [y, fc], work)
    return _strong(ctx.cast(y, dt))


@register(np.fix)
def fix(ctx, x, out=None):
    """``np.fix(x)``: rounding toward zero, as ``np.trunc`` (numpy 2 keeps integers)."""
    if out is not None:
        raise ctx.error("np.fix(..., out=...) is not supported; assign the result instead")
    return _strong(lookup(np.trunc).fn(ctx, x))


def _register_all() -> None:
    reg = _register
    reg(np.floor, _rounding("Floor"))
    reg(np.ceil, _rounding("Ceil"))
    reg(np.trunc, _rounding(None))
    reg(np.rint, _rounding("Round"))


_register_all()

"""Bitwise ufuncs: ``& | ^ ~ << >>`` and ``np.bitwise_count``.

Input: operands in numpy's loop dtypes (bool or integers). Output: Arrays of numpy's values: bool
operands use logical ops; shifts by >= the bit width (or by a negative count) give 0, or -1 for
right shifts of negatives, and right shifts are arithmetic; ``bitwise_count`` counts the bits of
the magnitude (uint8 result).

Supported: ``np.bitwise_and bitwise_or bitwise_xor invert/bitwise_not/bitwise_invert left_shift
right_shift bitwise_count`` and the operators ``& | ^ ~ << >>``.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.arithmetic import _absolute
from pyonnx.frontend.numpy_calls.elementwise.common import (
    _BOOL,
    _U64,
    _UNSIGNED,
    _cmp,
    _const,
    _emit,
    _logic,
    _not,
    where_,
)
from pyonnx.frontend.numpy_calls.elementwise.ufunc import _register


def _bitwise(op_bool: str, op_int: str):
    def emit(ctx, arrays, ins, outs):
        if ins[0] == _BOOL:
            return _logic(ctx, op_bool, *arrays)
        return _emit(ctx, op_int, arrays, ins[0])
    return emit


def _invert(ctx, arrays, ins, outs):
    if ins[0] == _BOOL:
        return _not(ctx, arrays[0])
    return _emit(ctx, "BitwiseNot", arrays, ins[0])


def _shift(left: bool):
    def emit(ctx, arrays, ins, outs):
        a, b = arrays
        dt = ins[0]
        bits = dt.itemsize * 8
        udt = _UNSIGNED[dt.itemsize]
        # onnxruntime's BitShift exists for uint8/32/64 and is undefined for counts >= the
        # width; numpy gives 0 (or -1 for right shifts of negatives) there, negative counts
        # included (it compares the count as an unsigned number).
        run = udt if kernels.has_kernel("BitShift", udt) else np.dtype(np.uint32)
        count = ctx.cast(ctx.cast(b, udt), _U64)          # negative counts become huge
        too_big = _cmp(ctx, "GreaterOrEqual", count, _const(ctx, bits, _U64))
        shape = broadcast_shapes(a.shape, b.shape)
        if left:
            cnt = ctx.cast(_emit(ctx, "Min", [count, _const(ctx, bits - 1, _U64)], _U64), run)
            u = ctx.cast(ctx.cast(a, udt), run)
            r = Array(ctx.op("BitShift", u, cnt, direction="LEFT"), run, shape)
            r = ctx.cast(ctx.cast(r, udt), dt)                # wrap to the width, then the type
            return where_(ctx, too_big, _const(ctx, 0, dt), r, dt)
        cnt = ctx.cast(_emit(ctx, "Min", [count, _const(ctx, bits - 1, _U64)], _U64), run)
        if dt.kind == "u":
            u = ctx.cast(a, run)
            r = ctx.cast(Array(ctx.op("BitShift", u, cnt, direction="RIGHT"), run, shape), dt)
            return where_(ctx, too_big, _const(ctx, 0, dt), r, dt)
        # Arithmetic shift of a signed value: ~((~a) >> n) for negatives. With the count
        # clamped to bits-1 the result is already 0 or -1 beyond the width.
        neg = _cmp(ctx, "Less", a, _const(ctx, 0, dt))
        flipped = where_(ctx, neg, _emit(ctx, "BitwiseNot", [a], dt), a, dt)
        u = ctx.cast(ctx.cast(flipped, udt), run)
        r = ctx.cast(ctx.cast(Array(ctx.op("BitShift", u, cnt, direction="RIGHT"), run, shape),
                              udt), dt)
        return where_(ctx, neg, _emit(ctx, "BitwiseNot", [r], dt), r, dt)
    return emit


def _bitwise_count(ctx, arrays, ins, outs):
    """Population count of |x| (numpy's bitwise_count counts the magnitude's bits)."""
    (a,) = arrays
    dt = ins[0]
    if dt == _BOOL:
        return ctx.cast(a, np.uint8)
    udt = _UNSIGNED[dt.itemsize]
    x = _absolute(ctx, [a], (dt,), (dt,)) if dt.kind == "i" else a
    u = ctx.cast(ctx.cast(x, udt), _U64)
    def c(v):
        return _const(ctx, v, _U64)

    def shr(v, n):
        return Array(ctx.op("BitShift", v, c(n), direction="RIGHT"), _U64, v.shape)

    def band(v, m):
        return _emit(ctx, "BitwiseAnd", [v, c(m)], _U64)

    # SWAR popcount on uint64 (only wrapping adds and Mul, which have uint64 kernels).
    u = _emit(ctx, "Sub", [u, band(shr(u, 1), 0x5555555555555555)], _U64)
    u = _emit(ctx, "Add", [band(u, 0x3333333333333333), band(shr(u, 2), 0x3333333333333333)], _U64)
    u = band(_emit(ctx, "Add", [u, shr(u, 4)], _U64), 0x0F0F0F0F0F0F0F0F)
    u = shr(_emit(ctx, "Mul", [u, c(0x0101010101010101)], _U64), 56)
    return ctx.cast(u, np.uint8)


def _register_all() -> None:
    reg = _register
    reg(np.bitwise_and, _bitwise("And", "BitwiseAnd"))
    reg(np.bitwise_or, _bitwise("Or", "BitwiseOr"))
    reg(np.bitwise_xor, _bitwise("Xor", "BitwiseXor"))
    reg(np.invert, _invert)
    reg(np.left_shift, _shift(True))
    reg(np.right_shift, _shift(False))
    if hasattr(np, "bitwise_count"):
        reg(np.bitwise_count, _bitwise_count)


_register_all()

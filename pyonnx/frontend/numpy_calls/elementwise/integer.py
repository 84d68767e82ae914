"""Integer number theory: ``np.gcd`` and ``np.lcm``.

Input: two integer (or bool) operands in numpy's loop dtype. Output: numpy's Array: as numpy,
the magnitudes are taken as unsigned numbers (``|INT_MIN|`` is ``2**(bits-1)``), so
``gcd(int8 -128, 0) == -128`` and lcm wraps. Euclid's algorithm runs in an ONNX Loop until every
lane is done.

Supported: ``np.gcd(a, b)``, ``np.lcm(a, b)``.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.arithmetic import _absolute
from pyonnx.frontend.numpy_calls.elementwise.common import (
    _BOOL,
    _I64,
    _UNSIGNED,
    _cmp,
    _const,
    _emit,
    _not,
    _zeros_like,
    where_,
)
from pyonnx.frontend.numpy_calls.elementwise.ufunc import _register


def _gcd_unsigned(ctx, a: Array, b: Array, udt: np.dtype) -> Array:
    """Euclid's gcd of unsigned Arrays (broadcast), in a Loop until every lane is done."""
    import onnx_ir as ir

    shape = broadcast_shapes(a.shape, b.shape)
    a = _emit(ctx, "Add", [a, _zeros_like(ctx, b, udt)], udt)
    b = _emit(ctx, "Add", [b, _zeros_like(ctx, a, udt)], udt)
    zero, one = _const(ctx, 0, udt), _const(ctx, 1, udt)

    def any_nonzero(v):
        nz = ctx.cast(_not(ctx, _cmp(ctx, "Equal", v, zero)), _I64)
        total = ctx.op("ReduceSum", nz, keepdims=0)
        return ctx.op("Greater", total, ctx.const(np.array(0, np.int64)))

    cond0 = any_nonzero(a)
    tdt = lambda d: ir.TensorType(dtypes.to_ir(d))  # noqa: E731
    it = ir.Value(name="gcd_i", type=tdt(_I64), shape=ir.Shape([]))
    cin = ir.Value(name="gcd_cond", type=tdt(_BOOL), shape=ir.Shape([]))
    a_in = Array(ir.Value(name="gcd_a", type=tdt(udt), shape=None), udt, shape)
    b_in = Array(ir.Value(name="gcd_b", type=tdt(udt), shape=None), udt, shape)
    with ctx.subgraph() as nodes:
        done = _cmp(ctx, "Equal", a_in, zero)
        r = _emit(ctx, "Mod", [b_in, where_(ctx, done, one, a_in, udt)], udt)
        a_out = where_(ctx, done, zero, r, udt)
        b_out = where_(ctx, done, b_in, a_in, udt)
        cond_out = any_nonzero(a_out)
    body = ir.Graph([it, cin, a_in.value, b_in.value], [cond_out, a_out.value, b_out.value],
                    nodes=nodes, name=f"{ctx.function_name}_gcd")
    outs = ctx.op("Loop", None, cond0, a, b, body=body, outputs=2)
    return Array(outs[1], udt, shape)


def _gcd_lcm(lcm: bool):
    def emit(ctx, arrays, ins, outs):
        # numpy works on the magnitudes as unsigned numbers (|INT_MIN| is 2**(bits-1)), then
        # casts back: gcd(int8 -128, 0) == -128, lcm wraps.
        a, b = arrays
        dt = ins[0]
        udt = _UNSIGNED[dt.itemsize]
        ua = ctx.cast(_absolute(ctx, [a], (dt,), (dt,)), udt)
        ub = ctx.cast(_absolute(ctx, [b], (dt,), (dt,)), udt)
        g = _gcd_unsigned(ctx, ua, ub, udt)
        if not lcm:
            return ctx.cast(g, dt)
        zero, one = _const(ctx, 0, udt), _const(ctx, 1, udt)
        gz = _cmp(ctx, "Equal", g, zero)
        q = _emit(ctx, "Div", [ua, where_(ctx, gz, one, g, udt)], udt)
        res = where_(ctx, gz, zero, _emit(ctx, "Mul", [q, ub], udt), udt)
        return ctx.cast(res, dt)
    return emit


def _register_all() -> None:
    reg = _register
    reg(np.gcd, _gcd_lcm(False))
    reg(np.lcm, _gcd_lcm(True))


_register_all()

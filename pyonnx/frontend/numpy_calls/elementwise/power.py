"""Powers: ``np.power``/``np.pow``, ``np.float_power``, the ``**`` operator and ``pow(a, b)``.

Input: two operands (frontend values). Output: numpy's Array:

* ``**`` on integers is exact repeated squaring modulo 2**bits (onnxruntime's integer Pow goes
  through double); a negative integer exponent known at conversion time is refused (numpy
  raises ValueError), one only known at run time makes the model fail at run time;
* ``x ** 2``, ``x ** -1`` and ``x ** 0.5`` take ndarray.__pow__'s fast paths (square,
  reciprocal, sqrt: ``bool ** 2`` is int8, ``-0.0 ** 0.5 == -0.0``), and np.power's float loops
  take sqrt for a broadcast exponent of 0.5; two Python scalars follow Python (``n ** -1`` is a
  float).

Supported: ``np.power(a, b)``, ``np.float_power(a, b)``, ``a ** b``, ``pow(a, b)``
(``pow(a, b, m)`` is refused, as numpy refuses it).
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from pyonnx.frontend.graph import dtypes, scalar_kinds
from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import lookup, register
from pyonnx.frontend.numpy_calls.elementwise.common import (
    _BOOL,
    _F32,
    _F64,
    _I64,
    _cmp,
    _const,
    _emit,
    _full_like,
    _logic,
    _zeros_like,
    runtime_check,
    where_,
)
from pyonnx.frontend.numpy_calls.elementwise.ufunc import _operand, _register


def _int_power(ctx, a: Array, b: Array, dt: np.dtype, exponent_static) -> Array:
    """Exact integer power modulo 2**bits (numpy's repeated squaring in the loop dtype)."""
    # The products wrap the same modulo 2**bits in a wider integer, so compute where Mul and
    # Where have kernels: int16/uint16 in int32, uint64 in int64 (bit-preserving casts).
    run = {"int16": np.int32, "uint16": np.uint32, "uint64": np.int64}.get(dt.name, dt)
    run = np.dtype(run)
    if exponent_static is not None:
        e = np.asarray(exponent_static)
        if e.ndim == 0 or (e.size > 0 and np.all(e == e.reshape(-1)[0])):
            n = int(e.reshape(-1)[0]) if e.size else 0
            if n < 0 and dt.kind == "i":
                raise ctx.error("Integers to negative integer powers are not allowed "
                                "(numpy raises ValueError); use a float base, e.g. x ** -1.0")
            base = ctx.cast(a, run)
            acc = None
            while n:
                if n & 1:
                    acc = base if acc is None else _emit(ctx, "Mul", [acc, base], run)
                n >>= 1
                if n:
                    base = _emit(ctx, "Mul", [base, base], run)
            shape = broadcast_shapes(a.shape, b.shape)
            if acc is None:
                acc = _full_like(ctx, a, 1, run)
            if acc.shape != shape or acc is a:
                acc = _emit(ctx, "Add", [acc, _zeros_like(ctx, b, run)], run)
            return ctx.cast(acc, dt)
        if dt.kind == "i" and np.any(e < 0):
            raise ctx.error("Integers to negative integer powers are not allowed "
                            "(numpy raises ValueError); use a float base")
        return _int_power_loop(ctx, a, b, dt, run, check=False)
    return _int_power_loop(ctx, a, b, dt, run, check=dt.kind == "i")


def _int_power_loop(ctx, a: Array, b: Array, dt: np.dtype, run: np.dtype,
                    check: bool) -> Array:
    """``a ** b`` with a run-time exponent: a Loop squaring while any exponent bit is left."""
    import onnx_ir as ir

    shape = broadcast_shapes(a.shape, b.shape)
    base = _emit(ctx, "Add", [ctx.cast(a, run), _zeros_like(ctx, ctx.cast(b, run))], run)
    if check:
        bad = _cmp(ctx, "Less", b, _const(ctx, 0, dt))
        b = runtime_check(ctx, bad, b, "Integers_to_negative_integer_powers_are_not_allowed",
                          "ValueError: Integers to negative integer powers are not allowed.")
    edt = np.dtype(np.uint64) if dt == np.uint64 else _I64
    e = _emit(ctx, "Add", [ctx.cast(b, edt), _zeros_like(ctx, ctx.cast(a, edt))], edt)
    acc = _full_like(ctx, base, 1, run)

    def any_left(ev):
        pos = ctx.cast(Array(ctx.op("Greater", ev, ctx.const(np.array(0, edt))), _BOOL, ()), _I64)
        total = ctx.op("ReduceSum", pos, keepdims=0)
        return ctx.op("Greater", total, ctx.const(np.array(0, np.int64)))

    cond0 = any_left(e)
    tdt = lambda d: ir.TensorType(dtypes.to_ir(d))  # noqa: E731
    it = ir.Value(name="pow_i", type=tdt(_I64), shape=ir.Shape([]))
    cin = ir.Value(name="pow_cond", type=tdt(_BOOL), shape=ir.Shape([]))
    acc_in = ir.Value(name="pow_acc", type=tdt(run), shape=None)
    base_in = ir.Value(name="pow_base", type=tdt(run), shape=None)
    e_in = ir.Value(name="pow_e", type=tdt(edt), shape=None)
    with ctx.subgraph() as nodes:
        two = ctx.const(np.array(2, edt))
        odd = ctx.op("Equal", ctx.op("Mod", e_in, two), ctx.const(np.array(1, edt)))
        prod = ctx.op("Mul", acc_in, base_in)
        acc_out = ctx.op("Where", odd, prod, acc_in)
        base_out = ctx.op("Mul", base_in, base_in)
        e_out = ctx.op("Div", e_in, two)
        cond_out = any_left(e_out)
    body = ir.Graph([it, cin, acc_in, base_in, e_in], [cond_out, acc_out, base_out, e_out],
                    nodes=nodes, name=f"{ctx.function_name}_int_power")
    outs = ctx.op("Loop", None, cond0, acc, base, e, body=body, outputs=3)
    return ctx.cast(Array(outs[0], run, shape), dt)


def _power(ctx, operands, ins, outs):
    dt = ins[0]
    a_raw, b_raw = operands
    a, b = _operand(ctx, a_raw, ins[0]), _operand(ctx, b_raw, ins[1])
    if dt.kind in "iu":
        static = None
        if not isinstance(b_raw, Array):
            static = b_raw
        elif b_raw.value.const_value is not None:
            static = b_raw.value.const_value.numpy()
        return _int_power(ctx, a, b, dt, static)
    run = dt if dt != np.float16 else _F32
    res = _emit(ctx, "Pow", [a, b], run)
    fast = _pow_scalar_exponent(ctx, a, b) if dt != np.float16 else False
    if fast is False:
        return ctx.cast(res, dt)
    # numpy's float32/float64 loop computes an exponent that is constant along its inner loop
    # (a broadcast scalar) and equal to 0.5 as sqrt: -0.0 ** 0.5 == -0.0 and -inf ** 0.5 ==
    # nan, where pow gives +0.0 and inf.
    if fast is True and b.value.const_value is not None:
        if np.all(b.value.const_value.numpy() == 0.5):
            return _emit(ctx, "Sqrt", [a], dt) if b.shape == () else \
                _emit(ctx, "Add", [_emit(ctx, "Sqrt", [a], dt), _zeros_like(ctx, b)], dt)
        return res
    half = _cmp(ctx, "Equal", b, _const(ctx, 0.5, dt))
    if fast is not True:
        half = _logic(ctx, "And", half, fast)
    return _sqrt_where_half(ctx, a, ctx.cast(res, dt), half)


def _sqrt_where_half(ctx, a: Array, res: Array, half: Array) -> Array:
    """``res`` (= pow(a, b)) turned into sqrt(a) where ``half``: pow and sqrt differ only at
    -0.0 (sqrt keeps it) and -inf (sqrt gives nan). Fixed arithmetically, because a -0.0
    selected by onnxruntime's Where comes out +0.0."""
    dt = a.dtype
    neg_inf = _logic(ctx, "And", half, _cmp(ctx, "Equal", a, _const(ctx, -np.inf, dt)))
    res = where_(ctx, neg_inf, _const(ctx, np.nan, dt), res, dt)
    zero = _logic(ctx, "And", half, _cmp(ctx, "Equal", a, _const(ctx, 0, dt)))
    zero_sign = _emit(ctx, "Sign", [_emit(ctx, "Reciprocal", [a], dt)], dt)   # ±1 for ±0
    factor = where_(ctx, zero, zero_sign, _const(ctx, 1, dt), dt)
    return _emit(ctx, "Mul", [res, factor], dt)


def _pow_scalar_exponent(ctx, a: Array, b: Array):
    """Whether numpy's inner loop sees the exponent with stride 0: True, False, or a bool Array
    (decided at run time when the broadcast size is unknown)."""
    if b.ndim == 0:
        return True
    if any(d != 1 for d in b.shape):
        return False
    out = broadcast_shapes(a.shape, b.shape)
    if any(d is not None and d > 1 for d in out):
        return True
    if all(d == 1 for d in out):
        return False
    size = ctx.op("Size", a)
    return Array(ctx.op("Greater", size, ctx.const(np.array(1, np.int64))), _BOOL, ())


@register(operator.pow)
def pow_operator(ctx, a, b):
    """``a ** b``: ndarray.__pow__, which is np.power except for its fast paths.

    numpy computes ``x ** 2`` (a Python int) as ``np.square`` (bool ** 2 is int8, not int64),
    and for float arrays ``x ** -1`` as ``np.reciprocal`` and ``x ** 0.5`` (a Python float) as
    ``np.sqrt`` (float16 included). Two Python scalars follow Python (``n ** -1`` is a float).
    """
    call = lambda f, *args: lookup(f).fn(ctx, *args)  # noqa: E731
    a_py = not isinstance(a, Array) or a.weak
    b_py = not isinstance(b, Array) or b.weak
    if a_py and b_py:
        return _python_pow(ctx, a, b)
    if not isinstance(a, Array) or not b_py:
        return call(np.power, a, b)
    is_float = a.dtype.kind == "f"
    if isinstance(b, Array) and b.value.const_value is not None:
        b = b.value.const_value.numpy().item()
    if not isinstance(b, Array):
        if isinstance(b, int) and not isinstance(b, bool):
            if b == 2:
                if a.dtype == _BOOL and a.ndim == 0:
                    # A numpy bool scalar's ** is scalar math, which has no square fast
                    # path: np.True_ ** 2 is int64, np.array(True) ** 2 is int8.
                    kind = scalar_kinds.scalar_kind(ctx, a)
                    if kind == "unknown":
                        raise ctx.error("`** 2` of a bool that is a numpy scalar on one path "
                                        "and a 0-d array on another has no single dtype (int64 "
                                        "or int8); write np.square(v) or v.astype(np.int64) ** 2")
                    if kind == "scalar":
                        return call(np.power, a, b)
                return call(np.square, a)
            if b == -1 and is_float:
                return call(np.reciprocal, a)
        elif isinstance(b, float) and b == 0.5 and is_float:
            return call(np.sqrt, a)
        return call(np.power, a, b)
    # A Python-scalar argument: which path numpy takes depends on its run-time value.
    if b.dtype.kind in "iu" and a.dtype == _BOOL:
        # bool ** 2 is int8, other exponents int64: the dtype needs the value.
        b = ctx.static(b, "the exponent of a bool array")
        return pow_operator(ctx, a, b)
    res = call(np.power, a, b)
    if is_float and b.dtype.kind == "f" and a.dtype == np.float16:
        # np.power's own loop takes the sqrt path for float32/float64 only.
        half = _cmp(ctx, "Equal", ctx.cast(b, _F64), _const(ctx, 0.5, _F64))
        res = _sqrt_where_half(ctx, a, res, half)
    return res


@register(builtins.pow)
def pow_builtin(ctx, base, exp, mod=None):
    """``pow(a, b)`` on arrays is ``a ** b`` (ndarray.__pow__); ``pow(a, b, m)`` is refused as
    numpy refuses it."""
    if mod is not None:
        raise ctx.error("pow() with a modulus is not supported for arrays (numpy raises "
                        "TypeError); write (a ** b) % m")
    return pow_operator(ctx, base, exp)


def _python_pow(ctx, a, b):
    """``a ** b`` on two Python scalars (weak Arrays): Python gives a float for a negative int
    exponent, where numpy's int64 power raises."""
    call = lambda f, *args: lookup(f).fn(ctx, *args)  # noqa: E731
    a_arr, b_arr = ctx.asarray(a), ctx.asarray(b)
    if a_arr.dtype.kind in "biu" and b_arr.dtype.kind in "biu":
        if not isinstance(b, Array) or b.value.const_value is not None:
            exp = b if not isinstance(b, Array) else b.value.const_value.numpy().item()
            if exp < 0:
                return call(np.power, call(np.multiply, a, 1.0), exp)
            return call(np.power, a, b)
        # the result type (int or float) depends on the exponent's sign
        return _python_pow(ctx, a, ctx.static(b, "an integer exponent of a Python int"))
    return call(np.power, a, b)


def _float_power(ctx, arrays, ins, outs):
    return _emit(ctx, "Pow", arrays, ins[0])


def _register_all() -> None:
    reg = _register
    reg(np.power, _power, raw=True)
    reg(np.float_power, _float_power)


_register_all()

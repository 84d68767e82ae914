"""numpy ufuncs, the Python operators that map to them, and elementwise helpers.

Input: frontend values (Arrays, static scalars and arrays). Output: Arrays with numpy's value,
dtype and broadcast shape. Every ufunc resolves its loop with numpy's own
``ufunc.resolve_dtypes`` (NEP 50 weak Python scalars included), converts the operands to the
loop dtypes and computes as numpy's loop does:

* integers wrap as numpy's C loops do (``int8 127 + 1 == -128``, ``abs(int8 -128) == -128``);
  ``//``, ``%`` and ``np.fmod`` give 0 for a zero divisor, as numpy does (with a warning), and
  never run onnxruntime's Div/Mod on 0 or ``MIN // -1`` (which would crash the process);
  ``**`` on integers is exact repeated squaring modulo 2**bits (onnxruntime's integer Pow goes
  through double); shifts by >= the bit width give 0 (or -1), right shifts are arithmetic;
* comparisons of int64 with uint64 and with out-of-range Python ints are exact, as numpy 2's;
* float ``//`` and ``%`` follow numpy's ``npy_divmod`` (floor, sign of the divisor, its inf and
  zero cases); ``maximum``/``minimum`` propagate NaN, ``fmax``/``fmin`` ignore it; ``x ** 2``,
  ``x ** -1`` and ``x ** 0.5`` take ndarray.__pow__'s fast paths (square, reciprocal, sqrt:
  ``bool ** 2`` is int8, ``-0.0 ** 0.5 == -0.0``), and np.power's float loops take sqrt for a
  broadcast exponent of 0.5;
* float16 loops compute as numpy does (through float32, rounded once); float64 functions that
  onnxruntime lacks or computes imprecisely are built in :mod:`.precise_math` to float64
  precision; float32 uses onnxruntime's float32 kernels where they are within a few ulp of
  numpy's, else the float64 construction rounded once.

Supported ufuncs (``np.<name>(x[, y], dtype=None, casting='same_kind')``, their numpy 2 aliases
such as ``np.acos``, ``np.pow``, ``np.bitwise_invert``, and the operators ``+ - * / // % **
& | ^ << >> ~ -x +x == != < <= > >=``): add subtract multiply divide/true_divide floor_divide
remainder/mod fmod divmod power float_power negative positive absolute/abs fabs invert/bitwise_not
bitwise_and bitwise_or bitwise_xor left_shift right_shift bitwise_count less less_equal greater
greater_equal equal not_equal logical_and logical_or logical_not logical_xor sign exp expm1 exp2
log log1p log2 log10 sqrt cbrt square reciprocal sin cos tan arcsin arccos arctan arctan2 sinh
cosh tanh arcsinh arccosh arctanh floor ceil trunc rint isnan isinf isfinite signbit copysign
minimum maximum fmin fmax hypot degrees radians deg2rad rad2deg heaviside logaddexp logaddexp2
conjugate/conj modf frexp ldexp spacing nextafter gcd lcm.

Other elementwise functions: ``np.where(c, a, b)`` (``np.where(c)`` is ``np.nonzero``),
``np.clip(a, a_min, a_max)`` / ``np.clip(a, min=, max=)`` / ``x.clip(min, max)`` (None bounds),
``np.round(a, decimals)`` / ``np.around`` / ``x.round(decimals)`` (numpy's multiply-rint-divide,
round half to even), ``np.fix``, ``np.nan_to_num(x, copy, nan, posinf, neginf)``, ``np.sinc``,
``np.isposinf``, ``np.isneginf``, ``np.<binary ufunc>.outer(a, b)``, the builtins ``pow(a, b)``
and ``divmod(a, b)``; methods ``x.clip``, ``x.round``, ``x.conj``, ``x.conjugate``.

Not reproducible, and documented rather than refused (the values compare equal to numpy's):

* the sign bit of a NaN (ONNX has no bitcast): ``np.signbit(nan)`` is False and
  ``np.copysign(x, nan)`` positive;
* the sign of a zero *selected* by ``np.where`` (onnxruntime's Where returns +0.0 for a selected
  -0.0; measured) or by ``maximum``/``minimum``/``clip``/``fmax``/``fmin`` between zeros of
  different sign (onnxruntime's Max/Min pick either; numpy's own fmax/fmin depend on its SIMD
  path). Functions that compute a zero (``np.sin(-0.0)``, ``np.trunc(-0.5)``, ``//``, ``%``,
  ``copysign``...) keep numpy's sign: they place -0.0 where Where keeps it.

Integer ``**`` with a negative exponent only known at run time fails at run time (numpy raises
ValueError), as does a Python-int argument out of range of the array's integer dtype (numpy
raises OverflowError): the error names the line.
"""

from __future__ import annotations

import builtins
import dataclasses
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyonnx.frontend.lower import dtypes, kernels
from pyonnx.frontend.lower.shapes import broadcast_shapes
from pyonnx.frontend.lower.values import Array, is_static
from pyonnx.frontend.numpy_calls import lookup, register
from pyonnx.frontend.numpy_calls import precise_math as pm

__all__ = ["ufunc_call", "UFUNCS", "where_", "runtime_check"]

_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)
_U64 = np.dtype(np.uint64)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


@dataclasses.dataclass(frozen=True)
class _UfuncSpec:
    """How one ufunc is lowered.

    ``emit(ctx, arrays, ins, outs)`` gets the operands already converted to numpy's loop dtypes
    ``ins`` and returns an Array (or a tuple for two-output ufuncs) of dtypes ``outs``. With
    ``raw`` it gets the operands as given (comparisons decide themselves how to convert).
    """

    emit: Callable[..., Any]
    raw: bool = False


UFUNCS: dict[np.ufunc, _UfuncSpec] = {}


# ------------------------------------------------------------------------------ machinery
def ufunc_call(ctx, ufunc: np.ufunc, *operands, out=None, where=True, dtype=None,
               casting="same_kind", order="K", subok=True, signature=None):
    """Lowers ``ufunc(*operands)`` with numpy's promotion.

    Args:
        ctx: the Lowering.
        ufunc: a numpy ufunc registered in :data:`UFUNCS`.
        operands: frontend values (Arrays or static scalars/arrays, at least one Array).
        dtype: numpy's ``dtype=`` (the output dtype; the loop is resolved for it).
        casting: numpy's input casting rule for ``dtype=``.

    Returns:
        An Array (a tuple for ``divmod``/``modf``/``frexp``); weak when every operand was a
        Python scalar (the result then promotes as a Python scalar again).

    Raises:
        ConversionError: numpy has no loop for these dtypes, an unsupported keyword is given, or
            a static Python int does not fit the loop dtype (numpy's OverflowError).
    """
    name = ufunc.__name__
    if len(operands) != ufunc.nin:
        raise ctx.error(f"np.{name}() takes {ufunc.nin} positional argument"
                        f"{'s' if ufunc.nin > 1 else ''} ({len(operands)} given)")
    if out is not None:
        raise ctx.error(f"np.{name}(..., out=...) is not supported; assign the result instead")
    if where is not True:
        raise ctx.error(f"np.{name}(..., where=...) is not supported; use np.where(cond, "
                        f"np.{name}(...), other)")
    if signature is not None:
        raise ctx.error(f"np.{name}(..., signature=...) is not supported; cast the operands or "
                        "pass dtype=")
    operands = tuple(ctx.asarray(o) if isinstance(o, (list, tuple)) and not is_static(o) else o
                     for o in operands)
    spec = UFUNCS.get(ufunc)
    if spec is None:
        raise ctx.error(f"np.{name} is not supported yet")
    ins, outs, weak = _resolve(ctx, ufunc, operands, dtype, casting)
    if spec.raw:
        result = spec.emit(ctx, operands, ins, outs)
    else:
        arrays = [_operand(ctx, o, dt) for o, dt in zip(operands, ins)]
        result = spec.emit(ctx, arrays, ins, outs)
    results = result if isinstance(result, tuple) else (result,)
    fixed = []
    for r, dt in zip(results, outs):
        if r.dtype != dt:
            r = ctx.cast(r, dt)
        fixed.append(Array(r.value, r.dtype, r.shape, weak=weak))
    return tuple(fixed) if isinstance(result, tuple) else fixed[0]


def _resolve(ctx, ufunc, operands, dtype, casting):
    name = ufunc.__name__
    try:
        if dtype is not None:
            dt = np.dtype(ctx.static(dtype, "dtype"))
            if dt not in dtypes.SUPPORTED_DTYPES:
                raise ctx.error(f"dtype {dt} is not supported")
            proxies = tuple(dtypes.proxy(o) for o in operands)
            if all(isinstance(p, type) for p in proxies):   # all Python scalars: their defaults
                proxies = tuple(dtypes.default_dtype_of_scalar(p(0)) for p in proxies)
            # dtype= fixes the outputs only (numpy's signature=(None, ..., dt)).
            resolved = ufunc.resolve_dtypes(proxies + (None,) * ufunc.nout,
                                            signature=(None,) * ufunc.nin + (dt,) * ufunc.nout,
                                            casting=ctx.static(casting, "casting"))
            return tuple(resolved[:ufunc.nin]), tuple(resolved[ufunc.nin:]), False
        return dtypes.ufunc_dtypes(ufunc, *operands)
    except (TypeError, ValueError) as e:     # numpy's no-loop and casting errors
        names = ", ".join(_describe_operand(o) for o in operands)
        raise ctx.error(f"numpy has no '{name}' for ({names}) (numpy raises "
                        f"{type(e).__name__}: {e})") from None


def _describe_operand(o) -> str:
    p = dtypes.proxy(o)
    if isinstance(p, type):
        return f"Python {p.__name__}"
    return str(p)


def _operand(ctx, o, dt: np.dtype) -> Array:
    """An operand converted to its loop dtype, as numpy converts it."""
    if not isinstance(o, Array):
        return ctx.asarray(o, dt)        # static Python ints out of range: OverflowError
    if o.weak and o.dtype.kind in "iu" and dt.kind in "iu" and dt != o.dtype \
            and o.value.const_value is None:
        # A Python-int argument (dynamic): numpy raises OverflowError when it does not fit.
        info = np.iinfo(dt)
        bad = lookup(np.less).fn(ctx, o, int(info.min))
        bad = _logic(ctx, "Or", bad, lookup(np.greater).fn(ctx, o, int(info.max)))
        o = runtime_check(ctx, bad, o, f"Python_integer_out_of_bounds_for_{dt.name}")
    return ctx.cast(o, dt)


def _register(ufunc: np.ufunc, emit: Callable[..., Any], methods: tuple[str, ...] = (),
              raw: bool = False) -> None:
    UFUNCS[ufunc] = _UfuncSpec(emit, raw)

    def lower(ctx, *args, **kwargs):
        return ufunc_call(ctx, ufunc, *args, **kwargs)

    lower.__name__ = ufunc.__name__
    lower.__doc__ = f"``np.{ufunc.__name__}`` (see the module docstring)."
    register(ufunc, methods=methods)(lower)
    if ufunc.nin == 2:
        register(ufunc.outer, name=f"numpy.{ufunc.__name__}.outer")(_outer(ufunc))


def _outer(ufunc: np.ufunc):
    def lower(ctx, A, B, **kwargs):
        """``np.<ufunc>.outer(A, B)``: ``ufunc(A[..., None, ...], B)``; both operands are
        arrays first (a Python scalar is not weak here, as in numpy)."""
        a, b = (ctx.asarray(v) for v in (A, B))
        a, b = (Array(v.value, v.dtype, v.shape) for v in (a, b))
        if b.ndim:
            axes = ctx.const(np.arange(a.ndim, a.ndim + b.ndim, dtype=np.int64))
            a = Array(ctx.op("Unsqueeze", a, axes), a.dtype, a.shape + (1,) * b.ndim)
        return _strong(ufunc_call(ctx, ufunc, a, b, **kwargs))

    lower.__name__ = f"{ufunc.__name__}_outer"
    return lower


# ------------------------------------------------------------------------------ helpers
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
    out = Array(ctx.op("Where", cond, a2, b2), run, shape)
    return ctx.cast(out, dtype) if run != dtype else out


def _zeros_like(ctx, x: Array, dtype=None) -> Array:
    """A constant-filled Array of x's (run-time) shape."""
    return _full_like(ctx, x, 0, dtype)


def _full_like(ctx, x: Array, value, dtype=None) -> Array:
    dtype = np.dtype(dtype or x.dtype)
    c = _const(ctx, value, dtype)
    if x.ndim == 0:
        return c
    return Array(ctx.op("Expand", c, ctx.shape_of(x)), dtype, x.shape)


def runtime_check(ctx, bad: Array, result: Array, what: str) -> Array:
    """``result``, made to fail at run time where any element of ``bad`` is true.

    ONNX cannot raise, so a Gather with an out-of-range index stands in for numpy's exception:
    onnxruntime then reports the failing node, whose name carries the source line and ``what``
    (the runtime maps it back to the user's line). The result goes through an added zero so the
    check cannot be pruned.
    """
    count = Array(ctx.op("ReduceSum", ctx.cast(bad, _I64), keepdims=0), _I64, ())
    index = ctx.op("Min", count, ctx.const(np.array(1, np.int64)))
    zero = ctx.op("Gather", ctx.const(np.zeros(1, result.dtype)), index)
    zero.producer().name += f"_{what}"
    return _emit(ctx, "Add", [result, Array(zero, result.dtype, ())], result.dtype) \
        if result.dtype.kind in "iuf" else result


def _via(ctx, fn: Callable[..., Array], arrays: Sequence[Array], compute, out) -> Array:
    """``fn`` computed in dtype ``compute`` and rounded once to ``out``."""
    res = fn(ctx, *[ctx.cast(a, compute) for a in arrays])
    return ctx.cast(res, out)


# ------------------------------------------------------------------------------ arithmetic
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


# ------------------------------------------------------------------------------ power
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
        b = runtime_check(ctx, bad, b, "Integers_to_negative_integer_powers_are_not_allowed")
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


@register(builtins.divmod)
def divmod_builtin(ctx, a, b):
    """``divmod(a, b)`` on arrays is ``np.divmod(a, b)`` (ndarray.__divmod__)."""
    return lookup(np.divmod).fn(ctx, a, b)


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


# ------------------------------------------------------------------------------ comparisons
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
    if b.value.const_value is not None:
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


# ------------------------------------------------------------------------------ logic, bits
def _to_bool(ctx, a: Array) -> Array:
    """numpy's truth of each element: nonzero (nan is true)."""
    return ctx.cast(a, _BOOL) if a.dtype != _BOOL else a


def _logical(op: str):
    def emit(ctx, arrays, ins, outs):
        return _logic(ctx, op, *[_to_bool(ctx, a) for a in arrays])
    return emit


def _logical_not(ctx, arrays, ins, outs):
    return _not(ctx, _to_bool(ctx, arrays[0]))


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


_UNSIGNED = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
             8: np.dtype(np.uint64)}


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


# ------------------------------------------------------------------------------ min / max
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
        # fmax/fmin: a NaN operand gives way to the other one.
        a2 = where_(ctx, _isnan(ctx, a), b, a, dt)
        b2 = where_(ctx, _isnan(ctx, b), a, b, dt)
        return _max_min(ctx, op_int, a2, b2, dt)
    return emit


def _max_min(ctx, op: str, a: Array, b: Array, dt: np.dtype) -> Array:
    """onnxruntime's Max/Min in dtype ``dt``, except int64.

    onnxruntime 1.31's vectorized int64 Max/Min compare the low 32-bit halves as signed numbers
    when the high halves are equal (Max(2**31, 1) == 1 on arrays of two or more; measured), so
    int64 selects with Greater/Less, which are exact.
    """
    if dt == _I64:
        take_a = _cmp(ctx, "Greater" if op == "Max" else "Less", a, b)
        return where_(ctx, take_a, a, b, dt)
    run = {"b": np.dtype(np.uint8), "f": _F32 if dt == np.float16 else dt}.get(dt.kind, dt)
    return ctx.cast(_emit(ctx, op, [ctx.cast(a, run), ctx.cast(b, run)], run), dt)


# ------------------------------------------------------------------------------ floats
def _isnan(ctx, a: Array) -> Array:
    if a.dtype.kind != "f":
        return _full_like(ctx, a, False, _BOOL)
    return _emit(ctx, "IsNaN", [a], a.dtype, _BOOL)


def _isnan_u(ctx, arrays, ins, outs):
    return _isnan(ctx, arrays[0])


def _isinf(ctx, arrays, ins, outs):
    (a,) = arrays
    if a.dtype.kind != "f":
        return _full_like(ctx, a, False, _BOOL)
    return _emit(ctx, "IsInf", [a], a.dtype, _BOOL)


def _isfinite(ctx, arrays, ins, outs):
    (a,) = arrays
    if a.dtype.kind != "f":
        return _full_like(ctx, a, True, _BOOL)
    # finite <=> x - x == 0 (inf - inf and nan - x are nan)
    d = _emit(ctx, "Sub", [a, a], a.dtype)
    return _cmp(ctx, "Equal", d, _const(ctx, 0, a.dtype))


def _signbit_arr(ctx, a: Array) -> Array:
    dt = a.dtype
    zero = _const(ctx, 0, dt)
    neg = _cmp(ctx, "Less", a, zero)
    inv = _emit(ctx, "Div", [_const(ctx, 1, dt), a], dt)   # -inf for -0.0
    negzero = _logic(ctx, "And", _cmp(ctx, "Equal", a, zero), _cmp(ctx, "Less", inv, zero))
    return _logic(ctx, "Or", neg, negzero)


def _signbit(ctx, arrays, ins, outs):
    return _signbit_arr(ctx, arrays[0])


def _copysign(ctx, arrays, ins, outs):
    a, b = arrays
    dt = ins[0]
    mag = _emit(ctx, "Abs", [a], dt)
    # -|a| (maybe -0.0) in Where's second branch, which keeps it.
    return where_(ctx, _flip(ctx, _signbit_arr(ctx, b)), mag, _emit(ctx, "Neg", [mag], dt), dt)


def _heaviside(ctx, arrays, ins, outs):
    x, h0 = arrays
    dt = ins[0]
    zero = _const(ctx, 0, dt)
    res = where_(ctx, _cmp(ctx, "Less", x, zero), zero, _const(ctx, 1, dt), dt)
    res = where_(ctx, _flip(ctx, _cmp(ctx, "Equal", x, zero)), res, h0, dt)
    return where_(ctx, _isnan(ctx, x), x, res, dt)


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


def _modf(ctx, arrays, ins, outs):
    (a,) = arrays
    dt = ins[0]
    whole = _trunc_arr(ctx, a)
    frac = _emit(ctx, "Sub", [a, whole], dt)
    # the fraction keeps x's sign (-0.0 for negative integers) and is 0 for ±inf
    inf = _emit(ctx, "IsInf", [a], dt, _BOOL)
    frac = where_(ctx, inf, _const(ctx, 0, dt), frac, dt)
    frac = _copysign(ctx, [frac, a], (dt, dt), (dt,))
    return frac, whole


def _frexp(ctx, arrays, ins, outs):
    (a,) = arrays
    dt = ins[0]
    m, e = pm.frexp(ctx, ctx.cast(a, _F64))
    return ctx.cast(m, dt), e


def _ldexp(ctx, arrays, ins, outs):
    x, n = arrays
    dt = ins[0]
    # n clamped to ±2200 (beyond, every result is 0 or ±inf anyway), as float64.
    n64 = ctx.cast(_max_min(ctx, "Max", _max_min(ctx, "Min", ctx.cast(n, _I64),
                                                   _const(ctx, 2200, _I64), _I64),
                            _const(ctx, -2200, _I64), _I64), _F64)
    if dt == _F64:
        return pm.ldexp(ctx, x, n64)
    # float16/float32 values times a power of two are exact in float64 (two steps keep each
    # power finite); the cast rounds once, as numpy's ldexpf.
    r = pm.scale2(pm.Ex.of(ctx, ctx.cast(x, _F64)), pm.Ex.of(ctx, n64))
    return ctx.cast(r.array(), dt)


def _spacing(ctx, arrays, ins, outs):
    dt = ins[0]
    return ctx.cast(pm.spacing(ctx, ctx.cast(arrays[0], _F64), dt.name), dt)


def _nextafter(ctx, arrays, ins, outs):
    dt = ins[0]
    x, y = (ctx.cast(a, _F64) for a in arrays)
    return ctx.cast(pm.nextafter(ctx, x, y, dt.name), dt)


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


_DEG = {np.dtype(np.float64): 180.0 / math.pi,
        np.dtype(np.float32): np.float32(180.0) / np.float32(math.pi)}
_RAD = {np.dtype(np.float64): math.pi / 180.0,
        np.dtype(np.float32): np.float32(math.pi) / np.float32(180.0)}


def _scale_by(table):
    def emit(ctx, arrays, ins, outs):
        (a,) = arrays
        dt = ins[0]
        run = _F32 if dt == np.float16 else dt          # numpy's float16 loop uses float32
        res = _emit(ctx, "Mul", [ctx.cast(a, run), _const(ctx, table[run], run)], run)
        return ctx.cast(res, dt)
    return emit


# Functions by how each float dtype computes: (float32 kernel or None, float64 builder).
# float32 uses the onnxruntime kernel when it is within a few ulp of numpy (measured), else the
# float64 construction rounded once; float16 computes as float32 and rounds once, as numpy.
def _native(op: str):
    return lambda ctx, *xs: _emit(ctx, op, xs, xs[0].dtype)


def _exp2_64(ctx, x):
    return _emit(ctx, "Pow", [_const(ctx, 2.0, x.dtype), x], x.dtype)


def _math(f32: Callable[..., Array] | None, f64: Callable[..., Array]):
    def emit(ctx, arrays, ins, outs):
        dt = ins[0]
        if dt == _F64:
            return f64(ctx, *arrays)
        if f32 is not None:
            return _via(ctx, f32, arrays, _F32, dt)
        return _via(ctx, f64, arrays, _F64, dt)
    return emit


def _hypot32(ctx, a, b):
    # float32 squares cannot overflow float64, so the plain formula is exact enough;
    # hypot(±inf, nan) is inf, as in C.
    a64, b64 = ctx.cast(a, _F64), ctx.cast(b, _F64)
    s = _emit(ctx, "Add", [_emit(ctx, "Mul", [a64, a64], _F64),
                           _emit(ctx, "Mul", [b64, b64], _F64)], _F64)
    h = _emit(ctx, "Sqrt", [s], _F64)
    inf = _logic(ctx, "Or", _emit(ctx, "IsInf", [a64], _F64, _BOOL),
                 _emit(ctx, "IsInf", [b64], _F64, _BOOL))
    return ctx.cast(where_(ctx, inf, _const(ctx, np.inf, _F64), h, _F64), _F32)


def _log_native_f32(op_scale: float):
    # float32 log2/log10: float64 Log times the constant is within 1e-16, so rounding to
    # float32 is correct (and exact at powers of 2 and 10).
    def f(ctx, x):
        x64 = ctx.cast(x, _F64)
        r = _emit(ctx, "Mul", [_emit(ctx, "Log", [x64], _F64), _const(ctx, op_scale, _F64)], _F64)
        return ctx.cast(r, _F32)
    return f


# ------------------------------------------------------------------------------ registry
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
    reg(np.power, _power, raw=True)
    reg(np.float_power, _float_power)
    reg(np.negative, _negative)
    reg(np.positive, _identity)
    reg(np.absolute, _absolute)
    reg(np.fabs, _absolute)
    reg(np.conjugate, _identity)
    reg(np.square, _square)
    reg(np.reciprocal, _reciprocal)
    reg(np.sign, _sign)
    for uf, op in _CMP_OPS.items():
        reg(uf, _comparison(op), raw=True)
    reg(np.logical_and, _logical("And"))
    reg(np.logical_or, _logical("Or"))
    reg(np.logical_xor, _logical("Xor"))
    reg(np.logical_not, _logical_not)
    reg(np.bitwise_and, _bitwise("And", "BitwiseAnd"))
    reg(np.bitwise_or, _bitwise("Or", "BitwiseOr"))
    reg(np.bitwise_xor, _bitwise("Xor", "BitwiseXor"))
    reg(np.invert, _invert)
    reg(np.left_shift, _shift(True))
    reg(np.right_shift, _shift(False))
    if hasattr(np, "bitwise_count"):
        reg(np.bitwise_count, _bitwise_count)
    reg(np.maximum, _minmax(True, True))
    reg(np.minimum, _minmax(False, True))
    reg(np.fmax, _minmax(True, False))
    reg(np.fmin, _minmax(False, False))
    reg(np.isnan, _isnan_u)
    reg(np.isinf, _isinf)
    reg(np.isfinite, _isfinite)
    reg(np.signbit, _signbit)
    reg(np.copysign, _copysign)
    reg(np.heaviside, _heaviside)
    reg(np.floor, _rounding("Floor"))
    reg(np.ceil, _rounding("Ceil"))
    reg(np.trunc, _rounding(None))
    reg(np.rint, _rounding("Round"))
    reg(np.modf, _modf)
    reg(np.frexp, _frexp)
    reg(np.ldexp, _ldexp)
    reg(np.spacing, _spacing)
    reg(np.nextafter, _nextafter)
    reg(np.gcd, _gcd_lcm(False))
    reg(np.lcm, _gcd_lcm(True))
    reg(np.degrees, _scale_by(_DEG))
    reg(np.rad2deg, _scale_by(_DEG))
    reg(np.radians, _scale_by(_RAD))
    reg(np.deg2rad, _scale_by(_RAD))
    native = _native
    reg(np.sqrt, _math(native("Sqrt"), native("Sqrt")))
    reg(np.exp, _math(native("Exp"), native("Exp")))
    reg(np.log, _math(native("Log"), native("Log")))
    reg(np.exp2, _math(_exp2_64, _exp2_64))
    reg(np.expm1, _math(None, pm.expm1))
    reg(np.log1p, _math(None, pm.log1p))
    reg(np.log2, _math(_log_native_f32(1.0 / math.log(2.0)), pm.log2))
    reg(np.log10, _math(_log_native_f32(1.0 / math.log(10.0)), pm.log10))
    reg(np.cbrt, _math(None, pm.cbrt))
    reg(np.sin, _math(native("Sin"), pm.sin))
    reg(np.cos, _math(native("Cos"), pm.cos))
    reg(np.tan, _math(native("Tan"), pm.tan))
    reg(np.arcsin, _math(native("Asin"), pm.arcsin))
    reg(np.arccos, _math(native("Acos"), pm.arccos))
    reg(np.arctan, _math(native("Atan"), pm.arctan))
    reg(np.arctan2, _math(None, pm.arctan2))
    reg(np.sinh, _math(native("Sinh"), pm.sinh))
    reg(np.cosh, _math(native("Cosh"), pm.cosh))
    reg(np.tanh, _math(native("Tanh"), pm.tanh))
    reg(np.arcsinh, _math(native("Asinh"), pm.arcsinh))
    reg(np.arccosh, _math(native("Acosh"), pm.arccosh))
    reg(np.arctanh, _math(native("Atanh"), pm.arctanh))
    reg(np.hypot, _math(_hypot32, pm.hypot))
    reg(np.logaddexp, _math(None, pm.logaddexp))
    reg(np.logaddexp2, _math(None, pm.logaddexp2))


_register_all()


# ------------------------------------------------------------------------------ functions
def _strong(result):
    """numpy functions return numpy values, strong in promotion even from Python scalars (a
    ufunc call's operands may have been weak)."""
    for r in result if isinstance(result, tuple) else (result,):
        if isinstance(r, Array):
            r.weak = False
    return result


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
    x = ctx.asarray(a, dt) if not isinstance(a, Array) else ctx.cast(a, dt)
    y = ctx.asarray(b, dt) if not isinstance(b, Array) else ctx.cast(b, dt)
    return where_(ctx, c, x, y, dt)


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
    # numpy's _NPY_CLIP is min(max(x, lo), hi) with NaN propagating from x and from the
    # bounds, which is what onnxruntime's Max/Min do (bool through uint8, float16 exactly in
    # float32, int16/uint16 widened by the kernel ladder).
    return _max_min(ctx, "Min", _max_min(ctx, "Max", x, lo, dt), hi, dt)


_CLIP_UFUNC = getattr(np._core.umath, "clip")
UFUNCS[_CLIP_UFUNC] = _UfuncSpec(_clip_emit)


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


@register(np.nan_to_num)
def nan_to_num(ctx, x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``np.nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None)`` for real arrays;
    the replacement values must be known at conversion time."""
    x = ctx.asarray(x)
    if x.dtype.kind != "f":
        return Array(ctx.op("Identity", x), x.dtype, x.shape)
    dt = x.dtype
    info = np.finfo(dt)
    values = []
    for v, default in ((nan, 0.0), (posinf, info.max), (neginf, info.min)):
        v = ctx.static(v, "nan_to_num's replacement value")
        with np.errstate(over="ignore"):
            values.append(np.asarray(default if v is None else v).astype(dt))
    res = where_(ctx, _isnan(ctx, x), _const(ctx, values[0], dt), x, dt)
    inf = _emit(ctx, "IsInf", [x], dt, _BOOL)
    pos = _logic(ctx, "And", inf, _cmp(ctx, "Greater", x, _const(ctx, 0, dt)))
    neg = _logic(ctx, "And", inf, _cmp(ctx, "Less", x, _const(ctx, 0, dt)))
    res = where_(ctx, pos, _const(ctx, values[1], dt), res, dt)
    return where_(ctx, neg, _const(ctx, values[2], dt), res, dt)


@register(np.sinc)
def sinc(ctx, x):
    """``np.sinc(x)`` as numpy 2 computes it: ``y = pi*x; y = where(y, y, eps); sin(y)/y``."""
    call = lambda f, *a: lookup(f).fn(ctx, *a)  # noqa: E731
    y = call(np.multiply, math.pi, ctx.asarray(x))
    eps = np.finfo(y.dtype).eps if y.dtype.kind == "f" else 1e-20
    y = call(np.where, y, y, eps)
    return _strong(call(np.true_divide, call(np.sin, y), y))


@register(np.isposinf)
def isposinf(ctx, x, out=None):
    """``np.isposinf(x)``."""
    if out is not None:
        raise ctx.error("np.isposinf(..., out=...) is not supported; assign the result instead")
    call = lambda f, *a: lookup(f).fn(ctx, *a)  # noqa: E731
    return _strong(call(np.logical_and, call(np.isinf, x),
                        call(np.logical_not, call(np.signbit, x))))


@register(np.isneginf)
def isneginf(ctx, x, out=None):
    """``np.isneginf(x)``."""
    if out is not None:
        raise ctx.error("np.isneginf(..., out=...) is not supported; assign the result instead")
    call = lambda f, *a: lookup(f).fn(ctx, *a)  # noqa: E731
    return _strong(call(np.logical_and, call(np.isinf, x), call(np.signbit, x)))


@register(name="ndarray.conj", methods=("conj", "conjugate"))
def conj_method(ctx, a):
    """``x.conj()``, ``x.conjugate()``: a copy for real arrays (the ufunc would turn bool into
    int8; the method keeps the dtype)."""
    return _identity(ctx, [ctx.asarray(a)], None, None)

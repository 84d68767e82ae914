"""Exponentials, logarithms, roots, trigonometric and hyperbolic functions, angle conversions.

Input: one or two operands in numpy's float loop dtype. Output: numpy's Array. float16 computes
as numpy does (through float32, rounded once); float64 functions that onnxruntime lacks or
computes imprecisely are built in :mod:`.precise` to float64 precision; float32 uses
onnxruntime's float32 kernels where they are within a few ulp of numpy's, else the float64
construction rounded once.

Supported: ``np.exp expm1 exp2 log log1p log2 log10 sqrt cbrt sin cos tan arcsin arccos arctan
arctan2 sinh cosh tanh arcsinh arccosh arctanh hypot logaddexp logaddexp2 degrees radians
deg2rad rad2deg`` (and numpy 2's aliases such as ``np.acos``); ``np.sinc(x)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import lookup, register
from pyonnx.frontend.numpy_calls.elementwise import precise as pm
from pyonnx.frontend.numpy_calls.elementwise.common import (
    _BOOL,
    _F32,
    _F64,
    _const,
    _emit,
    _logic,
    _via,
    where_,
)
from pyonnx.frontend.numpy_calls.elementwise.ufunc import _register, _strong


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


def _derivative_marked(f64: Callable[..., Array]) -> Callable[..., Array]:
    """A :mod:`.precise` construction whose result node is marked with the function it computes
    (``meta["pyonnx.derivative"] = (name, input values)``): the gradient pass then uses the
    function's exact derivative (``pyonnx.passes.gradient.registry.COMPOSITE_RULES``) instead of
    differentiating the construction node by node, whose discarded branches give NaN
    (arcsin'(0), arctan'(0)) and whose backward pass is hundreds of nodes."""
    module = getattr(f64, "__module__", None) or ""
    if module != pm.__name__ and not module.startswith(pm.__name__ + "."):
        return f64
    name = f64.__name__

    def marked(ctx, *xs):
        r = f64(ctx, *xs)
        node = r.value.producer()
        if node is not None and all(isinstance(x, Array) and x.value is not r.value for x in xs):
            node.meta["pyonnx.derivative"] = (name, tuple(x.value for x in xs))
        return r
    return marked


def _math(f32: Callable[..., Array] | None, f64: Callable[..., Array]):
    f64 = _derivative_marked(f64)

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


@register(np.sinc)
def sinc(ctx, x):
    """``np.sinc(x)`` as numpy 2 computes it: ``y = pi*x; y = where(y, y, eps); sin(y)/y``."""
    call = lambda f, *a: lookup(f).fn(ctx, *a)  # noqa: E731
    y = call(np.multiply, math.pi, ctx.asarray(x))
    eps = np.finfo(y.dtype).eps if y.dtype.kind == "f" else 1e-20
    y = call(np.where, y, y, eps)
    return _strong(call(np.true_divide, call(np.sin, y), y))


def _register_all() -> None:
    reg = _register
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

"""VJP rules of elementwise ops: arithmetic, unary math, min/max, clip, where, mod, casts;
ops that stop the gradient (Floor, Sign...)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import onnx_ir as ir

from pyonnx.passes.gradient.registry import RULES, Rule, vjp, zero_vjp
from pyonnx.passes.gradient.rules.common import _inputs

__all__: list[str] = []


zero_vjp("Floor", "Ceil", "Round", "Sign", "EyeLike", "RandomNormalLike",
         "RandomUniformLike", "Bernoulli")


# ------------------------------------------------------------------ elementwise
@vjp("Identity")
def _identity(b, node, gs):
    return [gs[0]]


@vjp("Neg")
def _neg(b, node, gs):
    return [b.op("Neg", gs[0])]


@vjp("Add")
def _add(b, node, gs):
    g = gs[0]
    x, y = node.inputs
    return [b.sum_to(g, x) if b.needs(0) else None,
            b.sum_to(g, y) if b.needs(1) else None]


@vjp("Sub")
def _sub(b, node, gs):
    g = gs[0]
    x, y = node.inputs
    return [b.sum_to(g, x) if b.needs(0) else None,
            b.sum_to(b.op("Neg", g), y) if b.needs(1) else None]


@vjp("Mul")
def _mul(b, node, gs):
    g = gs[0]
    x, y = node.inputs
    return [b.sum_to(b.op("Mul", g, y), x) if b.needs(0) else None,
            b.sum_to(b.op("Mul", g, x), y) if b.needs(1) else None]


@vjp("Div")
def _div(b, node, gs):
    g = gs[0]
    x, y = node.inputs
    t = b.op("Div", g, y)
    gy = None
    if b.needs(1):
        # d(x/y)/dy = -(x/y)/y
        gy = b.sum_to(b.op("Neg", b.op("Mul", t, node.outputs[0])), y)
    return [b.sum_to(t, x) if b.needs(0) else None, gy]


@vjp("Sum")
def _sum(b, node, gs):
    return [b.sum_to(gs[0], x) if b.needs(i) else None for i, x in enumerate(node.inputs)]


@vjp("Mean")
def _mean(b, node, gs):
    g = b.op("Div", gs[0], b.scalar(len(node.inputs), node.outputs[0]))
    return [b.sum_to(g, x) if b.needs(i) else None for i, x in enumerate(node.inputs)]


@vjp("Pow")
def _pow(b, node, gs):
    g = gs[0]
    x, e = node.inputs
    y = node.outputs[0]
    gx = ge = None
    if b.needs(0):
        ex = e if b.dtype(e) == b.dtype(x) else b.op("CastLike", e, x)
        # x ** (e - 1) * e, not y / x: exact at x == 0.
        d = b.op("Mul", ex, b.op("Pow", x, b.op("Sub", ex, b.scalar(1.0, x))))
        gx = b.sum_to(b.op("Mul", g, d), x)
    if b.needs(1):
        # d(x**e)/de = y * log(x); taken as 0 at x == 0 (y is 0 or 1 there), as JAX does.
        zero = b.op("Equal", x, b.scalar(0.0, x))
        safe = b.op("Where", zero, b.scalar(1.0, x), x)
        d = b.op("Mul", y, b.op("Log", safe))
        if b.dtype(e) != b.dtype(y):
            d = b.op("CastLike", d, e)
            g = b.op("CastLike", g, e)
        ge = b.sum_to(b.op("Mul", g, d), e)
    return [gx, ge]


def _unary(fn: Callable[[Any, ir.Value, ir.Value, ir.Value], ir.Value]) -> Rule:
    """A rule ``g * f'(x)`` with ``fn(b, g, x, y)`` building the product."""

    def rule(b, node, gs):
        return [fn(b, gs[0], node.inputs[0], node.outputs[0])]

    return rule


def _one_minus(b, v, like):
    return b.op("Sub", b.scalar(1.0, like), v)


# g * f'(x) as fn(b, g, x, y), per op (also used for marked composites below).
_UNARY: dict[str, Callable[..., ir.Value]] = {}
_UNARY["Exp"] = (lambda b, g, x, y: b.op("Mul", g, y))
_UNARY["Log"] = (lambda b, g, x, y: b.op("Div", g, x))
_UNARY["Sqrt"] = (lambda b, g, x, y: b.op("Div", g, b.op("Add", y, y)))
_UNARY["Reciprocal"] = (lambda b, g, x, y: b.op("Neg", b.op("Mul", g, b.op("Mul", y, y))))
_UNARY["Sin"] = (lambda b, g, x, y: b.op("Mul", g, b.op("Cos", x)))
_UNARY["Cos"] = (lambda b, g, x, y: b.op("Neg", b.op("Mul", g, b.op("Sin", x))))
_UNARY["Tan"] = (lambda b, g, x, y: b.op(
    "Mul", g, b.op("Add", b.scalar(1.0, y), b.op("Mul", y, y))))
_UNARY["Asin"] = (lambda b, g, x, y: b.op(
    "Div", g, b.op("Sqrt", _one_minus(b, b.op("Mul", x, x), x))))
_UNARY["Acos"] = (lambda b, g, x, y: b.op("Neg", b.op(
    "Div", g, b.op("Sqrt", _one_minus(b, b.op("Mul", x, x), x)))))
_UNARY["Atan"] = (lambda b, g, x, y: b.op(
    "Div", g, b.op("Add", b.scalar(1.0, x), b.op("Mul", x, x))))
_UNARY["Tanh"] = (lambda b, g, x, y: b.op("Mul", g, _one_minus(b, b.op("Mul", y, y), y)))
_UNARY["Asinh"] = (lambda b, g, x, y: b.op(
    "Div", g, b.op("Sqrt", b.op("Add", b.op("Mul", x, x), b.scalar(1.0, x)))))
# 1/sqrt(x*x - 1) as 1/(sqrt(x-1) sqrt(x+1)): no cancellation near 1.
_UNARY["Acosh"] = (lambda b, g, x, y: b.op("Div", g, b.op(
    "Mul", b.op("Sqrt", b.op("Sub", x, b.scalar(1.0, x))),
    b.op("Sqrt", b.op("Add", x, b.scalar(1.0, x))))))
_UNARY["Atanh"] = (lambda b, g, x, y: b.op(
    "Div", g, _one_minus(b, b.op("Mul", x, x), x)))
_UNARY["Sigmoid"] = (lambda b, g, x, y: b.op(
    "Mul", g, b.op("Mul", y, _one_minus(b, y, y))))
_UNARY["Erf"] = (lambda b, g, x, y: b.op("Mul", g, b.op("Mul", b.scalar(
    2.0 / math.sqrt(math.pi), x), b.op("Exp", b.op("Neg", b.op("Mul", x, x))))))
_UNARY["Abs"] = (lambda b, g, x, y: b.op("Mul", g, b.op("Sign", x)))
_UNARY["Relu"] = (lambda b, g, x, y: b.op(
    "Where", b.op("Greater", x, b.scalar(0.0, x)), g, b.scalar(0.0, x)))


def _half_exp_pair(b, x, sign: float):
    """(exp(x) + sign * exp(-x)) / 2: cosh or sinh from Exp (float64 has no Cosh/Sinh)."""
    e = b.op("Exp", x)
    inv = b.op("Div", b.scalar(1.0, x), e)
    s = b.op("Add", e, inv) if sign > 0 else b.op("Sub", e, inv)
    return b.op("Mul", s, b.scalar(0.5, x))


_UNARY["Sinh"] = (lambda b, g, x, y: b.op("Mul", g, _half_exp_pair(b, x, 1.0)))
_UNARY["Cosh"] = (lambda b, g, x, y: b.op("Mul", g, _half_exp_pair(b, x, -1.0)))


for _op, _fn in _UNARY.items():
    RULES[_op] = _unary(_fn)


@vjp("Max", "Min")
def _max_min(b, node, gs):
    """The cotangent goes to the operands equal to the result, split evenly between ties
    (JAX's ``_balanced_eq``); each one summed back to its shape."""
    g = gs[0]
    y = node.outputs[0]
    if len(node.inputs) == 2:
        # JAX's _balanced_eq for two operands: g where this operand is the result, halved on
        # ties.
        zero = b.scalar(0.0, y)
        out = []
        a, c = node.inputs
        for i, (x, other) in enumerate(((a, c), (c, a))):
            if not b.needs(i):
                out.append(None)
                continue
            share = b.op("Where", b.op("Equal", other, y), b.op("Mul", g, b.scalar(0.5, y)), g)
            out.append(b.sum_to(b.op("Where", b.op("Equal", x, y), share, zero), x))
        return out
    eqs = [b.op("Cast", b.op("Equal", x, y), to=b.dtype(y)) for x in node.inputs]
    count = eqs[0]
    for e in eqs[1:]:
        count = b.op("Add", count, e)
    share = b.op("Div", g, count) if len(eqs) > 1 else g
    return [b.sum_to(b.op("Mul", share, e), x) if b.needs(i) else None
            for i, (x, e) in enumerate(zip(node.inputs, eqs))]


@vjp("Clip")
def _clip(b, node, gs):
    """``Clip(x, lo, hi)`` as ``Min(Max(x, lo), hi)``, the Max/Min rule applied twice: the
    cotangent goes to the operands equal to the result, halved on ties. (float ``np.clip``
    lowers to one ``Clip`` where it was ``Max`` then ``Min``: its gradient is unchanged.)"""
    g = gs[0]
    x, lo, hi = _inputs(node, 3)
    y = node.outputs[0]
    zero, half = b.scalar(0.0, y), b.scalar(0.5, y)

    def split(g, a, other, result):
        # g where ``a`` is the result, halved when ``other`` is too
        share = b.op("Where", b.op("Equal", other, result), b.op("Mul", g, half), g)
        return b.op("Where", b.op("Equal", a, result), share, zero)

    m = x if lo is None else b.op("Max", x, lo)
    g_m = g if hi is None else split(g, m, hi, y)
    out = [None, None, None]
    if hi is not None and b.needs(2):
        out[2] = b.sum_to(split(g, hi, m, y), hi)
    if lo is None:
        out[0] = g_m if b.needs(0) else None
        return out
    if b.needs(0):
        out[0] = split(g_m, x, lo, m)
    if b.needs(1):
        out[1] = b.sum_to(split(g_m, lo, x, m), lo)
    return out


@vjp("Where")
def _where(b, node, gs):
    g = gs[0]
    c, x, y = node.inputs
    zero = b.scalar(0.0, node.outputs[0])
    return [None,
            b.sum_to(b.op("Where", c, g, zero), x) if b.needs(1) else None,
            b.sum_to(b.op("Where", c, zero, g), y) if b.needs(2) else None]


@vjp("Mod")
def _mod(b, node, gs):
    """Float ``Mod`` (fmod=1): x - trunc(x/y)*y, so d/dx = 1, d/dy = -trunc(x/y)."""
    if node.attributes.get_int("fmod", 0) != 1:  # pragma: no cover - integer Mod is inactive
        raise b.error("the gradient of integer Mod is not defined")
    g = gs[0]
    x, y = node.inputs
    gy = None
    if b.needs(1):
        q = b.op("Div", b.op("Sub", x, node.outputs[0]), y)  # trunc(x/y), exactly
        gy = b.sum_to(b.op("Neg", b.op("Mul", g, q)), y)
    return [b.sum_to(g, x) if b.needs(0) else None, gy]


@vjp("Cast", "CastLike")
def _cast(b, node, gs):
    x = node.inputs[0]
    if not b.is_float(x) or not b.is_float(node.outputs[0]):
        return [None] * len(node.inputs)   # to or from integers: no gradient
    g, dt = gs[0], b.dtype(x)
    rest = [None] * (len(node.inputs) - 1)
    producer = g.producer()
    if producer is not None and producer.op_type == "Cast" and producer in b.nodes and \
            b.dtype(producer.inputs[0]) == dt:
        # A float round trip in the backward pass (the forward's f64 -> f32 -> f64): keep the
        # cotangent in the wider dtype instead of rounding it twice.
        return [producer.inputs[0]] + rest
    if b.dtype(g) == dt:
        return [g] + rest
    return [b.op("Cast", g, to=dt, dtype=dt, dims=b.dims(x))] + rest

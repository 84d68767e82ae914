"""Exact derivatives of the numpy functions the frontend builds from many nodes (float64 math),
keyed by the ``meta["pyonnx.derivative"]`` name (see ``registry.COMPOSITE_RULES``)."""

from __future__ import annotations

import math

from pyonnx.passes.gradient.registry import COMPOSITE_RULES, composite
from pyonnx.passes.gradient.rules.elementwise import _UNARY

__all__: list[str] = []


def _c_unary(fn):
    return lambda b, g, xs, y: [fn(b, g, xs[0], y)]


COMPOSITE_RULES["sin"] = _c_unary(lambda b, g, x, y: b.op("Mul", g, b.op("Cos", x)))
COMPOSITE_RULES["cos"] = _c_unary(lambda b, g, x, y: b.op("Neg", b.op("Mul", g, b.op("Sin", x))))
for _name, _op in (("tan", "Tan"), ("arctan", "Atan"), ("arcsin", "Asin"), ("arccos", "Acos"),
                   ("sinh", "Sinh"), ("cosh", "Cosh"), ("tanh", "Tanh"), ("arcsinh", "Asinh"),
                   ("arccosh", "Acosh"), ("arctanh", "Atanh")):
    COMPOSITE_RULES[_name] = _c_unary(_UNARY[_op])
COMPOSITE_RULES["expm1"] = _c_unary(lambda b, g, x, y: b.op(
    "Mul", g, b.op("Add", y, b.scalar(1.0, y))))
COMPOSITE_RULES["log1p"] = _c_unary(lambda b, g, x, y: b.op(
    "Div", g, b.op("Add", x, b.scalar(1.0, x))))
COMPOSITE_RULES["log2"] = _c_unary(lambda b, g, x, y: b.op(
    "Div", g, b.op("Mul", x, b.scalar(math.log(2.0), x))))
COMPOSITE_RULES["log10"] = _c_unary(lambda b, g, x, y: b.op(
    "Div", g, b.op("Mul", x, b.scalar(math.log(10.0), x))))
COMPOSITE_RULES["cbrt"] = _c_unary(lambda b, g, x, y: b.op(
    "Div", g, b.op("Mul", b.scalar(3.0, y), b.op("Mul", y, y))))


@composite("arctan2")
def _arctan2(b, g, xs, y):
    a, c = xs
    r2 = b.op("Add", b.op("Mul", a, a), b.op("Mul", c, c))
    t = b.op("Div", g, r2)
    return [b.sum_to(b.op("Mul", t, c), a), b.sum_to(b.op("Neg", b.op("Mul", t, a)), c)]


@composite("hypot")
def _hypot(b, g, xs, y):
    a, c = xs
    t = b.op("Div", g, y)
    return [b.sum_to(b.op("Mul", t, a), a), b.sum_to(b.op("Mul", t, c), c)]


@composite("logaddexp", "logaddexp2")
def _logaddexp(b, g, xs, y):
    """exp(x - y) (2 ** (x - y) for base 2): the weights of the two terms."""
    base2 = b.node.meta["pyonnx.derivative"][0] == "logaddexp2"
    out = []
    for x in xs:
        d = b.op("Sub", x, y)
        w = b.op("Pow", b.scalar(2.0, y), d) if base2 else b.op("Exp", d)
        out.append(b.sum_to(b.op("Mul", g, w), x))
    return out

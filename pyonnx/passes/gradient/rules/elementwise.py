"""VJP rules: per ONNX op, the cotangents of its inputs from those of its outputs.

Input: the :class:`~pyonnx.passes.gradient.backward.Backward` builder ``b`` (``b.node`` is the forward
node, ``b.needs(i)`` says whether input i wants a cotangent), the node, and one cotangent per
output (``None`` = symbolic zero; at least one is not None). Output: one cotangent per input
(``None`` for zero or not needed), shaped like that input. Rules are direct VJPs (JAX
``interpreters/ad.py``'s transpose rules, written out), not JVP + transpose.

Every op a rule emits has a rule itself (or carries no float values), so gradient models can be
differentiated again. Rules only use ops onnxruntime's CPU provider runs in float16/32/64
(``Sinh``'s derivative is built from ``Exp``: there is no float64 ``Cosh``).

Registered with ``@vjp("Op", ...)``. Ops whose float outputs are locally constant in their
inputs (``Floor``, ``Ceil``, ``Round``, ``Sign``, ``EyeLike``...) are registered with
:func:`zero_vjp`: they stop the gradient. Ops with only integer or bool outputs (comparisons,
``Shape``, ``Size``, ``ArgMax``, ``NonZero``...) need no entry: the activity analysis never
gives them a cotangent. ``If`` and ``Loop`` are in :mod:`pyonnx.passes.gradient.control_flow.loops`
(registered here on import); ``Scan`` and the sequence ops have no rule (a missing rule is a
ConversionError at the op's line).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import onnx_ir as ir

if TYPE_CHECKING:
    from pyonnx.passes.gradient.backward import Backward

__all__ = ["RULES", "COMPOSITE_RULES", "composite", "vjp", "zero_vjp"]

Cts = Sequence[ir.Value | None]
Rule = Callable[["Backward", ir.Node, Cts], Sequence[ir.Value | None]]

RULES: dict[str, Rule] = {}


def vjp(*op_types: str) -> Callable[[Rule], Rule]:
    """Registers a VJP rule for ONNX ops (default domain)."""

    def register(fn: Rule) -> Rule:
        for op in op_types:
            RULES[op] = fn
        return fn

    return register


def zero_vjp(*op_types: str) -> None:
    """Registers ops whose derivative is zero wherever it exists (they stop the gradient)."""
    for op in op_types:
        RULES[op] = lambda b, node, gs: [None] * len(node.inputs)


zero_vjp("Floor", "Ceil", "Round", "Sign", "EyeLike", "RandomNormalLike",
         "RandomUniformLike", "Bernoulli")


def _inputs(node: ir.Node, n: int) -> list[ir.Value | None]:
    ins = list(node.inputs)
    return ins + [None] * (n - len(ins))


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
    """JAX's clamp: the operand gets the cotangent strictly inside (lo, hi); lo where the
    operand is below it, hi where above."""
    g = gs[0]
    x, lo, hi = _inputs(node, 3)
    zero = b.scalar(0.0, x)
    inside = None
    if lo is not None:
        inside = b.op("Greater", x, lo)
    if hi is not None:
        below = b.op("Less", x, hi)
        inside = below if inside is None else b.op("And", inside, below)
    gx = g if inside is None else b.op("Where", inside, g, zero)
    out = [gx if b.needs(0) else None, None, None]
    if lo is not None and b.needs(1):
        out[1] = b.op("ReduceSum", b.op("Where", b.op("Less", x, lo), g, zero), keepdims=0)
    if hi is not None and b.needs(2):
        out[2] = b.op("ReduceSum", b.op("Where", b.op("Greater", x, hi), g, zero), keepdims=0)
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


# ------------------------------------------------------------------ softmax
def _axis(node, default: int) -> int:
    return node.attributes.get_int("axis", default)


@vjp("Softmax")
def _softmax(b, node, gs):
    g, y = gs[0], node.outputs[0]
    axes = b.ints([_axis(node, -1)])
    gy = b.op("Mul", g, y)
    return [b.op("Sub", gy, b.op("Mul", y, b.op("ReduceSum", gy, axes, keepdims=1)))]


@vjp("LogSoftmax")
def _log_softmax(b, node, gs):
    g, y = gs[0], node.outputs[0]
    axes = b.ints([_axis(node, -1)])
    return [b.op("Sub", g, b.op("Mul", b.op("Exp", y), b.op("ReduceSum", g, axes, keepdims=1)))]


# ------------------------------------------------------------------ reductions
def _reduce_axes(b, node):
    """(axes value or None for all axes, keepdims) of a Reduce* node (opset 13+/18+ form)."""
    keepdims = node.attributes.get_int("keepdims", 1)
    axes = node.inputs[1] if len(node.inputs) > 1 else None
    if axes is None and "axes" in node.attributes:
        axes = b.ints(node.attributes.get_ints("axes"))
    noop = node.attributes.get_int("noop_with_empty_axes", 0)
    if axes is not None and axes.const_value is not None and axes.const_value.size == 0 \
            and not noop:
        axes = None
    return axes, keepdims


def _expand_reduced(b, node, v):
    """A reduction's output-shaped ``v`` reshaped to broadcast against the input."""
    axes, keepdims = _reduce_axes(b, node)
    if keepdims or axes is None:
        return v              # keepdims keeps the axes; reduce-all gives a broadcastable 0-d
    rank = b.rank(node.inputs[0])
    if axes.const_value is not None and rank is not None and \
            len({int(a) % max(rank, 1) for a in axes.const_value.numpy().ravel()}) == rank:
        return v              # every axis reduced: a 0-d, which broadcasts
    return b.op("Unsqueeze", v, axes)


def _reduce_sum_of(b, node, v, keepdims=1):
    axes, _ = _reduce_axes(b, node)
    noop = node.attributes.get_int("noop_with_empty_axes", 0)
    return b.op("ReduceSum", v, axes, keepdims=keepdims, noop_with_empty_axes=noop or None)


@vjp("ReduceSum")
def _reduce_sum(b, node, gs):
    x = node.inputs[0]
    g = _expand_reduced(b, node, gs[0])
    return [b.op("Expand", g, b.shape(x), dtype=b.dtype(x), dims=b.dims(x))]


@vjp("ReduceMean")
def _reduce_mean(b, node, gs):
    x, y = node.inputs[0], node.outputs[0]
    # Element counts divided as floats: an empty input must not divide integers by zero.
    count = b.op("Div", b.op("CastLike", b.op("Size", x), y), b.op("CastLike", b.op("Size", y), y))
    g = b.op("Div", gs[0], count)
    return [b.op("Expand", _expand_reduced(b, node, g), b.shape(x))]


@vjp("ReduceSumSquare")
def _reduce_sum_square(b, node, gs):
    x = node.inputs[0]
    g = _expand_reduced(b, node, gs[0])
    return [b.op("Mul", g, b.op("Add", x, x))]


@vjp("ReduceLogSumExp")
def _reduce_logsumexp(b, node, gs):
    x = node.inputs[0]
    g = _expand_reduced(b, node, gs[0])
    y = _expand_reduced(b, node, node.outputs[0])
    return [b.op("Mul", g, b.op("Exp", b.op("Sub", x, y)))]


@vjp("ReduceL2")
def _reduce_l2(b, node, gs):
    x = node.inputs[0]
    g = _expand_reduced(b, node, gs[0])
    y = _expand_reduced(b, node, node.outputs[0])
    return [b.op("Mul", g, b.op("Div", x, y))]


@vjp("ReduceMax", "ReduceMin")
def _reduce_extreme(b, node, gs):
    """The cotangent goes to the elements equal to the extreme, split evenly between ties
    (JAX's ``_reduce_chooser_jvp_rule``)."""
    x = node.inputs[0]
    g = _expand_reduced(b, node, gs[0])
    y = _expand_reduced(b, node, node.outputs[0])
    hit = b.op("Cast", b.op("Equal", x, y), to=b.dtype(x))
    count = _reduce_sum_of(b, node, hit)
    return [b.op("Mul", b.op("Div", g, count), hit)]


@vjp("ReduceProd")
def _reduce_prod(b, node, gs):
    """d prod / d x_i = product of the others, exact with zeros: with no zero in the group
    it is prod / x_i; with one zero, the product of the non-zeros at the zero and 0 elsewhere;
    with more, 0."""
    x = node.inputs[0]
    g = _expand_reduced(b, node, gs[0])
    zero, one = b.scalar(0.0, x), b.scalar(1.0, x)
    is_zero = b.op("Equal", x, zero)
    zeros = _reduce_sum_of(b, node, b.op("Cast", is_zero, to=b.dtype(x)))
    nonzero = b.op("Where", is_zero, one, x)
    others = b.op("ReduceProd", nonzero, _reduce_axes(b, node)[0], keepdims=1,
                  noop_with_empty_axes=node.attributes.get_int("noop_with_empty_axes", 0) or None)
    at_zero = b.op("Where", b.op("Equal", zeros, one), others, zero)
    elsewhere = b.op("Where", b.op("Equal", zeros, zero), b.op("Div", others, nonzero), zero)
    d = b.op("Where", is_zero, at_zero, elsewhere)
    return [b.op("Mul", g, d)]


@vjp("CumSum")
def _cumsum(b, node, gs):
    reverse = node.attributes.get_int("reverse", 0)
    return [b.op("CumSum", gs[0], node.inputs[1], copy_attrs=node, reverse=1 - reverse), None]


# ------------------------------------------------------------------ products
def _swap_last(b, v, rank):
    perm = list(range(rank))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return b.op("Transpose", v, perm=perm)


@vjp("MatMul")
def _matmul(b, node, gs):
    """numpy matmul: 1-D operands are promoted (a row for the left, a column for the right),
    batch dimensions broadcast and are summed back."""
    g = gs[0]
    x, y = node.inputs
    rx, ry = b.need_rank(x), b.need_rank(y)
    if rx == 1 and ry == 1:
        return [b.op("Mul", g, y) if b.needs(0) else None,
                b.op("Mul", g, x) if b.needs(1) else None]
    xd, yd = b.dims(x), b.dims(y)
    gd = b.dims(node.outputs[0])
    X = b.op("Unsqueeze", x, b.ints([0])) if rx == 1 else x
    Y = b.op("Unsqueeze", y, b.ints([-1])) if ry == 1 else y
    G = g
    if rx == 1:
        G = b.op("Unsqueeze", G, b.ints([-2]))
    if ry == 1:
        G = b.op("Unsqueeze", G, b.ints([-1]))
    pxd = (1,) + tuple(xd) if rx == 1 else tuple(xd)
    pyd = tuple(yd) + (1,) if ry == 1 else tuple(yd)
    rg = max(len(pxd), len(pyd))
    if gd is not None:
        gd = tuple(gd)
        if rx == 1:
            gd = gd[:-1] + (1,) + gd[-1:] if ry != 1 else gd + (1, 1)
        if ry == 1 and rx != 1:
            gd = gd + (1,)
    gx = gy = None
    if b.needs(0):
        full = b.op("MatMul", G, _swap_last(b, Y, len(pyd)))
        fd = None if gd is None else gd[:-2] + (pxd[-2], pxd[-1])
        gx = b.sum_to(full, X, fd, pxd) if len(pxd) < rg or _batch(pxd) else full
        if rx == 1:
            gx = b.op("Reshape", gx, b.shape(x))
    if b.needs(1):
        full = b.op("MatMul", _swap_last(b, X, len(pxd)), G)
        fd = None if gd is None else gd[:-2] + (pyd[-2], pyd[-1])
        gy = b.sum_to(full, Y, fd, pyd) if len(pyd) < rg or _batch(pyd) else full
        if ry == 1:
            gy = b.op("Reshape", gy, b.shape(y))
    return [gx, gy]


def _batch(dims) -> bool:
    return len(dims) > 2


@vjp("Gemm")
def _gemm(b, node, gs):
    g = gs[0]
    A, B, C = _inputs(node, 3)
    alpha = node.attributes.get_float("alpha", 1.0)
    beta = node.attributes.get_float("beta", 1.0)
    ta, tb = node.attributes.get_int("transA", 0), node.attributes.get_int("transB", 0)
    y = node.outputs[0]
    ga = gb = gc = None
    if b.needs(0):
        # Y = op(A) op(B): d op(A) = g op(B)^T
        ga = b.op("Gemm", g, B, alpha=alpha, transB=1 - tb) if not ta else \
            b.op("Gemm", B, g, alpha=alpha, transA=tb, transB=1)
    if b.needs(1):
        gb = b.op("Gemm", A, g, alpha=alpha, transA=1 - ta) if not tb else \
            b.op("Gemm", g, A, alpha=alpha, transA=1, transB=ta)
    if C is not None and b.needs(2):
        gc = b.sum_to(b.op("Mul", g, b.scalar(beta, y)) if beta != 1.0 else g, C)
    return [ga, gb, gc]


_TERM = re.compile(r"\.\.\.|[A-Za-z]")


@vjp("Einsum")
def _einsum(b, node, gs):
    """For operand i: the einsum of the output cotangent with the other operands onto i's
    labels; labels only i has (summed in i alone) are broadcast back with Expand."""
    g = gs[0]
    eq = node.attributes.get_string("equation").replace(" ", "")
    if "->" not in eq:
        raise b.error("the gradient of an implicit-output Einsum is not supported")
    lhs, out = eq.split("->")
    terms = lhs.split(",")
    parsed = [_TERM.findall(t) for t in terms]
    out_labels = _TERM.findall(out)
    results: list[ir.Value | None] = []
    for i, x in enumerate(node.inputs):
        if not b.needs(i):
            results.append(None)
            continue
        labels = parsed[i]
        if len(set(labels)) != len(labels):
            raise b.error(f"the gradient of Einsum '{eq}' (repeated label in operand {i}: a "
                          "diagonal) is not supported")
        elsewhere = set(out_labels)
        for j, p in enumerate(parsed):
            if j != i:
                elsewhere |= set(p)
        kept = [lab for lab in labels if lab in elsewhere]
        others = [j for j in range(len(terms)) if j != i]
        spec = ",".join(["".join(out_labels)] + [terms[j] for j in others]) + "->" + "".join(kept)
        r = b.op("Einsum", g, *[node.inputs[j] for j in others], equation=spec)
        if len(kept) != len(labels):
            missing = [k for k, lab in enumerate(labels) if lab not in elsewhere]
            if "..." in labels:
                raise b.error(f"the gradient of Einsum '{eq}' (a label summed in one operand "
                              "next to '...') is not supported")
            r = b.op("Expand", b.op("Unsqueeze", r, b.ints(missing)), b.shape(x))
        elif "..." in labels:
            # '...' dims of size 1 in this operand broadcast against the others: sum them back.
            r = b.sum_to(r, x, None, None)
        results.append(r)
    return results


# ------------------------------------------------------------------ shapes and data movement
@vjp("Reshape", "Flatten", "Squeeze", "Unsqueeze")
def _reshape(b, node, gs):
    x = node.inputs[0]
    return [b.op("Reshape", gs[0], b.shape(x), dtype=b.dtype(x), dims=b.dims(x))] + \
        [None] * (len(node.inputs) - 1)


@vjp("Transpose")
def _transpose(b, node, gs):
    perm = node.attributes.get_ints("perm", None)
    if perm is None:
        return [b.op("Transpose", gs[0])]        # reversing twice is the identity
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return [b.op("Transpose", gs[0], perm=inverse)]


@vjp("Expand")
def _expand(b, node, gs):
    x = node.inputs[0]
    return [b.sum_to(gs[0], x), None]


@vjp("Concat")
def _concat(b, node, gs):
    axis = _axis(node, 0)
    g = gs[0]
    sizes = [b.op("Shape", x, start=axis, end=axis + 1 if axis != -1 else None)
             for x in node.inputs]
    parts = b.op("Split", g, b.op("Concat", *sizes, axis=0), axis=axis, outputs=len(sizes))
    if len(sizes) == 1:
        parts = (parts,)
    return [p if b.needs(i) else None for i, p in enumerate(parts)]


@vjp("Split")
def _split(b, node, gs):
    axis = _axis(node, 0)
    parts = [g if g is not None else b.zeros_like(out) for g, out in zip(gs, node.outputs)]
    return [b.op("Concat", *parts, axis=axis)] + [None] * (len(node.inputs) - 1)


def _index_map(b, node, gs, data_index: int = 0):
    """Ops that only move elements of their data input (gathers, slices, tiles): the same op
    applied to element positions says where each output element came from, and the cotangent
    is scattered back (added, for repeated positions)."""
    x = node.inputs[data_index]
    ins = list(node.inputs)
    ins[data_index] = b.iota(x)
    positions = b.op(node.op_type, *ins, copy_attrs=node)
    result: list[ir.Value | None] = [None] * len(node.inputs)
    result[data_index] = b.scatter_add_flat(gs[0], positions, x)
    return result


for _op in ("Slice", "Gather", "GatherElements", "GatherND", "Compress", "Tile",
            "ReverseSequence"):
    RULES[_op] = _index_map


@vjp("Pad")
def _pad(b, node, gs):
    """Like the gathers, with one more slot standing for the fill value (constant mode):
    what lands there is the fill value's cotangent."""
    x, pads, fill, axes = _inputs(node, 4)
    n = b.op("Size", x)
    positions = b.op("Pad", b.iota(x), pads, n, axes, copy_attrs=node)
    gx, gfill = b.scatter_add_flat(gs[0], positions, x, extra_slot=True)
    out: list[ir.Value | None] = [gx, None, None, None]
    if fill is not None and b.needs(2):
        out[2] = b.op("Reshape", gfill, b.shape(fill))
    return out[:len(node.inputs)]


@vjp("TopK")
def _topk(b, node, gs):
    x = node.inputs[0]
    positions = b.op("GatherElements", b.iota(x), node.outputs[1], axis=_axis(node, -1))
    return [b.scatter_add_flat(gs[0], positions, x), None]


@vjp("Trilu")
def _trilu(b, node, gs):
    return [b.op("Trilu", gs[0], *node.inputs[1:], copy_attrs=node)] + \
        [None] * (len(node.inputs) - 1)


@vjp("ScatterND", "ScatterElements")
def _scatter(b, node, gs):
    """Overwrite (reduction none): the data keeps the cotangent where it was not overwritten,
    the updates get it where they landed; with reduction "add" the data keeps all of it."""
    g = gs[0]
    data, idx, upd = node.inputs
    reduction = node.attributes.get_string("reduction", "none")
    gather = "GatherND" if node.op_type == "ScatterND" else "GatherElements"
    attrs = {} if node.op_type == "ScatterND" else {"axis": _axis(node, 0)}
    if reduction not in ("none", "add"):
        raise b.error(f"the gradient of {node.op_type} with reduction '{reduction}' is not "
                      "supported")
    gd = gu = None
    if b.needs(0):
        gd = g if reduction == "add" else b.op(node.op_type, g, idx, b.zeros_like(upd),
                                                 **attrs)
    if b.needs(2):
        gu = b.op(gather, g, idx, **attrs)
    return [gd, None, gu]


@vjp("Range")
def _range(b, node, gs):
    """start + i * delta: start gets the sum, delta the position-weighted sum; the limit only
    sets the (integer) length."""
    g = gs[0]
    start, limit, delta = node.inputs
    y = node.outputs[0]
    gs_ = gd = None
    if b.needs(0):
        gs_ = b.op("ReduceSum", g, keepdims=0)
    if b.needs(2):
        i = b.op("CastLike", b.op("Range", b.const(np.int64(0)), b.op("Size", y),
                                  b.const(np.int64(1))), y)
        gd = b.op("ReduceSum", b.op("Mul", g, i), keepdims=0)
    return [gs_, None, gd]


# ------------------------------------------------------------------ composite functions
# Nodes marked ``meta["pyonnx.derivative"] = (name, inputs)`` end a multi-node construction of
# a numpy function (the frontend's float64 math, built from many ops because onnxruntime lacks
# the kernel or is imprecise). The pass differentiates them as the function: ``rule(b, g, xs,
# y)`` gives the cotangents of ``xs``. Node by node, the branches a construction discards
# would turn into NaN (0 * inf) at points like arcsin'(0), and the backward pass would be
# hundreds of nodes.
CompositeRule = Callable[["Backward", ir.Value, Sequence[ir.Value], ir.Value],
                         Sequence[ir.Value | None]]
COMPOSITE_RULES: dict[str, CompositeRule] = {}


def composite(*names: str) -> Callable[[CompositeRule], CompositeRule]:
    def register(fn: CompositeRule) -> CompositeRule:
        for name in names:
            COMPOSITE_RULES[name] = fn
        return fn

    return register


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


# Control flow (If, Loop): registers its rules in RULES.
from pyonnx.passes.gradient.control_flow import loops  # noqa: E402,F401  (import for its registrations)

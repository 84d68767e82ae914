"""VJP rules of reductions (ReduceSum, ReduceMean, ReduceMax...) and CumSum."""

from __future__ import annotations

from pyonnx.passes.gradient.registry import vjp

__all__: list[str] = []


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

"""VJP rules of neural-network ops: Softmax, LogSoftmax."""

from __future__ import annotations

from pyonnx.passes.gradient.registry import vjp
from pyonnx.passes.gradient.rules.common import _axis

__all__: list[str] = []


# ------------------------------------------------------------------ softmax
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

"""ONNX Loops built from Python bodies: the loop builder and the loops made with it.

Input: the Lowering ``ctx`` and Arrays. Output: Arrays computed by an ONNX ``Loop`` node.
Graph-level helpers (they look nothing up in the numpy registry), so that the registry's
families (reductions, science) and statement lowering (the complex lowerings) share them
without lowering importing a family (tests/test_architecture.py). The families re-export them
from their old places (reductions.exact, reductions.doubling, science.compose).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.values import Array

__all__ = ["build_loop", "counted_loop", "doubling_scan"]

_I64 = np.dtype(np.int64)


def _ints(ctx, values) -> ir.Value:
    return ctx.const(np.asarray(values, dtype=np.int64))


def build_loop(ctx, count: Any, cond: ir.Value,
               states: list[Array], body: Callable[..., tuple[Any, list[Array]]]
               ) -> list[Array]:
    """An ONNX Loop of trip count ``count`` (None: none) and first condition ``cond``.

    ``body(i, states)`` gets the iteration number (an int64 0-d Array) and the loop-carried
    values as Arrays with unknown dims, and returns the next condition (a bool scalar value, or
    None to keep it) and the next values (same dtypes and ranks). Returns the final values.
    """
    iteration = ir.Value(type=ir.TensorType(ir.DataType.INT64), shape=ir.Shape([]))
    cond_in = ir.Value(type=ir.TensorType(ir.DataType.BOOL), shape=ir.Shape([]))
    inputs = [ir.Value(type=ir.TensorType(dtypes.to_ir(s.dtype)),
                       shape=ir.Shape([None] * s.ndim)) for s in states]
    with ctx.subgraph() as nodes:
        cond_out, outs = body(Array(iteration, np.dtype(np.int64), ()),
                              [Array(v, s.dtype, (None,) * s.ndim)
                               for v, s in zip(inputs, states)])
        out_values = [cond_in if cond_out is None else cond_out] + [o.value for o in outs]
        # A body output must be produced inside the body under its own name.
        seen: set[int] = set()
        for k, v in enumerate(out_values):
            if v.producer() is None or v.producer() not in nodes or id(v) in seen:
                out_values[k] = ctx.op("Identity", v)
            seen.add(id(out_values[k]))
    # Explicit names from the (unique) node names: onnx-ir's NameFixPass forgets a body's names
    # when it leaves the body and may give a later main-graph value the same "val_N", which
    # onnxruntime rejects (names must be unique across nested graphs).
    base = nodes[0].name
    for k, v in enumerate([iteration, cond_in, *inputs]):
        v.name = f"{base}_in{k}"
    for node in nodes:
        for j, o in enumerate(node.outputs):
            o.name = o.name or f"{node.name}_{j}"
    graph = ir.Graph([iteration, cond_in, *inputs], out_values, nodes=nodes, name="loop_body")
    results = ctx.op("Loop", count, cond, *states, outputs=len(states), body=graph)
    if len(states) == 1:
        results = (results,)
    return [Array(r, s.dtype, (None,) * s.ndim) for r, s in zip(results, states)]


def counted_loop(ctx, count, states: list[Array], body) -> list[Array]:
    """``for i in range(count): states = body(i, states)`` as an ONNX Loop.

    Args:
        count: the trip count, an int64 0-d value.
        states: the loop-carried Arrays; ``body(i, states)`` gets the iteration number (an
            int64 0-d Array) and Arrays of the same dtypes and ranks (unknown dims), and returns
            the next ones (same dtypes and ranks).

    Returns:
        The final states (unknown dims).
    """
    # An explicit True condition: onnx's reference evaluator reads a missing one as False.
    return build_loop(ctx, count, ctx.const(np.array(True)), states,
                      lambda i, states: (None, body(i, states)))


def doubling_scan(ctx, x: Array, k: int, combine: Callable[[Any, Any], Any], identity: Any,
                  unroll: int = 4) -> Array:
    """The inclusive scan of ``x`` along ``k`` by doubling (numpy_calls/reductions/doubling.py's
    module docstring says how)."""
    n = ctx.op("Shape", x, start=k, end=k + 1)
    # steps = ceil(log2(max(n, 1))): exact in float64 for any n an array can have (below 2**40
    # the distance of log2(2**j + 1) from j is far above float64 rounding).
    nf = ctx.op("Cast", ctx.op("Max", n, _ints(ctx, [1])), to=11)
    steps = ctx.op("Ceil", ctx.op("Div", ctx.op("Log", nf), ctx.const(np.array(np.log(2.0)))))
    trips = ctx.op("Cast", ctx.op("Ceil", ctx.op("Div", steps, ctx.const(np.array(
        float(unroll))))), to=7)
    trips = ctx.op("Squeeze", trips, _ints(ctx, [0]))
    pad = ctx.const(np.array(identity, x.dtype))
    axes = _ints(ctx, [k])
    zero = _ints(ctx, [0])

    def body(_i, states):
        v, pads, ends = (s.value for s in states)
        for _ in range(unroll):
            shifted = ctx.op("Slice", ctx.op("Pad", v, pads, pad, axes), zero, ends, axes)
            v = combine(shifted, v)
            pads = ctx.op("Add", pads, pads)
            ends = ctx.op("Add", ends, ends)
        return None, [Array(v, x.dtype, (None,) * x.ndim), Array(pads, _I64, (2,)),
                      Array(ends, _I64, (1,))]

    v, _, _ = build_loop(ctx, trips, ctx.const(np.array(True)), [
        x, Array(_ints(ctx, [1, 0]), _I64, (2,)), Array(_ints(ctx, [-1]), _I64, (1,))], body)
    return Array(v.value, x.dtype, x.shape)

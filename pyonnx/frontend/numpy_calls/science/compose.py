"""Composing lowerings: numpy functions written as numpy's own Python source, step by step.

Input: the Lowering ``ctx``. Output: :class:`Np`, a facade whose attributes are the registered
lowerings of the numpy functions of the same name, bound to ``ctx`` (``N.subtract(x, m)``
lowers ``np.subtract(x, m)`` with numpy's promotion), plus ``N.getitem(x, index)`` for
``x[index]``. The science families follow numpy's Python implementations through it, so their
intermediate dtypes and roundings are those of the lowerings already tested against numpy.

Precondition: every family is loaded (true once a lowering runs: the package loads them all
before the first look-up).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.indexing import getitem
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls import registry

__all__ = ["Np"]


class Np:
    """``N.name(*args)`` lowers ``np.name(*args)`` through the registry (see module doc)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def __getattr__(self, name: str):
        target = getattr(np, name)
        entry = registry.lookup(target)
        if entry is None:  # a bug in a family, not a user mistake
            raise RuntimeError(f"pyonnx: numpy.{name} has no lowering to compose with")
        ctx = self.ctx
        return lambda *args, **kwargs: entry.fn(ctx, *args, **kwargs)

    def getitem(self, x: Any, index: Any) -> Array:
        """``x[index]`` with numpy's semantics."""
        return getitem(self.ctx, self.ctx.asarray(x), index)


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
    import onnx_ir as ir

    from pyonnx.frontend.graph import dtypes

    iteration = ir.Value(type=ir.TensorType(ir.DataType.INT64), shape=ir.Shape([]))
    cond_in = ir.Value(type=ir.TensorType(ir.DataType.BOOL), shape=ir.Shape([]))
    inputs = [ir.Value(type=ir.TensorType(dtypes.to_ir(s.dtype)),
                       shape=ir.Shape([None] * s.ndim)) for s in states]
    with ctx.subgraph() as nodes:
        outs = body(Array(iteration, np.dtype(np.int64), ()),
                    [Array(v, s.dtype, (None,) * s.ndim) for v, s in zip(inputs, states)])
        out_values = [ctx.op("Identity", cond_in)] + [o.value for o in outs]
        seen: set[int] = set()
        for k, v in enumerate(out_values):  # a body output is produced inside the body, once
            if v.producer() is None or v.producer() not in nodes or id(v) in seen:
                out_values[k] = ctx.op("Identity", v)
            seen.add(id(out_values[k]))
    # Names unique across nested graphs (onnxruntime requires it; see reductions/exact.py).
    base = nodes[0].name
    for k, v in enumerate([iteration, cond_in, *inputs]):
        v.name = f"{base}_in{k}"
    for node in nodes:
        for j, o in enumerate(node.outputs):
            o.name = o.name or f"{node.name}_{j}"
    graph = ir.Graph([iteration, cond_in, *inputs], out_values, nodes=nodes, name="loop_body")
    # An explicit True condition: onnx's reference evaluator reads a missing one as False.
    results = ctx.op("Loop", count, ctx.const(np.array(True)), *states, outputs=len(states),
                     body=graph)
    if len(states) == 1:
        results = (results,)
    return [Array(r, s.dtype, (None,) * s.ndim) for r, s in zip(results, states)]

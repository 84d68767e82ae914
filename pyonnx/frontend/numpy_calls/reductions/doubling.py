"""An inclusive scan of an associative combine by doubling, with few nodes per step: ``np.maximum.accumulate``/``np.minimum.accumulate`` (ONNX has no CumMax).

Input: an Array ``x``, the axis ``k``, ``combine(earlier, later)`` (ir values of ``x``'s dtype
in, one out: the earlier prefix first, so a combine that keeps its first argument on ties keeps
the earliest element, as numpy's sequential accumulate does) and its identity. Output: the scan,
``x``'s shape and dtype.

Step ``j`` (shift ``s = 2**j``) combines ``v`` with ``v`` shifted by ``s`` along ``k``
(identities shifted in): ``Pad`` at the front, then ``Slice`` with end ``-s`` (``n`` for any
``s``), so a step past ``n`` combines with identities only and changes nothing. (A negative
end pad would save the Slice; onnx's reference evaluator refuses negative pads. An end ``n``
would save the ``-s`` state; onnxruntime's symbolic shape inference then warns.)
ceil(log2(n)) steps, ``unroll`` per ``Loop`` iteration, the trip count computed before the
loop: 3 nodes a step (Pad, Slice, combine) and 2 for the doubled shift, where the
``while s < n`` form paid 10–12 nodes and an iteration per step (the Loop's own cost,
about 1 µs, dominates at n = 1,000). Work is O(n log n) (numpy's is O(n)).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.reductions.common import _I64, _i64
from pyonnx.frontend.numpy_calls.reductions.exact import build_loop

__all__ = ["doubling_scan", "numpy_extreme_accumulate"]

_F64 = np.dtype(np.float64)


def doubling_scan(ctx, x: Array, k: int, combine: Callable[[Any, Any], Any], identity: Any,
                  unroll: int = 4) -> Array:
    """The inclusive scan of ``x`` along ``k`` (see the module docstring)."""
    n = ctx.op("Shape", x, start=k, end=k + 1)
    # steps = ceil(log2(max(n, 1))): exact in float64 for any n an array can have (below 2**40
    # the distance of log2(2**j + 1) from j is far above float64 rounding).
    nf = ctx.op("Cast", ctx.op("Max", n, _i64(ctx, [1])), to=11)
    steps = ctx.op("Ceil", ctx.op("Div", ctx.op("Log", nf), ctx.const(np.array(np.log(2.0)))))
    trips = ctx.op("Cast", ctx.op("Ceil", ctx.op("Div", steps, ctx.const(np.array(
        float(unroll))))), to=7)
    trips = ctx.op("Squeeze", trips, _i64(ctx, [0]))
    pad = ctx.const(np.array(identity, x.dtype))
    axes = _i64(ctx, [k])
    zero = _i64(ctx, [0])

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
        x, Array(_i64(ctx, [1, 0]), _I64, (2,)), Array(_i64(ctx, [-1]), _I64, (1,))], body)
    return Array(v.value, x.dtype, x.shape)


def numpy_extreme_accumulate(ctx, x: Array, k: int, is_max: bool) -> Array:
    """``np.maximum.accumulate`` (``minimum``) along ``k``. Floats combine with onnxruntime's
    ``Max``/``Min`` (one node: NaN propagates, values exact; of a tie of -0.0 and 0.0 it picks
    either zero depending on the array's length, as its ``Where`` gives 0.0 for a -0.0 taken
    from its X input: no form here keeps the sign of a zero tie). Integers combine as numpy's
    ``maximum(acc, v)`` with Greater and Where (onnxruntime's int64 Max compares 32 bits)."""
    run, fwd, back = _run_dtype(ctx, x.dtype)

    def combine(earlier, later):
        if run.kind == "f":
            return ctx.op("Max" if is_max else "Min", earlier, later)
        a, b = fwd(Array(earlier, run, (None,) * x.ndim)), fwd(Array(later, run,
                                                                      (None,) * x.ndim))
        keep = ctx.op("Greater" if is_max else "Less", a.value, b.value)
        return back(Array(ctx.op("Where", keep, a.value, b.value), a.dtype, a.shape)).value
    return ctx.cast(doubling_scan(ctx, ctx.cast(x, run), k, combine, _identity(x.dtype, is_max)),
                    x.dtype)


def _identity(dtype: np.dtype, is_max: bool) -> Any:
    if dtype.kind == "f":
        return -np.inf if is_max else np.inf
    info = np.iinfo(dtype)
    return info.min if is_max else info.max


def _run_dtype(ctx, dtype: np.dtype):
    """The dtype the scan runs in (float16 in float32, int16 wider: no Pad kernel) and the
    order-keeping maps for the comparisons in it."""
    from pyonnx.frontend.graph import kernels
    from pyonnx.frontend.numpy_calls.reductions.common import _ordered

    run = np.dtype(np.float32) if dtype == np.float16 else kernels.compute_dtype("Pad", dtype)
    if run is None:
        raise ctx.error(f"a running maximum of {dtype} is not supported")
    fwd, back = _ordered(ctx, run)
    return run, fwd, back

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

1-d arrays take :func:`blocked_scan`: rows of ``BLOCK`` elements scanned by a chain of
combines, the doubling scan over the row totals only: O(n) work, about 6 full passes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyonnx.frontend.graph.loops import doubling_scan  # (moved to graph; re-exported)
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.reductions.common import _i64

__all__ = ["blocked_scan", "doubling_scan", "numpy_extreme_accumulate"]

_F64 = np.dtype(np.float64)


# Columns per block of :func:`blocked_scan`: the in-block scan is BLOCK - 1 combine nodes on
# columns of n / BLOCK elements; the doubling scan is then over n / BLOCK block totals.
BLOCK = 16


def blocked_scan(ctx, x: Array, combine: Callable[[Any, Any], Any], identity: Any,
                 block: int = BLOCK) -> Array:
    """The inclusive scan of a 1-d ``x`` in O(n) work: ``x`` padded with identities to
    ``m * block`` elements, viewed as ``(m, block)`` rows, scanned along each row by a chain
    of ``combine`` nodes on its columns (``Split``, ``block - 1`` combines, ``Concat``); the
    row totals (the chain's last column, m values) get an exclusive :func:`doubling_scan`,
    combined into every row (one broadcast pass), then flattened and cut back to ``n``.

    Why: the doubling scan costs 3 full passes per step, ceil(log2(n)) steps (51 passes at
    n = 1e5); this one about 6 passes plus the doubling scan over n / block elements. The
    order of combination is the sequential one's grouping (earlier prefix first) as the
    doubling scan's is, so a combine exact for any grouping (max/min) gives equal values.
    """
    dtype = x.dtype
    b = _i64(ctx, [block])
    n = ctx.op("Shape", x)
    m = ctx.op("Div", ctx.op("Add", n, _i64(ctx, [block - 1])), b)  # ceil(n / block), n >= 0
    pad = ctx.const(np.array(identity, dtype))
    pads = ctx.op("Concat", _i64(ctx, [0]), ctx.op("Sub", ctx.op("Mul", m, b), n), axis=0)
    rows = ctx.op("Reshape", ctx.op("Pad", x.value, pads, pad), ctx.op("Concat", m, b, axis=0))
    cols = ctx.op("Split", rows, _i64(ctx, [1] * block), axis=1, outputs=block)
    chain = [cols[0]]
    for c in cols[1:]:
        chain.append(combine(chain[-1], c))
    within = ctx.op("Concat", *chain, axis=1)
    totals = Array(ctx.op("Squeeze", chain[-1], _i64(ctx, [1])), dtype, (None,))
    inclusive = doubling_scan(ctx, totals, 0, combine, identity)
    # Row r gets the totals of rows before it: identity first, the last total dropped.
    before = ctx.op("Slice", ctx.op("Pad", inclusive.value, _i64(ctx, [1, 0]), pad),
                    _i64(ctx, [0]), m)
    scanned = combine(ctx.op("Unsqueeze", before, _i64(ctx, [1])), within)
    flat = ctx.op("Reshape", scanned, _i64(ctx, [-1]))
    return Array(ctx.op("Slice", flat, _i64(ctx, [0]), n), dtype, x.shape)


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
    xr, ident = ctx.cast(x, run), _identity(x.dtype, is_max)
    if x.ndim == 1:
        return ctx.cast(blocked_scan(ctx, xr, combine, ident), x.dtype)
    return ctx.cast(doubling_scan(ctx, xr, k, combine, ident), x.dtype)


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

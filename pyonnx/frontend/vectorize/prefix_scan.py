"""The running maximum/minimum of a vectorized prefix recurrence (``y[i] = max(y[i-1], x[i])``)
of float32/float64 values, in fewer nodes and no ``Loop`` iteration up to ~1,000 elements.

Input: the FunctionLowering's context, a 1-d float Array ``x`` (the initial element followed by
the values, NaN already mapped as :mod:`.recurrences` requires) and max or min. Output: the
inclusive scan, an Array of ``x``'s shape and dtype, equal value for value to
``np.maximum.accumulate(x)`` as pyonnx lowers it (numpy_calls/reductions/doubling.py): the same
combine (onnxruntime's ``Max``/``Min``: NaN propagates; of a tie of -0.0 and 0.0 either zero),
the same grouping (each combine takes an earlier prefix first).

How: rows of ``BLOCK`` values scanned by a chain of combines (``Split``, ``BLOCK - 1``
combines, ``Concat``); the row totals scanned by doubling, whose first ``STATIC`` steps are
plain nodes with constant pads and ends (``Pad``, ``Slice``, combine) and whose remaining steps,
for more than ``2**STATIC`` rows, run in a ``Loop`` behind an ``If`` (the general lowering runs
every doubling step in a ``Loop``: at n = 1,000 two iterations, ~18 µs of its 41).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph.loops import build_loop
from pyonnx.frontend.graph.rare_case import only_if
from pyonnx.frontend.graph.values import Array

__all__ = ["running_extreme", "BLOCK", "STATIC"]

# Values per row; measured at n = 1,000 (block + static steps): 8 + 7 27.9 µs, 16 + 6 30.6,
# 32 + 5 34.8, 4 + 8 28.8 (and 92 µs at n = 10,000, against 78 for 8 + 7).
BLOCK = 8
STATIC = 7  # doubling steps as plain nodes: 2**7 rows, 1,024 values, need no Loop
_UNROLL = 4  # doubling steps per Loop iteration beyond them
_I64 = np.dtype(np.int64)
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _ints(ctx, values) -> ir.Value:
    return ctx.const(np.array(values, np.int64))


def running_extreme(ctx, x: Array, is_max: bool) -> Array:
    """``np.maximum.accumulate(x)`` (``minimum``) of a 1-d float32/float64 ``x``."""
    dtype = x.dtype
    op = "Max" if is_max else "Min"

    def combine(earlier, later):
        return ctx.op(op, earlier, later)

    ident = ctx.const(np.array(-np.inf if is_max else np.inf, dtype))
    b = _ints(ctx, [BLOCK])
    n = ctx.op("Shape", x.value)
    m = ctx.op("Div", ctx.op("Add", n, _ints(ctx, [BLOCK - 1])), b)  # ceil(n / BLOCK)
    pads = ctx.op("Concat", _ints(ctx, [0]), ctx.op("Sub", ctx.op("Mul", m, b), n), axis=0)
    rows = ctx.op("Reshape", ctx.op("Pad", x.value, pads, ident),
                  ctx.op("Concat", m, b, axis=0))
    cols = ctx.op("Split", rows, _ints(ctx, [1] * BLOCK), axis=1, outputs=BLOCK)
    chain = [cols[0]]
    for c in cols[1:]:
        chain.append(combine(chain[-1], c))
    within = ctx.op("Concat", *chain, axis=1)
    totals = ctx.op("Squeeze", chain[-1], _ints(ctx, [1]))
    inclusive = _doubling(ctx, totals, m, combine, ident, dtype)
    # Row r gets the totals of the rows before it: the identity first, the last total dropped.
    before = ctx.op("Slice", ctx.op("Pad", inclusive, _ints(ctx, [1, 0]), ident),
                    _ints(ctx, [0]), m)
    scanned = combine(ctx.op("Unsqueeze", before, _ints(ctx, [1])), within)
    flat = ctx.op("Reshape", scanned, _ints(ctx, [-1]))
    return Array(ctx.op("Slice", flat, _ints(ctx, [0]), n), dtype, x.shape)


def _step(ctx, v, pads, ends, ident, combine):
    shifted = ctx.op("Slice", ctx.op("Pad", v, pads, ident), _ints(ctx, [0]), ends)
    return combine(shifted, v)


def _doubling(ctx, v: ir.Value, m: ir.Value, combine, ident: ir.Value,
              dtype: np.dtype) -> ir.Value:
    """The inclusive doubling scan of the 1-d ``v`` (``m`` values, 1-d shape): STATIC steps
    as nodes (a step past ``m`` combines with identities only: no change), the rest in a Loop
    run only for ``m > 2**STATIC``."""
    for j in range(STATIC):
        s = 2 ** j
        v = _step(ctx, v, _ints(ctx, [s, 0]), _ints(ctx, [-s]), ident, combine)
    plain = Array(v, dtype, (None,))
    more = ctx.op("Squeeze", ctx.op("Greater", m, _ints(ctx, [2 ** STATIC])), _ints(ctx, [0]))

    def rest(ctx) -> Array:
        # steps still needed: ceil(log2(m)) - STATIC (exact in float64, as graph.loops)
        mf = ctx.op("Cast", m, to=11)
        steps = ctx.op("Ceil", ctx.op("Div", ctx.op("Log", mf),
                                      ctx.const(np.array(np.log(2.0)))))
        trips = ctx.op("Cast", ctx.op("Ceil", ctx.op("Div", ctx.op(
            "Sub", steps, ctx.const(np.array(float(STATIC)))), ctx.const(np.array(
                float(_UNROLL))))), to=7)
        trips = ctx.op("Squeeze", trips, _ints(ctx, [0]))

        def body(_i, states):
            w, pads, ends = (st.value for st in states)
            for _ in range(_UNROLL):
                w = _step(ctx, w, pads, ends, ident, combine)
                pads = ctx.op("Add", pads, pads)
                ends = ctx.op("Add", ends, ends)
            return None, [Array(w, dtype, (None,)), Array(pads, _I64, (2,)),
                          Array(ends, _I64, (1,))]

        s = 2 ** STATIC
        out, _, _ = build_loop(ctx, trips, ctx.const(np.array(True)), [
            plain, Array(_ints(ctx, [s, 0]), _I64, (2,)), Array(_ints(ctx, [-s]), _I64, (1,))],
            body)
        return Array(out.value, dtype, (None,))

    return only_if(ctx, Array(more, np.dtype(bool), ()), plain, rest, "running_extreme").value


def applies(dtype: Any) -> bool:
    return np.dtype(dtype) in FLOATS

"""numpy discrete linear convolution and cross-correlation: convolve, correlate.

Input: two 1-D arrays (lengths known or run-time) and a static ``mode``. Output: a 1-D Array
of ``np.result_type(a, v)`` (bool stays bool: an OR of ANDs, as numpy's bool dot).

Every output element is a sum of products gathered from a (length-of-output × len(v)) index
grid: ``out[k] = sum_j a[k + off - j] * v[j]`` over the ``j`` where the index is inside
``a``; the offset and length of each mode follow numpy's ``_pyarray_correlate`` (which swaps
the operands when ``v`` is longer), so run-time lengths need no conversion-time case split.

Supported syntax:

* ``np.convolve(a, v, mode='full'|'same'|'valid')`` and
  ``np.correlate(a, v, mode='valid'|'same'|'full')``, any real dtype, run-time lengths.

Differences: integers wrap as numpy's do (the sum is computed in int64 and cast, which is the
same modulo 2**bits); float sums are added in another order than numpy's BLAS dot, so the
last bits may differ (within a few ulp when the terms do not cancel). float16 is multiplied
and summed in float32 and rounded once, as numpy's half dot does. An empty input makes numpy
raise ValueError: a conversion error when the length is known, a run-time failure otherwise.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.shape.common import guard, ints

_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)


def _scalar(ctx, v) -> object:
    return ctx.const(np.array(v, np.int64))


def _length(ctx, x: Array):
    """len(x) as a 0-d int64 value."""
    if x.shape[0] is not None:
        return _scalar(ctx, x.shape[0])
    return ctx.op("Squeeze", ctx.op("Shape", x, start=0, end=1), ints(ctx, [0]))


def _mode_window(mode: str, correlate: bool, n, m):
    """(offset, length) of numpy's result inside the full convolution, static ints."""
    lo, hi = min(n, m), max(n, m)
    if mode == "full":
        return 0, n + m - 1
    if mode == "valid":
        return lo - 1, hi - lo + 1
    off = (lo - 1) // 2
    if correlate and n < m:  # numpy reverses the swapped correlation
        off = (lo - 1) - off
    return off, hi


def _lower(ctx, a, v, mode, correlate: bool) -> Array:
    fname = "np.correlate" if correlate else "np.convolve"
    mode = ctx.static(mode, "mode")
    if mode not in ("full", "same", "valid"):
        raise ctx.error(f"{fname}: mode must be 'full', 'same' or 'valid', got {mode!r} "
                        "(numpy raises ValueError)")
    x, w = to_array(ctx, a), to_array(ctx, v)
    for arr, name in ((x, "a"), (w, "v")):
        if arr.ndim != 1:
            raise ctx.error(f"{fname}: {name} must be 1-D, got {arr.ndim}-D (numpy raises "
                            "ValueError: object too deep / shallow)")
        if arr.shape[0] == 0:
            raise ctx.error(f"{fname}: {name} cannot be empty (numpy raises ValueError)")
        if arr.dtype.kind not in "biuf":
            raise ctx.error(f"{fname}: dtype {arr.dtype} is not supported")
    dt = np.result_type(x.dtype, w.dtype)
    if correlate:  # correlate(a, v) is convolve(a, v[::-1]) with numpy's own window
        w = Array(ctx.op("Slice", w, ints(ctx, [-1]), ints(ctx, [-(2**62)]), ints(ctx, [0]),
                         ints(ctx, [-1])), w.dtype, w.shape)
    run = np.dtype(np.float32) if dt == np.float16 else _I64 if dt.kind in "biu" else dt
    xr, wr = ctx.cast(x, run), ctx.cast(w, run)
    n_s, m_s = x.shape[0], w.shape[0]
    n, m = _length(ctx, x), _length(ctx, w)
    one = _scalar(ctx, 1)
    if n_s is not None and m_s is not None:
        off_i, len_i = _mode_window(mode, correlate, n_s, m_s)
        off, length, out_len = _scalar(ctx, off_i), _scalar(ctx, len_i), len_i
    else:
        lo, hi = ctx.op("Min", n, m), ctx.op("Max", n, m)
        lo1 = ctx.op("Sub", lo, one)
        two = _scalar(ctx, 2)
        if mode == "full":
            off, length = _scalar(ctx, 0), ctx.op("Sub", ctx.op("Add", n, m), one)
        elif mode == "valid":
            off, length = lo1, ctx.op("Add", ctx.op("Sub", hi, lo), one)
        else:
            off = ctx.op("Div", lo1, two)
            if correlate:
                off = ctx.op("Where", ctx.op("Less", n, m), ctx.op("Sub", lo1, off), off)
            length = hi
        # numpy raises ValueError for an empty operand: make the run fail instead.
        zero = _scalar(ctx, 0)
        ok = ctx.op("And", ctx.op("Greater", n, zero), ctx.op("Greater", m, zero))
        length = ctx.op("Squeeze", guard(ctx, ok, Array(ctx.op("Unsqueeze", length,
                                                               ints(ctx, [0])), _I64, (1,))),
                        ints(ctx, [0]))
        out_len = None
    k = ctx.op("Add", ctx.op("Range", _scalar(ctx, 0), length, one), off)  # (L,)
    j = ctx.op("Range", _scalar(ctx, 0), m, one)  # (m,)
    idx = ctx.op("Sub", ctx.op("Unsqueeze", k, ints(ctx, [1])),
                 ctx.op("Unsqueeze", j, ints(ctx, [0])))  # (L, m): k - j
    inside = ctx.op("And", ctx.op("GreaterOrEqual", idx, _scalar(ctx, 0)),
                    ctx.op("Less", idx, n))
    safe = ctx.op("Where", inside, idx, _scalar(ctx, 0))
    terms = ctx.op("Mul", ctx.op("Gather", xr, safe, axis=0),
                   ctx.op("Unsqueeze", wr, ints(ctx, [0])))
    # Where, not a multiply by the mask: 0 * inf would be NaN where numpy adds no term.
    terms = ctx.op("Where", inside, terms, ctx.const(np.zeros((), run)))
    total = Array(ctx.op("ReduceSum", terms, ints(ctx, [1]), keepdims=0), run, (out_len,))
    if dt == _BOOL:
        return Array(ctx.op("Not", ctx.op("Equal", total, _scalar(ctx, 0))), _BOOL, (out_len,))
    return ctx.cast(total, dt)


@register(np.convolve)
def convolve(ctx, a, v, mode="full"):
    """``np.convolve(a, v, mode='full'|'same'|'valid')`` of two 1-D arrays."""
    return _lower(ctx, a, v, mode, correlate=False)


@register(np.correlate)
def correlate(ctx, a, v, mode="valid"):
    """``np.correlate(a, v, mode='valid'|'same'|'full')`` of two real 1-D arrays."""
    return _lower(ctx, a, v, mode, correlate=True)

"""``np.histogram2d``: numpy's ``histogramdd`` for two coordinates, step by step.

Input: 1-D ``x`` and ``y`` of one length, ``bins`` an int or a pair of ints, a static
``range`` (a pair of (lo, hi) pairs or None), optional ``weights`` and ``density``. Output:
``(H, xedges, yedges)`` as numpy returns them: H float64 of shape (nx, ny); the edges from
``np.linspace(smin, smax, n + 1)`` (the data's float dtype, float64 for integer data).

Each coordinate's bin is numpy's ``searchsorted(edges, v, side='right')`` with the last edge
moved into the last bin; the flat bin index is counted by ``bincount``, the outlier rows and
columns dropped. Data with NaN or inf and no range makes numpy raise ValueError: the run fails
(likewise an empty float32/float16 sample without a range, whose edges numpy makes float64).

Not supported (refused): edge arrays as ``bins``.
"""

from __future__ import annotations

import operator

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.science.compose import Np
from pyonnx.frontend.numpy_calls.science.histograms import _fail_unless
from pyonnx.frontend.numpy_calls.shape import to_array

__all__ = ["histogram2d"]

_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)


def _count(ctx, bins, i: int) -> int:
    try:
        n = operator.index(bins)
    except TypeError:
        raise ctx.error("np.histogram2d: bins must be an int or a pair of ints here (edge "
                        "arrays are not supported yet)") from None
    if n < 1:
        raise ctx.error(f"np.histogram2d: `bins[{i}]` must be positive, when an integer (numpy "
                        "raises ValueError)")
    return n


def _edges(ctx, N, col: Array, n: int, rng) -> Array:
    """numpy's ``_get_outer_edges`` + ``np.linspace(smin, smax, n + 1)`` for one coordinate."""
    if rng is not None:
        lo, hi = rng
        if lo > hi:
            raise ctx.error("np.histogram2d: max must be larger than min in range parameter "
                            "(numpy raises ValueError)")
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise ctx.error(f"np.histogram2d: supplied range of [{lo}, {hi}] is not finite "
                            "(numpy raises ValueError)")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        return ctx.const_array(np.asarray(np.linspace(lo, hi, n + 1)))
    if col.shape[0] == 0:
        return ctx.const_array(np.linspace(0, 1, n + 1))
    kind = col.dtype.kind
    top = np.inf if kind == "f" else (True if kind == "b" else np.iinfo(col.dtype).max)
    bottom = -np.inf if kind == "f" else (False if kind == "b" else np.iinfo(col.dtype).min)
    smin = N.min(col, initial=top)  # (initial: no failure when empty)
    smax = N.max(col, initial=bottom)
    finite = N.logical_and(N.isfinite(smin), N.isfinite(smax)) if kind == "f" else None
    same = N.equal(smin, smax)
    first = N.where(same, N.subtract(smin, 0.5), smin)
    last = N.where(same, N.add(smax, 0.5), smax)
    edge_dt = np.result_type(first.dtype, last.dtype, 1.0)
    size = ctx.op("Squeeze", ctx.op("Shape", col, start=0, end=1), ctx.const(np.array([0])))
    nonempty = Array(ctx.op("Greater", size, ctx.const(np.array(0, np.int64))), np.dtype(bool),
                     ())
    # numpy raises ValueError for NaN/inf data; its edges of an empty sample are float64
    # (linspace(0, 1)): for float32/float16 data the run fails rather than differ.
    ok = N.logical_or(finite, N.logical_not(nonempty)) if finite is not None else None
    if edge_dt != _F64:
        ok = nonempty if ok is None else N.logical_and(ok, nonempty)
    if ok is not None:
        first = _fail_unless(ctx, ok, first)  # (a Gather: the value is unchanged)
    edges = N.linspace(first, last, n + 1)
    if edge_dt != _F64:
        return edges
    unit = ctx.const_array(np.linspace(0, 1, n + 1))
    return N.where(nonempty, edges, unit)


@register(np.histogram2d, limits={"bins": "an int or a pair of ints (no edge arrays)"})
def histogram2d(ctx, x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """``np.histogram2d(x, y, bins=10, range=None, density=None, weights=None)``."""
    N = Np(ctx)
    xa, ya = to_array(ctx, x), to_array(ctx, y)
    if xa.ndim != 1 or ya.ndim != 1:
        raise ctx.error("np.histogram2d: x and y must be 1-D arrays of one length")
    if None not in (xa.shape[0], ya.shape[0]) and xa.shape[0] != ya.shape[0]:
        raise ctx.error("np.histogram2d: x and y must have the same length. (numpy raises "
                        "ValueError)")
    bins = ctx.static(bins, "bins")
    if np.ndim(bins) == 0:
        nx = ny = _count(ctx, bins, 0)
    elif np.ndim(bins) == 1 and len(bins) == 2:
        nx, ny = _count(ctx, bins[0], 0), _count(ctx, bins[1], 1)
    else:
        raise ctx.error("np.histogram2d: bins must be an int or a pair of ints here (edge "
                        "arrays are not supported yet)")
    rng = ctx.static(range, "range")
    if rng is None:
        rng = (None, None)
    elif len(rng) != 2:
        raise ctx.error("np.histogram2d: range argument must have one entry per dimension "
                        "(numpy raises ValueError)")
    dt = np.result_type(xa.dtype, ya.dtype)  # np.atleast_2d([x, y]): one common dtype
    cols = [ctx.cast(xa, dt), ctx.cast(ya, dt)]
    edges = [_edges(ctx, N, c, n, r) for c, n, r in zip(cols, (nx, ny), rng)]
    counts = []
    for c, e in zip(cols, edges):
        k = N.searchsorted(e, c, side="right")
        on_edge = N.equal(c, N.getitem(e, -1))
        counts.append(N.subtract(k, ctx.cast(on_edge, _I64)))
    xy = N.add(N.multiply(counts[0], ny + 2), counts[1])
    if None in (xa.shape[0], ya.shape[0]):  # numpy: "x and y must have the same length."
        differ = Array(ctx.op("Squeeze", ctx.op("Not", ctx.op(
            "Equal", ctx.op("Shape", xa), ctx.op("Shape", ya))), ctx.const(np.array([0]))),
            np.dtype(bool), ())
        xy = runtime_check(ctx, differ, xy, "histogram2d_x_and_y_lengths",
                           "ValueError: x and y must have the same length.")
    hist = N.bincount(xy, weights, minlength=(nx + 2) * (ny + 2))
    hist = ctx.cast(Array(ctx.op("Reshape", hist, ctx.const(np.array([nx + 2, ny + 2]))),
                          hist.dtype, (nx + 2, ny + 2)), _F64)
    hist = N.getitem(hist, (slice(1, -1), slice(1, -1)))
    if ctx.static(density, "density"):
        s = N.sum(hist)
        hist = N.divide(hist, N.reshape(N.diff(edges[0]), (-1, 1)))
        hist = N.divide(hist, N.reshape(N.diff(edges[1]), (1, -1)))
        hist = N.divide(hist, s)
    return hist, edges[0], edges[1]

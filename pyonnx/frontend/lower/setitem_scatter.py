"""The scatter form of a basic-index write (:mod:`setitem_basic`): the partial axes moved to
the front, one ``ScatterND`` over the grid of their positions, and moved back.

Input: the array ``x``, its axes as :mod:`setitem_basic` describes them (``_Axis``: kind
"full", "int" or "slice", normalized bounds, static ``step``, ``length``, ``raw`` integer,
``span``), the partial axes and the value aligned to x's rank (a length-1 dimension at integer
axes). Output: the written array. Also :func:`narrow_last`, which sends narrow last-axis slice
writes here rather than to the concat form.

Consecutive column writes ``y[:, k] = ...`` each make ``Transpose → ScatterND → Transpose``;
folding cancels the Transposes between them, so a chain writes rows of one transposed array
(and ``ColumnsFromTransposePass`` reads the columns from it too).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import setitem_fills as fills

__all__ = ["narrow_last", "scatter"]

_NARROW = 16


def _static(b: Any) -> int | None:
    return b if isinstance(b, int) else None


def narrow_last(x: Array, axes: list, partial: list[int]) -> bool:
    """Only the last axis (of x of rank >= 2) is written partly, a span of at most
    ``_NARROW`` positions (``coords[:, :4] /= gain``) or of an axis that short: the concat form
    would join pieces of a few elements per row (``Concat`` on the last axis of (8400, 4):
    9-37 µs a column), the scatter form writes rows of the transposed array, whose
    ``Transpose`` nodes cancel with those of the neighbouring column writes."""
    last = x.ndim - 1
    if last < 1 or partial != [last]:
        return False
    if fills.can_pad(x.dtype) and fills.fill_value(x) is not None:
        return False  # (into a fill the concat form is one Pad)
    ax = axes[last]
    if x.shape[last] is not None and x.shape[last] <= _NARROW:
        return True
    return ax.kind == "slice" and ax.span is not None and ax.span <= _NARROW


def scatter(ctx, b, x: Array, axes: list, partial: list[int], v: Array) -> Array:
    """The partial axes to the front, one ``ScatterND`` over their position grid, and back."""
    i64 = np.int64
    rest = [a for a in range(x.ndim) if a not in partial]
    perm = partial + rest
    ranges = []
    for a in partial:
        ax = axes[a]
        if ax.kind == "int":
            ranges.append(b.value(ax.raw))  # ScatterND wraps and checks it as numpy
        elif all(isinstance(p, int) for p in (ax.lo, ax.hi)):
            ranges.append(ctx.const(np.arange(ax.lo, ax.hi, ax.step, dtype=i64)))
        else:
            scalar = ctx.const(np.array([0], i64))
            lo = ctx.op("Squeeze", b.value(ax.lo), scalar)
            hi = ctx.op("Squeeze", b.value(ax.hi), scalar)
            ranges.append(ctx.op("Range", lo, hi, ctx.const(np.array(ax.step, i64))))
    k = len(partial)
    if k == 1:
        grid = ctx.op("Unsqueeze", ranges[0], ctx.const(np.array([1], i64)))
    else:
        lengths = [ctx.op("Shape", r) for r in ranges]
        target = ctx.op("Concat", *lengths, ctx.const(np.array([1], i64)), axis=0)
        cols = []
        for j, r in enumerate(ranges):
            shape = [1] * (k + 1)
            shape[j] = -1
            cols.append(ctx.op("Expand", ctx.op("Reshape", r, ctx.const(np.array(shape, i64))),
                               target))
        grid = ctx.op("Concat", *cols, axis=-1)
    identity = perm == list(range(x.ndim))
    xt = x.value if identity else ctx.op("Transpose", x, perm=perm)
    up = _moved(ctx, b, x, axes, v, perm)
    out = ctx.op("ScatterND", xt, grid, up)
    if not identity:
        inverse = [perm.index(a) for a in range(x.ndim)]
        out = ctx.op("Transpose", out, perm=inverse)
    return Array(out, x.dtype, x.shape)


def _moved(ctx, b, x: Array, axes: list, v: Array, perm: list[int]) -> Any:
    """The updates of the scatter form: ``v`` (aligned, x's rank) in the transposed layout
    ``perm``, expanded to the selection's shape there. The value is moved before it is
    expanded (a smaller Transpose; one that cancels with a Transpose producing ``v``), and
    when only integer axes move (``b[:, k] = v``: length 1 in ``v``) by a Squeeze and an
    Unsqueeze, no data movement (which folding cancels with the alignment's Unsqueeze)."""
    i64 = np.int64
    ints = [a for a in range(x.ndim) if axes[a].kind == "int"]
    others = [a for a in perm if axes[a].kind != "int"]
    if perm == list(range(x.ndim)):
        vt = v
    elif ints and others == sorted(others):
        # Integer axes have length 1 in v: moving them moves no data.
        at = [j for j, a in enumerate(perm) if axes[a].kind == "int"]
        sq = ctx.op("Squeeze", v, ctx.const(np.array(ints, i64)))
        vt = Array(ctx.op("Unsqueeze", sq, ctx.const(np.array(at, i64))), v.dtype,
                   tuple(v.shape[a] for a in perm))
    else:
        vt = Array(ctx.op("Transpose", v, perm=perm), v.dtype, tuple(v.shape[a] for a in perm))
    shape = tuple(x.shape[a] if axes[a].kind == "full" else _static(axes[a].length)
                  for a in perm)
    if vt.shape == shape and None not in shape:
        return vt.value
    dims = [(x.shape[a] if axes[a].kind == "full" else axes[a].length) for a in perm]
    if all(isinstance(d, int) for d in dims):
        target = ctx.const(np.array(dims, i64))
    else:
        parts = [fills.length(ctx, x, a) if d is None else d for a, d in zip(perm, dims)]
        target = ctx.op("Concat", *[b.value(p) for p in parts], axis=0)
    return ctx.op("Expand", vt, target)

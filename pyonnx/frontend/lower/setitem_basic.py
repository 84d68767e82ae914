"""Basic-index writes ``x[ints, slices, ..., None] = v`` without flat positions.

Input: the Array written to, its :class:`~pyonnx.frontend.graph.indexing.plan.IndexPlan` (no
index arrays, masks or 0-d booleans; every slice step static) and the value, already cast to
x's dtype. Output: the new Array, or None when the subscript is not such a write (the caller
then takes the flat ``ScatterElements`` form).

Each axis of ``x`` is *full* (``:`` covering it), an integer or a partial slice. The value is
aligned to the selection as numpy broadcasts it (leading length-1 dimensions dropped, new axes
squeezed, a length-1 dimension at every integer axis), so that it has x's rank. Then, cheapest
first:

* no partial axis (``u[:, :] = t``, ``t[:] = 0``): ``Expand`` of the value to x's shape;
* ``concat``: at least one step-1 slice, the other partial axes integers or step-1 slices
  (``y[a:b] = x``, ``u[1:-1, 1:-1] = ...``): per partial axis ``Concat(x before, inner,
  x after)``, nested; into a fill (``np.zeros``, ``np.full``, a constant of one value) one
  ``Pad`` of the value with the fill value instead (:func:`setitem_fills.padded`; into a large
  fill with a value whose shape is known only at run time, ``If(same shape, Pad(v),
  Pad(Expand(v)))``: the Expand is a full copy even when nothing broadcasts);
* ``scatter`` (:mod:`setitem_scatter`): otherwise (integers only, ``b[:, k] = expr``,
  ``z[:, :, 0] = v``; other steps, ``b[..., 0::2] = v``, ``y[::-1] = x``; a narrow slice of the
  last axis only, ``coords[:, :4] /= gain``, whose concat would join a few elements per row):
  the partial axes are transposed to the front and written by one ``ScatterND`` over the grid
  of their positions (numpy's order, negative steps included), then transposed back.

Measured (onnxruntime 1.32, float32, one thread): ``b[:, 2] = v`` on (10000, 4): scatter 16 µs,
concat 82 µs, ``Where`` with a broadcast mask 161 µs (the flat form: 60 µs); ``z[:, :, 0] = v``
on 800×800×3: scatter 1.7 ms, concat 3.4 ms, ``Where`` 12 ms (flat: 4.0 ms); ``y[a:b] = x`` on
1e6 elements: concat 0.9 ms, scatter 1.35 ms (flat: 2.7 ms); ``u[1:-1, 1:-1] = ...`` on
500×500: concat 0.47 ms, scatter 1.8 ms (flat: 1.0 ms). onnxruntime's ``Where`` is slow when its
inputs broadcast, so it is not used.

Bounds are normalized as ``slice.indices`` does, at conversion time when they and the length
are static, else by a few int64 ops. An integer index not checked at conversion time is given
to ``ScatterND`` as written (it accepts exactly numpy's ``[-n, n)`` and fails otherwise); the
concat form first normalizes it by ``Gather(Range(0, n), i)``, which fails the same way. A
value numpy could not broadcast fails at conversion time when its shape is known, else at run
time (a ``Reshape`` to x's shape after ``Expand``, or of the expanded value to the selection's
shape before ``Concat``/``Pad``: neither can silently grow the array; ``ScatterND`` checks its
updates itself).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.indexing.basic import to_index
from pyonnx.frontend.graph.indexing.forms import INT, NEWAXIS, SLICE
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import setitem_fills as fills
from pyonnx.frontend.lower.setitem_scatter import narrow_last, scatter

__all__ = ["basic_write"]

_MAX = int(np.iinfo(np.int64).max)

# A bound: a Python int, or an int64 value of shape (1,).
Bound = Any


class _Axis:
    """One axis of x: ``kind`` "full", "int" or "slice"; ``lo`` the first position written
    (numpy's normalized start), ``hi`` numpy's normalized stop, ``step``, ``length`` how many
    positions are written (ints: 1). An integer whose bounds check is left to the run time
    has ``lo`` None until :func:`_normalized_int` is asked for it, and ``raw`` the index as
    written (``ScatterND`` checks and wraps it as numpy does, so the scatter form needs no
    normalization)."""

    __slots__ = ("kind", "lo", "hi", "step", "length", "raw", "axis", "span")

    def __init__(self, kind: str, lo: Bound = 0, hi: Bound = 0, step: int = 1,
                 length: Bound = 1, raw: Bound = None, axis: int = 0, span: int | None = None):
        self.kind, self.lo, self.hi, self.step, self.length = kind, lo, hi, step, length
        self.raw, self.axis = raw, axis
        # A static bound on how many positions are written (None: unknown).
        self.span = length if isinstance(length, int) else span


def basic_write(ctx, x: Array, plan, v: Array) -> Array | None:
    """``x`` after ``x[index] = v`` for a basic subscript (see the module docstring).

    Args:
        ctx: the Lowering.
        x: the array written to.
        plan: the subscript's plan.
        v: the value, already of x's dtype.

    Returns:
        The written array, or None when the subscript is not basic with static steps.

    Raises:
        ConversionError: numpy cannot broadcast the value to the selection, known now.
    """
    items = plan.items
    if plan.advanced or any(it.kind not in (INT, SLICE, NEWAXIS) for it in items):
        return None
    if any(it.kind == SLICE and isinstance(it.value.step, Array) for it in items):
        return None
    b = _Bounds(ctx)
    axes: list[_Axis] = []
    for it in items:
        if it.kind == INT:
            axes.append(_int_axis(ctx, b, x, it.axis, it.value))
        elif it.kind == SLICE:
            axes.append(_slice_axis(b, x, it.axis, it.value))
    vv, verified = _align(ctx, x, items, axes, v)
    partial = [a for a, ax in enumerate(axes) if ax.kind != "full"]
    if not partial:
        out = vv if verified and vv.shape == x.shape and None not in x.shape else \
            Array(ctx.op("Expand", vv, ctx.shape_of(x)), x.dtype, x.shape)
    elif any(axes[a].kind == "slice" for a in partial) and \
            all(axes[a].kind == "int" or axes[a].step == 1 for a in partial) and \
            not narrow_last(x, axes, partial):
        # The check is on the written part, before the Concats: a Reshape of the result
        # (often the function's output) copies it whole (letterbox 640x640x3: 22 µs of 115),
        # one of an intermediate is free.
        return _concat(ctx, b, x, axes, partial, vv, verified)
    else:
        return scatter(ctx, b, x, axes, partial, vv)
    if not verified:
        # A value broadcast beyond x's shape (numpy raises) cannot pass a Reshape to it.
        out = Array(ctx.op("Reshape", out, ctx.shape_of(x)), x.dtype, x.shape)
    return out


# ------------------------------------------------------------------ bounds
class _Bounds:
    """int64 arithmetic on bounds: Python when both sides are static, else ONNX ops."""

    def __init__(self, ctx):
        self.ctx = ctx

    def value(self, a: Bound) -> Any:
        return self.ctx.const(np.array([a], np.int64)) if isinstance(a, int) else a

    def _op(self, op: str, a: Bound, c: Bound, fn) -> Bound:
        if isinstance(a, int) and isinstance(c, int):
            return fn(a, c)
        return self.ctx.op(op, self.value(a), self.value(c))

    def add(self, a, c):
        if isinstance(c, int) and c == 0:  # (step 1: hi - lo + 0)
            return a
        return self._op("Add", a, c, lambda p, q: p + q)

    def sub(self, a, c):
        return self._op("Sub", a, c, lambda p, q: p - q)

    def max(self, a, c):
        return self._op("Max", a, c, max)

    def min(self, a, c):
        return self._op("Min", a, c, min)

    def div(self, a, c):  # both non-negative where it matters (truncation = floor)
        if isinstance(c, int) and c == 1:
            return a
        return self._op("Div", a, c, lambda p, q: int(p / q) if p < 0 else p // q)

    def normalize(self, i: Bound, n: Bound, low: int, high: Bound) -> Bound:
        """numpy's slice bound: negative counts from the end, then clamped to [low, high]."""
        if isinstance(i, int) and isinstance(n, int):
            if i < 0:
                i += n
            return max(low, min(i, high))
        if isinstance(i, int) and i >= 0:
            return self.min(i, high) if i > 0 or low < 0 else 0
        ctx = self.ctx
        iv, nv = self.value(i), self.value(n)
        shifted = ctx.op("Where", ctx.op("Less", iv, self.value(0)), ctx.op("Add", iv, nv), iv)
        return self.min(self.max(shifted, low), high)


def _length(ctx, x: Array, a: int) -> Bound:
    return fills.length(ctx, x, a)


def _int_axis(ctx, b: _Bounds, x: Array, a: int, i: Any) -> _Axis:
    n = x.shape[a]
    if isinstance(i, int) and n is not None:
        return _Axis("int", i, i + 1, raw=i, axis=a)  # checked and normalized by the plan
    raw = i if isinstance(i, int) else \
        ctx.op("Reshape", to_index(ctx, i), ctx.const(np.array([1], np.int64)))
    return _Axis("int", None, None, raw=raw, axis=a)


def _normalized_int(ctx, b: _Bounds, x: Array, ax: _Axis) -> None:
    """Fills ``ax.lo``/``ax.hi`` for a run-time-checked integer: ``Gather(Range(0, n), i)``
    normalizes it and fails outside ``[-n, n)``, as numpy raises."""
    if ax.lo is not None:
        return
    i64 = np.dtype(np.int64)
    n0 = ctx.dim(x, ax.axis)
    if isinstance(n0, int):  # a static length, a run-time index (np.zeros((5, n)); y[i, 1:])
        n0 = ctx.const(np.array(n0, i64))
    positions = ctx.op("Range", ctx.const(np.array(0, i64)), n0, ctx.const(np.array(1, i64)))
    ax.lo = ctx.op("Gather", positions, b.value(ax.raw), axis=0)
    ax.hi = b.add(ax.lo, 1)


def _slice_axis(b: _Bounds, x: Array, a: int, s: slice) -> _Axis:
    ctx = b.ctx
    step = 1 if s.step is None else s.step
    if step == 0:
        raise ctx.error("slice step cannot be zero (numpy raises ValueError)")
    n = x.shape[a]
    start, stop = s.start, s.stop
    if n is not None and not isinstance(start, Array) and not isinstance(stop, Array):
        lo, hi, _ = slice(start, stop, step).indices(n)
        length = len(range(lo, hi, step))
        if length == n and (step == 1 or n <= 1):
            return _Axis("full")
        return _Axis("slice", lo, hi, step, length)
    if step == 1 and start in (None, 0) and stop is None:
        return _Axis("full")
    nb = _length(ctx, x, a)
    span = None
    if step > 0 and isinstance(start, (int, type(None))) and isinstance(stop, int) and \
            (start or 0) >= 0 and stop >= 0:
        span = max(0, -(-(stop - (start or 0)) // step))  # (the axis may be shorter)
    if step > 0:
        lo = 0 if start is None else b.normalize(_bound(ctx, start), nb, 0, nb)
        hi = nb if stop is None else b.normalize(_bound(ctx, stop), nb, 0, nb)
        length = b.max(b.div(b.add(b.sub(hi, lo), step - 1), step), 0)
        return _Axis("slice", lo, hi, step, length, span=span)
    else:
        last = b.sub(nb, 1)
        lo = last if start is None else b.normalize(_bound(ctx, start), nb, -1, last)
        hi = -1 if stop is None else b.normalize(_bound(ctx, stop), nb, -1, last)
        length = b.max(b.div(b.add(b.sub(lo, hi), -step - 1), -step), 0)
    return _Axis("slice", lo, hi, step, length)


def _bound(ctx, v: Any) -> Bound:
    if isinstance(v, Array):
        return ctx.op("Reshape", to_index(ctx, v), ctx.const(np.array([1], np.int64)))
    return int(v)


# ------------------------------------------------------------------- value
def _align(ctx, x: Array, items: list, axes: list[_Axis], v: Array) -> tuple[Array, bool]:
    """``v`` reshaped to x's rank as numpy broadcasts it into the selection (a length-1
    dimension at integer axes), and whether its static shape proves the broadcast valid."""
    sel: list[Any] = []  # per selection dimension: the x axis it comes from, or None (new axis)
    for it in items:
        if it.kind == SLICE:
            sel.append(it.axis)
        elif it.kind == NEWAXIS:
            sel.append(None)
    sel_shape = tuple(1 if a is None else _static(axes[a].length) if axes[a].kind == "slice"
                      else x.shape[a] for a in sel)
    i64 = np.int64
    while v.ndim > len(sel) and v.shape[0] == 1:
        v = Array(ctx.op("Squeeze", v, ctx.const(np.array([0], i64))), v.dtype, v.shape[1:])
    if v.ndim > len(sel):
        _refuse(ctx, v.shape, sel_shape)
    if v.ndim < len(sel):
        k = len(sel) - v.ndim
        v = Array(ctx.op("Unsqueeze", v, ctx.const(np.arange(k, dtype=i64))), v.dtype,
                  (1,) * k + v.shape)
    for d, want in zip(v.shape, sel_shape):
        if d is not None and d != 1 and want is not None and d != want:
            _refuse(ctx, v.shape, sel_shape)
    new = [j for j, a in enumerate(sel) if a is None]
    if new:
        shape = tuple(d for j, d in enumerate(v.shape) if j not in new)
        v = Array(ctx.op("Squeeze", v, ctx.const(np.array(new, i64))), v.dtype, shape)
    ints = [a for a, ax in enumerate(axes) if ax.kind == "int"]
    if ints:
        shape = list(v.shape)
        for a in ints:
            shape.insert(a, 1)
        v = Array(ctx.op("Unsqueeze", v, ctx.const(np.array(ints, i64))), v.dtype, tuple(shape))
    verified = all(d == 1 or (d is not None and d == _want(x, a, axes[a]))
                   for a, d in enumerate(v.shape))
    return v, verified


def _static(b: Bound) -> int | None:
    return b if isinstance(b, int) else None


def _want(x: Array, a: int, ax: _Axis) -> int | None:
    return x.shape[a] if ax.kind == "full" else _static(ax.length)


def _refuse(ctx, got: tuple, want: tuple) -> None:
    def fmt(s):
        return "(" + ",".join("?" if d is None else str(d) for d in s) + \
            ("," if len(s) == 1 else "") + ")"
    raise ctx.error(f"could not broadcast input array from shape {fmt(got)} into shape "
                    f"{fmt(want)} (numpy raises ValueError)")


def _selection_shape(ctx, b: _Bounds, x: Array, axes: list[_Axis]) -> Any:
    """The int64 shape of the selection with x's rank (1 at integer axes)."""
    dims = [(x.shape[a] if ax.kind == "full" else ax.length) for a, ax in enumerate(axes)]
    if all(isinstance(d, int) for d in dims):
        return ctx.const(np.array(dims, np.int64))
    parts = [_length(ctx, x, a) if d is None else d for a, d in enumerate(dims)]
    return ctx.op("Concat", *[b.value(p) for p in parts], axis=0)


def _expanded(ctx, b: _Bounds, x: Array, axes: list[_Axis], v: Array) -> Array:
    """``v`` expanded to the selection (x's rank)."""
    shape = tuple(x.shape[a] if ax.kind == "full" else _static(ax.length)
                  for a, ax in enumerate(axes))
    if v.shape == shape and None not in shape:
        return v
    return Array(ctx.op("Expand", v, _selection_shape(ctx, b, x, axes)), v.dtype, shape)


# ------------------------------------------------------------------- forms
def _concat(ctx, b: _Bounds, x: Array, axes: list[_Axis], partial: list[int], v: Array,
            verified: bool) -> Array:
    """Nested ``Concat(x before, inner, x after)`` over the partial axes (ints, step-1 slices).

    ``verified`` False: the value's static shape does not prove numpy's broadcast into the
    selection, so the expanded value is reshaped to the selection's shape (a value broadcast
    beyond it, which numpy refuses, cannot pass; the Concats check every other axis)."""
    spans = []
    for a in partial:
        ax = axes[a]
        if ax.kind == "int":
            _normalized_int(ctx, b, x, ax)
        hi = ax.hi if ax.kind == "int" else b.max(ax.hi, ax.lo)  # an empty slice: hi = lo
        spans.append((a, ax.lo, hi))
    filled = fills.filled(x)
    fill_value = fills.fill_value(x) if fills.can_pad(x.dtype) else None
    if fill_value is not None and not verified and fills.large(x):
        # (letterbox: the Expand copied the whole image, 19 µs of 53)
        sel = _selection_shape(ctx, b, x, axes)

        def checked(ctx) -> Array:
            grown = Array(ctx.op("Expand", v, sel), v.dtype, v.shape)
            return Array(ctx.op("Reshape", grown, sel), v.dtype, v.shape)
        out = fills.padded_unless_broadcast(ctx, b, x, fill_value, spans, v, sel, checked)
        return Array(out, x.dtype, x.shape)
    inner = _expanded(ctx, b, x, axes, v)
    if not verified:
        inner = Array(ctx.op("Reshape", inner, _selection_shape(ctx, b, x, axes)), inner.dtype,
                      inner.shape)
    if fill_value is not None:
        return Array(fills.padded(ctx, b, x, fill_value, spans, inner), x.dtype, x.shape)

    def piece(region: list, a: int, lo: Bound, hi: Bound) -> Any:
        bounds = region + [(a, lo, hi)]
        if filled is not None:
            return fills.filled_piece(ctx, b, x, filled, bounds, _MAX)
        starts = ctx.op("Concat", *[b.value(s) for _, s, _ in bounds], axis=0) \
            if not all(isinstance(s, int) for _, s, _ in bounds) else \
            ctx.const(np.array([s for _, s, _ in bounds], np.int64))
        ends = ctx.op("Concat", *[b.value(e) for _, _, e in bounds], axis=0) \
            if not all(isinstance(e, int) for _, _, e in bounds) else \
            ctx.const(np.array([e for _, _, e in bounds], np.int64))
        return ctx.op("Slice", x, starts, ends,
                      ctx.const(np.array([ax for ax, _, _ in bounds], np.int64)))

    out = inner.value
    for k in range(len(spans) - 1, -1, -1):
        a, lo, hi = spans[k]
        region = spans[:k]
        parts = []
        if not (isinstance(lo, int) and lo == 0):
            parts.append(piece(region, a, 0, lo))
        parts.append(out)
        if not (isinstance(hi, int) and x.shape[a] is not None and hi >= x.shape[a]):
            parts.append(piece(region, a, hi, _MAX))
        out = parts[0] if len(parts) == 1 else ctx.op("Concat", *parts, axis=a)
    return Array(out, x.dtype, x.shape)

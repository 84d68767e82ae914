"""The basic stage of a subscript: slices, integers and new axes.

Input: the indexed Array and its :class:`~pyonnx.frontend.graph.indexing.plan.IndexPlan`.
Output: the Array after every slice (one ``Slice`` node for all of them), every integer (merged
into that Slice and removed by one ``Squeeze``, or one ``Gather`` each) and every new axis (one
``Unsqueeze``), with the index arrays' axes left for the advanced stage.

ONNX ``Slice`` clamps bounds as numpy does except in one case: with a negative step, numpy
reads a start below ``-len`` as "before the first element" (an empty result) where ONNX clamps
it to the first element. Where conversion time cannot rule that case out (a negative or
run-time start with an unknown length, or a run-time step), the end is replaced by 0 when it
happens, which makes ONNX's result empty too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.indexing.forms import BOOL0, INT, NEWAXIS, SLICE, Item
from pyonnx.frontend.graph.indexing.plan import IndexPlan
from pyonnx.frontend.graph.values import Array

__all__ = ["apply_basic", "to_index", "i64", "INDEX_AXIS"]

# Suffix of the name of a Gather taking one integer index (then numpy's axis): the runtime
# turns its out-of-bounds failure into numpy's IndexError (runtime/index_errors.py, which cannot
# import this module, spells it too).
INDEX_AXIS = "_numpy_index_axis"

MAX = int(np.iinfo(np.int64).max)
MIN = int(np.iinfo(np.int64).min)

# A slice bound for the Slice node: a static int or an int64 value of shape (1,).
Bound = Any


def i64(ctx, values) -> Any:
    """An int64 constant."""
    return ctx.const(np.array(values, dtype=np.int64))


def to_index(ctx, a: Array, int32_ok: bool = False) -> Array:
    """An integer Array as ONNX index values: int64 (or int32 where the op accepts it).

    uint64 values above the int64 range are clamped to its maximum first, so they stay out of
    bounds (and make the gathering op fail, as numpy raises) instead of wrapping negative.
    """
    if a.dtype == np.int64 or (int32_ok and a.dtype == np.int32):
        return Array(a.value, a.dtype, a.shape)
    if a.dtype == np.uint64:
        a = Array(ctx.op("Min", a, ctx.const(np.array(MAX, dtype=np.uint64))), a.dtype, a.shape)
    return ctx.cast(Array(a.value, a.dtype, a.shape), np.int64)


def _vec1(ctx, a: Array) -> Any:
    """A 0-d integer Array as an int64 value of shape (1,)."""
    return ctx.op("Reshape", to_index(ctx, a), i64(ctx, [1]))


def _clamp(v: int) -> int:
    return max(MIN, min(MAX, v))


def _length(ctx, x: Array, axis: int) -> Bound:
    d = x.shape[axis]
    return d if d is not None else ctx.op("Shape", x, start=axis, end=axis + 1)


def slice_bounds(ctx, x: Array, axis: int,
                 s: slice) -> tuple[Bound, Bound, Bound, int | None] | None:
    """ONNX Slice (start, end, step) reproducing numpy's ``s`` on ``x``'s ``axis``, and the
    static output length; None when the slice keeps the whole axis."""
    d = x.shape[axis]
    start, stop, step = s.start, s.stop, s.step
    if step is None:
        step = 1
    dynamic = [isinstance(v, Array) for v in (start, stop, step)]
    if not any(dynamic):
        if d is not None:
            b, e, st = slice(start, stop, step).indices(d)
            n = len(range(b, e, st))
            if n == d and (st == 1 or d <= 1):
                return None
            if n == 0:
                return 0, 0, 1, 0
            if st < 0 and e < 0:
                e = MIN  # numpy's "before the first element"; ONNX reads -1 as the last one
            return b, e, _clamp(st), n
        if step == 1 and start in (None, 0) and stop is None:
            return None
    if not dynamic[2] and d is not None and start is not None and not dynamic[0]:
        # A static start on a known length: normalize it so that it needs no run-time fix.
        sn = start + d if start < 0 else start
        if sn < 0 and step < 0:
            return 0, 0, 1, 0
        start = max(sn, 0)
    if not dynamic[2]:
        if step > 0:
            b = 0 if start is None else start
            e = MAX if stop is None else stop
        else:
            b = MAX if start is None else start
            e = MIN if stop is None else stop
        b, e = (_clamp(v) if isinstance(v, int) else _vec1(ctx, v) for v in (b, e))
        if step < 0 and start is not None and (dynamic[0] or start < 0):
            e = _fix_end(ctx, x, axis, b, e, None)
        return b, e, _clamp(step), None
    # A run-time step: numpy's defaults depend on its sign.
    st = _vec1(ctx, step)
    neg = ctx.op("Less", st, i64(ctx, [0]))
    if start is None:
        b = ctx.op("Where", neg, i64(ctx, [MAX]), i64(ctx, [MIN]))
    else:
        b = _clamp(start) if isinstance(start, int) else _vec1(ctx, start)
    if stop is None:
        e = ctx.op("Where", neg, i64(ctx, [MIN]), i64(ctx, [MAX]))
    else:
        e = _clamp(stop) if isinstance(stop, int) else _vec1(ctx, stop)
    if start is not None and (dynamic[0] or start < 0):
        e = _fix_end(ctx, x, axis, b, e, neg)
    return b, e, st, None


def _fix_end(ctx, x: Array, axis: int, start: Bound, end: Bound, neg: Any) -> Any:
    """``end`` replaced by 0 where numpy's start is before the first element (start < -len)
    with a negative step (``neg``: the run-time sign test, or None for a static negative step)."""
    d = _length(ctx, x, axis)
    if isinstance(start, int) and start < -2**62:  # before the first element of any array
        before = ctx.const(np.array([True]))
    elif isinstance(start, int):
        # start + d < 0  <=>  d < -start
        before = ctx.op("Less", i64(ctx, [d]) if isinstance(d, int) else d, i64(ctx, [-start]))
    elif isinstance(d, int):
        before = ctx.op("Less", start, i64(ctx, [-d]))
    else:
        before = ctx.op("Less", start, ctx.op("Neg", d))  # not start + d: it could overflow
    if neg is not None:
        before = ctx.op("And", before, neg)
    return ctx.op("Where", before, i64(ctx, [0]), i64(ctx, [end]) if isinstance(end, int) else end)


def _vector(ctx, values: list[Bound]) -> Any:
    if all(isinstance(v, int) for v in values):
        return i64(ctx, values)
    parts = [i64(ctx, [v]) if isinstance(v, int) else v for v in values]
    return parts[0] if len(parts) == 1 else ctx.op("Concat", *parts, axis=0)


def _int_as_slice(x: Array, it: Item) -> tuple[int, int, int]:
    v = it.value
    end = v + 1 if v != -1 else MAX
    return v, end, 1


def apply_basic(ctx, x: Array, plan: IndexPlan) -> Array:
    """``x`` after the plan's slices, integers and new axes (see the module docstring).

    Index arrays, masks and 0-d booleans keep their axes (0-d booleans get their new axis of
    length 1); the advanced stage then works on them.
    """
    items = plan.items
    shape: list[int | None] = list(x.shape)
    entries: list[tuple[int, Bound, Bound, Bound]] = []
    for it in items:
        if it.kind == SLICE:
            b = slice_bounds(ctx, x, it.axis, it.value)
            if b is not None:
                entries.append((it.axis, b[0], b[1], b[2]))
                shape[it.axis] = b[3]
    ints = [it for it in items if it.kind == INT]
    static_ints = [it for it in ints if isinstance(it.value, int)]
    dynamic_ints = [it for it in ints if not isinstance(it.value, int)]
    leading = [it.axis for it in static_ints] == list(range(len(static_ints)))
    # Fewest nodes: GatherND for >= 2 leading static ints alone (x[1, 2]); static ints merged
    # into the Slice and Squeezed when there is a Slice anyway or several ints; else Gather.
    use_gathernd = not entries and len(static_ints) >= 2 and leading
    merge = not use_gathernd and (bool(entries) or len(static_ints) >= 2)
    if merge:
        for it in static_ints:
            entries.append((it.axis, *_int_as_slice(x, it)))
    out = x
    if entries:
        entries.sort(key=lambda e: e[0])
        steps = [e[3] for e in entries]
        args = [out, _vector(ctx, [e[1] for e in entries]), _vector(ctx, [e[2] for e in entries]),
                i64(ctx, [e[0] for e in entries])]
        if any(not (isinstance(s, int) and s == 1) for s in steps):
            args.append(_vector(ctx, steps))
        out = Array(ctx.op("Slice", *args), x.dtype, tuple(shape))
    alive = list(range(x.ndim))  # original axis of each current axis
    if use_gathernd:
        idx = i64(ctx, [it.value for it in static_ints])
        out = Array(ctx.op("GatherND", out, idx), x.dtype, out.shape[len(static_ints):])
        alive = alive[len(static_ints):]
    elif merge and static_ints:
        axes = [it.axis for it in static_ints]
        out = Array(ctx.op("Squeeze", out, i64(ctx, axes)), x.dtype,
                    tuple(d for a, d in enumerate(out.shape) if a not in axes))
        alive = [a for a in alive if a not in axes]
    else:
        dynamic_ints = static_ints + dynamic_ints
    for it in sorted(dynamic_ints, key=lambda it: -it.axis):
        pos = alive.index(it.axis)
        idx = i64(ctx, it.value) if isinstance(it.value, int) else to_index(ctx, it.value, True)
        out = Array(ctx.op("Gather", out, idx, axis=pos), x.dtype,
                    out.shape[:pos] + out.shape[pos + 1:])
        # An index out of bounds fails this Gather at run time: the suffix tells the runtime
        # numpy's axis, so the call raises numpy's IndexError (runtime/index_errors.py).
        out.value.producer().name += f"{INDEX_AXIS}{it.axis}"
        alive.remove(it.axis)
    new_axes = [plan.out_position(i) for i, it in enumerate(items) if it.kind in (NEWAXIS, BOOL0)]
    if new_axes:
        shape = list(out.shape)
        for a in new_axes:
            shape.insert(a, 1)
        out = Array(ctx.op("Unsqueeze", out, i64(ctx, new_axes)), x.dtype, tuple(shape))
    return out

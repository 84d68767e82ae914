"""Rearranging and assembling arrays: ``np.rot90``, ``np.row_stack``, ``np.unstack``,
``np.block``, ``np.resize``, ``np.broadcast_shapes``.

Input: arrays (or values ``np.asarray`` takes), axes and counts known at conversion time,
shapes whose entries may be run-time integers (``x.shape``). Output: numpy's result, built on
the lowered functions numpy's own implementation uses:

* ``rot90(m, k=1, axes=(0, 1))``: flips and a transpose, as numpy composes them (a view in
  numpy: a write through it is refused, see ``frontend/lower/view_calls.py``);
* ``row_stack`` is ``vstack``; ``unstack(x, axis=0)``: the tuple of ``x``'s slices along
  ``axis`` (its length must be known at conversion time);
* ``block(arrays)``: nested lists concatenated innermost along the last axis, each leaf given
  the result's rank with leading 1s first (numpy's ``_block``); the nesting depth must be the
  same everywhere;
* ``resize(a, new_shape)``: ``a``'s elements in C order, repeated cyclically to fill
  ``new_shape`` (zeros for an empty ``a``);
* ``broadcast_shapes(*shapes)``: the broadcast shape, a tuple of Python ints and run-time
  ints; dimensions that do not broadcast fail at run time when only the run time knows them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import lookup, register

__all__: list[str] = []

_I64 = np.dtype(np.int64)


def _np(fn: Any, ctx, *args, **kwargs) -> Any:
    """The registered lowering of numpy function ``fn``."""
    return lookup(fn).fn(ctx, *args, **kwargs)


@register(np.rot90)
def rot90(ctx, m, k=1, axes=(0, 1)):
    a = ctx.asarray(m)
    axes = tuple(ctx.static(axes, "axes"))
    k = ctx.static(k, "k")
    if len(axes) != 2:
        raise ctx.error("len(axes) must be 2 (numpy raises ValueError)")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == a.ndim:
        raise ctx.error("Axes must be different (numpy raises ValueError)")
    if not all(-a.ndim <= ax < a.ndim for ax in axes):
        raise ctx.error(f"Axes={axes} out of range for array of ndim={a.ndim} (numpy raises "
                        "ValueError)")
    k %= 4
    if k == 0:
        return a  # numpy's m[:]: a view of all of m
    if k == 2:
        return _np(np.flip, ctx, _np(np.flip, ctx, a, axes[0]), axes[1])
    perm = list(range(a.ndim))
    i, j = (ax % a.ndim for ax in axes)
    perm[i], perm[j] = perm[j], perm[i]
    if k == 1:
        return _np(np.transpose, ctx, _np(np.flip, ctx, a, axes[1]), perm)
    return _np(np.flip, ctx, _np(np.transpose, ctx, a, perm), axes[1])


@register(np.row_stack)
def row_stack(ctx, tup, *, dtype=None, casting="same_kind"):
    return _np(np.vstack, ctx, tup, dtype=dtype, casting=casting)


@register(np.unstack)
def unstack(ctx, x, /, *, axis=0):
    a = ctx.asarray(x)
    if a.ndim == 0:
        raise ctx.error("Input array must be at least 1-d (numpy raises ValueError)")
    axis = ctx.static(axis, "axis")
    if not -a.ndim <= axis < a.ndim:
        raise ctx.error(f"axis {axis} is out of bounds for array of dimension {a.ndim} (numpy "
                        "raises AxisError)")
    n = a.shape[axis]
    if n is None:
        raise ctx.error("np.unstack: the number of arrays (the length of the axis) must be "
                        "known at conversion time; index the axis in a loop instead")
    moved = _np(np.moveaxis, ctx, a, axis, 0)
    return tuple(Array(ctx.op("Gather", moved, ctx.const(np.array(i, np.int64)), axis=0),
                       a.dtype, moved.shape[1:]) for i in range(n))


def _depth(ctx, obj: Any) -> int:
    if isinstance(obj, tuple):
        raise ctx.error("np.block: arrays must be nested lists, not tuples (numpy raises "
                        "TypeError)")
    if not isinstance(obj, list):
        return 0
    if not obj:
        raise ctx.error("np.block: lists cannot be empty (numpy raises ValueError)")
    depths = {_depth(ctx, o) for o in obj}
    if len(depths) != 1:
        raise ctx.error("np.block: list depths are mismatched (numpy raises ValueError)")
    return depths.pop() + 1


@register(np.block)
def block(ctx, arrays):
    depth = _depth(ctx, arrays)
    leaves: list[Array] = []

    def collect(o):
        if isinstance(o, list):
            for v in o:
                collect(v)
        else:
            a = ctx.asarray(o)
            leaves.append(Array(a.value, a.dtype, a.shape))
    collect(arrays)
    ndim = max(depth, max(a.ndim for a in leaves))
    it = iter(leaves)

    def build(o, d):
        if d == depth:
            a = next(it)
            if a.ndim < ndim:
                a = _np(np.reshape, ctx, a, (1,) * (ndim - a.ndim)
                        + tuple(ctx.dim(a, i) for i in range(a.ndim)))
            return a
        parts = [build(v, d + 1) for v in o]
        return _np(np.concatenate, ctx, parts, axis=-(depth - d))
    result = build(arrays, 0)
    if depth == 0:  # np.block(x): a copy of the array
        result = _np(np.copy, ctx, result)
    return result


@register(np.resize)
def resize(ctx, a, new_shape):
    x = ctx.asarray(a)
    x = Array(x.value, x.dtype, x.shape)
    shape = new_shape if isinstance(new_shape, (tuple, list)) else (new_shape,)
    for d in shape:
        if not isinstance(d, Array) and d < 0:
            raise ctx.error("all elements of `new_shape` must be non-negative (numpy raises "
                            "ValueError)")
    flat = _np(np.ravel, ctx, x)
    total: Any = 1
    for d in shape:
        total = _np(np.multiply, ctx, total, d) if isinstance(d, Array) or \
            isinstance(total, Array) else total * d
    size = Array(ctx.op("Size", flat), _I64, ())
    # a zero after the elements: an empty a picks it everywhere (numpy gives zeros)
    buf = ctx.op("Concat", flat, ctx.const(np.zeros(1, x.dtype)), axis=0)
    picks = _np(np.remainder, ctx, _np(np.arange, ctx, total), _np(np.maximum, ctx, size, 1))
    taken = Array(ctx.op("Gather", buf, picks, axis=0), x.dtype, (None,))
    return _np(np.reshape, ctx, taken, tuple(shape))


@register(np.broadcast_shapes)
def broadcast_shapes(ctx, *args):
    shapes = [s if isinstance(s, (tuple, list)) else (s,) for s in args]
    nd = max((len(s) for s in shapes), default=0)
    out: list[Any] = []
    for i in range(-nd, 0):
        dims = [s[i] for s in shapes if len(s) >= -i]
        static = [d for d in dims if not isinstance(d, Array)]
        known = {d for d in static if d != 1}
        if len(known) > 1:
            raise ctx.error(f"shape mismatch: objects cannot be broadcast to a single shape "
                            f"({args}; numpy raises ValueError)")
        dynamic = [d for d in dims if isinstance(d, Array)]
        if not dynamic:
            out.append(known.pop() if known else 1)
            continue
        # the one size other than 1 (else 1); every other must be 1 or equal to it
        vals = [ctx.cast(ctx.asarray(d), _I64) for d in dims]
        non1 = [_np(np.where, ctx, _np(np.equal, ctx, v, 1), -1, v) for v in vals]
        top = non1[0]
        for v in non1[1:]:
            top = _np(np.maximum, ctx, top, v)
        size = _np(np.where, ctx, _np(np.equal, ctx, top, -1), 1, top)
        bad: Any = False
        for v in vals:
            ok = _np(np.logical_or, ctx, _np(np.equal, ctx, v, 1), _np(np.equal, ctx, v, size))
            bad = _np(np.logical_or, ctx, bad, _np(np.logical_not, ctx, ok))
        size = runtime_check(ctx, bad, Array(size.value, _I64, ()),
                             "shape_mismatch_objects_cannot_be_broadcast",
                             "ValueError: shape mismatch: objects cannot be broadcast to a "
                             "single shape")
        out.append(Array(size.value, _I64, (), weak=True))
    return tuple(out)

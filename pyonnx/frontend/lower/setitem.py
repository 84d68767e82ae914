"""Item assignment ``x[index] = value`` on one array value, as numpy writes it.

Input: the Array written to, the evaluated subscript (every form the reads accept: ints, slices
with any step and run-time bounds, ``...``, None, integer arrays, boolean masks, tuples of
those) and the value. Output: the new Array (x is functional in ONNX: the write makes a new
value; :mod:`aliases` rebinds every name that sees the same numpy memory).

The write is one ``pyonnx.SetItem`` node, kept high-level until
``pyonnx.passes.lower_setitem.LowerSetItemPass`` lowers it (so that a loop writing row ``i``
on iteration ``i`` can become a scan output):

* ``x[i] = v`` with one integer: ``SetItem[kind="row"](x, i, v)``, ``v`` cast and broadcast to
  ``x.shape[1:]``; ``x[i, j] = v`` with several: ``SetItem[kind="point"](x, [i, j], v)``;
* slices, integers and new axes (:mod:`setitem_basic`): Expand, Concat or ScatterND on the
  written axes; one boolean mask and a one-element value, or ``x[m] = f(x[m])`` (:mod:`setitem_mask`): one
  Where;
* every other form: ``SetItem[kind="flat"](x, positions, values)`` where ``positions`` is the
  subscript applied to ``arange(x.size).reshape(x.shape)`` (the read machinery computes which
  elements numpy selects, in numpy's order) and ``values`` is ``v`` broadcast to that
  selection; ``unique=0`` when an index array may repeat a position (numpy keeps the last).

The value is cast to x's dtype as numpy's setitem casts (unsafe for arrays; a Python int that
does not fit is numpy's OverflowError); it broadcasts to the selection as numpy broadcasts it
(leading length-1 dimensions of the value may be dropped).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import sequences
from pyonnx.frontend.graph.values import Array, is_static

__all__ = ["setitem", "add_at", "DOMAIN"]

DOMAIN = "pyonnx"
_I64 = np.dtype(np.int64)


def setitem(ctx, x: Array, index: Any, value: Any) -> Array:
    """The value of ``x`` after ``x[index] = value``.

    Raises:
        ConversionError: numpy refuses the subscript or the value, and that is known now.
    """
    from pyonnx.frontend.graph.indexing import plan

    index = sequences.lists_as_arrays(ctx, index)  # x[keep] = v with a run-time list
    if x.weak:
        raise ctx.error("a Python number does not support item assignment (Python raises "
                        "TypeError); use an array")
    v = _value(ctx, x, value)
    ctx.custom_domains[DOMAIN] = 1
    p = plan(ctx, x, index)
    if (x.ndim >= 1 and len(p.items) >= 1 and p.items[0].kind == "int"
            and all(it.kind == "slice" and _full(it.value) for it in p.items[1:])):
        # x[i] = v (also x[i, :, ...]): the row form the loop rewrite recognizes.
        i = p.items[0].value
        if is_static(i):
            n = x.shape[0]
            if n is not None and not -n <= i < n:
                raise ctx.error(f"index {i} is out of bounds for axis 0 with size {n} "
                                "(numpy raises IndexError)")
        dynamic = not is_static(i)
        i = ctx.cast(ctx.asarray(i), _I64)
        row = _broadcast(ctx, v, x.shape[1:], lambda: ctx.op("Shape", x, start=1))
        out = ctx.op("SetItem", x, i, row, domain=DOMAIN, kind="row")
        if dynamic:
            # A run-time index out of bounds fails the ScatterND this becomes: the suffix tells
            # the runtime numpy's axis (and the size when known), so the call raises numpy's
            # IndexError (runtime/index_errors.py).
            from pyonnx.frontend.graph.indexing.basic import INDEX_AXIS
            size = f"_size{x.shape[0]}" if isinstance(x.shape[0], int) else ""
            out.producer().name += f"{INDEX_AXIS}0{size}"
        return _typed(out, x)
    ints = _leading_ints(p.items)
    if ints >= 2:
        # x[i, j] = v (also x[i, j, :]): one point, its index a vector (no index arithmetic).
        idx = []
        for axis, it in enumerate(p.items[:ints]):
            i = it.value
            if is_static(i):
                n = x.shape[axis]
                if n is not None and not -n <= i < n:
                    raise ctx.error(f"index {i} is out of bounds for axis {axis} with size {n} "
                                    "(numpy raises IndexError)")
            i = ctx.cast(ctx.asarray(i), _I64)
            idx.append(ctx.op("Reshape", i, ctx.const(np.array([1], np.int64))))
        vector = ctx.op("Concat", *idx, axis=0)
        tail = x.shape[ints:]
        point = _broadcast(ctx, v, tail, lambda: ctx.op("Shape", x, start=ints))
        out = ctx.op("SetItem", x, vector, point, domain=DOMAIN, kind="point")
        return _typed(out, x)
    if not p.advanced:
        # Slices, integers, new axes: Expand, Where, Concat or ScatterND (no flat positions).
        from pyonnx.frontend.lower.setitem_basic import basic_write

        out = basic_write(ctx, x, p, v)
        if out is not None:
            return out
    else:
        # x[m] = c: one Where.
        from pyonnx.frontend.lower.setitem_mask import mask_apply, mask_fill

        out = mask_fill(ctx, x, p, v)
        if out is None:
            out = mask_apply(ctx, x, p, v)
        if out is not None:
            return out
    positions, values = _selection(ctx, x, index, v)
    unique = not any(it.kind == "array" and not _distinct(it.value) for it in p.items)
    out = ctx.op("SetItem", x, positions, values, domain=DOMAIN, kind="flat",
                 unique=int(unique))
    return _typed(out, x)


def add_at(ctx, x: Array, index: Any, value: Any, negate: bool = False) -> Array:
    """The value of ``x`` after ``np.add.at(x, index, value)`` (``np.subtract.at`` with
    ``negate``): every selected position accumulates, repeated ones as often as they repeat."""
    from pyonnx.frontend.numpy_calls import lookup

    v = ctx.asarray(value)
    # numpy computes x[i] + v in the ufunc's dtype and casts back (unsafe, like setitem).
    if negate:
        v = lookup(np.negative).fn(ctx, v)
    v = ctx.cast(Array(v.value, v.dtype, v.shape), x.dtype)
    ctx.custom_domains[DOMAIN] = 1
    positions, values = _selection(ctx, x, index, v)
    out = ctx.op("SetItem", x, positions, values, domain=DOMAIN, kind="flat", unique=0,
                 reduction="add")
    return _typed(out, x)


def _selection(ctx, x: Array, index: Any, v: Array) -> tuple[Array, Array]:
    """The flat positions ``x[index]`` selects (the subscript applied to
    ``arange(x.size).reshape(x.shape)``: numpy's own element order) and ``v`` broadcast to
    them."""
    from pyonnx.frontend.graph.indexing import getitem

    iota = Array(ctx.op("Range", ctx.const(np.array(0, np.int64)), _size(ctx, x),
                        ctx.const(np.array(1, np.int64))), _I64, (x.static_size,))
    # allowzero: a 0 in x's shape is a 0-length dimension, not "copy the input's dimension"
    # (without it, a (2, 0) target fails at run time).
    iota = Array(ctx.op("Reshape", iota, ctx.shape_of(x), allowzero=1), _I64, x.shape)
    positions = getitem(ctx, iota, index)
    return positions, _broadcast(ctx, v, positions.shape, lambda: ctx.shape_of(positions))


def _typed(out: Any, x: Array) -> Array:
    """The SetItem result with its tensor type set (the lowering pass reads the dtype)."""
    from pyonnx.frontend.graph import dtypes

    out.type = ir.TensorType(dtypes.to_ir(x.dtype))
    return Array(out, x.dtype, x.shape)


def _leading_ints(items: list) -> int:
    """How many integer items lead a subscript whose other items are all ``:`` (0 if not)."""
    k = 0
    while k < len(items) and items[k].kind == "int":
        k += 1
    if all(it.kind == "slice" and _full(it.value) for it in items[k:]):
        return k
    return 0


def _full(s: Any) -> bool:
    return isinstance(s, slice) and s.start is None and s.stop is None and s.step is None


def _distinct(values: Any) -> bool:
    """Whether a static index array has no repeated entry (then no deduplication is needed)."""
    if isinstance(values, np.ndarray):
        flat = values.reshape(-1)
        return len(np.unique(flat)) == flat.size and bool((flat >= 0).all() or (flat < 0).all())
    return False


def _size(ctx, x: Array) -> Any:
    if x.static_size is not None:
        return ctx.const(np.array(x.static_size, np.int64))
    return ctx.op("Size", x)


def _value(ctx, x: Array, value: Any) -> Array:
    """``value`` as numpy's setitem converts it for an array of x's dtype."""
    if is_static(value) and not isinstance(value, np.ndarray):
        arr = np.asarray(value)
        if arr.dtype.kind == "f" and x.dtype.kind in "iu" and \
                not np.isfinite(arr).all():
            raise ctx.error("cannot convert float NaN or infinity to integer (numpy raises "
                            "ValueError)")
        if isinstance(value, (bool, int, float)) and not isinstance(value, np.generic):
            return Array(ctx.const(value, x.dtype), x.dtype, ())
        if isinstance(value, (list, tuple)):
            return ctx.cast(ctx.asarray(value), x.dtype)
    v = ctx.asarray(value)
    return ctx.cast(Array(v.value, v.dtype, v.shape), x.dtype)


def _broadcast(ctx, v: Array, shape: tuple, shape_value: Callable[[], Any]) -> Array:
    """``v`` broadcast to the selection ``shape`` as numpy's setitem does (extra leading
    length-1 dimensions of the value are dropped first); ``shape_value`` makes the selection's
    int64 shape vector when a dimension is only known at run time."""
    from pyonnx.frontend.numpy_calls import lookup

    while v.ndim > len(shape) and v.shape[0] == 1:
        v = Array(ctx.op("Squeeze", v, ctx.const(np.array([0], np.int64))), v.dtype, v.shape[1:])
    if v.ndim > len(shape):
        raise ctx.error(f"could not broadcast input array from shape {_fmt(v.shape)} into shape "
                        f"{_fmt(shape)} (numpy raises ValueError)")
    target = tuple(shape)
    if v.shape == target and None not in target:
        return v
    if None in target or None in v.shape:
        # Run-time dimensions: Expand follows numpy's broadcasting; a value numpy could not
        # broadcast makes the write fail at run time.
        return Array(ctx.op("Expand", v, shape_value()), v.dtype, target)
    return lookup(np.broadcast_to).fn(ctx, v, target)


def _fmt(shape: tuple) -> str:
    return "(" + ",".join("?" if d is None else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"

"""Slice writes into a freshly filled array (``np.zeros``, ``np.empty``, ``np.full`` of a
scalar: a ``ConstantOfShape``): the regions a write leaves are made anew at their own shapes.

Input: the array ``x`` written to by :mod:`setitem_basic`'s concat form and the normalized
bounds of a region of it. Output: the region's values without slicing ``x`` (``filled_piece``),
and x's dimensions read from the fill's shape vector, not ``Shape(x)`` (``length``), so that
``y = np.zeros(3 * n); y[n:] = v`` never materializes the whole zeros array (it was 0.34 ms of
a 1e6-element write, and kept alive only by the slices and shape reads).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array

__all__ = ["filled", "filled_piece", "length"]


def length(ctx, x: Array, a: int) -> Any:
    """Dimension ``a`` of ``x``: an int when known, else an int64 (1,) value (from the fill's
    shape vector when ``x`` is a fill: Shape(x) would keep x alive)."""
    d = x.shape[a]
    if d is not None:
        return d
    fill = filled(x)
    if fill is not None:
        return ctx.op("Slice", fill.inputs[0], ctx.const(np.array([a], np.int64)),
                      ctx.const(np.array([a + 1], np.int64)))
    return ctx.op("Shape", x, start=a, end=a + 1)


def filled(x: Array):
    """The ``ConstantOfShape`` node that made ``x`` (``np.zeros(n)``, ``np.empty``, ``np.full``
    with a scalar), or None."""
    producer = x.value.producer()
    if producer is None or producer.op_type != "ConstantOfShape" or producer.domain != "":
        return None
    return producer


def filled_piece(ctx, b, x: Array, fill, bounds: list, end_marker: int) -> Any:
    """A region of a filled array made anew at its own shape, not sliced out of the whole one
    (``y = np.zeros(3 * n); y[n:] = v``: the whole array is then never materialized).

    Args:
        b: setitem_basic's bound arithmetic (``sub``, ``value``).
        x: the filled array; ``fill`` its ConstantOfShape node (:func:`filled`).
        bounds: ``(axis, lo, hi)`` of the region's restricted axes, normalized
            (0 <= lo <= hi <= length; ``hi`` may be ``end_marker``: to the end).
    """
    dims: list[Any] = []
    for axis in range(x.ndim):
        d: Any = x.shape[axis] if isinstance(x.shape[axis], int) else None
        for a, lo, hi in bounds:
            if a == axis:
                end = d if isinstance(hi, int) and hi == end_marker else hi
                if end is None:
                    end = length(ctx, x, axis)
                d = b.sub(end, lo)
        dims.append(length(ctx, x, axis) if d is None else d)
    shape = ctx.const(np.array(dims, np.int64)) if all(isinstance(d, int) for d in dims) else \
        ctx.op("Concat", *[b.value(d) for d in dims], axis=0)
    value = fill.attributes.get("value")
    attrs = {} if value is None else {"value": value.value}
    return ctx.op("ConstantOfShape", shape, **attrs)

"""numpy splits: split, array_split, hsplit, vsplit, dsplit.

Input: an array and a static number of sections or static split indices. Output: a list of
Arrays, slices along the axis. When the axis length is known only at run time the section
bounds are computed at run time, and an unequal ``np.split`` makes the run fail (numpy raises).

Supported syntax:

* ``np.split``/``np.array_split``/``np.hsplit``/``np.vsplit``/``np.dsplit`` with a static
  number of sections or static indices (a list of arrays).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape.common import (
    _BIG, I64, axis_of, guard, ints, slice_axis, to_array,
)


# --------------------------------------------------------------------------- splitting
def _split(ctx, ary: Any, indices_or_sections: Any, axis: Any, equal: bool, name: str) -> list[Array]:
    a = to_array(ctx, ary)
    ax = axis_of(ctx, axis, a.ndim)
    spec = ctx.static(indices_or_sections, "indices_or_sections")
    n = a.shape[ax]
    if isinstance(spec, (tuple, list, np.ndarray)):
        points = [operator.index(p) for p in np.asarray(spec).reshape(-1).tolist()] \
            if len(spec) else []
        bounds: list[Any] = [0] + points + [_BIG]
        outs = []
        for st, en in zip(bounds[:-1], bounds[1:]):
            outs.append(slice_axis(ctx, a, ax, st, en))
        return outs
    try:
        sections = operator.index(spec)
    except TypeError:
        raise ctx.error(f"{name}: indices_or_sections must be an int or a sequence of ints") \
            from None
    if sections <= 0:
        raise ctx.error("number sections must be larger than 0.")
    if n is not None:
        if equal and n % sections:
            raise ctx.error("array split does not result in an equal division")
        each, extras = divmod(n, sections)
        sizes = [each + 1] * extras + [each] * (sections - extras)
        starts = np.cumsum([0] + sizes).tolist()
        return [slice_axis(ctx, a, ax, starts[i], starts[i + 1]) for i in range(sections)]
    # The section boundaries i * (n // k) + min(i, n % k), computed at run time.
    n_vec = ctx.op("Shape", a, start=ax, end=ax + 1)
    k = ints(ctx, [sections])
    each = ctx.op("Div", n_vec, k)
    extras = ctx.op("Mod", n_vec, k)
    i = ints(ctx, range(sections + 1))
    points = Array(ctx.op("Add", ctx.op("Mul", i, each), ctx.op("Min", i, extras)), I64,
                   (sections + 1,))
    if equal:
        ok = ctx.op("Squeeze", ctx.op("Equal", extras, ints(ctx, [0])), ints(ctx, [0]))
        points = guard(ctx, ok, points)
    outs = []
    for j in range(sections):
        st = slice_axis(ctx, points, 0, j, j + 1)
        en = slice_axis(ctx, points, 0, j + 1, j + 2)
        outs.append(slice_axis(ctx, a, ax, st, en))
    return outs


@register(np.array_split)
def array_split(ctx, ary, indices_or_sections, axis=0):
    """``np.array_split(x, sections_or_indices, axis=0)`` (static sections or indices)."""
    return _split(ctx, ary, indices_or_sections, axis, False, "np.array_split")


@register(np.split)
def split(ctx, ary, indices_or_sections, axis=0):
    """``np.split(x, sections_or_indices, axis=0)``; unequal sections raise (statically, or
    as a failed run when the length is only known at run time)."""
    return _split(ctx, ary, indices_or_sections, axis, True, "np.split")


@register(np.hsplit)
def hsplit(ctx, ary, indices_or_sections):
    """``np.hsplit(x, ...)``: axis 1, or 0 for 1-D."""
    a = to_array(ctx, ary)
    if a.ndim == 0:
        raise ctx.error("hsplit only works on arrays of 1 or more dimensions")
    return _split(ctx, a, indices_or_sections, 1 if a.ndim > 1 else 0, True, "np.hsplit")


@register(np.vsplit)
def vsplit(ctx, ary, indices_or_sections):
    """``np.vsplit(x, ...)``: axis 0 of an array of at least 2 dimensions."""
    a = to_array(ctx, ary)
    if a.ndim < 2:
        raise ctx.error("vsplit only works on arrays of 2 or more dimensions")
    return _split(ctx, a, indices_or_sections, 0, True, "np.vsplit")


@register(np.dsplit)
def dsplit(ctx, ary, indices_or_sections):
    """``np.dsplit(x, ...)``: axis 2 of an array of at least 3 dimensions."""
    a = to_array(ctx, ary)
    if a.ndim < 3:
        raise ctx.error("dsplit only works on arrays of 3 or more dimensions")
    return _split(ctx, a, indices_or_sections, 2, True, "np.dsplit")

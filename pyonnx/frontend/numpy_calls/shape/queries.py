"""numpy shape queries: shape, ndim, size.

Input: an array (or any value ``np.asarray`` accepts). Output: static ints for dimensions known
at conversion time, weak int64 0-d Arrays for the others (as ``x.shape[0]`` gives);
``np.ndim`` is always static.

Supported syntax:

* ``np.shape(x)``, ``np.ndim(x)``, ``np.size(x, axis=None)``.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape.common import I64, axis_of, to_array


# ------------------------------------------------------------------- shape queries
@register(np.shape)
def shape_(ctx, a):
    """``np.shape(x)``: a tuple of ints and integer 0-d arrays (unknown dims)."""
    a = to_array(ctx, a)
    return tuple(ctx.dim(a, i) for i in range(a.ndim))


@register(np.ndim)
def ndim_(ctx, a):
    """``np.ndim(x)``: always known."""
    return to_array(ctx, a).ndim


@register(np.size)
def size_(ctx, a, axis=None):
    """``np.size(x, axis=None)``."""
    a = to_array(ctx, a)
    axis = ctx.static(axis, "axis")
    if axis is None:
        known = a.static_size
        if known is not None:
            return known
        n = ctx.op("ReduceProd", ctx.op("Shape", a), keepdims=0)
        return Array(n, I64, (), weak=True)
    return ctx.dim(a, axis_of(ctx, axis, a.ndim))

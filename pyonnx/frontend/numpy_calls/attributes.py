"""Array attributes: ``x.shape``, ``x.ndim``, ``x.size``, ``x.dtype``, ``x.T``, ``x.mT``,
``x.itemsize``.

``x.shape`` is a tuple whose entries are Python ints where the dimension is known at conversion
time and weak int64 0-d Arrays otherwise (numpy gives Python ints, which are weak), so
``x.shape[0] * 2`` and ``np.zeros(x.shape)`` work for any size. ``x.ndim`` and ``x.dtype`` are
always static.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register_attribute


@register_attribute("shape")
def shape(ctx, x: Array):
    return tuple(ctx.dim(x, i) for i in range(x.ndim))


@register_attribute("ndim")
def ndim(ctx, x: Array):
    return x.ndim


@register_attribute("dtype")
def dtype(ctx, x: Array):
    return x.dtype


@register_attribute("itemsize")
def itemsize(ctx, x: Array):
    return x.dtype.itemsize


@register_attribute("size")
def size(ctx, x: Array):
    known = x.static_size
    if known is not None:
        return known
    n = ctx.op("ReduceProd", ctx.op("Shape", x), keepdims=0)
    return Array(n, np.dtype(np.int64), (), weak=True)


@register_attribute("T")
def transpose_attr(ctx, x: Array):
    if x.ndim < 2:
        return x
    perm = list(reversed(range(x.ndim)))
    return Array(ctx.op("Transpose", x, perm=perm), x.dtype, tuple(reversed(x.shape)))


@register_attribute("mT")
def matrix_transpose_attr(ctx, x: Array):
    """``x.mT`` swaps the last two axes only (``x.T`` reverses all of them)."""
    from pyonnx.frontend.numpy_calls.shape import matrix_transpose

    return matrix_transpose(ctx, x)

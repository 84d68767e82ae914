"""Reductions of complex values that are not sums: prod/cumprod (complex multiplication along an
axis), np.linalg.norm, and the ufunc methods ``reduce``/``accumulate`` of add and multiply.

Input: a Complex (for norm, a Complex or a real Array) and numpy's keyword arguments. Output:
numpy's value (a Complex, or a real Array for norm).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex, make, static_dim, zeros_like
from pyonnx.frontend.lower import complex_ops as ops
from pyonnx.frontend.lower.complex_functions import partwise
from pyonnx.frontend.numpy_calls import lookup

__all__ = ["FUNCS", "prod", "norm"]


def prod(ctx, z: Complex, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: Any = False, cumulative: bool = False, **rest) -> Complex:
    """``z.prod(axis)`` and ``cumprod``: complex multiplication along a statically sized axis
    (unrolled; numpy multiplies in order)."""
    from pyonnx.frontend.graph.indexing import getitem as real_getitem

    if dtype is not None or out is not None or rest:
        raise ctx.error("dtype=/out=/where=/initial= are not supported with complex prod yet")
    axis = ctx.static(axis, "axis")
    keepdims = ctx.static(keepdims, "keepdims")
    if axis is None:
        z = partwise(ctx, z, lambda p: lookup(np.ravel).fn(ctx, p))
        axis = 0
    if not isinstance(axis, int):
        raise ctx.error("prod over several axes of a complex array is not supported yet")
    axis = axis % max(z.ndim, 1)
    n = static_dim(ctx, z.shape[axis], "the product of complex values needs the axis length "
                   "known at conversion time")
    if n > 256:
        raise ctx.error("the product of more than 256 complex values along an axis is not "
                        "supported yet")
    r = ops.R(ctx)
    idx = lambda k: (slice(None),) * axis + (k,)  # noqa: E731
    accr = acci = None
    outs = []
    for k in range(n):
        pr, pi = real_getitem(ctx, z.re, idx(k)), real_getitem(ctx, z.im, idx(k))
        if accr is None:
            accr, acci = pr, pi
        else:
            accr, acci = ops.mul(r, accr, acci, pr, pi)
        outs.append((accr, acci))
    if cumulative and n == 0:
        return make(ctx, z.re, z.im, z.dtype)  # an empty axis: the empty array
    if cumulative:
        st = lookup(np.stack).fn
        return make(ctx, st(ctx, [o[0] for o in outs], axis=axis),
                    st(ctx, [o[1] for o in outs], axis=axis), z.dtype)
    if n == 0:
        shape_src = lookup(np.sum).fn(ctx, z.re, axis=axis)
        accr = r.add(zeros_like(ctx, shape_src), 1.0)
        acci = zeros_like(ctx, shape_src)
    res = make(ctx, accr, acci, z.dtype)
    if keepdims:
        res = partwise(ctx, res, lambda p: lookup(np.expand_dims).fn(ctx, p, axis))
    return res


def norm(ctx, x, ord=None, axis=None, keepdims=False):
    """``np.linalg.norm(z)``: the 2-norm of the flattened values (Frobenius for matrices),
    sqrt(sum(re**2 + im**2)) as numpy computes it for complex input."""
    if ord is not None or axis is not None or not isinstance(x, Complex):
        raise ctx.error("np.linalg.norm of a complex array takes no ord=/axis= here yet")
    r = ops.R(ctx)
    flat = partwise(ctx, x, lambda p: lookup(np.ravel).fn(ctx, p))
    s = r.sum(r.add(r.multiply(flat.re, flat.re), r.multiply(flat.im, flat.im)))
    out = r.sqrt(s)
    if ctx.static(keepdims, "keepdims"):
        out = lookup(np.reshape).fn(ctx, out, (1,) * x.ndim)
    return out



def _prod_fn(ctx, a, axis=None, dtype=None, out=None, keepdims=False, **rest):
    return prod(ctx, a, axis, dtype, out, keepdims, **rest)


def _cumprod_fn(ctx, a, axis=None, dtype=None, out=None):
    return prod(ctx, a, axis, dtype, out, cumulative=True)


FUNCS = {np.prod: _prod_fn, np.cumprod: _cumprod_fn, np.linalg.norm: norm}

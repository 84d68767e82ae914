"""Reductions of complex values that are not plain sums: prod/cumprod (complex multiplication
along an axis), mean (the sum divided as numpy divides it), np.linalg.norm (and vector_norm,
matrix_norm), and the ufunc methods ``reduce`` (add, multiply, maximum, minimum) and
``accumulate`` (add, multiply).

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

__all__ = ["FUNCS", "METHODS", "prod", "norm", "mean", "divide_by_count"]


def prod(ctx, z: Complex, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: Any = False, cumulative: bool = False, **rest) -> Complex:
    """``z.prod(axis)`` and ``cumprod``: complex multiplication along a statically sized axis
    (unrolled; numpy multiplies in order, the reduction from its identity ``1+0j``, the
    accumulation from the first element)."""
    from pyonnx.frontend.graph.indexing import getitem as real_getitem

    if dtype is not None or out is not None or rest:
        raise ctx.error("dtype=/out=/where=/initial= are not supported with complex prod yet")
    axis = ctx.static(axis, "axis")
    keepdims = ctx.static(keepdims, "keepdims")
    if z.ndim == 0 and axis in (None, 0, -1, ()) and not cumulative:
        # numpy's product of a 0-d array (np.multiply.reduce(z) reduces axis 0 of it too):
        # its one element, a new value (fuzz seed 20001522 crashed on z.shape[0])
        return Complex(_copy(ctx, z.re), _copy(ctx, z.im), z.dtype)
    if axis is None or z.ndim == 0 and axis in (0, -1):
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
        if accr is None and cumulative:  # accumulate starts from the first element
            accr, acci = pr, pi
        elif accr is None:  # reduce from numpy's identity: 1 * (inf+0j) is inf+nanj
            accr, acci = ops.mul(r, 1.0, 0.0, pr, pi)
        else:
            accr, acci = ops.mul(r, accr, acci, pr, pi)
        outs.append((accr, acci))
    if cumulative and n == 0:
        from pyonnx.frontend.lower.complex_functions import fresh_copy
        return fresh_copy(make(ctx, z.re, z.im, z.dtype), z)  # an empty axis: a new empty array
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
    """``np.linalg.norm(z, ord, axis, keepdims)``. numpy's fast path (no axis, and ord None, or
    'fro' of a matrix, or 2 of a vector) is sqrt(re.re + im.im) over the flattened values; every
    other norm is the real norm of ``abs(z)`` (numpy takes ``abs(x)`` first for them, and
    ``(conj(x) * x).real`` is ``abs(x)**2``), whose lowering refuses the SVD-based matrix norms
    (ord 2, -2, 'nuc')."""
    if not isinstance(x, Complex):
        raise ctx.error("pyonnx bug: complex norm of a real value")
    ord_ = ctx.static(ord, "ord")
    axis_ = ctx.static(axis, "axis")
    fast = axis_ is None and (ord_ is None or (ord_ in ("f", "fro") and x.ndim == 2)
                              or (ord_ == 2 and x.ndim == 1))
    if not fast:
        return lookup(np.linalg.norm).fn(ctx, ops.hypot(ctx, x.re, x.im), ord, axis, keepdims)
    r = ops.R(ctx)
    flat = partwise(ctx, x, lambda p: lookup(np.ravel).fn(ctx, p))
    s = r.sum(r.add(r.multiply(flat.re, flat.re), r.multiply(flat.im, flat.im)))
    out = r.sqrt(s)
    if ctx.static(keepdims, "keepdims"):
        out = lookup(np.reshape).fn(ctx, out, (1,) * x.ndim)
    return out


def _of_abs(func):
    """np.linalg.vector_norm/matrix_norm: the real norm of ``abs(z)`` (as numpy computes them)."""
    def lower(ctx, x, *args, **kwargs):
        return lookup(func).fn(ctx, ops.hypot(ctx, x.re, x.im), *args, **kwargs)
    return lower


def mean(ctx, a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """``np.mean(z, axis, keepdims)`` as numpy's ``_mean``: the sum, then a *complex* division by
    the count (an intp, so complex128 arithmetic even for complex64): Smith's division by
    ``n + 0j``, whose ``inf * 0`` makes ``mean([inf+0j, 1])`` ``inf+nanj`` as in numpy."""
    if out is not None:
        raise ctx.error("np.mean(..., out=) of a complex array is not supported yet; assign "
                        "the result")
    if dtype is not None:  # numpy sums in ``dtype`` (a real one cannot hold the values)
        dt = np.dtype(ctx.static(dtype, "dtype"))
        if dt.kind != "c":
            raise ctx.error(f"Cannot cast ufunc 'add' input from dtype('{a.dtype}') to "
                            f"dtype('{dt}') with casting rule 'same_kind' (numpy raises "
                            "TypeError); take np.real(z) or np.abs(z) first")
        a = make(ctx, a.re, a.im, dt)
    r = ops.R(ctx)
    keepdims = ctx.static(keepdims, "keepdims")
    ones = r.add(zeros_like(ctx, a.re), 1.0)
    if where is not None:  # the selected items only (a count of 0 gives nan+nanj)
        ones = r.where(where, ones, 0.0)
        a = make(ctx, r.where(where, a.re, 0.0), r.where(where, a.im, 0.0), a.dtype)
    s = partwise(ctx, a, lambda p: r.sum(p, axis=axis, keepdims=keepdims))
    count = r.sum(ones, axis=axis, keepdims=keepdims)
    return divide_by_count(ctx, s, count)


def divide_by_count(ctx, total: Complex, count) -> Complex:
    """``total / count`` as numpy's mean and nanmean divide (a complex division by an intp
    count, in complex128 arithmetic, cast back to ``total``'s dtype)."""
    r = ops.R(ctx)
    wide = np.float64
    qr, qi = ops.div(r, ctx.cast(total.re, wide), ctx.cast(total.im, wide),
                     ctx.cast(count, wide), 0.0)
    return make(ctx, qr, qi, total.dtype)


def _ufunc_method(kind: str):
    """``np.add.reduce``/``np.multiply.reduce``/``np.maximum.reduce``/``np.minimum.reduce`` and
    ``np.add.accumulate``/``np.multiply.accumulate`` (numpy's default axis: 0)."""
    def lower(ctx, a, axis=0, dtype=None, out=None, keepdims=False, **rest):
        from pyonnx.frontend.lower.complex_order import FUNCS as ORDER
        if dtype is not None or out is not None or rest:
            raise ctx.error(f"np.{kind}(..., dtype=/out=/initial=/where=) of a complex array is "
                            "not supported yet")
        if not isinstance(a, Complex):
            raise ctx.error(f"np.{kind} of this value is not supported with complex values")
        accumulate = kind.endswith("accumulate")
        if accumulate and ctx.static(keepdims, "keepdims"):
            raise ctx.error("accumulate() got an unexpected keyword argument 'keepdims'")
        if kind == "add.reduce":
            return partwise(ctx, a, lambda p: lookup(np.sum).fn(ctx, p, axis=axis,
                                                                keepdims=keepdims))
        if kind == "add.accumulate":
            return partwise(ctx, a, lambda p: lookup(np.cumsum).fn(ctx, p, axis=axis))
        if kind.startswith("multiply"):
            if axis is None and accumulate:
                raise ctx.error("accumulate does not allow multiple axes")
            return prod(ctx, a, axis, keepdims=keepdims, cumulative=accumulate)
        extreme = ORDER[np.max if kind.startswith("maximum") else np.min]
        return extreme(ctx, a, axis=axis, keepdims=keepdims)
    return lower


def _prod_fn(ctx, a, axis=None, dtype=None, out=None, keepdims=False, **rest):
    return prod(ctx, a, axis, dtype, out, keepdims, **rest)


def _cumprod_fn(ctx, a, axis=None, dtype=None, out=None):
    return prod(ctx, a, axis, dtype, out, cumulative=True)


FUNCS = {np.prod: _prod_fn, np.cumprod: _cumprod_fn, np.linalg.norm: norm, np.mean: mean,
         np.linalg.vector_norm: _of_abs(np.linalg.vector_norm),
         np.linalg.matrix_norm: _of_abs(np.linalg.matrix_norm),
         np.add.reduce: _ufunc_method("add.reduce"),
         np.multiply.reduce: _ufunc_method("multiply.reduce"),
         np.maximum.reduce: _ufunc_method("maximum.reduce"),
         np.minimum.reduce: _ufunc_method("minimum.reduce"),
         np.add.accumulate: _ufunc_method("add.accumulate"),
         np.multiply.accumulate: _ufunc_method("multiply.accumulate")}
METHODS = {"mean": mean}


def _copy(ctx, a):
    from pyonnx.frontend.graph.values import Array
    return Array(ctx.op("Identity", a), a.dtype, a.shape)

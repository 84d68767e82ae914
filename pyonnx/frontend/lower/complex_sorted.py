"""Functions of the sorted complex values: np.median and np.unique, as numpy computes them.

Input: a :class:`Complex` (axis None or one static axis for median; the flattened array for
unique). Output: numpy's value: a Complex (and, for unique, int64 index/inverse/count arrays).

Both sort with :mod:`complex_order`'s lexicographic order with NaNs last:

* ``median`` is numpy's ``_median``: the mean of the middle one or two sorted values, which
  numpy computes as their sum divided by the count ``1`` or ``2`` (a *complex* division, so an
  infinite part gives a NaN other part, :func:`complex_reductions.divide_by_count`); when the
  axis holds an element with a NaN part the result is the last sorted element (numpy's
  ``_median_nancheck`` copies it). Selecting the middle values by a mask and a sum, not a
  Gather, keeps an empty axis well defined (0/0: NaN in both parts, numpy's value).
* ``unique`` keeps a sorted value that differs from its predecessor (``!=``: either part);
  every element with a NaN part is one value (numpy's ``equal_nan=True`` for complex: the
  first NaN of the sorted order is kept). The sort is stable, so ``return_index`` gives first
  occurrences, as numpy's mergesort does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph.complex_values import Complex, make, zeros_like
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.complex_ops import R
from pyonnx.frontend.lower.complex_unique_axis import _ints, _shift

__all__ = ["FUNCS", "median", "unique"]

_I64 = np.dtype(np.int64)


def _has_nan(r: R, re, im):
    return r.logical_or(r.isnan(re), r.isnan(im))


def median(ctx, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``np.median(z, axis=None|int, keepdims=False)`` (see the module docstring)."""
    from pyonnx.frontend.lower.complex_order import FUNCS as ORDER
    from pyonnx.frontend.lower.complex_reductions import divide_by_count

    if out is not None:
        raise ctx.error("np.median(..., out=) of a complex array is not supported; assign the "
                        "result")
    if not isinstance(a, Complex):
        raise ctx.error("np.median of this value is not supported with complex values")
    axis = ctx.static(axis, "axis")
    keepdims = bool(ctx.static(keepdims, "keepdims"))
    ctx.static(overwrite_input, "overwrite_input")  # (numpy may reorder its argument: a copy here)
    r = R(ctx)
    z = a
    if axis is None:
        z = make(ctx, r.ravel(a.re), r.ravel(a.im), a.dtype)
        ax = 0
    elif isinstance(axis, (int, np.integer)):
        if not -max(a.ndim, 1) <= axis < max(a.ndim, 1) or a.ndim == 0:
            raise ctx.error(f"np.median: axis {axis} is out of bounds for array of dimension "
                            f"{a.ndim} (numpy raises AxisError)")
        ax = int(axis) % a.ndim
    else:
        return _median_axes(ctx, a, axis, keepdims)
    s = ORDER[np.sort](ctx, z, axis=ax)
    n = r.sum(r.add(zeros_like(ctx, s.re), 1.0), axis=ax, keepdims=True)  # the count, float
    # positions along the axis, broadcast against the sorted values
    pos = r.cumsum(r.add(zeros_like(ctx, s.re), 1.0), axis=ax)
    pos = r.subtract(pos, 1.0)  # 0, 1, ..., n-1 (float: exact for any realistic length)
    half = r.floor(r.multiply(n, 0.5))
    lo = r.floor(r.multiply(r.subtract(n, 1.0), 0.5))
    middle = r.logical_or(r.equal(pos, half), r.equal(pos, lo))
    last = r.equal(pos, r.subtract(n, 1.0))
    zero = 0.0

    def pick(mask, p):
        return r.sum(r.where(mask, p, zero), axis=ax, keepdims=keepdims)

    total = make(ctx, pick(middle, s.re), pick(middle, s.im), a.dtype)
    count = r.sum(r.astype(middle, np.float64), axis=ax, keepdims=keepdims)
    mean = divide_by_count(ctx, total, count)
    nan = r.any(_has_nan(r, s.re, s.im), axis=ax, keepdims=keepdims)
    last_re, last_im = pick(last, s.re), pick(last, s.im)
    re, im = r.where(nan, last_re, mean.re), r.where(nan, last_im, mean.im)
    if axis is None and keepdims:
        re, im = r.reshape(re, (1,) * a.ndim), r.reshape(im, (1,) * a.ndim)
    elif axis is None:
        re, im = r.reshape(re, ()), r.reshape(im, ())
    return make(ctx, re, im, a.dtype)


def _median_axes(ctx, a: Complex, axis: Any, keepdims: bool) -> Complex:
    """``np.median`` over a tuple of axes, as numpy's ``_ureduce``: the axes moved to the end
    and merged into one, the median over it, the reduced axes put back as 1s for keepdims."""
    try:
        axes = tuple(int(x) for x in axis)
    except (TypeError, ValueError):
        raise ctx.error(f"np.median: axis must be None, an int or a tuple of ints, not "
                        f"{axis!r}") from None
    nd = a.ndim
    if any(not -nd <= x < nd for x in axes):
        raise ctx.error(f"np.median: axis {axis} is out of bounds for array of dimension {nd} "
                        "(numpy raises AxisError)")
    axes = tuple(x % nd for x in axes)
    if len(set(axes)) != len(axes):
        raise ctx.error("np.median: repeated axis (numpy raises ValueError)")
    keep = [i for i in range(nd) if i not in axes]
    perm = keep + list(axes)
    # (the kept dimensions of the input, in order, then the merged axes)
    shape = ctx.op("Gather", ctx.op("Shape", a.re.value), _ints(ctx, *keep), axis=0) if keep \
        else None
    target = ctx.op("Concat", shape, _ints(ctx, -1), axis=0) if keep else _ints(ctx, -1)
    sizes = [a.shape[i] for i in axes]
    merged = None if None in sizes else int(np.prod(sizes))
    static = tuple(a.shape[i] for i in keep) + (merged,)

    def fold(p: Array) -> Array:
        t = Array(ctx.op("Transpose", p.value, perm=perm), p.dtype,
                  tuple(p.shape[i] for i in perm))
        return Array(ctx.op("Reshape", t.value, target), p.dtype, static)
    m = median(ctx, make(ctx, fold(a.re), fold(a.im), a.dtype), axis=-1)
    if keepdims:
        r = R(ctx)
        return make(ctx, r.expand_dims(m.re, tuple(sorted(axes))),
                    r.expand_dims(m.im, tuple(sorted(axes))), a.dtype)
    return m


def unique(ctx, ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, sorted=True):
    """``np.unique(z, return_index, return_inverse, return_counts)`` of the flattened array."""
    from pyonnx.frontend.lower.complex_order import argsort

    flags = [bool(ctx.static(v, k)) for k, v in (("return_index", return_index),
                                                 ("return_inverse", return_inverse),
                                                 ("return_counts", return_counts))]
    axis = ctx.static(axis, "axis")
    if axis is not None:  # (numpy's rows as structured values: equal_nan does not apply)
        if not isinstance(ar, Complex) or not isinstance(axis, (int, np.integer)):
            raise ctx.error("np.unique(z, axis=...) of a complex array needs one integer axis")
        if not ctx.static(sorted, "sorted"):
            raise ctx.error("np.unique(..., sorted=False) returns numpy's hash-table order, "
                            "which pyonnx cannot reproduce; use the default sorted=True")
        from pyonnx.frontend.lower.complex_unique_axis import unique_axis
        return unique_axis(ctx, ar, int(axis), flags)
    if not ctx.static(sorted, "sorted"):
        raise ctx.error("np.unique(..., sorted=False) returns numpy's hash-table order, which "
                        "pyonnx cannot reproduce; use the default sorted=True")
    if not ctx.static(equal_nan, "equal_nan"):
        raise ctx.error("np.unique(..., equal_nan=False) of a complex array is not supported "
                        "yet (numpy's default equal_nan=True is)")
    if not isinstance(ar, Complex):
        raise ctx.error("np.unique of this value is not supported with complex values")
    r = R(ctx)
    x = make(ctx, r.ravel(ar.re), r.ravel(ar.im), ar.dtype)
    perm = argsort(ctx, x, 0)
    sr, si = r.take(x.re, perm), r.take(x.im, perm)
    nan = _has_nan(r, sr, si)
    # the predecessor of each sorted value (the first one's is itself: it always starts)
    pr, pi, pnan = _shift(ctx, sr), _shift(ctx, si), _shift(ctx, nan)
    differs = r.logical_or(r.not_equal(sr, pr), r.not_equal(si, pi))
    first_pos = r.equal(r.cumsum(r.add(zeros_like(ctx, sr), 1.0)), 1.0)
    starts = r.where(nan, r.logical_not(pnan), differs)
    starts = r.logical_or(starts, first_pos)
    first = Array(ctx.op("Reshape", ctx.op("NonZero", starts.value), _ints(ctx, -1)), _I64,
                  (None,))
    values = make(ctx, r.take(sr, first), r.take(si, first), ar.dtype)
    if not any(flags):
        # numpy 2.4 answers this form from a hash table, which keeps the first NaN of the
        # input (in order); with flags it sorts, keeping the first NaN of the sorted values
        # (a NaN appended so that argmax and take work on an empty input too)
        pad = r.concatenate((x.re, r.reshape(r.multiply(r.sum(x.re), np.nan), (1,))))
        in_nan = r.concatenate((_has_nan(r, x.re, x.im), r.isnan(r.reshape(
            r.multiply(r.sum(x.re), np.nan), (1,)))))
        k = r.argmax(in_nan)
        pad_im = r.concatenate((x.im, r.reshape(r.sum(x.im), (1,))))
        kept = r.take(nan, first)
        return make(ctx, r.where(kept, r.take(pad, k), values.re),
                    r.where(kept, r.take(pad_im, k), values.im), ar.dtype)
    out: list[Any] = [values]
    if flags[0]:
        out.append(r.take(perm, first))
    if flags[1]:
        group = r.subtract(r.cumsum(r.astype(starts, np.int64)), 1)
        zeros = ctx.op("ConstantOfShape", ctx.op("Shape", perm.value),
                       value=ir.tensor(np.zeros(1, dtype=np.int64)))
        inverse = ctx.op("ScatterElements", zeros, perm.value, group.value, axis=0)
        out.append(Array(ctx.op("Reshape", inverse, ctx.shape_of(ar.re), allowzero=1), _I64,
                         ar.re.shape))
    if flags[2]:
        n = ctx.op("Shape", perm.value)
        bounds = ctx.op("Concat", first.value, n, axis=0)
        hi = ctx.op("Slice", bounds, _ints(ctx, 1), _ints(ctx, 2**62), _ints(ctx, 0))
        lo = ctx.op("Slice", bounds, _ints(ctx, 0), _ints(ctx, -1), _ints(ctx, 0))
        out.append(Array(ctx.op("Sub", hi, lo), _I64, (None,)))
    return tuple(out)


FUNCS = {np.median: median, np.unique: unique}

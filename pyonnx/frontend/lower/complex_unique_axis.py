"""``np.unique(z, axis=k)`` of a complex array: its unique slices along ``axis`` (issue 11).

Input: a Complex ``z``, a static axis, numpy's return_index/return_inverse/return_counts flags.
Output: numpy's tuple (or the values alone): the unique slices, sorted, then int64 first
indices, inverse (1-D, one per slice) and counts.

numpy moves the axis to the front, makes each slice one row and views it as a structured
value whose fields are the row's elements, sorts the rows (field by field, each in complex
sort order: real part, then imaginary part, NaNs last in their four classes) and keeps a row
where it differs from the previous one under ``!=`` (a NaN is never equal, so rows with a NaN
are never merged, whatever ``equal_nan`` says). Here the sort is a stable sort by each
column's sort keys (complex_order), the last column first (a Loop over the run-time row
length), so a kept row is the first of its group, as numpy's mergesort (``return_index``)
gives. Not covered: slices of run-time length 0 (numpy's rows of no fields) fail at run time.
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph.complex_values import Complex, make, zeros_like
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.complex_arith import R

__all__ = ["unique_axis"]

_I64 = np.dtype(np.int64)


def _ints(ctx, *values: int):
    """An int64 1-d constant (shared with complex_sorted, which imports it from here)."""
    return ctx.const(np.array(values, dtype=np.int64))


def _shift(ctx, p: Array) -> Array:
    """``p`` moved one place right along its only axis, its first element repeated."""
    head = ctx.op("Slice", p.value, _ints(ctx, 0), _ints(ctx, 1), _ints(ctx, 0))
    body = ctx.op("Slice", p.value, _ints(ctx, 0), _ints(ctx, -1), _ints(ctx, 0))
    return Array(ctx.op("Concat", head, body, axis=0), p.dtype, p.shape)


def unique_axis(ctx, z: Complex, axis: int, flags: list[bool]):
    """See the module docstring; ``flags`` = (return_index, return_inverse, return_counts)."""
    from pyonnx.frontend.lower.complex_order import _sort_keys

    nd = z.ndim
    if not -max(nd, 1) <= axis < max(nd, 1) or nd == 0:
        raise ctx.error(f"np.unique: axis {axis} is out of bounds for array of dimension {nd} "
                        "(numpy raises AxisError)")
    ax = axis % nd
    order = [ax] + [i for i in range(nd) if i != ax]
    rest = tuple(z.shape[i] for i in order[1:])
    if 0 in rest:
        raise ctx.error("np.unique(z, axis=...) of a complex array whose slices are empty is "
                        "not supported")
    r = R(ctx)
    moved_shape = ctx.op("Shape", ctx.op("Transpose", z.re.value, perm=order))
    rest_shape = ctx.op("Slice", moved_shape, _ints(ctx, 1), _ints(ctx, nd), _ints(ctx, 0))
    ncols = ctx.op("ReduceProd", rest_shape, _ints(ctx, 0), keepdims=1)

    def rows(p: Array) -> Array:
        t = Array(ctx.op("Transpose", p.value, perm=order), p.dtype,
                  tuple(p.shape[i] for i in order))
        target = ctx.op("Concat", _ints(ctx, -1), ncols, axis=0)
        return Array(ctx.op("Reshape", t.value, target), p.dtype, (z.shape[ax], None))

    re, im = rows(z.re), rows(z.im)
    # numpy's row order (column 0 primary): stable sorts by the last column first, then by
    # each earlier one (a Loop over the run-time number of columns)
    n_rows = ctx.op("Shape", re.value, start=0, end=1)
    start = Array(ctx.op("Range", ctx.const(np.array(0, np.int64)),
                         ctx.op("Squeeze", n_rows, _ints(ctx, 0)),
                         ctx.const(np.array(1, np.int64))), _I64, (None,))

    def body(i, states):
        (perm,) = states
        c = r.subtract(Array(ctx.op("Squeeze", ncols, _ints(ctx, 0)), _I64, ()),
                       r.add(i, 1))
        col = make(ctx, r.take(r.take(re, c, axis=1), perm),
                   r.take(r.take(im, c, axis=1), perm), z.dtype)
        return [r.take(perm, r.lexsort(tuple(_sort_keys(ctx, col)), axis=0))]

    from pyonnx.frontend.graph.loops import counted_loop
    (perm,) = counted_loop(ctx, ctx.op("Squeeze", ncols, _ints(ctx, 0)), [start], body)
    perm = Array(perm.value, _I64, (z.shape[ax],))
    sr, si = r.take(re, perm, axis=0), r.take(im, perm, axis=0)
    pr, pi = _shift(ctx, sr), _shift(ctx, si)
    differs = r.any(r.logical_or(r.not_equal(sr, pr), r.not_equal(si, pi)), axis=1)
    position = r.cumsum(r.add(zeros_like(ctx, r.astype(differs, np.int64)), 1))
    starts = r.logical_or(differs, r.equal(position, 1))  # (the first row always starts)
    first = Array(ctx.op("Reshape", ctx.op("NonZero", starts.value), _ints(ctx, -1)), _I64,
                  (None,))
    inverse_order = [order.index(i) for i in range(nd)]
    moved = (None,) + rest

    def back(p: Array) -> Array:
        kept = r.take(p, first, axis=0)
        target = ctx.op("Concat", _ints(ctx, -1), rest_shape, axis=0)
        shaped = Array(ctx.op("Reshape", kept.value, target), p.dtype, moved)
        return Array(ctx.op("Transpose", shaped.value, perm=inverse_order), p.dtype,
                     tuple(moved[i] for i in inverse_order))

    values = make(ctx, back(sr), back(si), z.dtype)
    if not any(flags):
        return values
    out: list = [values]
    if flags[0]:
        out.append(r.take(perm, first))
    if flags[1]:
        group = r.subtract(r.cumsum(r.astype(starts, np.int64)), 1)
        zeros = ctx.op("ConstantOfShape", ctx.op("Shape", perm.value),
                       value=ir.tensor(np.zeros(1, dtype=np.int64)))
        inverse = ctx.op("ScatterElements", zeros, perm.value, group.value, axis=0)
        out.append(Array(inverse, _I64, (z.shape[ax],)))
    if flags[2]:
        n = ctx.op("Shape", perm.value)
        bounds = ctx.op("Concat", first.value, n, axis=0)
        hi = ctx.op("Slice", bounds, _ints(ctx, 1), _ints(ctx, 2**62), _ints(ctx, 0))
        lo = ctx.op("Slice", bounds, _ints(ctx, 0), _ints(ctx, -1), _ints(ctx, 0))
        out.append(Array(ctx.op("Sub", hi, lo), _I64, (None,)))
    return tuple(out)

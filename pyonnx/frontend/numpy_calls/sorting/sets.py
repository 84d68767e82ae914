"""numpy set functions: unique, isin.

Input: arrays (or values ``ctx.asarray`` accepts). Output: ``np.unique``'s sorted values (and
int64 index, inverse and count arrays), whose lengths are known only at run time; ``np.isin``'s
bool Array of the element's shape. Both sort with the stable ordering core (NaNs last).

Supported syntax:

* ``np.unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
  equal_nan=True, sorted=True)`` with ``axis=None`` (numpy 2 shapes: the inverse has ``ar``'s
  shape); ``return_index`` gives first occurrences, as numpy does.
* ``np.isin(element, test_elements, assume_unique=False, invert=False, kind=None)``.

Not supported: ``np.unique(..., axis=k)``, ``sorted=False`` (numpy then uses a hash table whose
order cannot be reproduced), ``np.unique_values`` (hash order).
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.sorting.common import (
    _BOOL, _I64, _INT64_MAX, _bool_flag, _flatten, _ints, _length, emit_exact,
)
from pyonnx.frontend.numpy_calls.sorting.ordering import sort_along
from pyonnx.frontend.numpy_calls.sorting.searching import searchsorted_flat


def _scatter_inverse(ctx, perm: Array, values) -> ir.Value:
    """``out[perm[i]] = values[i]`` for a 1-D permutation ``perm``."""
    zeros = ctx.op("ConstantOfShape", ctx.op("Shape", perm),
                   value=ir.tensor(np.zeros(1, dtype=np.int64)))
    return ctx.op("ScatterElements", zeros, perm, values, axis=0)


# ---------------------------------------------------------------------------- unique
@register(np.unique)
def unique(ctx, ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, sorted=True):
    """``np.unique(ar, return_index, return_inverse, return_counts, axis=None, equal_nan=True)``.

    Sorted unique values of the flattened ``ar``; ``return_index``: first occurrences;
    ``return_inverse``: shaped like ``ar`` (numpy 2); all index outputs int64. With
    ``equal_nan=True`` all NaNs collapse into one (last) value.
    """
    want_index = _bool_flag(ctx, return_index, "return_index")
    want_inverse = _bool_flag(ctx, return_inverse, "return_inverse")
    want_counts = _bool_flag(ctx, return_counts, "return_counts")
    eq_nan = _bool_flag(ctx, equal_nan, "equal_nan")
    if ctx.static(axis, "axis") is not None:
        raise ctx.error("np.unique(..., axis=...) is not supported; only axis=None (unique "
                        "elements of the flattened array)")
    if not _bool_flag(ctx, sorted, "sorted"):
        raise ctx.error("np.unique(..., sorted=False) returns numpy's hash-table order, which "
                        "pyonnx cannot reproduce; use the default sorted=True")
    x0 = to_array(ctx, ar)
    x = _flatten(ctx, x0)
    s, perm = sort_along(ctx, x, 0)
    n = _length(ctx, x, 0)
    # A new value starts where the sorted neighbour differs (NaNs equal when equal_nan).
    head = ctx.op("Slice", s, _ints(ctx, 1), _ints(ctx, _INT64_MAX), _ints(ctx, 0))
    tail = ctx.op("Slice", s, _ints(ctx, 0), _ints(ctx, -1), _ints(ctx, 0))
    pair = [Array(head, x.dtype, (None,)), Array(tail, x.dtype, (None,))]
    same = emit_exact(ctx, "Equal", pair, x.dtype, out_dtype=_BOOL).value
    if eq_nan and x.dtype.kind == "f":
        if x.dtype == np.float16:
            head = ctx.cast(Array(head, x.dtype, (None,)), np.float32).value
            tail = ctx.cast(Array(tail, x.dtype, (None,)), np.float32).value
        both_nan = ctx.op("And", ctx.op("IsNaN", head), ctx.op("IsNaN", tail))
        same = ctx.op("Or", same, both_nan)
    starts = ctx.op("Concat", ctx.const(np.array([True])), ctx.op("Not", same), axis=0)
    starts = ctx.op("Slice", starts, _ints(ctx, 0), n, _ints(ctx, 0))  # n == 0: no start
    first = ctx.op("Reshape", ctx.op("NonZero", starts), _ints(ctx, -1))
    values = Array(ctx.op("Gather", s, first, axis=0), x.dtype, (None,))
    if not (want_index or want_inverse or want_counts):
        return values
    out = [values]
    if want_index:
        out.append(Array(ctx.op("Gather", perm, first, axis=0), _I64, (None,)))
    if want_inverse:
        group = ctx.op("CumSum", ctx.op("Cast", starts, to=dtypes.to_ir(_I64)),
                       ctx.const(np.array(0, np.int64)))
        group = ctx.op("Sub", group, ctx.const(np.array(1, np.int64)))
        inverse = _scatter_inverse(ctx, perm, group)
        inverse = ctx.op("Reshape", inverse, ctx.shape_of(x0), allowzero=1)
        out.append(Array(inverse, _I64, x0.shape))
    if want_counts:
        bounds = ctx.op("Concat", first, n, axis=0)
        hi = ctx.op("Slice", bounds, _ints(ctx, 1), _ints(ctx, _INT64_MAX), _ints(ctx, 0))
        lo = ctx.op("Slice", bounds, _ints(ctx, 0), _ints(ctx, -1), _ints(ctx, 0))
        out.append(Array(ctx.op("Sub", hi, lo), _I64, (None,)))
    return tuple(out)


# ------------------------------------------------------------------------------ isin
@register(np.isin)
def isin(ctx, element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """``np.isin(element, test_elements, assume_unique=False, invert=False, kind=None)``: bool
    of ``element``'s shape, by equality in the arrays' common dtype (NaN is never found).

    ``assume_unique`` only changes numpy's speed for unique inputs and is ignored.
    """
    kind = ctx.static(kind, "kind")
    if kind not in (None, "sort", "table"):
        raise ctx.error(f"np.isin: kind must be None, 'sort' or 'table', got {kind!r}")
    inv = _bool_flag(ctx, invert, "invert")
    _bool_flag(ctx, assume_unique, "assume_unique")
    e = to_array(ctx, element)
    t = to_array(ctx, test_elements)
    if kind == "table" and not all(z.dtype.kind in "biu" for z in (e, t)):
        raise ctx.error("np.isin(kind='table') needs integer or boolean arrays "
                        "(numpy raises ValueError)")
    kinds = {e.dtype.kind, t.dtype.kind}
    if np.dtype(np.uint64) in (e.dtype, t.dtype) and "i" in kinds:
        # numpy compares these exactly or through float64 depending on array sizes.
        raise ctx.error("np.isin between uint64 and signed integers is not supported (numpy's "
                        "result depends on its internal method); cast both to one dtype first")
    dt = np.result_type(e.dtype, t.dtype)
    ts, _ = sort_along(ctx, _flatten(ctx, ctx.cast(t, dt)), 0)
    ev = _flatten(ctx, ctx.cast(e, dt))
    pos = searchsorted_flat(ctx, ts, ev, "left")
    # A sentinel after the sorted tests keeps the Gather in bounds (also for empty tests).
    padded = ctx.op("Concat", ts, ctx.const(np.zeros(1, dt)), axis=0)
    candidate = Array(ctx.op("Gather", padded, pos, axis=0), dt, (None,))
    hit = emit_exact(ctx, "Equal", [candidate, ev], dt, out_dtype=_BOOL).value
    found = ctx.op("And", hit, ctx.op("Less", pos, _length(ctx, ts, 0)))
    if inv:
        found = ctx.op("Not", found)
    if e.ndim != 1:
        found = ctx.op("Reshape", found, ctx.shape_of(e), allowzero=1)
    return Array(found, _BOOL, e.shape)

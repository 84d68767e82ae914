"""numpy binary search: searchsorted.

Input: a sorted 1-D array (or one made sorted by ``sorter``) and the values to find. Output: an
int64 Array of the values' shape. The search is numpy's binary search vectorized in an ONNX
``Loop`` (:func:`searchsorted_flat`, also used by ``np.isin`` and ``np.interp``).

Supported syntax:

* ``np.searchsorted(a, v, side='left'|'right', sorter=None)`` and ``a.searchsorted(...)``:
  computed in ``np.promote_types(v.dtype, a.dtype)`` as numpy does; ``a`` must be sorted (as
  numpy requires); NaNs are ordered last, as numpy's search does.
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.sorting.common import (
    _I64, _INT64_MAX, _flatten, _ints, _length,
)
from pyonnx.frontend.numpy_calls.sorting.ordering import _direct_key

__all__ = ["searchsorted_flat"]


def _search_key(ctx, x: Array) -> tuple[ir.Value, bool]:
    """(key, nan_aware): a key whose plain ``Less`` is numpy's order, or float64 itself
    (``nan_aware``: NaN is larger than everything and equal to NaN, as numpy's ``less``)."""
    key = _direct_key(ctx, x)
    return (x.value, True) if key is None else (key.value, False)


def _less(ctx, x, y, nan_aware: bool):
    lt = ctx.op("Less", x, y)
    if not nan_aware:
        return lt
    return ctx.op("Or", lt, ctx.op("And", ctx.op("IsNaN", y), ctx.op("Not", ctx.op("IsNaN", x))))


def searchsorted_flat(ctx, a: Array, v: Array, side: str) -> Array:
    """``np.searchsorted(a, v, side)`` for 1-D ``a`` and ``v`` of one dtype (int64, 1-D).

    numpy's binary search, vectorized over ``v``: a ``Loop`` halves every ``[lo, hi)`` interval
    per iteration until all are empty (at most 64 iterations), comparing with numpy's order
    (NaNs last). For a sorted ``a`` this is the unique answer numpy's search finds.
    """
    a_key, nan_aware = _search_key(ctx, a)
    v_key, _ = _search_key(ctx, v)
    n = ctx.op("Squeeze", _length(ctx, a, 0), _ints(ctx, 0))
    zero = ctx.const(np.array(0, np.int64))
    one = ctx.const(np.array(1, np.int64))
    lo0 = ctx.op("Expand", zero, ctx.op("Shape", v_key))
    hi0 = ctx.op("Expand", n, ctx.op("Shape", v_key))

    def any_open(lo, hi):
        open_ = ctx.op("Cast", ctx.op("Less", lo, hi), to=dtypes.to_ir(_I64))
        return ctx.op("Greater", ctx.op("ReduceSum", open_, keepdims=0), zero)

    cond0 = any_open(lo0, hi0)
    tensor = lambda d: ir.TensorType(dtypes.to_ir(np.dtype(d)))  # noqa: E731
    # Every body value gets a name unique in the model (the conversion's op counter, so
    # deterministic): onnx-ir's automatic "val_N" names restart per graph, and NameFixPass
    # only dedupes a body against outer names that precede it.
    tag = f"search{ctx._counter}"
    it = ir.Value(name=f"{tag}_i", type=tensor(np.int64), shape=ir.Shape([]))
    cond_in = ir.Value(name=f"{tag}_cond", type=tensor(np.bool_), shape=ir.Shape([]))
    lo_in = ir.Value(name=f"{tag}_lo", type=tensor(np.int64), shape=ir.Shape([None]))
    hi_in = ir.Value(name=f"{tag}_hi", type=tensor(np.int64), shape=ir.Shape([None]))
    with ctx.subgraph() as nodes:
        active = ctx.op("Less", lo_in, hi_in)
        mid = ctx.op("Add", lo_in, ctx.op("Div", ctx.op("Sub", hi_in, lo_in),
                                          ctx.const(np.array(2, np.int64))))
        # Finished entries may sit at n: keep their (ignored) read inside the array.
        probe = ctx.op("Gather", a_key, ctx.op("Min", mid, ctx.op("Sub", n, one)), axis=0)
        if side == "left":  # numpy: a[mid] < v moves right
            right = _less(ctx, probe, v_key, nan_aware)
        else:  # numpy: not v < a[mid] moves right
            right = ctx.op("Not", _less(ctx, v_key, probe, nan_aware))
        go_right = ctx.op("And", active, right)
        go_left = ctx.op("And", active, ctx.op("Not", right))
        lo_out = ctx.op("Where", go_right, ctx.op("Add", mid, one), lo_in)
        hi_out = ctx.op("Where", go_left, mid, hi_in)
        cond_out = any_open(lo_out, hi_out)
    for k, node in enumerate(nodes):
        for j, out in enumerate(node.outputs):
            out.name = f"{tag}_{k}_{j}"
    body = ir.Graph([it, cond_in, lo_in, hi_in], [cond_out, lo_out, hi_out], nodes=nodes,
                    name=f"{ctx.function_name}_searchsorted")
    lo, _ = ctx.op("Loop", None, cond0, lo0, hi0, body=body, outputs=2)
    return Array(lo, _I64, v.shape)


# ----------------------------------------------------------------------- searchsorted
@register(np.searchsorted, methods=("searchsorted",))
def searchsorted(ctx, a, v, side="left", sorter=None):
    """``np.searchsorted(a, v, side='left'|'right', sorter=None)``: int64 of ``v``'s shape.

    ``a`` is 1-D and sorted (or ``a[sorter]`` is); both are compared in
    ``np.promote_types(v.dtype, a.dtype)``, as numpy does (Python scalars are not weak here).
    """
    side = ctx.static(side, "side")
    if side not in ("left", "right"):
        raise ctx.error(f"np.searchsorted: side must be 'left' or 'right', got {side!r}")
    arr = to_array(ctx, a)
    if arr.ndim != 1:
        raise ctx.error(f"np.searchsorted: a must be 1-D, got {arr.ndim}-D")
    vals = to_array(ctx, v)
    dt = np.promote_types(vals.dtype, arr.dtype)
    if sorter is not None:
        order = to_array(ctx, sorter)
        if order.dtype.kind not in "iu" or order.dtype == np.uint64 or order.ndim != 1:
            raise ctx.error("np.searchsorted: sorter must be a 1-D integer array of indices")
        order = ctx.cast(order, _I64)
        # numpy raises for out-of-range sorter entries; a negative one would wrap in Gather,
        # so it is sent out of range to make the run fail as well.
        order = ctx.op("Where", ctx.op("Less", order, ctx.const(np.array(0, np.int64))),
                       ctx.const(np.array(_INT64_MAX, np.int64)), order)
        arr = Array(ctx.op("Gather", arr, order, axis=0), arr.dtype, (None,))
    flat_v = _flatten(ctx, ctx.cast(vals, dt))
    found = searchsorted_flat(ctx, ctx.cast(arr, dt), flat_v, side)
    if vals.ndim == 1:
        return found
    return Array(ctx.op("Reshape", found, ctx.shape_of(vals), allowzero=1), _I64, vals.shape)

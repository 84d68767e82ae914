"""numpy order statistics: quantile, percentile, nanquantile, nanpercentile.

Input: an array and ``q`` known at conversion time, with static ``axis`` and ``keepdims``.
Output: an Array in numpy's result dtype, computed by numpy's ``_quantile`` arithmetic step by
step (its dtypes, its two-sided lerp, NaN slices giving NaN) on the data sorted with the
stable ordering core.

Supported syntax:

* ``np.quantile(a, q, axis=None, keepdims=False, method='linear')`` and
  ``np.percentile(...)`` with ``q`` known at conversion time and any of numpy's 13 methods
  (:mod:`.quantile_methods`).
* ``np.nanquantile`` and ``np.nanpercentile`` (same arguments): a float array's slices without
  their NaNs (NaN where none is left); an integer array as ``np.quantile``. An empty array
  (numpy: ``np.nanmean``'s result) only with a float array and a scalar ``q``; else refused,
  or a run-time error when its size is only known then. A float32/float16 array with a q that
  makes the result float64 is refused (numpy's dtype would depend on the first slice).

Not supported: ``weights=``, run-time ``q``, integer ``q`` with a method other than 'linear'.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import dtypes, kernels
from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.sorting.common import (
    _BOOL, _I64, _axis, _bool_flag, _ints, emit_exact,
)
from pyonnx.frontend.numpy_calls.sorting.ordering import sort_along
from pyonnx.frontend.numpy_calls.sorting.quantile_methods import (
    METHODS, fix_gamma, virtual_indexes,
)

_F64 = np.dtype(np.float64)

# numpy indexes the sorted values at -1 when there are none
_EMPTY = "IndexError: index -1 is out of bounds for axis 0 with size 0"


# ------------------------------------------------------------------ quantile, percentile
def _quantile(ctx, a, qa: np.ndarray, weak_q: bool, axis, keepdims, fname: str,
              method: str = "linear", nan_func: bool = False) -> Array:
    """numpy's ``_quantile_ureduce_func`` + ``_quantile``, step by step (the method's virtual
    indexes and gamma: :mod:`.quantile_methods`).

    ``qa`` is numpy's ``q`` array (after ``/ 100`` for percentile), known at conversion time;
    ``weak_q``: q was a Python int/float (numpy then interpolates with a Python-float gamma).
    ``nan_func``: np.nanquantile/nanpercentile: for a float array numpy's ``_nanquantile_1d``
    on each slice (its NaNs removed, NaN where none is left: :func:`_nan_counts`).
    """
    x = to_array(ctx, a)
    skip_nan = nan_func and x.dtype.kind == "f"
    if qa.ndim > 2:
        raise ctx.error(f"{fname}: q must be a scalar or 1d (numpy raises ValueError)")
    if qa.dtype.kind not in "biuf":
        raise ctx.error(f"{fname}: q must be real numbers")
    if not np.all((qa >= 0) & (qa <= 1)):
        word = "Percentiles must be in the range [0, 100]" if fname == "np.percentile" \
            else "Quantiles must be in the range [0, 1]"
        raise ctx.error(f"{fname}: {word} (numpy raises ValueError)")
    keepdims = _bool_flag(ctx, keepdims, "keepdims")
    axis = ctx.static(axis, "axis")
    nd = x.ndim
    # numpy's _ureduce: the kept axes go first, the reduced ones are merged into one.
    if axis is None:
        reduced = tuple(range(nd))
    else:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        reduced = tuple(sorted(_axis(ctx, ax, nd, fname) for ax in axes))
        if len(set(reduced)) != len(reduced):
            raise ctx.error(f"{fname}: repeated axis (numpy raises ValueError)")
    kept = [i for i in range(nd) if i not in reduced]
    if nd == 0:
        arr = Array(ctx.op("Reshape", x, _ints(ctx, 1)), x.dtype, (1,))
    else:
        moved = ctx.op("Transpose", x, perm=list(reduced) + kept) if nd > 1 else x.value
        known = [x.shape[i] for i in reduced]
        merged = None if any(d is None for d in known) else int(np.prod(known))
        # The merged length is computed, not -1: Reshape's allowzero forbids -1 next to a 0.
        shape_vec = ctx.op("ReduceProd", ctx.op("Gather", ctx.op("Shape", x),
                                                _ints(ctx, *reduced), axis=0), keepdims=1)
        if kept:
            shape_vec = ctx.op("Concat", shape_vec, *(ctx.op("Shape", x, start=i, end=i + 1)
                                                      for i in kept), axis=0)
        arr = Array(ctx.op("Reshape", moved, shape_vec, allowzero=1), x.dtype,
                    (merged,) + tuple(x.shape[i] for i in kept))
    rest = arr.shape[1:]
    # numpy returns np.nanmean(a, axis) for an empty array: no q axes, float64 for ints;
    # the same as here only for a float array and a scalar q. Else: refused, or a run-time
    # error when the size is only known then.
    empty_differs = nan_func and (qa.ndim or not skip_nan)
    if empty_differs and 0 in x.shape:
        raise ctx.error(f"{fname} of an empty array is supported only for a float array and a "
                        "scalar q (numpy then returns np.nanmean's result); pass each q "
                        "separately, or cast the array to float")
    if arr.shape[0] == 0 and not skip_nan:
        raise ctx.error(f"{fname}: index -1 is out of bounds for axis 0 with size 0 (numpy "
                        "raises IndexError on an empty reduction)")
    srt, _ = sort_along(ctx, arr, 0)
    n_minus_1 = ctx.op("Squeeze", ctx.op("Sub", ctx.op("Shape", srt, start=0, end=1),
                                         _ints(ctx, 1)), _ints(ctx, 0))
    qdt = np.dtype(np.int64) if qa.dtype.kind == "b" else qa.dtype
    q_const = ctx.const(qa.astype(qdt))
    q_shape = qa.shape + (1,) * len(rest) if skip_nan else qa.shape
    take = lambda idx: ctx.op("Gather", srt, idx, axis=0)  # noqa: E731
    if empty_differs and None in x.shape:  # (on an integer every result depends on)
        size = ctx.op("ReduceProd", ctx.op("Shape", x), keepdims=0)
        empty = Array(ctx.op("Equal", size, ctx.const(np.array(0, np.int64))), _BOOL, ())
        n_minus_1 = runtime_check(ctx, empty, Array(n_minus_1, _I64, ()),
                                  f"{fname[3:]}_of_an_empty_array", _EMPTY).value
    if skip_nan:
        counts, srt, take = _nan_counts(ctx, arr, srt, qa.shape)
        if empty_differs and None in x.shape:
            counts = runtime_check(ctx, empty, Array(counts, _I64, rest),
                                   f"{fname[3:]}_of_an_empty_array", _EMPTY).value
        n_minus_1 = ctx.op("Sub", counts, ctx.const(np.array(1, np.int64)))
        # q broadcast against the slices: (q..., 1, ...) with the per-slice counts (rest).
        q_const = ctx.op("Reshape", q_const, _ints(ctx, *(qa.shape + (1,) * len(rest))))
    inexact = x.dtype.kind == "f"
    out_q = qa.shape
    discrete = False
    if qdt.kind not in "iu":
        n_values = Array(ctx.op("Add", n_minus_1, ctx.const(np.array(1, np.int64))), _I64,
                         rest if skip_nan else ())
        discrete, vi = virtual_indexes(ctx, method, n_values, Array(q_const, qdt, q_shape))
    elif method != "linear":
        raise ctx.error(f"{fname}: integer quantiles with method={method!r} are not supported; "
                        "pass them as floats")
    if qdt.kind in "iu" or discrete:
        # Integer virtual indexes: numpy takes the elements, no interpolation.
        if not discrete:
            vi = ctx.op("Mul", n_minus_1, ctx.cast(Array(q_const, qdt, q_shape), _I64))
        result = Array(take(vi), x.dtype, out_q + rest)
        result_dt = x.dtype
    else:
        if x.dtype == _BOOL:
            raise ctx.error(f"{fname}: numpy boolean subtract is not supported (numpy raises "
                            "TypeError); cast the array to a number type first")
        n1 = ctx.cast(Array(n_minus_1, _I64, ()), qdt)
        prev = emit_exact(ctx, "Floor", [vi], qdt)
        one = ctx.const_array(np.ones((), qdt))
        nxt = emit_exact(ctx, "Add", [prev, one], qdt)
        above = emit_exact(ctx, "GreaterOrEqual", [vi, n1], qdt, out_dtype=_BOOL)
        below = emit_exact(ctx, "Less", [vi, ctx.const_array(np.zeros((), qdt))], qdt,
                             out_dtype=_BOOL)
        minus_one = ctx.const(np.array(-1, qdt))
        zero = ctx.const(np.array(0, qdt))
        prev = ctx.op("Where", below.value, zero, ctx.op("Where", above.value, minus_one, prev))
        nxt = ctx.op("Where", below.value, zero, ctx.op("Where", above.value, minus_one, nxt))
        prev_a = Array(prev, qdt, vi.shape)
        gamma = fix_gamma(ctx, method, emit_exact(ctx, "Sub", [vi, prev_a], qdt), vi)
        # numpy's index -1 is the last valid value: n - 1 (the slice's count without NaN).
        last = (lambda i: ctx.op("Where", ctx.op("Less", i, ctx.const(np.array(0, np.int64))),
                                 n_minus_1, i)) if skip_nan else (lambda i: i)
        lo = Array(take(last(ctx.cast(prev_a, _I64).value)), x.dtype, out_q + rest)
        hi = Array(take(last(ctx.cast(Array(nxt, qdt, vi.shape), _I64).value)), x.dtype,
                   out_q + rest)
        # numpy's _lerp: a + (b-a)*t, or b - (b-a)*(1-t) where t >= 0.5.
        diff = emit_exact(ctx, "Sub", [hi, lo], x.dtype)
        if weak_q and skip_nan:  # float(gamma) of each slice: its dtype does not count
            t = Array(gamma.value, _F64, out_q + rest)
        elif weak_q:
            t = Array(gamma.value, _F64, (), weak=True)  # float(gamma): q was float64
        else:
            t = gamma if qa.ndim == 0 or skip_nan else Array(
                ctx.op("Reshape", gamma, _ints(ctx, *(qa.shape + (1,) * len(rest)))), qdt,
                qa.shape + (1,) * len(rest))
        mul_dt = np.result_type(x.dtype, 0.5 if weak_q else qdt)
        result_dt = np.result_type(x.dtype, mul_dt)
        one_minus_t = emit_exact(ctx, "Sub", [ctx.const_array(np.ones((), t.dtype)), t],
                                   t.dtype)
        up = emit_exact(ctx, "Mul", [ctx.cast(diff, mul_dt), ctx.cast(t, mul_dt)], mul_dt)
        down = emit_exact(ctx, "Mul", [ctx.cast(diff, mul_dt), ctx.cast(one_minus_t, mul_dt)],
                            mul_dt)
        from_lo = emit_exact(ctx, "Add", [ctx.cast(lo, result_dt), ctx.cast(up, result_dt)],
                               result_dt)
        from_hi = emit_exact(ctx, "Sub", [ctx.cast(hi, result_dt), ctx.cast(down, result_dt)],
                               result_dt)
        half = ctx.const_array(np.array(0.5, t.dtype))
        upper = emit_exact(ctx, "GreaterOrEqual", [t, half], t.dtype, out_dtype=_BOOL)
        result = kernels.where(ctx, upper, from_hi, from_lo)
        result = Array(result.value, result_dt, out_q + rest)
    if skip_nan:
        if result_dt != x.dtype:
            # numpy's apply_along_axis takes the first slice's dtype: x's when it is all NaN.
            raise ctx.error(f"{fname}: with this q numpy returns {result_dt} unless a slice "
                            f"is all NaN (then {x.dtype}); cast the array to {result_dt} first, "
                            "or pass q as a Python float")
        none_left = ctx.op("Equal", counts, ctx.const(np.array(0, np.int64)))
        nan = ctx.const_array(np.array(np.nan, x.dtype))
        result = kernels.where(ctx, Array(none_left, _BOOL, rest), nan, result)
    elif inexact:
        # A slice holding NaN has it last after the sort: numpy's result there is that NaN.
        if qa.ndim == 0 and not rest and result_dt != x.dtype:
            raise ctx.error(f"{fname}: with this q numpy returns {result_dt} unless the data "
                            f"holds NaN (then {x.dtype}); cast the array to {result_dt} first")
        last = ctx.op("Gather", srt, ctx.const(np.array(-1, np.int64)), axis=0)
        last = Array(last, x.dtype, rest)
        nan = Array(ctx.op("IsNaN", ctx.cast(last, np.float32) if x.dtype == np.float16 else last),
                    _BOOL, rest)
        result = kernels.where(ctx, nan, ctx.cast(last, result_dt), result)
    if keepdims:
        shape = list(out_q) + [1 if i in reduced else x.shape[i] for i in range(nd)]
        vec = ctx.op("Concat", ctx.const(np.array(out_q, np.int64)),
                     *(_ints(ctx, 1) if i in reduced else ctx.op("Shape", x, start=i, end=i + 1)
                       for i in range(nd)), axis=0)
        result = Array(ctx.op("Reshape", result, vec, allowzero=1), result_dt, tuple(shape))
    return result


def _nan_counts(ctx, arr: Array, srt: Array, q_shape: tuple):
    """(non-NaN count of each slice along axis 0, ``srt`` with a NaN row appended, take):
    ``take(idx)`` reads ``srt[idx[..., j], j]`` for indexes of shape ``q_shape + rest`` (the
    appended row keeps every index in range when a slice, or the whole axis, is empty)."""
    check = ctx.cast(arr, np.float32) if arr.dtype == np.float16 else arr
    valid = ctx.op("Cast", ctx.op("Not", ctx.op("IsNaN", check)), to=dtypes.to_ir(_I64))
    counts = ctx.op("ReduceSum", valid, _ints(ctx, 0), keepdims=0)
    rest_vec = ctx.op("Shape", srt, start=1)
    row = ctx.op("Expand", ctx.const(np.full((1,) * srt.ndim, np.nan, srt.dtype)),
                 ctx.op("Concat", _ints(ctx, 1), rest_vec, axis=0))
    padded = ctx.op("Concat", srt.value, row, axis=0)
    n_q = int(np.prod(q_shape))

    def take(idx):
        flat = ctx.op("Reshape", ctx.op("Expand", idx, ctx.op("Concat", _ints(ctx, *q_shape),
                                                                 rest_vec, axis=0)),
                      ctx.op("Concat", _ints(ctx, n_q), rest_vec, axis=0), allowzero=1)
        got = ctx.op("GatherElements", padded, flat, axis=0)
        return ctx.op("Reshape", got, ctx.op("Concat", _ints(ctx, *q_shape), rest_vec, axis=0),
                      allowzero=1)
    return counts, srt, take


def _method(ctx, method, fname: str, out, weights) -> str:
    if out is not None:
        raise ctx.error(f"{fname}(..., out=...) is not supported; assign the result")
    if weights is not None:
        raise ctx.error(f"{fname}(..., weights=...) is not supported (it needs "
                        "method='inverted_cdf')")
    method = ctx.static(method, "method")
    if method not in METHODS:
        raise ctx.error(f"{fname}: {method!r} is not a valid method. Use one of: "
                        f"{', '.join(sorted(METHODS))} (numpy raises ValueError)")
    return method


@register(np.quantile)
def quantile(ctx, a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    """``np.quantile(a, q, axis=None, keepdims=False, method=...)`` with ``q`` known at
    conversion time (a Python number, list, tuple or constant array)."""
    method = _method(ctx, method, "np.quantile", out, weights)
    qs = ctx.static(q, "q (the quantiles)")
    weak_q = type(qs) in (int, float)
    return _quantile(ctx, a, np.asanyarray(qs), weak_q, axis, keepdims, "np.quantile", method)


@register(np.percentile)
def percentile(ctx, a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    """``np.percentile(a, q, axis=None, keepdims=False, method=...)`` with ``q`` known at
    conversion time."""
    method = _method(ctx, method, "np.percentile", out, weights)
    qs = ctx.static(q, "q (the percentiles)")
    weak_q = type(qs) in (int, float)
    return _quantile(ctx, a, np.true_divide(qs, 100, out=...), weak_q, axis, keepdims,
                     "np.percentile", method)


@register(np.nanquantile)
def nanquantile(ctx, a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
    """``np.nanquantile(a, q, axis=None, keepdims=False, method=...)``: np.quantile of each
    slice without its NaNs (NaN where a slice has none left); q known at conversion time."""
    method = _method(ctx, method, "np.nanquantile", out, weights)
    qs = ctx.static(q, "q (the quantiles)")
    return _quantile(ctx, a, np.asanyarray(qs), type(qs) in (int, float), axis, keepdims,
                     "np.nanquantile", method, nan_func=True)


@register(np.nanpercentile)
def nanpercentile(ctx, a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    """``np.nanpercentile(a, q, ...)``: :func:`nanquantile` of ``q / 100``."""
    method = _method(ctx, method, "np.nanpercentile", out, weights)
    qs = ctx.static(q, "q (the percentiles)")
    return _quantile(ctx, a, np.true_divide(qs, 100, out=...), type(qs) in (int, float), axis,
                     keepdims, "np.nanpercentile", method, nan_func=True)

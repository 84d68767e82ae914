"""``np.partition`` and ``np.argpartition`` (and the methods), with numpy's guarantee only.

Input: an array, ``kth`` (an int or a static sequence of ints), ``axis`` (int or None).
Output: an Array of ``a``'s shape (int64 positions for argpartition).

numpy promises that the element at each ``kth`` position is the one a full sort puts there,
every element before it is not greater and every element after it is not smaller; the order
inside the two parts is unspecified (introselect's). pyonnx keeps that promise with orders of
its own: code that relies on numpy's particular order inside the parts gets a different,
equally valid result. Idioms that depend only on the promise (``x[np.argpartition(x, -k)[-k:]]``
as a set, ``np.partition(x, k)[k]``) agree with numpy.

* One static ``kth`` on a 1-D array (or ``axis=None``) whose values ``TopK`` orders exactly
  (integers, bool, float16/float32 through a float64 key with NaN last): ``TopK`` selects the
  ``kth + 1`` smallest (``kth >= 0``: they come first, ascending) or the ``-kth`` largest
  (``kth < 0``: they come last, ascending), the other positions in index order — the top-k
  idiom without a full sort.
* Otherwise (several ``kth``, rank > 1, float64): the stable sorted order.

Supported syntax: ``np.partition(a, kth, axis=-1, kind='introselect')``,
``np.argpartition(a, kth, axis=-1, kind='introselect')``, ``a.argpartition(kth, axis=-1)``;
``axis=None`` flattens. ``a.partition(kth)`` works in place and is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.reductions.nan_guard import nan_rule
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.sorting.common import _axis, _flatten
from pyonnx.frontend.numpy_calls.sorting.ordering import _direct_key, sort_along, stable_argsort


def _prepare(ctx, a: Any, kth: Any, axis: Any, kind: Any, order: Any, fname: str):
    if order is not None:
        raise ctx.error(f"{fname}(..., order=...) sorts structured arrays, which pyonnx does "
                        "not support")
    if ctx.static(kind, "kind") != "introselect":
        raise ctx.error(f"{fname}: kind must be 'introselect' (numpy raises ValueError)")
    x = to_array(ctx, a)
    if ctx.static(axis, "axis") is None:
        x, ax = _flatten(ctx, x) if x.ndim != 1 else x, 0
    else:
        if x.ndim == 0:
            raise ctx.error(f"{fname}: axis {ctx.static(axis, 'axis')} is out of bounds for "
                            "array of dimension 0 (numpy raises AxisError); use axis=None")
        ax = _axis(ctx, axis, x.ndim, fname)
    k = ctx.static(kth, "kth (the partition positions)")
    ks = np.asarray(k)
    if ks.dtype.kind not in "iu" or ks.ndim > 1:
        raise ctx.error(f"{fname}: kth must be an integer or a sequence of integers, got {k!r}")
    n = x.shape[ax]
    flat = ks.reshape(-1).tolist()
    if n is not None:
        for v in flat:
            if not -n <= v < n:
                raise ctx.error(f"kth(={v}) out of bounds ({n}) (numpy raises ValueError)")
    elif flat:
        # A run-time length: a kth out of range fails the run, as numpy raises ValueError.
        length = Array(ctx.op("Squeeze", ctx.op("Shape", x, start=ax, end=ax + 1),
                              ctx.const(np.array([0], np.int64))), np.dtype(np.int64), ())
        hi = ctx.op("LessOrEqual", length, ctx.const(np.array(max(flat), np.int64)))
        lo = ctx.op("Less", length, ctx.const(np.array(-min(flat), np.int64)))
        bad = Array(ctx.op("Or", hi, lo), np.dtype(np.bool_), ())
        x = runtime_check(ctx, bad, x, "kth_out_of_bounds",
                          "ValueError: kth out of bounds")
    return x, ax


def _select(ctx, x: Array, kth: Any) -> Array | None:
    """The TopK partition of a 1-D ``x`` for one static ``kth`` (see the module docstring), or
    None where it does not apply."""
    ks = np.asarray(kth).reshape(-1)
    if x.ndim != 1 or ks.size != 1:
        return None
    if x.dtype in (np.float16, np.float32):
        # The NaN-last key (a float64 cast and two Where passes more) only when the sum is
        # NaN; otherwise the float64 cast orders alike (stable_argsort's rule; top-k of 1e5
        # float32 scores: four full passes fewer).
        wide = ctx.cast(x, np.float64)
        key = nan_rule(ctx, wide, wide, lambda ctx: _direct_key(ctx, x))
    else:
        key = _direct_key(ctx, x)
    if key is None:
        return None
    k = int(ks[0])
    count = ctx.const(np.array([k + 1 if k >= 0 else -k], np.int64))
    _, chosen = ctx.op("TopK", key, count, outputs=2, axis=0, largest=int(k < 0), sorted=1)
    if k < 0:  # descending → ascending, so the kth position holds the smallest of them
        chosen = ctx.op("Slice", chosen, ctx.const(np.array([-1], np.int64)),
                        ctx.const(np.array([np.iinfo(np.int64).min], np.int64)),
                        ctx.const(np.array([0], np.int64)), ctx.const(np.array([-1], np.int64)))
    # the other positions, in index order (Compress of a Range: NonZero is ~20× slower)
    n = ctx.op("Shape", x)
    free = ctx.op("ScatterElements", ctx.op("Expand", ctx.const(np.array(True)), n), chosen,
                  ctx.op("Expand", ctx.const(np.array(False)), ctx.op("Shape", chosen)), axis=0)
    positions = ctx.op("Range", ctx.const(np.array(0, np.int64)),
                       ctx.op("Squeeze", n, ctx.const(np.array([0], np.int64))),
                       ctx.const(np.array(1, np.int64)))
    rest = ctx.op("Compress", positions, free, axis=0)
    parts = (chosen, rest) if k >= 0 else (rest, chosen)
    return Array(ctx.op("Concat", *parts, axis=0), np.dtype(np.int64), x.shape)


@register(np.partition)
def partition(ctx, a, kth, axis=-1, kind="introselect", order=None):
    """``np.partition``: a valid partition for every ``kth`` (see the module docstring)."""
    x, ax = _prepare(ctx, a, kth, axis, kind, order, "np.partition")
    perm = _select(ctx, x, ctx.static(kth, "kth"))
    if perm is not None:
        return Array(ctx.op("Gather", x, perm, axis=0), x.dtype, x.shape)
    return sort_along(ctx, x, ax)[0]


@register(np.argpartition, methods=("argpartition",))
def argpartition(ctx, a, kth, axis=-1, kind="introselect", order=None):
    """``np.argpartition``: a valid partitioning permutation for every ``kth``."""
    x, ax = _prepare(ctx, a, kth, axis, kind, order, "np.argpartition")
    perm = _select(ctx, x, ctx.static(kth, "kth"))
    return perm if perm is not None else stable_argsort(ctx, x, ax)


@register(name="ndarray.partition", methods=("partition",))
def partition_method(ctx, a, kth, axis=-1, kind="introselect", order=None):
    """``x.partition(kth)`` partitions in place: refused."""
    raise ctx.error("x.partition(kth) works in place, which pyonnx does not support; write "
                    "x = np.partition(x, kth)")

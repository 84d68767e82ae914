"""numpy sorting: sort, argsort, lexsort, and the stable ordering core the other sorting
modules build on.

Input: Arrays (or values ``ctx.asarray`` accepts). Output: Arrays (sorted values, or int64
permutations of the input's shape).

Every ordering goes through one stable argsort (:func:`stable_argsort`) built on ONNX ``TopK``
(ascending, ties broken by index, as the ONNX spec and onnxruntime guarantee) over a key that
orders exactly as numpy does:

* NaNs sort to the end (numpy's order), although ``TopK`` itself has no NaN order: only when
  the input's sum is NaN (an ``If``: reductions/nan_guard.py; else TopK sorts it as it is),
  float16 and float32 are widened to float64 with ``+inf`` mapped to the largest finite float64 and NaN to
  ``+inf``; float64 needs a second stable pass on the NaN flag.
* ``-0.0`` and ``0.0`` compare equal (ties keep index order).
* dtypes without a ``TopK`` kernel are mapped exactly: bool → uint8, uint16 → int32,
  uint32 → int64, and uint64 through ``x ^ 2**63`` reinterpreted as int64 (order-preserving,
  so values ≥ 2**63 order exactly).

Supported syntax:

* ``np.sort(a, axis=-1, kind=None, stable=None)``, ``axis=None`` flattens. ``x.sort()`` sorts
  in place and is refused (write ``x = np.sort(x)``).
* ``np.argsort(a, axis=-1, kind=None, stable=None)`` and ``a.argsort(...)``: the STABLE order
  (ties by index). numpy's default ``kind`` may order ties differently; results equal numpy's
  for ``kind='stable'``/``stable=True`` or for data without ties. Likewise the position of
  ``-0.0`` versus ``0.0`` in ``np.sort`` output is that of a stable sort.
* ``np.lexsort(keys, axis=-1)`` with ``keys`` a tuple or list of arrays (last key primary).
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.reductions.nan_guard import nan_rule
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.sorting.common import _BOOL, _I64, _axis, _flatten, _length

__all__ = ["stable_argsort", "sort_along"]


_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")
# Keys that TopK sorts directly (a kernel exists and no NaN can occur).
_DIRECT = {np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8)}


def _check_kind(ctx, fname: str, kind, order, stable) -> None:
    if order is not None:
        raise ctx.error(f"{fname}(..., order=...) sorts structured arrays, which pyonnx does not "
                        "support; sort the fields with np.lexsort((minor, major))")
    kind = ctx.static(kind, "kind")
    stable = ctx.static(stable, "stable")
    if kind is not None and stable is not None:
        raise ctx.error(f"{fname}: `kind` and `stable` parameters can't be provided at the same "
                        "time (numpy raises ValueError)")
    if kind not in _KINDS:
        raise ctx.error(f"{fname}: kind must be one of {_KINDS[1:]}, got {kind!r}")
    if stable not in (None, True, False):
        raise ctx.error(f"{fname}: stable must be True, False or None, got {stable!r}")


# ------------------------------------------------------------------- the ordering core
def _topk_order(ctx, key: Array, axis: int):
    """(sorted key, stable ascending permutation) of ``key`` along ``axis``."""
    return ctx.op("TopK", key, _length(ctx, key, axis), outputs=2, axis=axis, largest=0, sorted=1)


def _direct_key(ctx, x: Array) -> Array | None:
    """An exactly order-equivalent key without NaNs that TopK sorts, or None for float64."""
    dt = x.dtype
    if dt in _DIRECT:
        return x
    if dt == _BOOL:
        return ctx.cast(x, np.uint8)
    if dt == np.uint16:
        return ctx.cast(x, np.int32)
    if dt == np.uint32:
        return ctx.cast(x, np.int64)
    if dt == np.uint64:
        # Flipping the top bit and reinterpreting as int64 (Cast wraps) preserves the order.
        flipped = ctx.op("BitwiseXor", x, ctx.const(np.array(1 << 63, np.uint64)))
        return Array(ctx.op("Cast", flipped, to=dtypes.to_ir(_I64)), _I64, x.shape)
    if dt in (np.float16, np.float32):
        # In float64 there is room above every float16/float32: +inf → DBL_MAX, NaN → +inf.
        wide = ctx.cast(x, np.float64).value
        big = ctx.const(np.array(np.finfo(np.float64).max))
        inf = ctx.const(np.array(np.inf))
        key = ctx.op("Where", ctx.op("IsInf", wide, detect_negative=0), big, wide)
        key = ctx.op("Where", ctx.op("IsNaN", wide), inf, key)
        return Array(key, np.dtype(np.float64), x.shape)
    return None


def stable_argsort(ctx, x: Array, axis: int) -> Array:
    """The stable ascending permutation of ``x`` along ``axis`` in numpy's order (NaNs last).

    Args:
        ctx: the Lowering.
        x: an Array of rank ≥ 1 of a supported dtype.
        axis: a normalized axis.

    Returns:
        An int64 Array of ``x``'s shape.
    """
    # Without a NaN, TopK orders floats as numpy does (-0.0 ties with 0.0, by index): the NaN
    # order (four more full passes for float16/32, five for float64) is paid only when the
    # input's sum is NaN. float16/32 choose the key, so that the TopK stays outside the If
    # (NarrowSelectsPass turns TopK-then-prefix into a TopK of k).
    if x.dtype in (np.float16, np.float32):
        wide = ctx.cast(x, np.float64)
        key = nan_rule(ctx, wide, wide, lambda ctx: _direct_key(ctx, x))
        return Array(_topk_order(ctx, key, axis)[1], _I64, x.shape)
    if x.dtype == np.float64:
        perm = Array(_topk_order(ctx, x, axis)[1], _I64, x.shape)
        return nan_rule(ctx, x, perm, lambda ctx: _nan_last_argsort(ctx, x, axis))
    return _nan_last_argsort(ctx, x, axis)


def _nan_last_argsort(ctx, x: Array, axis: int) -> Array:
    """:func:`stable_argsort` for every input, NaNs included."""
    key = _direct_key(ctx, x)
    if key is not None:
        _, perm = _topk_order(ctx, key, axis)
        return Array(perm, _I64, x.shape)
    # float64: sort with NaN → +inf, then stably move the NaNs behind the infinities.
    nan = ctx.op("IsNaN", x)
    key1 = Array(ctx.op("Where", nan, ctx.const(np.array(np.inf)), x), x.dtype, x.shape)
    _, p1 = _topk_order(ctx, key1, axis)
    flag = ctx.op("GatherElements", ctx.op("Cast", nan, to=dtypes.to_ir(np.dtype(np.uint8))), p1,
                  axis=axis)
    _, p2 = _topk_order(ctx, Array(flag, np.dtype(np.uint8), x.shape), axis)
    return Array(ctx.op("GatherElements", p1, p2, axis=axis), _I64, x.shape)


def sort_along(ctx, x: Array, axis: int) -> tuple[Array, Array]:
    """(sorted values, stable permutation) of ``x`` along ``axis``."""
    if x.dtype in _DIRECT:
        values, perm = _topk_order(ctx, x, axis)
        return Array(values, x.dtype, x.shape), Array(perm, _I64, x.shape)
    perm = stable_argsort(ctx, x, axis)
    values = ctx.op("GatherElements", x, perm, axis=axis)
    return Array(values, x.dtype, x.shape), perm


# ---------------------------------------------------------------------- sort, argsort
def _sort_input(ctx, a, axis, fname: str) -> tuple[Array, int]:
    x = to_array(ctx, a)
    if ctx.static(axis, "axis") is None:
        return _flatten(ctx, x), 0
    if x.ndim == 0:
        raise ctx.error(f"{fname}: axis {ctx.static(axis, 'axis')} is out of bounds for array of "
                        f"dimension 0 (numpy raises AxisError); use {fname}(x, axis=None)")
    return x, _axis(ctx, axis, x.ndim, fname)


@register(np.sort)
def sort(ctx, a, axis=-1, kind=None, order=None, *, stable=None):
    """``np.sort(a, axis=-1, kind=None, stable=None)``; ``axis=None`` sorts the flattened array."""
    _check_kind(ctx, "np.sort", kind, order, stable)
    x, ax = _sort_input(ctx, a, axis, "np.sort")
    return sort_along(ctx, x, ax)[0]


@register(name="ndarray.sort", methods=("sort",))
def sort_method(ctx, a, axis=-1, kind=None, order=None, *, stable=None):
    """``x.sort()`` sorts in place: refused (pyonnx keeps values immutable)."""
    raise ctx.error("x.sort() sorts in place, which pyonnx does not support; write "
                    "x = np.sort(x) (with the same axis/kind arguments)")


@register(np.argsort, methods=("argsort",))
def argsort(ctx, a, axis=-1, kind=None, order=None, *, stable=None):
    """``np.argsort(a, axis=-1, kind=None, stable=None)``: the stable order (ties by index)."""
    _check_kind(ctx, "np.argsort", kind, order, stable)
    x = to_array(ctx, a)
    if x.ndim == 0:
        # numpy sorts a 0-d array as if it were 1-D: the result is [0].
        if ctx.static(axis, "axis") not in (None, 0, -1):
            raise ctx.error(f"np.argsort: axis {axis} is out of bounds for array of dimension 0")
        return ctx.const_array(np.zeros(1, np.int64))
    x, ax = _sort_input(ctx, x, axis, "np.argsort")
    return stable_argsort(ctx, x, ax)


@register(np.lexsort)
def lexsort(ctx, keys, axis=-1):
    """``np.lexsort(keys, axis=-1)``: ``keys`` a tuple/list of equally shaped arrays, the last
    key primary; a stable order (ties by index), as numpy's lexsort is."""
    if isinstance(keys, Array):
        if keys.ndim >= 1 and keys.shape[0] is not None and keys.ndim >= 2:
            keys = [Array(ctx.op("Gather", keys, ctx.const(np.array(i, np.int64)), axis=0),
                          keys.dtype, keys.shape[1:]) for i in range(keys.shape[0])]
        else:
            raise ctx.error("np.lexsort(keys): pass the keys as a tuple of arrays, "
                            "np.lexsort((k0, k1)), so their number is known at conversion time")
    if not isinstance(keys, (tuple, list)) or len(keys) == 0:
        raise ctx.error("np.lexsort needs a non-empty tuple of key arrays")
    arrays = [to_array(ctx, k) for k in keys]
    ndim = arrays[0].ndim
    if ndim == 0 or any(k.ndim != ndim for k in arrays):
        raise ctx.error("np.lexsort: the keys must be arrays of one rank ≥ 1 and equal shapes")
    ax = _axis(ctx, axis, ndim, "np.lexsort")
    perm = stable_argsort(ctx, arrays[0], ax)
    for key in arrays[1:]:
        permuted = Array(ctx.op("GatherElements", key, perm, axis=ax), key.dtype, key.shape)
        step = stable_argsort(ctx, permuted, ax)
        perm = Array(ctx.op("GatherElements", perm, step, axis=ax), _I64, key.shape)
    return perm

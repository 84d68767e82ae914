"""numpy sorting, searching and set functions, with numpy 2's ordering rules.

Input: Arrays (or values ``ctx.asarray`` accepts). Output: Arrays, or tuples of them.

Every ordering goes through one stable argsort (:func:`stable_argsort`) built on ONNX ``TopK``
(ascending, ties broken by index, as the ONNX spec and onnxruntime guarantee) over a key that
orders exactly as numpy does:

* NaNs sort to the end (numpy's order), although ``TopK`` itself has no NaN order: float16 and
  float32 are widened to float64 with ``+inf`` mapped to the largest finite float64 and NaN to
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
* ``np.nonzero(a)``/``a.nonzero()`` (a tuple of int64 index arrays; 0-d refused as numpy does),
  ``np.flatnonzero(a)``, ``np.argwhere(a)``; ``np.where(cond)`` reaches ``np.nonzero``.
* ``np.unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
  equal_nan=True, sorted=True)`` with ``axis=None`` (numpy 2 shapes: the inverse has ``ar``'s
  shape); ``return_index`` gives first occurrences, as numpy does.
* ``np.searchsorted(a, v, side='left'|'right', sorter=None)`` and ``a.searchsorted(...)``:
  computed in ``np.promote_types(v.dtype, a.dtype)`` as numpy does; ``a`` must be sorted (as
  numpy requires); NaNs are ordered last, as numpy's search does.
* ``np.diff(a, n=1, axis=-1, prepend=..., append=...)``.
* ``np.isin(element, test_elements, assume_unique=False, invert=False, kind=None)``.
* ``np.bincount(x, weights=None, minlength=0)`` (with weights, an empty ``x`` gives float64
  zeros where numpy gives int64 zeros: the dtype cannot depend on the run-time size).
* ``np.quantile(a, q, axis=None, keepdims=False)`` and ``np.percentile(...)`` with
  ``method='linear'`` and ``q`` known at conversion time: numpy's ``_quantile`` arithmetic
  step by step (its dtypes, its two-sided lerp, NaN slices giving NaN) on the sorted data.

Not supported: ``np.partition``/``np.argpartition`` (numpy's element order inside each part is
an implementation detail of introselect), ``np.unique(..., axis=k)``, ``sorted=False``
(numpy then uses a hash table whose order cannot be reproduced), ``order=`` (structured arrays),
``np.unique_values`` (hash order), quantile methods other than 'linear', weights, run-time ``q``.

float16 arithmetic goes through :func:`emit_exact` (float32 between explicit Casts), because
onnxruntime drops the float16 rounding between chained float16 ops.
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.lower import dtypes, kernels
from pyonnx.frontend.lower.shapes import normalize_axis
from pyonnx.frontend.lower.values import Array
from pyonnx.frontend.numpy_calls import register

__all__ = ["stable_argsort", "sort_along", "searchsorted_flat", "emit_exact"]

_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
_F64 = np.dtype(np.float64)
_INT64_MAX = np.iinfo(np.int64).max
_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")
# Keys that TopK sorts directly (a kernel exists and no NaN can occur).
_DIRECT = {np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8)}


# ------------------------------------------------------------------------------ helpers
def _ints(ctx, *values: int):
    return ctx.const(np.array(values, dtype=np.int64))


def _array(ctx, value) -> Array:
    """``value`` as a strong Array (numpy's functions call ``asarray``: no weak scalars)."""
    a = ctx.asarray(value)
    return Array(a.value, a.dtype, a.shape) if a.weak else a


def _flatten(ctx, a: Array) -> Array:
    if a.ndim == 1:
        return a
    return Array(ctx.op("Reshape", a, _ints(ctx, -1)), a.dtype, (a.static_size,))


def _axis(ctx, axis, ndim: int, fname: str) -> int:
    axis = ctx.static(axis, "axis")
    if isinstance(axis, np.integer):
        axis = int(axis)
    try:
        return normalize_axis(axis, ndim)
    except ValueError as e:
        raise ctx.error(f"{fname}: {e}") from None


def _length(ctx, a: Array, axis: int):
    """Dimension ``axis`` of ``a`` as an int64 1-D tensor of one element."""
    if a.shape[axis] is not None:
        return _ints(ctx, a.shape[axis])
    return ctx.op("Shape", a, start=axis, end=axis + 1)


def _bool_flag(ctx, value, what: str) -> bool:
    value = ctx.static(value, what)
    if not isinstance(value, (bool, np.bool_, int, np.integer)):
        raise ctx.error(f"{what} must be True or False, got {value!r}")
    return bool(value)


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


def emit_exact(ctx, op: str, arrays, dtype, out_dtype=None) -> Array:
    """``kernels.emit``, but float16 math runs in float32 between explicit Casts.

    onnxruntime's CPU provider runs float16 Add/Sub/Mul/... by inserting Casts to float32
    around them and then merges an inner Cast(float32→float16)→Cast(float16→float32) pair: a
    chain (``(a - b) * t`` or ``Cast(a - b, float64)``) skips the float16 rounding numpy does
    after every operation. Explicit Casts on both sides are kept, and float32 holds every
    float16 sum, difference and product exactly rounded once, as numpy computes them.
    """
    dtype = np.dtype(dtype)
    out = np.dtype(out_dtype) if out_dtype is not None else dtype
    if dtype != np.float16:
        return kernels.emit(ctx, op, arrays, dtype, out_dtype=out)
    wide = [ctx.cast(a, np.float32) for a in arrays]
    result = kernels.emit(ctx, op, wide, np.dtype(np.float32),
                          out_dtype=_BOOL if out == _BOOL else np.float32)
    return result if out == _BOOL else ctx.cast(result, out)


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


def _scatter_inverse(ctx, perm: Array, values) -> ir.Value:
    """``out[perm[i]] = values[i]`` for a 1-D permutation ``perm``."""
    zeros = ctx.op("ConstantOfShape", ctx.op("Shape", perm),
                   value=ir.tensor(np.zeros(1, dtype=np.int64)))
    return ctx.op("ScatterElements", zeros, perm, values, axis=0)


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


# ---------------------------------------------------------------------- sort, argsort
def _sort_input(ctx, a, axis, fname: str) -> tuple[Array, int]:
    x = _array(ctx, a)
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
    x = _array(ctx, a)
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
    arrays = [_array(ctx, k) for k in keys]
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


# ------------------------------------------------------------------- nonzero & friends
def _truth(ctx, x: Array):
    """``x != 0`` as bool (NaN counts as nonzero, -0.0 as zero)."""
    if x.dtype == _BOOL:
        return x.value
    zero = ctx.const_array(np.zeros((), x.dtype))
    eq = emit_exact(ctx, "Equal", [x, zero], x.dtype, out_dtype=_BOOL)
    return ctx.op("Not", eq)


@register(np.nonzero, methods=("nonzero",))
def nonzero(ctx, a):
    """``np.nonzero(a)``: a tuple of int64 index arrays, one per dimension (0-d refused)."""
    x = _array(ctx, a)
    if x.ndim == 0:
        raise ctx.error("Calling nonzero on 0d arrays is not allowed (numpy raises ValueError); "
                        "use np.atleast_1d(x).nonzero() instead")
    nz = ctx.op("NonZero", _truth(ctx, x))
    return tuple(Array(ctx.op("Gather", nz, ctx.const(np.array(i, np.int64)), axis=0), _I64,
                       (None,)) for i in range(x.ndim))


@register(np.flatnonzero)
def flatnonzero(ctx, a):
    """``np.flatnonzero(a)``: indices of the nonzero elements of ``a.ravel()``."""
    x = _flatten(ctx, _array(ctx, a))
    return nonzero(ctx, x)[0]


@register(np.argwhere)
def argwhere(ctx, a):
    """``np.argwhere(a)``: an int64 array of shape (nonzero count, a.ndim)."""
    x = _array(ctx, a)
    if x.ndim == 0:
        # numpy: argwhere(atleast_1d(a))[:, :0], shape (1, 0) or (0, 0).
        nz = ctx.op("NonZero", _truth(ctx, _flatten(ctx, x)))
        cols = ctx.op("Transpose", nz, perm=[1, 0])
        out = ctx.op("Slice", cols, _ints(ctx, 0), _ints(ctx, 0), _ints(ctx, 1))
        return Array(out, _I64, (None, 0))
    nz = ctx.op("NonZero", _truth(ctx, x))
    return Array(ctx.op("Transpose", nz, perm=[1, 0]), _I64, (None, x.ndim))


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
    x0 = _array(ctx, ar)
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
    arr = _array(ctx, a)
    if arr.ndim != 1:
        raise ctx.error(f"np.searchsorted: a must be 1-D, got {arr.ndim}-D")
    vals = _array(ctx, v)
    dt = np.promote_types(vals.dtype, arr.dtype)
    if sorter is not None:
        order = _array(ctx, sorter)
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


# ------------------------------------------------------------------------------ diff
def _diff_edge(ctx, edge, x: Array, axis: int) -> Array:
    e = _array(ctx, edge)
    if e.ndim == 0:
        # numpy broadcasts a scalar to x's shape with length 1 along axis.
        dims = ctx.op("ScatterElements", ctx.shape_of(x), _ints(ctx, axis), _ints(ctx, 1), axis=0)
        shape = x.shape[:axis] + (1,) + x.shape[axis + 1:]
        return Array(ctx.op("Expand", e, dims), e.dtype, shape)
    if e.ndim != x.ndim:
        raise ctx.error(f"np.diff: prepend/append must be a scalar or have the array's rank "
                        f"{x.ndim}, got rank {e.ndim} (numpy's concatenate raises ValueError)")
    return e


@register(np.diff)
def diff(ctx, a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """``np.diff(a, n=1, axis=-1, prepend=..., append=...)``; ``n`` static; bool arrays give
    ``a[1:] != a[:-1]`` as numpy does; integers wrap in their dtype."""
    n = ctx.static(n, "n")
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise ctx.error(f"np.diff: n must be an integer, got {n!r}")
    if n < 0:
        raise ctx.error(f"order must be non-negative but got {n} (numpy raises ValueError)")
    x = _array(ctx, a)
    if n == 0:
        return x
    if x.ndim == 0:
        raise ctx.error("diff requires input that is at least one dimensional "
                        "(numpy raises ValueError)")
    ax = _axis(ctx, axis, x.ndim, "np.diff")
    parts = []
    if prepend is not np._NoValue:
        parts.append(_diff_edge(ctx, prepend, x, ax))
    parts.append(x)
    if append is not np._NoValue:
        parts.append(_diff_edge(ctx, append, x, ax))
    if len(parts) > 1:
        dt = np.result_type(*(p.dtype for p in parts))
        length = 0
        for p in parts:
            length = None if length is None or p.shape[ax] is None else length + p.shape[ax]
        shape = x.shape[:ax] + (length,) + x.shape[ax + 1:]
        x = Array(ctx.op("Concat", *(ctx.cast(p, dt) for p in parts), axis=ax), dt, shape)
    for _ in range(int(n)):
        d = x.shape[ax]
        shape = x.shape[:ax] + (None if d is None else max(d - 1, 0),) + x.shape[ax + 1:]
        hi = Array(ctx.op("Slice", x, _ints(ctx, 1), _ints(ctx, _INT64_MAX), _ints(ctx, ax)),
                   x.dtype, shape)
        lo = Array(ctx.op("Slice", x, _ints(ctx, 0), _ints(ctx, -1), _ints(ctx, ax)),
                   x.dtype, shape)
        if x.dtype == _BOOL:
            x = Array(ctx.op("Xor", hi, lo), _BOOL, shape)
        else:
            x = emit_exact(ctx, "Sub", [hi, lo], x.dtype)
            x = Array(x.value, x.dtype, shape)
    return x


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
    e = _array(ctx, element)
    t = _array(ctx, test_elements)
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


# -------------------------------------------------------------------------- bincount
@register(np.bincount)
def bincount(ctx, x, weights=None, minlength=0):
    """``np.bincount(x, weights=None, minlength=0)``: ``x`` 1-D non-negative integers (a
    negative value makes the run fail, as numpy raises); int64 counts or float64 sums of
    ``weights`` (added in index order, as numpy does). One difference: for an empty ``x``
    numpy returns int64 zeros even with weights; here the dtype is fixed at conversion time,
    so those zeros are float64."""
    xs = _array(ctx, x)
    if xs.ndim != 1:
        raise ctx.error(f"np.bincount: x must be 1-D, got {xs.ndim}-D (numpy raises ValueError)")
    if xs.dtype.kind not in "biu" or xs.dtype == np.uint64:
        raise ctx.error(f"np.bincount: cannot cast {xs.dtype} to int64 safely (numpy raises "
                        "TypeError); pass non-negative integers")
    minlength = ctx.static(minlength, "minlength")
    if minlength is None:
        minlength = 0
    if not isinstance(minlength, (int, np.integer)) or isinstance(minlength, bool) or minlength < 0:
        raise ctx.error(f"np.bincount: minlength must be a non-negative integer, got {minlength!r}")
    idx = ctx.cast(xs, _I64).value
    # Length: max(max(x) + 1, minlength); -1 joins x so an empty x has max -1.
    top = ctx.op("ReduceMax", ctx.op("Concat", idx, _ints(ctx, -1), axis=0), keepdims=1)
    length = ctx.op("Max", ctx.op("Add", top, _ints(ctx, 1)), _ints(ctx, int(minlength)))
    # A negative x is sent out of range so ScatterElements fails instead of wrapping.
    idx = ctx.op("Where", ctx.op("Less", idx, ctx.const(np.array(0, np.int64))),
                 ctx.const(np.array(_INT64_MAX, np.int64)), idx)
    if weights is None:
        out_dt = _I64
        updates = ctx.op("ConstantOfShape", ctx.op("Shape", idx),
                         value=ir.tensor(np.ones(1, np.int64)))
    else:
        w = _array(ctx, weights)
        if w.ndim != 1:
            raise ctx.error("np.bincount: weights must be 1-D like x")
        if w.dtype == np.uint64 or w.dtype.kind not in "biuf":
            raise ctx.error(f"np.bincount: weights of dtype {w.dtype} are not supported")
        out_dt = np.dtype(np.float64)
        updates = ctx.cast(w, out_dt).value
    zeros = ctx.op("ConstantOfShape", length, value=ir.tensor(np.zeros(1, out_dt)))
    out = ctx.op("ScatterElements", zeros, idx, updates, axis=0, reduction="add")
    return Array(out, out_dt, (None,))


# ------------------------------------------------------------------ quantile, percentile
def _quantile(ctx, a, qa: np.ndarray, weak_q: bool, axis, keepdims, fname: str) -> Array:
    """numpy's ``_quantile_ureduce_func`` + ``_quantile`` for method='linear', step by step.

    ``qa`` is numpy's ``q`` array (after ``/ 100`` for percentile), known at conversion time;
    ``weak_q``: q was a Python int/float (numpy then interpolates with a Python-float gamma).
    """
    x = _array(ctx, a)
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
    if arr.shape[0] == 0:
        raise ctx.error(f"{fname}: index -1 is out of bounds for axis 0 with size 0 (numpy "
                        "raises IndexError on an empty reduction)")
    srt, _ = sort_along(ctx, arr, 0)
    n_minus_1 = ctx.op("Squeeze", ctx.op("Sub", ctx.op("Shape", srt, start=0, end=1),
                                         _ints(ctx, 1)), _ints(ctx, 0))
    qdt = np.dtype(np.int64) if qa.dtype.kind == "b" else qa.dtype
    q_const = ctx.const(qa.astype(qdt))
    inexact = x.dtype.kind == "f"
    out_q = qa.shape
    if qdt.kind in "iu":
        # Integer virtual indexes: numpy takes the elements, no interpolation.
        vi = ctx.op("Mul", n_minus_1, ctx.cast(Array(q_const, qdt, qa.shape), _I64))
        result = Array(ctx.op("Gather", srt, vi, axis=0), x.dtype, out_q + rest)
        result_dt = x.dtype
    else:
        if x.dtype == _BOOL:
            raise ctx.error(f"{fname}: numpy boolean subtract is not supported (numpy raises "
                            "TypeError); cast the array to a number type first")
        n1 = ctx.cast(Array(n_minus_1, _I64, ()), qdt)
        qv = Array(q_const, qdt, qa.shape)
        vi = emit_exact(ctx, "Mul", [n1, qv], qdt)
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
        prev_a = Array(prev, qdt, qa.shape)
        gamma = emit_exact(ctx, "Sub", [vi, prev_a], qdt)
        lo = Array(ctx.op("Gather", srt, ctx.cast(prev_a, _I64), axis=0), x.dtype, out_q + rest)
        hi = Array(ctx.op("Gather", srt, ctx.cast(Array(nxt, qdt, qa.shape), _I64), axis=0),
                   x.dtype, out_q + rest)
        # numpy's _lerp: a + (b-a)*t, or b - (b-a)*(1-t) where t >= 0.5.
        diff = emit_exact(ctx, "Sub", [hi, lo], x.dtype)
        if weak_q:
            t = Array(gamma.value, _F64, (), weak=True)  # float(gamma): q was float64
        else:
            t = gamma if qa.ndim == 0 else Array(
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
    if inexact:
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


def _method(ctx, method, fname: str, out, weights) -> None:
    if out is not None:
        raise ctx.error(f"{fname}(..., out=...) is not supported; assign the result")
    if weights is not None:
        raise ctx.error(f"{fname}(..., weights=...) is not supported (it needs "
                        "method='inverted_cdf')")
    method = ctx.static(method, "method")
    if method != "linear":
        raise ctx.error(f"{fname}: only method='linear' (the default) is supported, got "
                        f"{method!r}")


@register(np.quantile)
def quantile(ctx, a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    """``np.quantile(a, q, axis=None, keepdims=False)`` with method='linear' and ``q`` known
    at conversion time (a Python number, list, tuple or constant array)."""
    _method(ctx, method, "np.quantile", out, weights)
    qs = ctx.static(q, "q (the quantiles)")
    weak_q = type(qs) in (int, float)
    return _quantile(ctx, a, np.asanyarray(qs), weak_q, axis, keepdims, "np.quantile")


@register(np.percentile)
def percentile(ctx, a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    """``np.percentile(a, q, axis=None, keepdims=False)`` with method='linear' and ``q`` known
    at conversion time."""
    _method(ctx, method, "np.percentile", out, weights)
    qs = ctx.static(q, "q (the percentiles)")
    weak_q = type(qs) in (int, float)
    return _quantile(ctx, a, np.true_divide(qs, 100, out=...), weak_q, axis, keepdims,
                     "np.percentile")

"""numpy's indexing functions: take, take_along_axis, compress, extract.

Input: frontend values (Arrays and static values) under numpy's parameter names; at least one
is an Array (all-static calls run in numpy). Output: Arrays with numpy's value, dtype and
shape (0-d where numpy returns a scalar).

Supported syntax (``a`` an array of any supported dtype; ``axis`` a static int or None):

* ``np.take(a, indices, axis=None, out=None, mode='raise'|'wrap'|'clip')`` and
  ``a.take(indices, axis=None, mode=...)``: ``indices`` an int, a static list/array of ints
  (or bools, read as 0/1 as numpy does) or an integer Array of any rank; one ``Gather``.
  ``mode='raise'``: negative indices count from the end, and out-of-bounds ones are a
  ConversionError when known, else make the model fail at run time. ``'wrap'``: modulo the
  length; ``'clip'``: clipped to ``[0, len - 1]``.
* ``np.take_along_axis(arr, indices, axis=-1)`` (``axis=None`` reads ``arr`` flattened, with
  1-D ``indices``): the other dimensions of ``arr`` and ``indices`` broadcast as numpy's
  fancy indexing does; one ``GatherElements`` (plus ``Expand`` where the broadcast is not
  known to be trivial at conversion time).
* ``np.compress(condition, a, axis=None)`` and ``a.compress(condition, axis=None)``: exactly
  numpy's ``take(a, condition.nonzero()[0], axis)``, so a shorter condition selects from the
  start and a longer one with a true entry past the end fails (numpy: IndexError).
* ``np.extract(condition, arr)``: ``take(ravel(arr), nonzero(ravel(condition))[0])``.

Not supported: ``out=`` (an ONNX model returns new arrays).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.indexing.advanced import same_shape
from pyonnx.frontend.graph.indexing.basic import i64, to_index
from pyonnx.frontend.graph.shapes import broadcast_shapes, normalize_axis
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.numpy_calls.registry import register

_I64 = np.dtype(np.int64)


def _array(ctx, v: Any) -> Array:
    """``np.asarray(v)`` as a strong Array."""
    a = ctx.asarray(v)
    return Array(a.value, a.dtype, a.shape) if a.weak else a


def _no_out(ctx, out: Any, name: str) -> None:
    if out is not None:
        raise ctx.error(f"{name}(..., out=...) is not supported: an ONNX model returns new "
                        "arrays; assign the result instead")


def _axis(ctx, axis: Any, ndim: int) -> int:
    axis = ctx.static(axis, "axis")
    try:
        return normalize_axis(operator.index(axis), ndim)
    except TypeError:
        raise ctx.error(f"axis must be an integer or None, got {axis!r}") from None
    except ValueError as e:
        raise ctx.error(f"{e} (numpy raises AxisError)") from None


def _ravel(ctx, a: Array) -> Array:
    if a.ndim == 1:
        return a
    n = a.static_size
    return Array(ctx.op("Reshape", a, i64(ctx, [-1])), a.dtype, (n,))


def _indices(ctx, indices: Any, what: str = "indices") -> np.ndarray | Array:
    """Integer indices: a static int64 ndarray or an integer Array (bools read as 0/1)."""
    if isinstance(indices, (list, tuple)) and not is_static(indices):
        indices = ctx.asarray(indices)
    if isinstance(indices, Array):
        c = indices.value.const_value
        if c is None:
            if indices.dtype.kind == "b":
                return ctx.cast(indices, _I64)
            if indices.dtype.kind not in "iu":
                raise ctx.error(f"Cannot cast array data from dtype('{indices.dtype}') to "
                                "dtype('int64') according to the rule 'safe' (numpy raises "
                                f"TypeError): {what} must be integers")
            return Array(indices.value, indices.dtype, indices.shape)
        indices = c.numpy()
    arr = np.asarray(indices)
    if arr.dtype.kind == "f" and arr.size == 0 and isinstance(indices, list):
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "biu":
        raise ctx.error(f"Cannot cast array data from dtype('{arr.dtype}') to dtype('int64') "
                        f"according to the rule 'safe' (numpy raises TypeError): {what} must "
                        "be integers")
    if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
        raise ctx.error(f"index {arr.max()} is out of bounds (numpy raises IndexError)")
    return arr.astype(np.int64)


def _dim0d(ctx, a: Array, axis: int) -> Any:
    """Length of ``axis`` as a 0-d int64 value."""
    d = a.shape[axis]
    if d is not None:
        return ctx.const(np.array(d, np.int64))
    return ctx.dim(a, axis).value


@register(np.take, methods=("take",))
def take(ctx, a, indices, axis=None, out=None, mode="raise"):
    """``np.take(a, indices, axis=None, mode='raise'|'wrap'|'clip')``; see the module docstring."""
    _no_out(ctx, out, "np.take")
    mode = ctx.static(mode, "mode")
    if mode not in ("raise", "wrap", "clip"):
        raise ctx.error(f"clipmode must be one of 'clip', 'raise', or 'wrap', not {mode!r}")
    a = _array(ctx, a)
    idx = _indices(ctx, indices)
    if ctx.static(axis, "axis") is None:
        a, axis = _ravel(ctx, a), 0
    else:
        axis = _axis(ctx, axis, a.ndim)
    d = a.shape[axis]
    if isinstance(idx, np.ndarray):
        if d is not None:
            if d == 0 and idx.size and mode != "raise":
                raise ctx.error("cannot do a non-empty take from an empty axes. (numpy raises "
                                "IndexError)")
            if mode == "wrap":
                idx = np.mod(idx, d) if d else idx
            elif mode == "clip":
                idx = np.clip(idx, 0, d - 1) if d else idx
            bad = idx[(idx < -d) | (idx >= d)]
            if bad.size:
                raise ctx.error(f"index {bad.flat[0]} is out of bounds for axis {axis} with size "
                                f"{d} (numpy raises IndexError)")
            mode = "raise"
        iv, ishape = ctx.const(idx), idx.shape
    else:
        iv, ishape = to_index(ctx, idx, int32_ok=mode == "raise").value, idx.shape
    if mode == "wrap":
        # Max(len, 1): an empty axis leaves the indices unchanged, and Gather then fails as
        # numpy does ("cannot do a non-empty take from an empty axes").
        length = ctx.op("Max", _dim0d(ctx, a, axis), ctx.const(np.array(1, np.int64)))
        iv = ctx.op("Mod", iv, length)
    elif mode == "clip":
        top = ctx.op("Sub", _dim0d(ctx, a, axis), ctx.const(np.array(1, np.int64)))
        iv = ctx.op("Clip", iv, ctx.const(np.array(0, np.int64)), top)
    out_v = ctx.op("Gather", a, iv, axis=axis)
    return Array(out_v, a.dtype, a.shape[:axis] + tuple(ishape) + a.shape[axis + 1:])


@register(np.take_along_axis)
def take_along_axis(ctx, arr, indices, axis=-1):
    """``np.take_along_axis(arr, indices, axis=-1)``; see the module docstring."""
    arr = _array(ctx, arr)
    idx = _indices(ctx, indices, "`indices`")
    if isinstance(idx, np.ndarray):
        idx = ctx.const_array(idx)
    if ctx.static(axis, "axis") is None:
        if idx.ndim != 1:
            raise ctx.error("when axis=None, `indices` must have a single dimension. (numpy "
                            "raises ValueError)")
        arr, axis = _ravel(ctx, arr), 0
    else:
        if idx.ndim != arr.ndim:
            raise ctx.error("`indices` and `arr` must have the same number of dimensions "
                            "(numpy raises ValueError)")
        axis = _axis(ctx, axis, arr.ndim)
    others = [j for j in range(arr.ndim) if j != axis]
    try:
        common = broadcast_shapes(*(tuple(s[j] for j in others) for s in (arr.shape, idx.shape)))
    except ValueError:
        raise ctx.error(
            "shape mismatch: indexing arrays could not be broadcast together with shapes "
            f"{arr.shape} {idx.shape} (numpy raises IndexError)") from None
    proven = idx.ndim == arr.ndim and same_shape(idx.value, arr.value)
    iv = to_index(ctx, idx, int32_ok=True)

    def widen(x: Array, other: Array) -> Array:
        """``x`` broadcast to the common shape in every dimension but ``axis``."""
        # x needs widening along j unless other's length there is 1 or x's is known and
        # either > 1 or equal to other's (then the broadcast length is x's).
        if proven or all(other.shape[j] == 1 or (x.shape[j] is not None and (
                x.shape[j] != 1 or x.shape[j] == other.shape[j])) for j in others):
            return x
        # (A constant target holding 0 is avoided: onnxruntime 1.31's optimizer can drop such
        # an Expand.)
        if all(other.shape[j] is not None and other.shape[j] != 0 for j in others):
            target = i64(ctx, [1 if j == axis else other.shape[j] for j in range(x.ndim)])
        else:
            keep = ctx.const(np.array([j != axis for j in range(x.ndim)]))
            target = ctx.op("Where", keep, ctx.op("Shape", other), i64(ctx, [1]))
        shape = tuple(x.shape[axis] if j == axis else common[others.index(j)]
                      for j in range(x.ndim))
        return Array(ctx.op("Expand", x, target), x.dtype, shape)

    arr2, iv2 = widen(arr, iv), widen(iv, arr)
    out = ctx.op("GatherElements", arr2, iv2, axis=axis)
    return Array(out, arr.dtype, iv2.shape)


def _nonzero_1d(ctx, cond: Array) -> Array:
    """``cond.nonzero()[0]`` of a 1-D array (int64)."""
    if not kernels.has_kernel("NonZero", cond.dtype):
        cond = ctx.cast(cond, np.bool_)  # astype(bool) is nonzero-ness, NaN included
    nz = ctx.op("NonZero", cond)
    return Array(ctx.op("Reshape", nz, i64(ctx, [-1])), _I64, (None,))


@register(np.compress)
def compress(ctx, condition, a, axis=None, out=None):
    """``np.compress(condition, a, axis=None)``; see the module docstring."""
    _no_out(ctx, out, "np.compress")
    if isinstance(condition, (list, tuple)) and not is_static(condition):
        condition = ctx.asarray(condition)
    if isinstance(condition, Array):
        c = condition.value.const_value
        cond: Any = c.numpy() if c is not None else condition
    else:
        cond = np.asarray(condition)
    if cond.ndim != 1:
        raise ctx.error("condition must be a 1-d array (numpy raises ValueError)")
    if isinstance(cond, np.ndarray):
        if cond.dtype.kind not in "biuf":
            raise ctx.error(f"condition of dtype {cond.dtype} is not supported")
        return take(ctx, a, np.nonzero(cond)[0], axis=axis)
    return take(ctx, a, _nonzero_1d(ctx, cond), axis=axis)


@register(methods=("compress",))
def compress_method(ctx, self, condition, axis=None, out=None):
    """``a.compress(condition, axis=None)``."""
    return compress(ctx, condition, self, axis=axis, out=out)


@register(np.extract)
def extract(ctx, condition, arr):
    """``np.extract(condition, arr)``; see the module docstring."""
    flat = _ravel(ctx, _array(ctx, arr))
    if isinstance(condition, Array):
        idx: Any = _nonzero_1d(ctx, _ravel(ctx, condition))
    else:
        idx = np.nonzero(np.ravel(np.asarray(condition)))[0]
    return take(ctx, flat, idx)

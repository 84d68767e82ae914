"""Helpers shared by the shape modules and by linalg: static axes and dimensions, int64 shape
vectors, reshapes, transposes, slices, copies and run-time guards.

Input: the Lowering ``ctx`` and frontend values (Arrays, static ints and sequences). Output:
Arrays whose static shape has the exact rank (each dimension an int when known at conversion
time, else None), or int64 ``ir.Value`` shape vectors. Errors numpy raises on static arguments
become ``ctx.error`` with numpy's message. No registry entries live here.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph.shapes import normalize_axis
from pyonnx.frontend.graph.values import Array, Dim

__all__ = [
    "I64", "DimLike", "strong", "to_array", "ints", "ints_array", "dim_value", "shape_vector",
    "shape_slice", "static_prod", "reshape_vec", "reshape_dims", "transpose_to", "unsqueeze",
    "squeeze_axes", "slice_axis", "guard", "axis_of", "axes_of", "fmt_shape", "flatten_range",
    "ravel_array",
]


I64 = np.dtype(np.int64)
_BIG = np.iinfo(np.int64).max

# A dimension as code sees it: a static int, or a 0-d integer Array (known only at run time).
DimLike = int | Array


# ---------------------------------------------------------------- helpers (also used by linalg)
def strong(a: Array) -> Array:
    """``a`` without the weak (Python scalar) flag: numpy functions return arrays."""
    return Array(a.value, a.dtype, a.shape) if a.weak else a


def to_array(ctx, v: Any) -> Array:
    """``np.asarray(v)``: any frontend value as a strong Array (Python scalars → int64/float64)."""
    return strong(ctx.asarray(v))


def ints(ctx, values: Sequence[int]) -> ir.Value:
    """A 1-D int64 constant."""
    return ctx.const(np.array(list(values), dtype=np.int64).reshape(-1))


def fmt_shape(shape: Sequence[Dim]) -> str:
    """A static shape as numpy prints it, '?' for unknown dimensions."""
    dims = ["?" if d is None else str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def axis_of(ctx, axis: Any, ndim: int, what: str = "axis") -> int:
    """A static, normalized axis; numpy's AxisError text as a ConversionError."""
    axis = ctx.static(axis, what)
    try:
        return normalize_axis(operator.index(axis), ndim)
    except TypeError:
        raise ctx.error(f"{what} must be an integer, got {axis!r}") from None
    except ValueError as e:
        raise ctx.error(f"{what}: {e}" if what != "axis" else str(e)) from None


def axes_of(ctx, axis: Any, ndim: int, what: str = "axis", unique: bool = True) -> tuple[int, ...]:
    """Static axes (None = all, int or sequence), normalized, in the given order."""
    axis = ctx.static(axis, what)
    if axis is None:
        return tuple(range(ndim))
    seq = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = tuple(axis_of(ctx, a, ndim, what) for a in seq)
    if unique and len(set(out)) != len(out):
        raise ctx.error(f"repeated axis in {what}: {tuple(seq)}")
    return out


def dim_value(ctx, d: Any, what: str = "a dimension") -> DimLike:
    """A dimension argument: a static int, or a 0-d integer Array (constants become ints)."""
    if isinstance(d, Array):
        if d.ndim != 0:
            raise ctx.error(f"{what} must be an integer, got an array of shape {fmt_shape(d.shape)}")
        if d.dtype.kind not in "iu":
            raise ctx.error(f"{what} must be an integer, got a {d.dtype} value "
                            "(numpy: an integer is required)")
        const = d.value.const_value
        if const is not None:
            return int(const.numpy())
        return d
    if isinstance(d, (bool, np.bool_)) or isinstance(d, float | np.floating):
        raise ctx.error(f"{what} must be an integer, got {d!r}")
    try:
        return operator.index(d)
    except TypeError:
        raise ctx.error(f"{what} must be an integer, got {d!r}") from None


def shape_vector(ctx, dims: Sequence[Any]) -> ir.Value:
    """An int64 shape vector from pieces: ints, 0-d integer Arrays, or 1-D int64 Arrays."""
    pieces: list[ir.Value] = []
    run: list[int] = []
    for d in dims:
        if isinstance(d, Array):
            if run:
                pieces.append(ints(ctx, run))
                run = []
            v = ctx.cast(d, I64) if d.dtype != I64 else d
            if v.ndim == 0:
                pieces.append(ctx.op("Unsqueeze", v, ints(ctx, [0])))
            else:
                pieces.append(v.value)
        else:
            run.append(int(d))
    if run or not pieces:
        pieces.append(ints(ctx, run))
    return pieces[0] if len(pieces) == 1 else ctx.op("Concat", *pieces, axis=0)


def shape_slice(ctx, a: Array, start: int, stop: int) -> Array:
    """``a.shape[start:stop]`` as a 1-D int64 Array (a constant when those dims are known)."""
    dims = a.shape[start:stop]
    if all(d is not None for d in dims):
        return Array(ints(ctx, dims), I64, (len(dims),))
    value = ctx.op("Shape", a, start=start, end=stop)
    return Array(value, I64, (len(dims),))


def static_prod(dims: Sequence[Dim]) -> Dim:
    """Product of static dims; None when unknown (0 when some known dim is 0)."""
    if any(d == 0 for d in dims):
        return 0
    if any(d is None for d in dims):
        return None
    return math.prod(dims)


def flatten_range(ctx, a: Array, start: int, stop: int) -> tuple[Any, Dim]:
    """The product of ``a.shape[start:stop]``: (shape-vector piece, static value or None)."""
    static = static_prod(a.shape[start:stop])
    if static is not None:
        return static, static
    piece = ctx.op("ReduceProd", shape_slice(ctx, a, start, stop), keepdims=1)
    return Array(piece, I64, (1,)), None


def reshape_vec(ctx, a: Array, vec: ir.Value, shape: Sequence[Dim]) -> Array:
    """``Reshape`` to the run-time vector ``vec`` (0 means 0), with static ``shape``."""
    shape = tuple(shape)
    if shape == a.shape and all(d is not None for d in shape):
        return a
    return Array(ctx.op("Reshape", a, vec, allowzero=1), a.dtype, shape)


def reshape_dims(ctx, a: Array, dims: Sequence[Any]) -> Array:
    """``Reshape`` to pieces (ints, 0-d Arrays, 1-D Arrays) with a known static ``shape``.

    Pieces must not use -1; static dims come from ints, unknown from Arrays.
    """
    shape: list[Dim] = []
    for d in dims:
        if isinstance(d, Array):
            shape.extend([None] if d.ndim == 0 else [None] * d.shape[0])
        else:
            shape.append(int(d))
    return reshape_vec(ctx, a, shape_vector(ctx, dims), shape)


def transpose_to(ctx, a: Array, perm: Sequence[int]) -> Array:
    perm = [int(p) for p in perm]
    if perm == list(range(a.ndim)):
        return a
    return Array(ctx.op("Transpose", a, perm=perm), a.dtype, tuple(a.shape[p] for p in perm))


def unsqueeze(ctx, a: Array, axes: Sequence[int]) -> Array:
    """Inserts size-1 axes at the (normalized, output) positions ``axes``."""
    axes = sorted(axes)
    if not axes:
        return a
    shape = list(a.shape)
    for ax in axes:
        shape.insert(ax, 1)
    return Array(ctx.op("Unsqueeze", a, ints(ctx, axes)), a.dtype, tuple(shape))


def squeeze_axes(ctx, a: Array, axes: Sequence[int]) -> Array:
    if not axes:
        return a
    shape = tuple(d for i, d in enumerate(a.shape) if i not in set(axes))
    return Array(ctx.op("Squeeze", a, ints(ctx, sorted(axes))), a.dtype, shape)


def slice_axis(ctx, a: Array, axis: int, start: Any, stop: Any, step: int = 1,
               static_len: Dim = None) -> Array:
    """``a[..., start:stop:step, ...]`` on ``axis``; start/stop ints or 1-element int64 Arrays."""
    def vec(v):
        return v.value if isinstance(v, Array) else ints(ctx, [v])

    n = a.shape[axis]
    if static_len is None and n is not None and not isinstance(start, Array) \
            and not isinstance(stop, Array):
        static_len = len(range(*slice(start, stop, step).indices(n)))
    value = ctx.op("Slice", a, vec(start), vec(stop), ints(ctx, [axis]), ints(ctx, [step]))
    shape = a.shape[:axis] + (static_len,) + a.shape[axis + 1:]
    return Array(value, a.dtype, shape)


def guard(ctx, ok: ir.Value, vec: Array) -> Array:
    """``vec`` (1-D int64), made to fail at run time unless the bool 0-d ``ok`` holds.

    numpy raises for some conditions only the run time can check (unequal split sections,
    negative repeats); the Reshape to a -2 dimension makes onnxruntime fail the run instead of
    returning a result numpy would not give.
    """
    n = vec.shape[0]
    assert n is not None
    target = ctx.op("Where", ok, ints(ctx, [n]), ints(ctx, [-2]))
    return Array(ctx.op("Reshape", vec, target), vec.dtype, vec.shape)


def _i64_scalar(ctx, d: DimLike) -> Array:
    if isinstance(d, Array):
        return ctx.cast(strong(d), I64)
    return ctx.const_array(np.int64(d))


def _binary_i64(ctx, op: str, a: DimLike, b: DimLike) -> Array:
    return Array(ctx.op(op, _i64_scalar(ctx, a), _i64_scalar(ctx, b)), I64, ())


def ravel_array(ctx, a: Array) -> Array:
    a = to_array(ctx, a)
    if a.ndim == 1:
        return a
    size = a.static_size
    vec = ints(ctx, [size if size is not None else -1])
    return Array(ctx.op("Reshape", a, vec, allowzero=1), a.dtype, (size,))


def _merge_axes(ctx, a: Array, k: int) -> Array:
    """Merges axes ``k`` and ``k + 1`` of ``a`` (row-major)."""
    merged, static = flatten_range(ctx, a, k, k + 2)
    pieces: list[Any] = []
    if k:
        pieces.append(shape_slice(ctx, a, 0, k))
    pieces.append(merged)
    if k + 2 < a.ndim:
        pieces.append(shape_slice(ctx, a, k + 2, a.ndim))
    shape = a.shape[:k] + (static,) + a.shape[k + 2:]
    return reshape_vec(ctx, a, shape_vector(ctx, pieces), shape)


def _copy(ctx, a: Array) -> Array:
    """A new value with ``a``'s contents (numpy copies: writes to it must not reach ``a``)."""
    return Array(ctx.op("Identity", a), a.dtype, a.shape)


def ints_array(ctx, values: Sequence[int]) -> Array:
    return Array(ints(ctx, values), I64, (len(values),))

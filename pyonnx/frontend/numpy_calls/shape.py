"""numpy shape manipulation: reshape, transpose, join, split, tile, repeat, flip, roll, pad, ...

Input: frontend values (Arrays and static values) under numpy's parameter names. Output: Arrays
whose static shape has the exact rank and every dimension known at conversion time (an int) or
None. Shapes may hold dynamic dimensions (``x.shape[0]``, a weak int64 0-d Array); errors numpy
raises on known shapes are raised at conversion time with numpy's message, and mismatches only
the run time can see make onnxruntime fail (never a silently different result). Results are
strong (numpy functions return arrays, never Python scalars).

Supported syntax (``x`` an array; ``dims`` ints, -1 once, or integer 0-d arrays like
``x.shape[0]``; ``axis`` static ints):

* ``np.reshape(x, dims)``, ``x.reshape(d0, d1, ...)``, ``x.reshape((d0, d1))`` (order='C');
  ``np.ravel(x)``, ``x.ravel()``, ``x.flatten()``.
* ``np.transpose(x, axes=None)``, ``x.transpose(1, 0)``/``x.transpose((1, 0))``,
  ``np.permute_dims``, ``np.matrix_transpose``, ``np.swapaxes``/``x.swapaxes``,
  ``np.moveaxis`` (int or tuple axes), ``np.rollaxis``.
* ``np.expand_dims(x, axis)`` (int or tuple), ``np.squeeze(x, axis=None)``/``x.squeeze``:
  without ``axis`` every dimension must be known; with it, a known dimension must be 1 and a
  dynamic one that is not 1 makes onnxruntime's Squeeze fail at run time.
* ``np.concatenate``/``np.concat`` (axis int or None, ``dtype=``, ``casting=``), ``np.stack``,
  ``np.hstack``, ``np.vstack``, ``np.dstack``, ``np.column_stack``: lists or tuples mixing
  arrays and static values, or one array (joined along its first axis).
* ``np.atleast_1d/2d/3d(*arrays)``, ``np.tile(x, reps)``, ``np.repeat(x, repeats, axis=None)``
  and ``x.repeat`` (int, 0-d array, or per-element repeats: static or a 1-D int array),
  ``np.broadcast_to(x, shape)``, ``np.broadcast_arrays(*arrays)``.
* ``np.flip(x, axis=None)``, ``np.fliplr``, ``np.flipud``, ``np.roll(x, shift, axis=None)``
  (shift int, 0-d int array or tuple; axis None, int or tuple).
* ``np.split``/``np.array_split``/``np.hsplit``/``np.vsplit``/``np.dsplit`` with a static
  number of sections or static indices (a list of arrays).
* ``x.astype(dtype, casting=, copy=)``, ``np.astype``, ``np.copy(x)``, ``x.copy()``.
* ``np.pad(x, pad_width, mode='constant'|'edge'|'reflect', constant_values=)`` with static
  pad widths.
* ``np.shape(x)``, ``np.ndim(x)``, ``np.size(x, axis=None)``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.lower import kernels
from pyonnx.frontend.lower.shapes import broadcast_shapes, normalize_axis
from pyonnx.frontend.lower.values import Array, Dim, is_static
from pyonnx.frontend.numpy_calls import register

__all__ = [
    "strong", "to_array", "ints", "dim_value", "shape_vector", "shape_slice", "reshape_vec",
    "reshape_dims", "transpose_to", "unsqueeze", "squeeze_axes", "slice_axis", "guard",
    "axis_of", "axes_of", "fmt_shape", "flatten_range", "ravel_array",
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


def _prod(dims: Sequence[Dim]) -> Dim:
    """Product of static dims; None when unknown (0 when some known dim is 0)."""
    if any(d == 0 for d in dims):
        return 0
    if any(d is None for d in dims):
        return None
    return math.prod(dims)


def flatten_range(ctx, a: Array, start: int, stop: int) -> tuple[Any, Dim]:
    """The product of ``a.shape[start:stop]``: (shape-vector piece, static value or None)."""
    static = _prod(a.shape[start:stop])
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


def _numpy_check(ctx, fn, *args, **kwargs) -> Any:
    """Runs numpy on stand-in arrays to reproduce its argument checks and messages."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, TypeError, IndexError) as e:
        raise ctx.error(f"{type(e).__name__}: {e}") from None


def _dummy(ndim: int) -> np.ndarray:
    return np.empty((0,) * ndim, dtype=np.int8)


def _refuse_order(ctx, order: Any, name: str, allowed: tuple[str, ...] = ("C",)) -> None:
    order = ctx.static(order, "order")
    if order not in allowed:
        raise ctx.error(f"{name}(order={order!r}) is not supported: pyonnx arrays are "
                        "C-ordered; use order='C'")


# ------------------------------------------------------------------------------ reshape
def _reshape(ctx, a: Array, newshape: Any, copy: Any = None, name: str = "reshape") -> Array:
    a = to_array(ctx, a)
    newshape = newshape if isinstance(newshape, (tuple, list)) else (newshape,)
    if ctx.static(copy, "copy") is False:
        raise ctx.error(f"{name}(copy=False) is not supported: whether numpy can avoid a copy "
                        "depends on the memory layout; drop copy=False")
    dims = [dim_value(ctx, d, "a dimension in the new shape") for d in newshape]
    unknown = [i for i, d in enumerate(dims) if isinstance(d, int) and d < 0]
    if len(unknown) > 1:
        raise ctx.error("can only specify one unknown dimension")
    others = [d for i, d in enumerate(dims) if i not in unknown]
    known_product = math.prod(d for d in others if isinstance(d, int))
    all_static = all(isinstance(d, int) for d in dims)
    size = a.static_size
    shown = "(" + ",".join("newaxis" if i in unknown else ("?" if isinstance(d, Array) else str(d))
                           for i, d in enumerate(dims)) + ("," if len(dims) == 1 else "") + ")"
    if unknown and all(isinstance(d, int) for d in others) and known_product == 0:
        raise ctx.error(f"cannot reshape array of size {'?' if size is None else size} into "
                        f"shape {shown}")
    if size is not None and all_static:
        if (unknown and size % known_product) or (not unknown and size != known_product):
            raise ctx.error(f"cannot reshape array of size {size} into shape {shown}")
    static: list[Dim] = [d if isinstance(d, int) else None for d in dims]
    if unknown:
        i = unknown[0]
        if all(isinstance(d, int) for d in others):
            static[i] = size // known_product if size is not None else None
            pieces: list[Any] = list(dims)
            pieces[i] = static[i] if static[i] is not None else -1
        else:
            # -1 next to run-time dims: compute it as size // product, so a zero product fails
            # (integer division by zero) where numpy raises instead of guessing.
            total = ctx.op("ReduceProd", ctx.op("Shape", a), keepdims=0)
            prod = _i64_scalar(ctx, others[0])
            for d in others[1:]:
                prod = _binary_i64(ctx, "Mul", prod, d)
            pieces = list(dims)
            pieces[i] = Array(ctx.op("Div", total, prod), I64, ())
    else:
        pieces = list(dims)
    if all(d is not None for d in static):
        vec = ints(ctx, static)
    else:
        vec = shape_vector(ctx, pieces)
    out = Array(ctx.op("Reshape", a, vec, allowzero=1), a.dtype, tuple(static))
    return out


@register(np.reshape)
def reshape(ctx, a, /, shape=None, order="C", *, copy=None):
    """``np.reshape(a, shape)``: ints, one -1, and integer 0-d arrays (``x.shape[0]``)."""
    _refuse_order(ctx, order, "np.reshape")
    if shape is None:
        raise ctx.error("np.reshape() needs a shape")
    return _reshape(ctx, a, shape, copy)


@register(methods=("reshape",))
def reshape_method(ctx, a, *shape, order="C", copy=None):
    """``x.reshape(2, -1)`` and ``x.reshape((2, -1))``."""
    _refuse_order(ctx, order, "ndarray.reshape")
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _reshape(ctx, a, shape, copy)


def ravel_array(ctx, a: Array) -> Array:
    a = to_array(ctx, a)
    if a.ndim == 1:
        return a
    size = a.static_size
    vec = ints(ctx, [size if size is not None else -1])
    return Array(ctx.op("Reshape", a, vec, allowzero=1), a.dtype, (size,))


@register(np.ravel, methods=("ravel",))
def ravel(ctx, a, order="C"):
    """``np.ravel(x)``, ``x.ravel()`` (order 'C')."""
    # 'K'/'A' follow the memory layout of views (x.T.ravel('K')), which pyonnx does not track.
    _refuse_order(ctx, order, "ravel")
    return ravel_array(ctx, a)


@register(methods=("flatten",))
def flatten(ctx, a, order="C"):
    """``x.flatten()`` (a copy, order 'C')."""
    _refuse_order(ctx, order, "flatten")
    out = ravel_array(ctx, a)
    return _copy(ctx, out) if out is a else out


# ---------------------------------------------------------------------------- transposes
def _transpose(ctx, a: Any, axes: Any) -> Array:
    a = to_array(ctx, a)
    axes = ctx.static(axes, "axes")
    if axes is None:
        return transpose_to(ctx, a, list(reversed(range(a.ndim))))
    if not isinstance(axes, (tuple, list)):
        axes = (axes,)
    _numpy_check(ctx, np.transpose, _dummy(a.ndim), axes)
    norm = [operator.index(p) % a.ndim for p in axes] if a.ndim else []
    return transpose_to(ctx, a, norm)


@register(np.transpose, np.permute_dims)
def transpose(ctx, a, axes=None):
    """``np.transpose(x, axes=None)``, ``np.permute_dims``."""
    return _transpose(ctx, a, axes)


@register(methods=("transpose",))
def transpose_method(ctx, a, *axes):
    """``x.transpose()``, ``x.transpose(1, 0)``, ``x.transpose((1, 0))``."""
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    elif not axes:
        axes = None
    return _transpose(ctx, a, axes)


def _matrix_transpose(ctx, x) -> Array:
    x = to_array(ctx, x)
    if x.ndim < 2:
        raise ctx.error("matrix transpose with ndim < 2 is undefined")
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return transpose_to(ctx, x, perm)


@register(np.matrix_transpose, np.linalg.matrix_transpose)
def matrix_transpose(ctx, x, /):
    """``np.matrix_transpose(x)`` (also ``x.mT``): swaps the last two axes."""
    return _matrix_transpose(ctx, x)


@register(np.swapaxes, methods=("swapaxes",))
def swapaxes(ctx, a, axis1, axis2):
    """``np.swapaxes(x, axis1, axis2)``, ``x.swapaxes(axis1, axis2)``."""
    a = to_array(ctx, a)
    i = axis_of(ctx, axis1, a.ndim, "axis1")
    j = axis_of(ctx, axis2, a.ndim, "axis2")
    perm = list(range(a.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return transpose_to(ctx, a, perm)


@register(np.moveaxis)
def moveaxis(ctx, a, source, destination):
    """``np.moveaxis(x, source, destination)`` (ints or sequences of ints)."""
    a = to_array(ctx, a)
    src = ctx.static(source, "source")
    dst = ctx.static(destination, "destination")
    _numpy_check(ctx, np.moveaxis, _dummy(a.ndim), src, dst)
    src = axes_of(ctx, src, a.ndim, "source")
    dst = axes_of(ctx, dst, a.ndim, "destination")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose_to(ctx, a, order)


@register(np.rollaxis)
def rollaxis(ctx, a, axis, start=0):
    """``np.rollaxis(x, axis, start=0)``."""
    a = to_array(ctx, a)
    n = a.ndim
    axis = axis_of(ctx, axis, n)
    start = operator.index(ctx.static(start, "start"))
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise ctx.error(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return transpose_to(ctx, a, order)


# --------------------------------------------------------------------- squeeze / expand
@register(np.expand_dims)
def expand_dims(ctx, a, axis):
    """``np.expand_dims(x, axis)`` with an int or a tuple of ints."""
    a = to_array(ctx, a)
    axis = ctx.static(axis, "axis")
    seq = axis if isinstance(axis, (tuple, list)) else (axis,)
    out_ndim = a.ndim + len(seq)
    axes = [axis_of(ctx, ax, out_ndim) for ax in seq]
    if len(set(axes)) != len(axes):
        raise ctx.error("repeated axis")
    return unsqueeze(ctx, a, axes)


@register(np.squeeze, methods=("squeeze",))
def squeeze(ctx, a, axis=None):
    """``np.squeeze(x, axis=None)``, ``x.squeeze(axis)``.

    Without ``axis``, which dimensions are 1 must be known at conversion time (the result's
    rank depends on it). With ``axis``, a dynamic dimension that is not 1 at run time makes
    onnxruntime's Squeeze fail, where numpy raises.
    """
    a = to_array(ctx, a)
    axis = ctx.static(axis, "axis")
    if axis is None:
        if any(d is None for d in a.shape):
            raise ctx.error(
                f"np.squeeze without axis on an array of shape {fmt_shape(a.shape)}: which "
                "dimensions are 1 is only known at run time, and the result's rank depends on "
                "it; pass axis= with the axes to remove")
        return squeeze_axes(ctx, a, [i for i, d in enumerate(a.shape) if d == 1])
    seq = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = [axis_of(ctx, ax, a.ndim) for ax in seq]
    if len(set(axes)) != len(axes):
        raise ctx.error("duplicate value in 'axis'")
    for ax in axes:
        if a.shape[ax] is not None and a.shape[ax] != 1:
            raise ctx.error("cannot select an axis to squeeze out which has size not equal to "
                            f"one (axis {ax} has size {a.shape[ax]})")
    return squeeze_axes(ctx, a, axes)


# ------------------------------------------------------------------------------ joining
def _sequence(ctx, arrays: Any, name: str) -> list[Any] | Array:
    """The items of a join's sequence argument; an Array is returned as is (its rows)."""
    if isinstance(arrays, Array):
        return strong(arrays)
    if isinstance(arrays, (list, tuple)):
        return list(arrays)
    if is_static(arrays):
        try:
            return list(np.asarray(arrays))
        except TypeError:
            pass
    raise ctx.error(f"{name} needs a list or tuple of arrays")


def _join_dtype(ctx, arrays: list[Array], dtype: Any, casting: Any) -> np.dtype:
    casting = ctx.static(casting, "casting")
    if dtype is None:
        out = np.result_type(*(a.dtype for a in arrays))
    else:
        out = np.dtype(ctx.static(dtype, "dtype"))
    for a in arrays:
        if not np.can_cast(a.dtype, out, casting=casting):
            raise ctx.error(f"Cannot cast array data from dtype('{a.dtype}') to dtype('{out}') "
                            f"according to the rule '{casting}'")
    return out


def _merge_dim(ctx, dims: Sequence[Dim], axis: int) -> Dim:
    known = [(i, d) for i, d in enumerate(dims) if d is not None]
    for i, d in known[1:]:
        if d != known[0][1]:
            raise ctx.error("all the input array dimensions except for the concatenation axis "
                            f"must match exactly, but along dimension {axis}, the array at "
                            f"index {known[0][0]} has size {known[0][1]} and the array at index "
                            f"{i} has size {d}")
    return known[0][1] if known else None


def _concat_arrays(ctx, arrays: list[Array], axis: int, dtype: np.dtype) -> Array:
    arrays = [ctx.cast(a, dtype) for a in arrays]
    ndim = arrays[0].ndim
    shape: list[Dim] = []
    for i in range(ndim):
        dims = [a.shape[i] for a in arrays]
        if i == axis:
            shape.append(None if any(d is None for d in dims) else sum(dims))
        else:
            shape.append(_merge_dim(ctx, dims, i))
    if len(arrays) == 1:
        return _copy(ctx, arrays[0])
    return Array(ctx.op("Concat", *arrays, axis=axis), dtype, tuple(shape))


def _concat_rows(ctx, x: Array, axis: Any) -> Array:
    """``np.concatenate(x, axis)`` for one array ``x``: its rows joined along ``axis``."""
    if x.ndim == 0:
        raise ctx.error("np.concatenate needs a sequence of arrays, got a 0-d array")
    x = _nonempty_rows(ctx, x, "concatenate")
    if axis is None:
        return ravel_array(ctx, x)
    if x.ndim < 2:
        raise ctx.error("zero-dimensional arrays cannot be concatenated")
    k = axis_of(ctx, axis, x.ndim - 1)
    moved = transpose_to(ctx, x, list(range(1, k + 1)) + [0] + list(range(k + 1, x.ndim)))
    return _merge_axes(ctx, moved, k)


def _nonempty_rows(ctx, x: Array, what: str) -> Array:
    """``x``, made to fail at run time when it has no rows (numpy: need at least one array)."""
    if x.shape[0] == 0:
        raise ctx.error(f"need at least one array to {what}")
    if x.shape[0] is not None:
        return x
    vec = shape_slice(ctx, x, 0, x.ndim)
    ok = ctx.op("Greater", ctx.op("Gather", vec, ctx.const(np.int64(0))), ctx.const(np.int64(0)))
    return Array(ctx.op("Reshape", x, guard(ctx, ok, vec), allowzero=1), x.dtype, x.shape)


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


@register(np.concatenate, np.concat)
def concatenate(ctx, arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """``np.concatenate(seq, axis=0, dtype=None, casting='same_kind')``; axis None flattens."""
    if out is not None:
        raise ctx.error("np.concatenate(..., out=...) is not supported; assign the result")
    axis = ctx.static(axis, "axis")
    seq = _sequence(ctx, arrays, "np.concatenate")
    if isinstance(seq, Array):
        x = seq
        if dtype is not None:
            x = ctx.cast(x, _join_dtype(ctx, [x], dtype, casting))
        return _concat_rows(ctx, x, axis)
    if not seq:
        raise ctx.error("need at least one array to concatenate")
    items = [to_array(ctx, v) for v in seq]
    if axis is None:
        items = [ravel_array(ctx, a) for a in items]
        axis = 0
    for i, a in enumerate(items):
        if a.ndim == 0:
            raise ctx.error("zero-dimensional arrays cannot be concatenated")
        if a.ndim != items[0].ndim:
            raise ctx.error("all the input arrays must have same number of dimensions, but the "
                            f"array at index 0 has {items[0].ndim} dimension(s) and the array "
                            f"at index {i} has {a.ndim} dimension(s)")
    ax = axis_of(ctx, axis, items[0].ndim)
    return _concat_arrays(ctx, items, ax, _join_dtype(ctx, items, dtype, casting))


@register(np.stack)
def stack(ctx, arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """``np.stack(seq, axis=0, dtype=None, casting='same_kind')``; equal shapes required."""
    if out is not None:
        raise ctx.error("np.stack(..., out=...) is not supported; assign the result")
    seq = _sequence(ctx, arrays, "np.stack")
    if isinstance(seq, Array):
        x = seq
        if dtype is not None:
            x = ctx.cast(x, _join_dtype(ctx, [x], dtype, casting))
        if x.ndim == 0:
            raise ctx.error("np.stack needs a sequence of arrays, got a 0-d array")
        x = _nonempty_rows(ctx, x, "stack")
        k = axis_of(ctx, axis, x.ndim)
        order = list(range(1, x.ndim))
        order.insert(k, 0)
        return _copy(ctx, transpose_to(ctx, x, order))
    if not seq:
        raise ctx.error("need at least one array to stack")
    items = [to_array(ctx, v) for v in seq]
    ndim = items[0].ndim
    for a in items:
        if a.ndim != ndim or any(p is not None and q is not None and p != q
                                 for p, q in zip(a.shape, items[0].shape)):
            raise ctx.error("all input arrays must have the same shape, got "
                            + " and ".join(fmt_shape(b.shape) for b in items))
    k = axis_of(ctx, axis, ndim + 1)
    dt = _join_dtype(ctx, items, dtype, casting)
    expanded = [unsqueeze(ctx, a, [k]) for a in items]
    # Concat checks every other axis at run time, which covers all of the items' dimensions.
    return _concat_arrays(ctx, expanded, k, dt)


def _atleast(ctx, a: Any, n: int) -> Array:
    a = to_array(ctx, a)
    if a.ndim >= n:
        return a
    if n == 1:
        return unsqueeze(ctx, a, [0])
    if n == 2:
        return unsqueeze(ctx, a, [0] if a.ndim == 1 else [0, 1])
    # atleast_3d: (N,) -> (1, N, 1); (M, N) -> (M, N, 1); () -> (1, 1, 1).
    return unsqueeze(ctx, a, {0: [0, 1, 2], 1: [0, 2], 2: [2]}[a.ndim])


def _atleast_many(ctx, arys, n):
    outs = tuple(_atleast(ctx, a, n) for a in arys)
    return outs[0] if len(outs) == 1 else outs


@register(np.atleast_1d)
def atleast_1d(ctx, *arys):
    """``np.atleast_1d(*arrays)`` (one array, or a tuple for several)."""
    return _atleast_many(ctx, arys, 1)


@register(np.atleast_2d)
def atleast_2d(ctx, *arys):
    """``np.atleast_2d(*arrays)``."""
    return _atleast_many(ctx, arys, 2)


@register(np.atleast_3d)
def atleast_3d(ctx, *arys):
    """``np.atleast_3d(*arrays)``."""
    return _atleast_many(ctx, arys, 3)


def _rows(ctx, seq: list[Any] | Array, name: str) -> list[Any]:
    if isinstance(seq, Array):
        if seq.ndim == 0 or seq.shape[0] is None:
            raise ctx.error(f"{name} of one array needs its first dimension known at conversion "
                            "time; use np.concatenate (or reshape) instead")
        return [Array(ctx.op("Gather", seq, ctx.const(np.int64(i)), axis=0), seq.dtype,
                      seq.shape[1:]) for i in range(seq.shape[0])]
    return seq


@register(np.hstack)
def hstack(ctx, tup, *, dtype=None, casting="same_kind"):
    """``np.hstack(seq)``: along axis 0 for 1-D items, else axis 1."""
    items = [_atleast(ctx, a, 1) for a in _rows(ctx, _sequence(ctx, tup, "np.hstack"), "np.hstack")]
    if not items:
        raise ctx.error("need at least one array to concatenate")
    return concatenate(ctx, items, 0 if items[0].ndim == 1 else 1, dtype=dtype, casting=casting)


@register(np.vstack)
def vstack(ctx, tup, *, dtype=None, casting="same_kind"):
    """``np.vstack(seq)``: items as at least 2-D, joined along axis 0."""
    items = [_atleast(ctx, a, 2) for a in _rows(ctx, _sequence(ctx, tup, "np.vstack"), "np.vstack")]
    return concatenate(ctx, items, 0, dtype=dtype, casting=casting)


@register(np.dstack)
def dstack(ctx, tup):
    """``np.dstack(seq)``: items as at least 3-D, joined along axis 2."""
    items = [_atleast(ctx, a, 3) for a in _rows(ctx, _sequence(ctx, tup, "np.dstack"), "np.dstack")]
    return concatenate(ctx, items, 2)


@register(np.column_stack)
def column_stack(ctx, tup):
    """``np.column_stack(seq)``: 0-d/1-d items become columns, joined along axis 1."""
    items = []
    for v in _rows(ctx, _sequence(ctx, tup, "np.column_stack"), "np.column_stack"):
        a = to_array(ctx, v)
        if a.ndim < 2:
            a = _matrix_transpose(ctx, _atleast(ctx, a, 2))
        items.append(a)
    return concatenate(ctx, items, 1)


# --------------------------------------------------------------------- tile / repeat
@register(np.tile)
def tile(ctx, A, reps):
    """``np.tile(x, reps)``: reps an int, 0-d int array, or a sequence of them."""
    a = to_array(ctx, A)
    seq = reps if isinstance(reps, (tuple, list)) else (reps,)
    if isinstance(reps, Array) and reps.ndim == 1 and reps.shape[0] is not None:
        seq = tuple(Array(ctx.op("Gather", reps, ctx.const(np.int64(i))), reps.dtype, ())
                    for i in range(reps.shape[0]))
    elif isinstance(reps, Array) and reps.ndim != 0:
        raise ctx.error("np.tile: reps must be an int or a sequence of ints whose length is "
                        "known at conversion time")
    dims = [dim_value(ctx, r, "reps") for r in seq]
    if any(isinstance(d, int) and d < 0 for d in dims):
        raise ctx.error("negative dimensions are not allowed")
    d = len(dims)
    if a.ndim < d:
        a = unsqueeze(ctx, a, list(range(d - a.ndim)))
    dims = [1] * (a.ndim - d) + dims
    if all(isinstance(r, int) and r == 1 for r in dims):
        return _copy(ctx, a)
    shape = tuple(None if (s is None or not isinstance(r, int)) and not (s == 0 or r == 0)
                  else (0 if s == 0 or r == 0 else s * r) for s, r in zip(a.shape, dims))
    return _tile(ctx, a, shape_vector(ctx, dims), shape)


def _tile(ctx, a: Array, reps: ir.Value, shape: tuple[Dim, ...]) -> Array:
    """``Tile`` in a dtype the kernel table allows (float16 goes through float32)."""
    run = kernels.compute_dtype("Tile", a.dtype)
    out = Array(ctx.op("Tile", ctx.cast(a, run), reps), run, shape)
    return ctx.cast(out, a.dtype)


def _repeat_int(ctx, a: Array, r: DimLike, axis: int) -> Array:
    """Each element along ``axis`` repeated ``r`` times (r ≥ 0; a negative r fails in Tile)."""
    if isinstance(r, int) and r == 1:
        return _copy(ctx, a)
    up = unsqueeze(ctx, a, [axis + 1])
    # Tile, not Expand: onnxruntime's optimizer drops an Expand of a size-1 axis to 0.
    reps = [1] * up.ndim
    reps[axis + 1] = r
    shape = list(up.shape)
    shape[axis + 1] = r if isinstance(r, int) else None
    tiled = _tile(ctx, up, shape_vector(ctx, reps), tuple(shape))
    return _merge_axes(ctx, tiled, axis)


@register(np.repeat, methods=("repeat",))
def repeat(ctx, a, repeats, axis=None):
    """``np.repeat(x, repeats, axis=None)``: repeats an int, an integer 0-d array, or one count
    per element (a static sequence or a 1-D integer array, broadcast from length 1)."""
    a = to_array(ctx, a)
    axis = ctx.static(axis, "axis")
    if axis is None:
        a = ravel_array(ctx, a)
        axis = 0
    else:
        axis = axis_of(ctx, axis, a.ndim)
    if is_static(repeats):
        reps = np.asarray(repeats)
        if reps.size and reps.dtype.kind not in "iub":
            raise ctx.error(f"Cannot cast array data from dtype('{reps.dtype}') to "
                            "dtype('int64') according to the rule 'safe'")
        reps = reps.astype(np.int64)
        if reps.ndim > 1:
            raise ctx.error("np.repeat: repeats must be an int or a 1-D sequence")
        if (reps < 0).any():
            raise ctx.error("negative dimensions are not allowed")
        if reps.size == 1:
            return _repeat_int(ctx, a, int(reps.reshape(())), axis)
        n = a.shape[axis]
        if n is not None and n != reps.size:
            raise ctx.error(f"operands could not be broadcast together with shape ({n},) "
                            f"({reps.size},)")
        idx = ctx.const_array(np.repeat(np.arange(reps.size, dtype=np.int64), reps))
        if n is None:
            # The gather indices assume the axis has len(repeats) elements: check it.
            ok = ctx.op("Equal", ctx.op("Shape", a, start=axis, end=axis + 1),
                        ints(ctx, [reps.size]))
            ok = ctx.op("Squeeze", ok, ints(ctx, [0]))
            idx = guard(ctx, ok, idx)
        return _gather(ctx, a, idx, axis)
    r = to_array(ctx, repeats)
    if r.dtype.kind not in "iub":
        raise ctx.error(f"Cannot cast array data from dtype('{r.dtype}') to dtype('int64') "
                        "according to the rule 'safe'")
    if r.ndim == 0:
        return _repeat_int(ctx, a, r, axis)
    if r.ndim > 1:
        raise ctx.error("np.repeat: repeats must be an int or a 1-D array")
    return _repeat_per_element(ctx, a, ctx.cast(r, I64), axis)


def _gather(ctx, a: Array, idx: Array, axis: int) -> Array:
    value = ctx.op("Gather", a, idx, axis=axis)
    return Array(value, a.dtype, a.shape[:axis] + idx.shape + a.shape[axis + 1:])


def _repeat_per_element(ctx, a: Array, reps: Array, axis: int) -> Array:
    """Run-time per-element repeats: the gather index of output ``i`` is the number of
    cumulative counts ≤ ``i``, built by scattering +1 at each cumulative count."""
    n_vec = ctx.op("Shape", a, start=axis, end=axis + 1)
    # Broadcast a length-1 repeats to the axis; any other length must equal it (the Reshape
    # fails otherwise, as numpy's broadcast does).
    reps_b = ctx.op("Reshape", ctx.op("Expand", reps, n_vec), n_vec, allowzero=1)
    ends = ctx.op("CumSum", reps_b, ctx.const(np.int64(0)))
    total = ctx.op("ReduceSum", reps_b, keepdims=1)
    zero = ctx.op("ConstantOfShape", ctx.op("Add", total, ints(ctx, [1])),
                  value=ir.tensor(np.zeros(1, np.int64)))
    ones = ctx.op("ConstantOfShape", ctx.op("Shape", ends), value=ir.tensor(np.ones(1, np.int64)))
    marks = ctx.op("ScatterElements", zero, ends, ones, axis=0, reduction="add")
    idx = Array(ctx.op("CumSum", marks, ctx.const(np.int64(0))), I64, (None,))
    idx = slice_axis(ctx, idx, 0, 0, Array(total, I64, (1,)))
    # numpy refuses negative counts; fail the run rather than return a shorter result.
    negatives = ctx.op("ReduceSum", ctx.op("Cast", ctx.op("Less", reps_b, ctx.const(np.int64(0))),
                                           to=ir.DataType.INT64), keepdims=0)
    ok = ctx.op("Equal", negatives, ctx.const(np.int64(0)))
    idx = _guard_any(ctx, ok, idx)
    return _gather(ctx, a, idx, axis)


def _guard_any(ctx, ok: ir.Value, vec: Array) -> Array:
    """:func:`guard` for a 1-D int64 vector of unknown length."""
    n = ctx.op("Shape", vec)
    target = ctx.op("Where", ok, n, ints(ctx, [-2]))
    return Array(ctx.op("Reshape", vec, target), vec.dtype, vec.shape)


# -------------------------------------------------------------------- broadcasting
@register(np.broadcast_to)
def broadcast_to(ctx, array, shape, subok=False):
    """``np.broadcast_to(x, shape)``: shape ints or integer 0-d arrays."""
    a = to_array(ctx, array)
    seq = shape if isinstance(shape, (tuple, list)) else (shape,)
    dims = [dim_value(ctx, d, "a dimension of the shape") for d in seq]
    if any(isinstance(d, int) and d < 0 for d in dims):
        raise ctx.error("all elements of broadcast shape must be non-negative")
    if len(dims) < a.ndim:
        raise ctx.error("input operand has more dimensions than allowed by the axis remapping")
    target: list[Dim] = [d if isinstance(d, int) else None for d in dims]
    lead = len(dims) - a.ndim
    for i, s in enumerate(a.shape):
        t = target[lead + i]
        if s is not None and t is not None and s != 1 and s != t:
            raise ctx.error("operands could not be broadcast together with remapped shapes "
                            f"[original->remapped]: {fmt_shape(a.shape)} and requested shape "
                            f"{fmt_shape(target)}")
    vec = shape_vector(ctx, dims)
    out = Array(ctx.op("Expand", a, vec), a.dtype, tuple(target))
    if any(s is None for s in a.shape) or any(t is None for t in target):
        # Expand broadcasts both ways ((3,) to (1,) gives (3,)); numpy only stretches the
        # input. A Reshape to the requested shape fails whenever Expand grew it.
        out = Array(ctx.op("Reshape", out, vec, allowzero=1), a.dtype, tuple(target))
    return out


def _broadcast_vec(ctx, arrays: list[Array]) -> ir.Value:
    """The run-time broadcast shape of ``arrays`` (incompatible shapes fail in Expand)."""
    ndim = max(a.ndim for a in arrays)
    result = None
    for a in arrays:
        vec = shape_slice(ctx, a, 0, a.ndim).value
        if a.ndim < ndim:
            vec = ctx.op("Concat", ints(ctx, [1] * (ndim - a.ndim)), vec, axis=0)
        if result is None:
            result = vec
        else:
            is_one = ctx.op("Equal", result, ints(ctx, [1]))
            result = ctx.op("Where", is_one, vec, result)
    return result


@register(np.broadcast_arrays)
def broadcast_arrays(ctx, *args, subok=False):
    """``np.broadcast_arrays(*arrays)`` (a tuple)."""
    arrays = [to_array(ctx, a) for a in args]
    if not arrays:
        return ()
    try:
        shape = broadcast_shapes(*(a.shape for a in arrays))
    except ValueError as e:
        raise ctx.error(str(e)) from None
    if all(d is not None for d in shape):
        vec = ints(ctx, shape)
    else:
        vec = _broadcast_vec(ctx, arrays)
    outs = []
    for a in arrays:
        if a.shape == shape and all(d is not None for d in shape):
            outs.append(a)
        else:
            outs.append(Array(ctx.op("Expand", a, vec), a.dtype, shape))
    return tuple(outs)


# ------------------------------------------------------------------------ flip / roll
def _flip_axes(ctx, a: Array, axes: Sequence[int]) -> Array:
    if not axes:
        return _copy(ctx, a)
    value = ctx.op("Slice", a, ints(ctx, [-1] * len(axes)), ints(ctx, [-_BIG] * len(axes)),
                   ints(ctx, axes), ints(ctx, [-1] * len(axes)))
    return Array(value, a.dtype, a.shape)


@register(np.flip)
def flip(ctx, m, axis=None):
    """``np.flip(x, axis=None)`` (axis None, int or tuple)."""
    a = to_array(ctx, m)
    return _flip_axes(ctx, a, axes_of(ctx, axis, a.ndim))


@register(np.fliplr)
def fliplr(ctx, m):
    """``np.fliplr(x)`` (x at least 2-D)."""
    a = to_array(ctx, m)
    if a.ndim < 2:
        raise ctx.error("Input must be >= 2-d.")
    return _flip_axes(ctx, a, [1])


@register(np.flipud)
def flipud(ctx, m):
    """``np.flipud(x)`` (x at least 1-D)."""
    a = to_array(ctx, m)
    if a.ndim < 1:
        raise ctx.error("Input must be >= 1-d.")
    return _flip_axes(ctx, a, [0])


def _roll_axis(ctx, a: Array, shift: DimLike, axis: int) -> Array:
    n = a.shape[axis]
    if isinstance(shift, int) and n is not None:
        if n == 0:
            return a
        s = shift % n
        if s == 0:
            return a
        head = slice_axis(ctx, a, axis, n - s, n)
        tail = slice_axis(ctx, a, axis, 0, n - s)
        return Array(ctx.op("Concat", head, tail, axis=axis), a.dtype, a.shape)
    # The split point n - shift mod n, with mod by max(n, 1) so an empty axis stays empty.
    n_vec = Array(ctx.op("Shape", a, start=axis, end=axis + 1), I64, (1,))
    safe_n = ctx.op("Max", n_vec, ints(ctx, [1]))
    sh = ctx.op("Unsqueeze", _i64_scalar(ctx, shift), ints(ctx, [0]))
    cut = Array(ctx.op("Sub", n_vec, ctx.op("Mod", sh, safe_n)), I64, (1,))
    head = slice_axis(ctx, a, axis, cut, ints_array(ctx, [_BIG]), static_len=None)
    tail = slice_axis(ctx, a, axis, 0, cut, static_len=None)
    return Array(ctx.op("Concat", head, tail, axis=axis), a.dtype, a.shape)


def ints_array(ctx, values: Sequence[int]) -> Array:
    return Array(ints(ctx, values), I64, (len(values),))


@register(np.roll)
def roll(ctx, a, shift, axis=None):
    """``np.roll(x, shift, axis=None)``: shift an int, an integer 0-d array or a tuple; axis
    None (flattened), int or tuple (shifts on a repeated axis add up, as in numpy)."""
    arr = to_array(ctx, a)
    axis = ctx.static(axis, "axis")
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    shifts = [dim_value(ctx, s, "shift") for s in shifts]
    if axis is None:
        if len(shifts) != 1:
            raise ctx.error("np.roll with axis=None needs a single shift")
        flat = ravel_array(ctx, arr)
        rolled = _roll_axis(ctx, flat, shifts[0], 0)
        if arr.ndim == 1:
            return rolled
        return reshape_vec(ctx, rolled, shape_slice(ctx, arr, 0, arr.ndim).value, arr.shape)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = [axis_of(ctx, ax, arr.ndim) for ax in axes]
    if len(axes) != len(shifts) and 1 not in (len(axes), len(shifts)):
        raise ctx.error("'shift' and 'axis' should be scalars or 1D sequences of the same length")
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    total: dict[int, DimLike] = {}
    for ax, s in zip(axes, shifts):
        if ax in total:
            prev = total[ax]
            total[ax] = prev + s if isinstance(prev, int) and isinstance(s, int) else \
                _binary_i64(ctx, "Add", prev, s)
        else:
            total[ax] = s
    out = arr
    for ax, s in total.items():
        out = _roll_axis(ctx, out, s, ax)
    return out if out is not arr else _copy(ctx, arr)


# --------------------------------------------------------------------------- splitting
def _split(ctx, ary: Any, indices_or_sections: Any, axis: Any, equal: bool, name: str) -> list[Array]:
    a = to_array(ctx, ary)
    ax = axis_of(ctx, axis, a.ndim)
    spec = ctx.static(indices_or_sections, "indices_or_sections")
    n = a.shape[ax]
    if isinstance(spec, (tuple, list, np.ndarray)):
        points = [operator.index(p) for p in np.asarray(spec).reshape(-1).tolist()] \
            if len(spec) else []
        bounds: list[Any] = [0] + points + [_BIG]
        outs = []
        for st, en in zip(bounds[:-1], bounds[1:]):
            outs.append(slice_axis(ctx, a, ax, st, en))
        return outs
    try:
        sections = operator.index(spec)
    except TypeError:
        raise ctx.error(f"{name}: indices_or_sections must be an int or a sequence of ints") \
            from None
    if sections <= 0:
        raise ctx.error("number sections must be larger than 0.")
    if n is not None:
        if equal and n % sections:
            raise ctx.error("array split does not result in an equal division")
        each, extras = divmod(n, sections)
        sizes = [each + 1] * extras + [each] * (sections - extras)
        starts = np.cumsum([0] + sizes).tolist()
        return [slice_axis(ctx, a, ax, starts[i], starts[i + 1]) for i in range(sections)]
    # The section boundaries i * (n // k) + min(i, n % k), computed at run time.
    n_vec = ctx.op("Shape", a, start=ax, end=ax + 1)
    k = ints(ctx, [sections])
    each = ctx.op("Div", n_vec, k)
    extras = ctx.op("Mod", n_vec, k)
    i = ints(ctx, range(sections + 1))
    points = Array(ctx.op("Add", ctx.op("Mul", i, each), ctx.op("Min", i, extras)), I64,
                   (sections + 1,))
    if equal:
        ok = ctx.op("Squeeze", ctx.op("Equal", extras, ints(ctx, [0])), ints(ctx, [0]))
        points = guard(ctx, ok, points)
    outs = []
    for j in range(sections):
        st = slice_axis(ctx, points, 0, j, j + 1)
        en = slice_axis(ctx, points, 0, j + 1, j + 2)
        outs.append(slice_axis(ctx, a, ax, st, en))
    return outs


@register(np.array_split)
def array_split(ctx, ary, indices_or_sections, axis=0):
    """``np.array_split(x, sections_or_indices, axis=0)`` (static sections or indices)."""
    return _split(ctx, ary, indices_or_sections, axis, False, "np.array_split")


@register(np.split)
def split(ctx, ary, indices_or_sections, axis=0):
    """``np.split(x, sections_or_indices, axis=0)``; unequal sections raise (statically, or
    as a failed run when the length is only known at run time)."""
    return _split(ctx, ary, indices_or_sections, axis, True, "np.split")


@register(np.hsplit)
def hsplit(ctx, ary, indices_or_sections):
    """``np.hsplit(x, ...)``: axis 1, or 0 for 1-D."""
    a = to_array(ctx, ary)
    if a.ndim == 0:
        raise ctx.error("hsplit only works on arrays of 1 or more dimensions")
    return _split(ctx, a, indices_or_sections, 1 if a.ndim > 1 else 0, True, "np.hsplit")


@register(np.vsplit)
def vsplit(ctx, ary, indices_or_sections):
    """``np.vsplit(x, ...)``: axis 0 of an array of at least 2 dimensions."""
    a = to_array(ctx, ary)
    if a.ndim < 2:
        raise ctx.error("vsplit only works on arrays of 2 or more dimensions")
    return _split(ctx, a, indices_or_sections, 0, True, "np.vsplit")


@register(np.dsplit)
def dsplit(ctx, ary, indices_or_sections):
    """``np.dsplit(x, ...)``: axis 2 of an array of at least 3 dimensions."""
    a = to_array(ctx, ary)
    if a.ndim < 3:
        raise ctx.error("dsplit only works on arrays of 3 or more dimensions")
    return _split(ctx, a, indices_or_sections, 2, True, "np.dsplit")


# ------------------------------------------------------------------- astype / copy
def _copy(ctx, a: Array) -> Array:
    """A new value with ``a``'s contents (numpy copies: writes to it must not reach ``a``)."""
    return Array(ctx.op("Identity", a), a.dtype, a.shape)


@register(methods=("astype",))
def astype_method(ctx, a, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """``x.astype(dtype, casting='unsafe', copy=True)``."""
    return _astype(ctx, a, dtype, casting, copy)


@register(np.astype)
def astype(ctx, x, dtype, /, *, copy=True, device=None):
    """``np.astype(x, dtype, copy=True)``."""
    return _astype(ctx, x, dtype, "unsafe", copy)


def _astype(ctx, a: Any, dtype: Any, casting: Any, copy: Any) -> Array:
    a = to_array(ctx, a)
    dt = np.dtype(ctx.static(dtype, "dtype"))
    casting = ctx.static(casting, "casting")
    if not np.can_cast(a.dtype, dt, casting=casting):
        raise ctx.error(f"Cannot cast array data from dtype('{a.dtype}') to dtype('{dt}') "
                        f"according to the rule '{casting}'")
    if dt == a.dtype:
        return _copy(ctx, a) if ctx.static(copy, "copy") else a
    return ctx.cast(a, dt)


@register(np.copy)
def copy(ctx, a, order="K", subok=False):
    """``np.copy(x)``."""
    return _copy(ctx, to_array(ctx, a))


@register(methods=("copy",))
def copy_method(ctx, a, order="C"):
    """``x.copy()``."""
    return _copy(ctx, to_array(ctx, a))


# ---------------------------------------------------------------------------------- pad
_PAD_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect"}


@register(np.pad)
def pad(ctx, array, pad_width, mode="constant", **kwargs):
    """``np.pad(x, pad_width, mode='constant', constant_values=0)`` and modes 'edge',
    'reflect' (pad widths static: an int, a pair, or one pair per axis)."""
    a = to_array(ctx, array)
    mode = ctx.static(mode, "mode")
    if mode not in _PAD_MODES:
        raise ctx.error(f"np.pad(mode={mode!r}) is not supported; use 'constant', 'edge' or "
                        "'reflect'")
    allowed = {"constant_values"} if mode == "constant" else set()
    if mode == "reflect":
        allowed = {"reflect_type"}
    extra = set(kwargs) - allowed
    if extra:
        raise ctx.error(f"unsupported keyword arguments for mode '{mode}': {sorted(extra)}")
    if mode == "reflect" and ctx.static(kwargs.get("reflect_type", "even"), "reflect_type") != "even":
        raise ctx.error("np.pad(mode='reflect', reflect_type='odd') is not supported")
    widths = np.asarray(ctx.static(pad_width, "pad_width"))
    if widths.dtype.kind not in "iu":
        raise ctx.error("`pad_width` must be of integral type.")
    try:
        widths = np.broadcast_to(widths, (a.ndim, 2))
    except ValueError as e:
        raise ctx.error(f"ValueError: {e}") from None
    if (widths < 0).any():
        raise ctx.error("index can't contain negative values")
    befores = [int(w) for w in widths[:, 0]]
    afters = [int(w) for w in widths[:, 1]]
    shape = tuple(None if d is None else d + b + f for d, b, f in zip(a.shape, befores, afters))
    if not any(befores) and not any(afters):
        return _copy(ctx, a)
    run = kernels.compute_dtype("Pad", a.dtype)
    x = ctx.cast(a, run)
    value = None
    if mode == "constant":
        cv = kwargs.get("constant_values", 0)
        if isinstance(cv, Array):
            if cv.ndim != 0:
                raise ctx.error("np.pad: constant_values from an array must be 0-d here")
            value = ctx.cast(ctx.cast(strong(cv), a.dtype), run)
        else:
            cvs = np.asarray(cv)
            if cvs.size != 1 and not (cvs == cvs.reshape(-1)[0]).all():
                raise ctx.error("np.pad with different constant_values per axis or side is not "
                                "supported; pad in steps, one constant per call")
            # numpy casts the constant to the array's dtype (unsafe), as astype does.
            with np.errstate(all="ignore"):
                const = cvs.reshape(-1)[0].astype(a.dtype).astype(run)
            value = ctx.const(const)
    elif mode == "reflect":
        for d, b, f in zip(a.shape, befores, afters):
            if d is not None and (b or f) and d <= max(b, f):
                raise ctx.error("np.pad(mode='reflect') with a pad as wide as the axis "
                                "(numpy reflects repeatedly) is not supported")
    out = Array(ctx.op("Pad", x, ints(ctx, befores + afters), value, mode=_PAD_MODES[mode]),
                run, shape)
    return ctx.cast(out, a.dtype)


# ------------------------------------------------------------------- shape queries
@register(np.shape)
def shape_(ctx, a):
    """``np.shape(x)``: a tuple of ints and integer 0-d arrays (unknown dims)."""
    a = to_array(ctx, a)
    return tuple(ctx.dim(a, i) for i in range(a.ndim))


@register(np.ndim)
def ndim_(ctx, a):
    """``np.ndim(x)``: always known."""
    return to_array(ctx, a).ndim


@register(np.size)
def size_(ctx, a, axis=None):
    """``np.size(x, axis=None)``."""
    a = to_array(ctx, a)
    axis = ctx.static(axis, "axis")
    if axis is None:
        known = a.static_size
        if known is not None:
            return known
        n = ctx.op("ReduceProd", ctx.op("Shape", a), keepdims=0)
        return Array(n, I64, (), weak=True)
    return ctx.dim(a, axis_of(ctx, axis, a.ndim))

"""numpy reshapes: reshape, ravel, flatten, expand_dims, squeeze, atleast_1d/2d/3d.

Input: frontend values under numpy's parameter names. Output: strong Arrays of exact static
rank; a dimension known only at run time stays None, and a mismatch only the run time can see
makes onnxruntime fail (never a silently different result).

Supported syntax (``dims`` ints, -1 once, or integer 0-d arrays like ``x.shape[0]``):

* ``np.reshape(x, dims)``, ``x.reshape(d0, d1, ...)``, ``x.reshape((d0, d1))`` (order='C');
  ``np.ravel(x)``, ``x.ravel()``, ``x.flatten()``.
* ``np.expand_dims(x, axis)`` (int or tuple), ``np.squeeze(x, axis=None)``/``x.squeeze``:
  without ``axis`` every dimension must be known; with it, a known dimension must be 1 and a
  dynamic one that is not 1 makes onnxruntime's Squeeze fail at run time.
* ``np.atleast_1d/2d/3d(*arrays)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.context import NeedStaticShapes
from pyonnx.frontend.graph.values import Array, Dim
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape.common import (
    I64, _binary_i64, _copy, _i64_scalar, axis_of, dim_value, fmt_shape, ints, ravel_array,
    guard, shape_vector, squeeze_axes, to_array, unsqueeze,
)

# a model converted for symbolic dimensions with np.squeeze (no axis) assumes none is 1
_SQUEEZE_1 = ("ExecutionError: np.squeeze without axis= was converted assuming no dimension of "
              "unknown size is 1 (its result's rank is fixed in the model), and one is 1 here; "
              "pass axis=, or convert with static shapes")


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
            static[i] = None  # not the -1 placeholder: later lowering reads it as a length
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
    rank depends on it): with symbolic input shapes the conversion asks for static ones
    (NeedStaticShapes: one model per input shape); a dimension only the data decides (after a
    mask, ``np.nonzero``) is refused. With ``axis``, a dynamic dimension that is not 1 at run time makes
    onnxruntime's Squeeze fail, where numpy raises.
    """
    a = to_array(ctx, a)
    axis = ctx.static(axis, "axis")
    if axis is None:
        if any(d is None for d in a.shape):
            error = ctx.error(
                f"np.squeeze without axis on an array of shape {fmt_shape(a.shape)}: which "
                "dimensions are 1 is only known at run time, and the result's rank depends on "
                "it; pass axis= with the axes to remove")
            if ctx.rank_checks:
                return _squeeze_checked(ctx, a)
            if ctx.symbolic_params:
                # Exact with the inputs' shapes fixed; the API converts again with them (or,
                # for dimensions a spec names, with rank checks: _squeeze_checked).
                raise NeedStaticShapes(error, checkable=True)
            raise error
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


def _squeeze_checked(ctx, a: Array) -> Array:
    """``np.squeeze(x)`` with symbolic dimensions kept (``to_onnx`` with a spec naming "N"):
    the dimensions known to be 1 are removed, the unknown ones kept, and the model fails at
    run time when one of those is 1 (numpy's result would then have a lower rank than the
    model's output: a different result, never returned)."""
    out = squeeze_axes(ctx, a, [i for i, d in enumerate(a.shape) if d == 1])
    unknown = [i for i, d in enumerate(out.shape) if d is None]
    shape = ctx.op("Shape", out)
    ones = ctx.op("Equal", ctx.op("Gather", shape, ints(ctx, unknown), axis=0), ints(ctx, [1]))
    count = ctx.op("ReduceSum", ctx.op("Cast", ones, to=7), keepdims=0)
    what = "squeeze_assumed_no_dimension_is_1"
    if out.dtype.kind in "iuf":  # an added zero keeps the shape readable (output dim names)
        return runtime_check(ctx, Array(count, np.dtype(np.int64), ()), out, what, _SQUEEZE_1)
    ok = ctx.op("Equal", count, ctx.const(np.array(0, np.int64)))
    vec = guard(ctx, ok, Array(shape, np.dtype(np.int64), (out.ndim,)))
    vec.value.producer().name += f"_{what}"
    vec.value.producer().metadata_props["pyonnx.raises"] = _SQUEEZE_1
    return Array(ctx.op("Reshape", out, vec, allowzero=1), out.dtype, out.shape)


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

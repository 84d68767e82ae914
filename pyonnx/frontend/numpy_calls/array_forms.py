"""Array conversions with checks or layouts, choosing by index, bit packing, and applying
functions over axes: ``np.asarray_chkfinite``, ``np.asfortranarray``, ``np.require``,
``np.choose`` (and ``x.choose``), ``np.packbits``, ``np.unpackbits``, ``np.mask_indices``,
``np.apply_over_axes``.

Input: arrays (or values ``np.asarray`` takes) and numpy's keywords, known at conversion time.
Output: numpy's result:

* ``asarray_chkfinite(a, dtype=None)``: ``np.asarray``, failing at run time when an element is
  NaN or infinite (numpy raises ValueError);
* ``asfortranarray(a, dtype=None)``, ``require(a, dtype=None, requirements=None)``: the values
  of ``np.asarray(a, dtype)`` (pyonnx arrays have no memory layout); numpy returns ``a`` itself
  when it already has the layout, which depends on the caller's strides, so a write through the
  result is refused (``frontend/lower/view_calls.py``); ``'O'``/``'OWNDATA'`` gives a copy;
* ``choose(a, choices, mode='raise')``: ``choices[a[i]][i]`` with every array broadcast;
  ``mode='raise'`` fails at run time on an index out of range, ``'wrap'`` and ``'clip'`` as
  numpy's;
* ``packbits(a, axis=None, bitorder='big')``, ``unpackbits(a, axis=None, count=None,
  bitorder='big')`` (``count`` >= 0);
* ``mask_indices(n, mask_func, k=0)``: ``np.nonzero(mask_func(np.ones((n, n), int), k) != 0)``;
* ``apply_over_axes(func, a, axes)``: ``func(a, axis)`` for each axis in turn, the axis kept
  (``func`` is inlined like any Python function).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import lookup, register

__all__: list[str] = []

_I64 = np.dtype(np.int64)
_U8 = np.dtype(np.uint8)


def _np(fn: Any, ctx, *args, **kwargs) -> Any:
    """The registered lowering of numpy function ``fn``."""
    return lookup(fn).fn(ctx, *args, **kwargs)


def _strong(a: Array) -> Array:
    return Array(a.value, a.dtype, a.shape)


@register(np.asarray_chkfinite)
def asarray_chkfinite(ctx, a, dtype=None, order=None):
    x = _np(np.asarray, ctx, a, dtype, order)
    if x.dtype.kind != "f":
        return x
    bad = _np(np.logical_not, ctx, _np(np.isfinite, ctx, x))
    checked = runtime_check(ctx, bad, _strong(x), "array_must_not_contain_infs_or_NaNs",
                            "ValueError: array must not contain infs or NaNs")
    return Array(checked.value, x.dtype, x.shape, x.weak)


@register(np.asfortranarray)
def asfortranarray(ctx, a, dtype=None, *, like=None):
    return _np(np.asarray, ctx, a, dtype)


_REQUIREMENTS = {"C", "C_CONTIGUOUS", "CONTIGUOUS", "F", "F_CONTIGUOUS", "FORTRAN", "A",
                 "ALIGNED", "W", "WRITEABLE", "O", "OWNDATA", "E", "ENSUREARRAY"}


@register(np.require)
def require(ctx, a, dtype=None, requirements=None, *, like=None):
    req = ctx.static(requirements, "requirements")
    req = [] if req is None else list(req)  # numpy iterates a string: its letters
    req = [r.upper() for r in req]
    for r in req:
        if r not in _REQUIREMENTS:
            raise ctx.error(f"np.require: unknown requirement {r!r} (numpy raises KeyError)")
    if {"C", "C_CONTIGUOUS", "CONTIGUOUS"} & set(req) and {"F", "F_CONTIGUOUS",
                                                            "FORTRAN"} & set(req):
        raise ctx.error('Cannot specify both "C" and "F" order (numpy raises '
                        'ValueError)')
    x = _np(np.asarray, ctx, a, dtype)
    if {"O", "OWNDATA"} & set(req):
        return _np(np.copy, ctx, x)
    return x


@register(np.choose, methods=("choose",))
def choose(ctx, a, choices, out=None, mode="raise"):
    if out is not None:
        raise ctx.error("np.choose(..., out=...) is not supported; assign the result instead")
    mode = ctx.static(mode, "mode")
    if mode not in ("raise", "wrap", "clip"):
        raise ctx.error(f"np.choose: mode must be 'raise', 'wrap' or 'clip', not {mode!r}")
    idx = _strong(ctx.asarray(a))
    if idx.dtype.kind not in "biu":
        raise ctx.error(f"np.choose: the index array must be integers, not {idx.dtype} (numpy "
                        "raises TypeError)")
    if isinstance(choices, Array):
        c = _strong(choices)
        if c.ndim == 0:
            raise ctx.error("np.choose: choices must be a sequence of arrays")
        n: Any = ctx.dim(c, 0)
        first = Array(ctx.op("Gather", c, ctx.const(np.array(0, np.int64)), axis=0), c.dtype,
                      c.shape[1:])
        idx, _ = _np(np.broadcast_arrays, ctx, idx, first)
        shape = (n,) + tuple(ctx.dim(idx, i) for i in range(idx.ndim))
        stacked = _np(np.broadcast_to, ctx, c, shape)
        idx = ctx.cast(idx, _I64)
    elif isinstance(choices, (list, tuple)):
        # Python numbers stay weak (numpy converts the choices to a common type, NEP 50)
        items = [ctx.asarray(c) if type(c) in (int, float) or isinstance(c, Array) and c.weak
                 else _strong(ctx.asarray(c)) for c in choices]
        if not items:
            raise ctx.error("np.choose: choices must not be empty (numpy raises ValueError)")
        n = len(items)
        dt = _np(np.result_type, ctx, *items)
        parts = _np(np.broadcast_arrays, ctx, idx, *[ctx.cast(c, dt) for c in items])
        idx = ctx.cast(parts[0], _I64)
        stacked = _np(np.stack, ctx, list(parts[1:]))
    else:
        raise ctx.error("np.choose: choices must be a sequence of arrays")
    if mode == "wrap":
        idx = _np(np.remainder, ctx, idx, n)
    elif mode == "clip":
        idx = _np(np.clip, ctx, idx, 0, _np(np.subtract, ctx, n, 1))
    else:
        bad = _np(np.logical_or, ctx, _np(np.less, ctx, idx, 0), _np(np.greater_equal, ctx, idx, n))
        idx = runtime_check(ctx, bad, _strong(idx), "invalid_entry_in_choice_array",
                            "ValueError: invalid entry in choice array")
    picked = _np(np.take_along_axis, ctx, stacked, _np(np.expand_dims, ctx, idx, 0), 0)
    return _np(np.squeeze, ctx, picked, 0)


def _bit_axis(ctx, name: str, x: Array, axis: Any) -> tuple[Array, int]:
    axis = ctx.static(axis, "axis")
    if axis is None:
        return _np(np.ravel, ctx, x), 0
    if not -x.ndim <= axis < x.ndim:
        raise ctx.error(f"{name}: axis {axis} is out of bounds (numpy raises AxisError)")
    return x, axis % x.ndim


def _bitorder(ctx, name: str, bitorder: Any) -> bool:
    order = ctx.static(bitorder, "bitorder")
    if order not in ("big", "little"):
        raise ctx.error(f"{name}: 'order' must be either 'little' or 'big' (numpy raises "
                        "ValueError)")
    return order == "big"


@register(np.packbits)
def packbits(ctx, a, /, axis=None, bitorder="big"):
    x = _strong(ctx.asarray(a))
    if x.dtype.kind not in "biu":
        raise ctx.error("Expected an input array of integer or boolean data type (numpy raises "
                        "TypeError)")
    big = _bitorder(ctx, "np.packbits", bitorder)
    x, k = _bit_axis(ctx, "np.packbits", x, axis)
    bits = ctx.cast(_np(np.not_equal, ctx, x, 0), _I64)
    moved = _np(np.moveaxis, ctx, bits, k, -1)
    n = ctx.dim(moved, moved.ndim - 1)
    pad = _np(np.remainder, ctx, _np(np.negative, ctx, n), 8)
    lead = tuple(ctx.dim(moved, i) for i in range(moved.ndim - 1))
    padded = _np(np.concatenate, ctx, [moved, _np(np.zeros, ctx, lead + (pad,), dtype=_I64)],
                 axis=-1)
    count = _np(np.floor_divide, ctx, _np(np.add, ctx, n, pad), 8)
    groups = _np(np.reshape, ctx, padded, lead + (count, 8))
    weights = np.array([128, 64, 32, 16, 8, 4, 2, 1] if big else [1, 2, 4, 8, 16, 32, 64, 128],
                       np.int64)
    packed = _np(np.sum, ctx, _np(np.multiply, ctx, groups, weights), -1)
    return _np(np.moveaxis, ctx, ctx.cast(packed, _U8), -1, k)


@register(np.unpackbits)
def unpackbits(ctx, a, /, axis=None, count=None, bitorder="big"):
    x = _strong(ctx.asarray(a))
    if x.dtype != _U8:
        raise ctx.error("Expected an input array of unsigned byte data type (numpy raises "
                        "TypeError)")
    big = _bitorder(ctx, "np.unpackbits", bitorder)
    x, k = _bit_axis(ctx, "np.unpackbits", x, axis)
    shifts = np.array([7, 6, 5, 4, 3, 2, 1, 0] if big else [0, 1, 2, 3, 4, 5, 6, 7], np.uint8)
    moved = _np(np.moveaxis, ctx, x, k, -1)
    bits = _np(np.bitwise_and, ctx, _np(np.right_shift, ctx,
                                        _np(np.expand_dims, ctx, moved, -1), shifts), 1)
    lead = tuple(ctx.dim(moved, i) for i in range(moved.ndim - 1))
    width = ctx.dim(moved, moved.ndim - 1)
    width = _np(np.multiply, ctx, width, 8) if isinstance(width, Array) else width * 8
    flat = _np(np.reshape, ctx, bits, lead + (width,))  # no -1: a 0 in lead divides by 0
    count = ctx.static(count, "count")
    if count is not None:
        if count < 0:
            raise ctx.error("np.unpackbits with a negative count is not supported")
        total = ctx.dim(flat, flat.ndim - 1)
        keep = _np(np.minimum, ctx, total, count) if isinstance(total, Array) else \
            min(total, count)
        flat = _np(np.take, ctx, flat, _np(np.arange, ctx, keep), axis=-1)
        more = _np(np.subtract, ctx, count, keep) if isinstance(keep, Array) else count - keep
        flat = _np(np.concatenate, ctx, [flat, _np(np.zeros, ctx, lead + (more,),
                                                   dtype=flat.dtype)], axis=-1)
    return _np(np.moveaxis, ctx, ctx.cast(flat, _U8), -1, k)


@register(np.mask_indices, static_eval=False)
def mask_indices(ctx, n, mask_func, k=0):
    m = _np(np.ones, ctx, (n, n), dtype=int)
    a = ctx.frames[-1].call_value(mask_func, [m, k], {})
    return _np(np.nonzero, ctx, _np(np.not_equal, ctx, a, 0))


@register(np.apply_over_axes, static_eval=False)
def apply_over_axes(ctx, func, a, axes):
    val = _strong(ctx.asarray(a))
    axes = ctx.static(axes, "axes")
    for axis in (axes,) if isinstance(axes, int) else axes:
        if axis < 0:
            axis = val.ndim + axis
        res = ctx.frames[-1].call_value(func, [val, axis], {})
        if not isinstance(res, Array):
            res = ctx.asarray(res)
        if res.ndim == val.ndim:
            val = res
        else:
            res = _np(np.expand_dims, ctx, res, axis)
            if res.ndim != val.ndim:
                raise ctx.error("function is not returning an array of the correct shape "
                                "(numpy raises ValueError)")
            val = res
    return val

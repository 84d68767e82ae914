"""Sequences along an axis: ``np.cumulative_sum``, ``np.cumulative_prod``, ``np.ediff1d``,
``np.trapezoid``, ``np.unwrap``, ``np.trim_zeros``, ``np.logspace``, ``np.geomspace``,
``np.matvec``, ``np.vecmat``.

Input: arrays (or values ``np.asarray`` takes) and numpy's keywords, axes and counts known at
conversion time. Output: numpy's result; each follows numpy's own Python implementation step
by step on the lowered functions it calls (so dtypes and rounding are numpy's):

* ``cumulative_sum/prod(x, axis=None, dtype=None, include_initial=False)``: ``cumsum`` /
  ``cumprod``, with the identity first when ``include_initial``; ``axis`` is required above 1-D;
* ``ediff1d(ary, to_end=None, to_begin=None)``: the differences of the flattened array in its
  dtype, ``to_begin``/``to_end`` (same-kind castable) around them;
* ``trapezoid(y, x=None, dx=1.0, axis=-1)``; ``unwrap(p, discont=None, axis=-1, period=2*pi)``
  (a float ``period``);
* ``trim_zeros(filt, trim='fb')`` of a 1-D array: a slice with run-time bounds (a view in
  numpy: writes through it are refused);
* ``logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0)`` with a scalar
  ``base``; ``geomspace(start, stop, num=50, endpoint=True, dtype=None)`` with scalar ends
  (a zero end fails at run time, as numpy raises);
* ``matvec(A, v)`` = ``(A @ v[..., None])[..., 0]``, ``vecmat(v, A)`` = ``(v[..., None, :] @
  A)[..., 0, :]`` for real arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.indexing import getitem
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import lookup, register

__all__: list[str] = []

_NOVALUE: Any = np._NoValue


def _np(fn: Any, ctx, *args, **kwargs) -> Any:
    """The registered lowering of numpy function ``fn``."""
    return lookup(fn).fn(ctx, *args, **kwargs)


def _strong(a: Array) -> Array:
    return Array(a.value, a.dtype, a.shape)


def _along(nd: int, axis: int, part: slice) -> tuple:
    index = [slice(None)] * nd
    index[axis] = part
    return tuple(index)


def _cumulative(product: bool):
    name = f"np.cumulative_{'prod' if product else 'sum'}"

    def lower(ctx, x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        if out is not None:
            raise ctx.error(f"{name}(..., out=...) is not supported; assign the result instead")
        a = _strong(ctx.asarray(x))
        axis = ctx.static(axis, "axis")
        if axis is None:
            if a.ndim > 1:
                raise ctx.error(f"{name}: For arrays which have more than one dimension "
                                "``axis`` argument is required (numpy raises ValueError)")
            axis = 0
        if a.ndim == 0:
            raise ctx.error(f"{name}: the array must be at least 1-D (numpy raises ValueError)")
        r = _np(np.cumprod if product else np.cumsum, ctx, a, axis, dtype)
        if not ctx.static(include_initial, "include_initial"):
            return r
        k = axis % a.ndim
        shape = tuple(1 if i == k else ctx.dim(r, i) for i in range(r.ndim))
        first = _np(np.ones if product else np.zeros, ctx, shape, dtype=r.dtype)
        return _np(np.concatenate, ctx, [first, r], axis=k)

    lower.__name__ = name.removeprefix("np.")
    return lower


register(np.cumulative_sum)(_cumulative(False))
register(np.cumulative_prod)(_cumulative(True))


@register(np.ediff1d)
def ediff1d(ctx, ary, to_end=None, to_begin=None):
    a = _np(np.ravel, ctx, _strong(ctx.asarray(ary)))
    d = _strong(_np(np.subtract, ctx, getitem(ctx, a, slice(1, None)),
                    getitem(ctx, a, slice(None, -1))))
    if to_begin is None and to_end is None:
        return d
    parts = []
    for what, v in (("to_begin", to_begin), (None, None), ("to_end", to_end)):
        if what is None:
            parts.append(ctx.cast(d, a.dtype))
            continue
        if v is None:
            continue
        e = _strong(ctx.asarray(v))
        if not np.can_cast(e.dtype, a.dtype, casting="same_kind"):
            raise ctx.error(f"dtype of `{what}` must be compatible with input `ary` under the "
                            "`same_kind` rule. (numpy raises TypeError)")
        parts.append(ctx.cast(_np(np.ravel, ctx, e), a.dtype))
    return _np(np.concatenate, ctx, parts)


@register(np.trapezoid)
def trapezoid(ctx, y, x=None, dx=1.0, axis=-1):
    ya = _strong(ctx.asarray(y))
    axis = ctx.static(axis, "axis")
    if x is None:
        d: Any = dx
    else:
        xa = _strong(ctx.asarray(x))
        if xa.ndim == 1:
            d = _np(np.diff, ctx, xa)
            shape = [1] * ya.ndim
            shape[axis] = -1
            d = _np(np.reshape, ctx, d, tuple(shape))
        else:
            d = _np(np.diff, ctx, xa, axis=axis)
    nd = ya.ndim
    total = _np(np.add, ctx, getitem(ctx, ya, _along(nd, axis, slice(1, None))),
                getitem(ctx, ya, _along(nd, axis, slice(None, -1))))
    ret = _np(np.true_divide, ctx, _np(np.multiply, ctx, d, total), 2.0)
    return _np(np.sum, ctx, ret, axis)


@register(np.unwrap, limits={"period": "a float"})
def unwrap(ctx, p, discont=None, axis=-1, *, period=2 * np.pi):
    period = ctx.static(period, "period")
    if not isinstance(period, float):
        raise ctx.error("np.unwrap with an integer period is not supported; pass a float")
    a = _strong(ctx.asarray(p))
    axis = ctx.static(axis, "axis")
    nd = a.ndim
    dd = _np(np.diff, ctx, a, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = np.result_type(dd.dtype, period)
    high, low = period / 2, -period / 2
    ddmod = _np(np.add, ctx, _np(np.remainder, ctx, _np(np.subtract, ctx, dd, low), period), low)
    ambiguous = _np(np.logical_and, ctx, _np(np.equal, ctx, ddmod, low),
                    _np(np.greater, ctx, dd, 0))
    ddmod = ctx.cast(_np(np.where, ctx, ambiguous, high, ddmod), ddmod.dtype)
    correct = _np(np.subtract, ctx, ddmod, dd)
    correct = ctx.cast(_np(np.where, ctx, _np(np.less, ctx, _np(np.absolute, ctx, dd), discont),
                           0, correct), correct.dtype)
    head = ctx.cast(getitem(ctx, a, _along(nd, axis, slice(None, 1))), dtype)
    tail = _np(np.add, ctx, getitem(ctx, a, _along(nd, axis, slice(1, None))),
               _np(np.cumsum, ctx, correct, axis))
    return _np(np.concatenate, ctx, [head, ctx.cast(tail, dtype)], axis=axis)


@register(np.trim_zeros, limits={"axis": "None only (1-D arrays)"})
def trim_zeros(ctx, filt, trim="fb", axis=None):
    a = ctx.asarray(filt)
    trim = ctx.static(trim, "trim").lower()
    if ctx.static(axis, "axis") is not None or a.ndim != 1:
        raise ctx.error("np.trim_zeros is supported for 1-D arrays without axis=")
    if set(trim) - set("fb"):
        raise ctx.error(f"unexpected character(s) in `trim`: {trim!r} (numpy raises "
                        "ValueError)")
    nonzero = _np(np.not_equal, ctx, a, 0)
    n = Array(ctx.op("Size", a), np.dtype(np.int64), ())
    pos = _np(np.arange, ctx, n)
    big = _np(np.where, ctx, nonzero, pos, n)
    start = _np(np.min, ctx, big, initial=n) if "f" in trim else 0
    small = _np(np.where, ctx, nonzero, pos, -1)
    stop = _np(np.add, ctx, _np(np.max, ctx, small, initial=-1), 1) if "b" in trim else n
    # all zeros: numpy returns an empty slice (start = n, stop = 0)
    return getitem(ctx, a, slice(start, stop))


@register(np.logspace)
def logspace(ctx, start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    b = ctx.asarray(base)
    if b.ndim:
        raise ctx.error("np.logspace with an array base is not supported; pass a number")
    # numpy: np.array(start/stop/base, ndmin=...): strong (a Python int base is int64)
    y = _np(np.linspace, ctx, _strong(ctx.asarray(start)), _strong(ctx.asarray(stop)), num=num,
            endpoint=endpoint, axis=axis)
    r = _np(np.power, ctx, _strong(b), y)
    return r if dtype is None else _np(np.astype, ctx, r, dtype)


@register(np.geomspace, limits={"start": "a number", "stop": "a number", "axis": "0 only"})
def geomspace(ctx, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    s0 = _np(np.multiply, ctx, _strong(ctx.asarray(start)), 1.0)
    s1 = _np(np.multiply, ctx, _strong(ctx.asarray(stop)), 1.0)
    if s0.ndim or s1.ndim or ctx.static(axis, "axis") != 0:
        raise ctx.error("np.geomspace is supported with number start and stop (axis=0)")
    num_s = ctx.static(num, "num")
    zero = _np(np.logical_or, ctx, _np(np.equal, ctx, s0, 0), _np(np.equal, ctx, s1, 0))
    dt = np.result_type(s0.dtype, s1.dtype, float(num_s), np.zeros((), dtype))
    s0 = runtime_check(ctx, zero, ctx.cast(s0, dt), "Geometric_sequence_cannot_include_zero",
                       "ValueError: Geometric sequence cannot include zero")
    s1 = ctx.cast(s1, dt)
    sign = _np(np.sign, ctx, s0)
    s0 = _strong(_np(np.true_divide, ctx, s0, sign))
    s1 = _strong(_np(np.true_divide, ctx, s1, sign))
    result = logspace(ctx, _np(np.log10, ctx, s0), _np(np.log10, ctx, s1), num_s, endpoint,
                      10.0, dt)
    if num_s > 0:  # numpy writes the ends in: exp(log(x)) need not be x
        parts = [_np(np.reshape, ctx, s0, (1,))]
        if num_s > 2 or num_s == 2 and not endpoint:
            parts.append(getitem(ctx, result, slice(1, -1 if endpoint else None)))
        if num_s > 1 and endpoint:
            parts.append(_np(np.reshape, ctx, s1, (1,)))
        result = _np(np.concatenate, ctx, [ctx.cast(p, dt) for p in parts])
    result = _np(np.multiply, ctx, result, sign)
    return result if dtype is None else _np(np.astype, ctx, result, dtype)


@register(np.matvec, limits={"axes": "refused", "axis": "refused"})
def matvec(ctx, x1, x2, /, **kwargs):
    if kwargs:
        raise ctx.error(f"np.matvec(..., {', '.join(kwargs)}=...) is not supported")
    v = _np(np.expand_dims, ctx, _strong(ctx.asarray(x2)), -1)
    r = _np(np.matmul, ctx, _strong(ctx.asarray(x1)), v)
    return _np(np.squeeze, ctx, r, -1)


@register(np.vecmat, limits={"axes": "refused", "axis": "refused"})
def vecmat(ctx, x1, x2, /, **kwargs):
    if kwargs:
        raise ctx.error(f"np.vecmat(..., {', '.join(kwargs)}=...) is not supported")
    v = _np(np.expand_dims, ctx, _strong(ctx.asarray(x1)), -2)
    r = _np(np.matmul, ctx, v, _strong(ctx.asarray(x2)))
    return _np(np.squeeze, ctx, r, -2)

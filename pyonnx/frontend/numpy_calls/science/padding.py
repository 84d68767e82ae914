"""numpy's ``np.pad`` modes beyond ONNX ``Pad``: 'symmetric', 'wrap', 'reflect' (any width,
``reflect_type='odd'``), 'linear_ramp', 'maximum', 'minimum', 'mean', 'median', and
'constant' with a different value per axis and side.

Input: the array, its static pad widths (one (before, after) pair per axis) and the mode's
keywords. Output: the padded Array, in the array's dtype.

numpy pads one axis after the other, each on the array already padded along the previous
axes (so corners come from the earlier axes' padding); this does the same. Index modes
gather: the source index of every output position along the axis is a closed form of the
run-time length ``n`` (reflect: period ``2n-2``; symmetric: ``2n``; wrap: ``n``; checked
against numpy's iterative padding for every length to 5 and width to 12). Value modes compute
numpy's ``_get_stats`` / ``_get_linear_ramps`` through the registered lowerings and
concatenate them around the axis.

Differences: ``reflect_type='odd'`` with a pad wider than one reflection (numpy then reflects
the reflected values again) is refused when the length is known, a run-time failure
otherwise; so is padding an empty axis in a mode other than 'constant' (numpy raises
ValueError).
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.science.compose import Np
from pyonnx.frontend.numpy_calls.shape.common import guard, ints

__all__ = ["pad_general", "MODES"]

_I64 = np.dtype(np.int64)
_STATS = {"maximum": "amax", "minimum": "amin", "mean": "mean", "median": "median"}
MODES = frozenset({"constant", "edge", "symmetric", "wrap", "reflect", "linear_ramp"}
                  | set(_STATS))
_KEYWORDS = {"constant": {"constant_values"}, "reflect": {"reflect_type"},
             "symmetric": {"reflect_type"}, "linear_ramp": {"end_values"},
             **{m: {"stat_length"} for m in _STATS}}


def _scalar(ctx, v: int):
    return ctx.const(np.array(v, np.int64))


def _pairs(ctx, value, ndim: int, what: str, as_index: bool = False) -> np.ndarray:
    """numpy's ``_as_pairs``: one (before, after) pair per axis, from static values."""
    arr = np.asarray(ctx.static(value, what))
    if as_index:
        if arr.dtype.kind not in "iu":
            raise ctx.error(f"np.pad: `{what}` must be of integral type (numpy raises "
                            "TypeError)")
        if (arr < 0).any():
            raise ctx.error("np.pad: index can't contain negative values (numpy raises "
                            "ValueError)")
    try:
        return np.broadcast_to(arr, (ndim, 2))
    except ValueError as e:
        raise ctx.error(f"np.pad: {e} (numpy raises ValueError)") from None


def _source_index(ctx, mode: str, n, b: int, f: int):
    """The source index along the axis of each of the ``b + n + f`` output positions."""
    one = _scalar(ctx, 1)
    j = ctx.op("Sub", ctx.op("Range", _scalar(ctx, 0), ctx.op("Add", n, _scalar(ctx, b + f)),
                             one), _scalar(ctx, b))
    if mode == "edge":
        return ctx.op("Min", ctx.op("Max", j, _scalar(ctx, 0)), ctx.op("Sub", n, one))
    if mode == "wrap":
        return ctx.op("Mod", j, n)  # ONNX Mod of ints: the divisor's sign, as Python's %
    if mode == "symmetric":
        period = ctx.op("Mul", n, _scalar(ctx, 2))
        k = ctx.op("Mod", j, period)
        return ctx.op("Where", ctx.op("Less", k, n), k, ctx.op("Sub", ctx.op("Sub", period, one),
                                                             k))
    # reflect: period 2n - 2 (a length-1 axis repeats its element)
    period = ctx.op("Max", ctx.op("Sub", ctx.op("Mul", n, _scalar(ctx, 2)), _scalar(ctx, 2)), one)
    k = ctx.op("Mod", j, period)
    return ctx.op("Where", ctx.op("Less", k, n), k, ctx.op("Sub", period, k))


def _fail_unless(ctx, ok, x: Array) -> Array:
    """``x``, failing the run unless the bool 0-d ``ok`` holds."""
    shape = Array(ctx.op("Shape", x), _I64, (x.ndim,))
    return Array(ctx.op("Reshape", x, guard(ctx, ok, shape)), x.dtype, x.shape)


def _slice(ctx, x: Array, axis: int, start, stop) -> Array:
    v = ctx.op("Slice", x, start if not isinstance(start, int) else ints(ctx, [start]),
               stop if not isinstance(stop, int) else ints(ctx, [stop]), ints(ctx, [axis]))
    return Array(v, x.dtype, x.shape[:axis] + (None,) + x.shape[axis + 1:])


def _block(ctx, value: Array, x: Array, axis: int, width: int) -> Array:
    """``value`` (length 1 along ``axis``) repeated ``width`` times along it."""
    shape = ctx.op("Shape", x)
    dims = ctx.op("ScatterElements", shape, ints(ctx, [axis]), ints(ctx, [width]), axis=0)
    out = ctx.op("Expand", ctx.cast(value, x.dtype), dims)
    return Array(out, x.dtype, x.shape[:axis] + (width,) + x.shape[axis + 1:])


def _stat(ctx, N, mode: str, chunk: Array, axis: int, dtype) -> Array:
    stat = getattr(N, _STATS[mode])(chunk, axis=axis, keepdims=True)
    if dtype.kind in "iub" and stat.dtype.kind == "f":  # numpy's _round_if_needed
        stat = N.around(stat)
    return stat


def _value_sides(ctx, N, mode, x: Array, axis: int, extra):
    """(left, right) blocks for the value modes, each length 1 along ``axis``."""
    if mode == "constant":
        vals = extra[axis]
        return (ctx.const_array(np.asarray(vals[0])), ctx.const_array(np.asarray(vals[1])))
    if mode == "linear_ramp":
        return None
    lengths = extra[axis]
    sides = []
    for side, length in enumerate(lengths):
        if length is not None and int(length) == 0 and mode in ("maximum", "minimum"):
            raise ctx.error("np.pad: stat_length of 0 yields no value for padding (numpy "
                            "raises ValueError)")
        if length is None:
            chunk = x
        elif side == 0:
            chunk = _slice(ctx, x, axis, 0, int(length))
        else:
            chunk = _slice(ctx, x, axis, -int(length) if int(length) else 2**62, 2**62)
        sides.append(_stat(ctx, N, mode, chunk, axis, x.dtype))
    return tuple(sides)


def _ramp(ctx, N, x: Array, axis: int, width: int, end, edge: Array, reverse: bool) -> Array:
    """numpy's ``np.linspace(end, edge, width, endpoint=False, dtype=x.dtype, axis=axis)``."""
    ramp = N.linspace(end, N.squeeze(edge, axis=axis), width, endpoint=False, dtype=x.dtype,
                      axis=axis)
    if reverse:
        index = [slice(None)] * x.ndim
        index[axis] = slice(None, None, -1)
        ramp = N.getitem(ramp, tuple(index))
    return ramp


def pad_general(ctx, a: Array, widths: np.ndarray, mode: str, kwargs: dict) -> Array:
    """``np.pad(a, widths, mode, **kwargs)`` (module doc); ``widths`` (ndim, 2) ints."""
    N = Np(ctx)
    extra_kw = set(kwargs) - _KEYWORDS.get(mode, set())
    if extra_kw:
        raise ctx.error(f"np.pad: unsupported keyword arguments for mode '{mode}': "
                        f"{sorted(extra_kw)} (numpy raises ValueError)")
    odd = False
    if mode in ("reflect", "symmetric"):
        rtype = ctx.static(kwargs.get("reflect_type", "even"), "reflect_type")
        if rtype not in ("even", "odd"):
            raise ctx.error("np.pad: reflect_type must be 'even' or 'odd'")
        odd = rtype == "odd"
        if odd and a.dtype.kind == "b":
            raise ctx.error("np.pad(..., reflect_type='odd') of a bool array is not supported")
    extra = None
    if mode == "constant":
        cv = ctx.static(kwargs.get("constant_values", 0), "constant_values")
        with np.errstate(all="ignore"):
            extra = np.asarray(_pairs(ctx, cv, a.ndim, "constant_values")).astype(a.dtype)
    elif mode == "linear_ramp":
        extra = _pairs(ctx, kwargs.get("end_values", 0), a.ndim, "end_values")
    elif mode in _STATS:
        sl = kwargs.get("stat_length", None)
        extra = [(None, None)] * a.ndim if sl is None else _pairs(ctx, sl, a.ndim,
                                                                  "stat_length", True)
    x = a
    for axis in range(a.ndim):
        b, f = int(widths[axis, 0]), int(widths[axis, 1])
        if not b and not f:
            continue
        n_static = x.shape[axis]
        n = ctx.op("Squeeze", ctx.op("Shape", x, start=axis, end=axis + 1), ints(ctx, [0]))
        new_len = None if n_static is None else n_static + b + f
        if mode != "constant":
            if n_static == 0:
                raise ctx.error(f"np.pad: can't extend empty axis {axis} using modes other than "
                                "'constant' or 'empty' (numpy raises ValueError)")
            x = _fail_unless(ctx, ctx.op("Greater", n, _scalar(ctx, 0)), x)
        if mode in ("edge", "wrap", "reflect", "symmetric"):
            idx = _source_index(ctx, mode, n, b, f)
            out = Array(ctx.op("Gather", x, idx, axis=axis), x.dtype,
                        x.shape[:axis] + (new_len,) + x.shape[axis + 1:])
            if odd:
                out = _odd(ctx, N, x, out, axis, b, f, n, n_static, mode)
            x = out
            continue
        if mode == "linear_ramp":
            first, last = _slice(ctx, x, axis, 0, 1), _slice(ctx, x, axis, -1, 2**62)
            parts = [_ramp(ctx, N, x, axis, b, extra[axis][0], first, False), x,
                     _ramp(ctx, N, x, axis, f, extra[axis][1], last, True)]
        else:
            left, right = _value_sides(ctx, N, mode, x, axis, extra)
            parts = [_block(ctx, left, x, axis, b), x, _block(ctx, right, x, axis, f)]
        parts = [ctx.cast(p, x.dtype) for p in parts]
        x = Array(ctx.op("Concat", *parts, axis=axis), x.dtype,
                  x.shape[:axis] + (new_len,) + x.shape[axis + 1:])
    return x


def _odd(ctx, N, x: Array, out: Array, axis: int, b: int, f: int, n, n_static, mode: str):
    """numpy's odd reflection of one chunk: ``2 * edge - mirrored`` on both sides."""
    limit_extra = 1 if mode == "reflect" else 0  # widest single reflection: n-1 or n
    if n_static is not None and max(b, f) > n_static - limit_extra:
        raise ctx.error("np.pad(..., reflect_type='odd') wider than one reflection is not "
                        "supported (numpy reflects the reflected values again)")
    ok = ctx.op("GreaterOrEqual", ctx.op("Sub", n, _scalar(ctx, limit_extra)),
                _scalar(ctx, max(b, f)))
    out = _fail_unless(ctx, ok, out)
    first, last = _slice(ctx, x, axis, 0, 1), _slice(ctx, x, axis, -1, 2**62)
    end = ctx.op("Add", n, _scalar(ctx, b))
    left = N.subtract(N.multiply(2, first), _slice(ctx, out, axis, 0, b))
    right = N.subtract(N.multiply(2, last), _slice(ctx, out, axis,
                                                    ctx.op("Reshape", end, ints(ctx, [1])),
                                                    2**62))
    middle = _slice(ctx, out, axis, b, ctx.op("Reshape", end, ints(ctx, [1])))
    parts = [ctx.cast(p, x.dtype) for p in (left, middle, right)]
    return Array(ctx.op("Concat", *parts, axis=axis), x.dtype, out.shape)

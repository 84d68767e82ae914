"""numpy window views and diagonal/triangle index helpers: sliding_window_view, diag_indices,
diag_indices_from, tril_indices, triu_indices, tril_indices_from, triu_indices_from, and the
value computation of fill_diagonal (its write is in :mod:`pyonnx.frontend.lower.writers`).

Input: arrays and static window shapes, axes and offsets (sizes may be run-time). Output:
Arrays, or tuples of int64 index Arrays.

``sliding_window_view`` is a Gather-built copy: numpy returns a read-only strided view, so
writing into the result is refused (lower/view_calls.py lists it as read-only); reading it
gives numpy's values. The index helpers are numpy's own definitions (``np.tri`` then
``nonzero``, ``np.arange``): row-major order, int64.

Supported syntax:

* ``np.lib.stride_tricks.sliding_window_view(x, window_shape, axis=None)`` (``window_shape``
  static, ``axis`` static, repeated axes allowed as numpy allows them).
* ``np.diag_indices(n, ndim=2)``, ``np.diag_indices_from(arr)``.
* ``np.tril_indices(n, k=0, m=None)``, ``np.triu_indices(n, k=0, m=None)``,
  ``np.tril_indices_from(arr, k=0)``, ``np.triu_indices_from(arr, k=0)``.
* ``np.fill_diagonal(a, val, wrap=False)``: ``val`` repeated cyclically, cast as numpy's flat
  assignment casts.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.science.compose import Np
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.shape.common import axes_of, guard, ints

_I64 = np.dtype(np.int64)

sliding_window_view_fn = np.lib.stride_tricks.sliding_window_view


@register(sliding_window_view_fn, name="numpy.lib.stride_tricks.sliding_window_view")
def sliding_window_view(ctx, x, window_shape, axis=None, *, subok=False, writeable=False):
    """``sliding_window_view(x, window_shape, axis=None)``: a read-only copy (module doc)."""
    fname = "sliding_window_view"
    if ctx.static(writeable, "writeable"):
        raise ctx.error(f"{fname}(..., writeable=True) is not supported: pyonnx returns a copy, "
                        "and writes into numpy's view change x")
    xa = to_array(ctx, x)
    ws = ctx.static(window_shape, "window_shape")
    ws = tuple(int(w) for w in ws) if np.iterable(ws) else (int(ws),)
    if any(w < 0 for w in ws):
        raise ctx.error(f"{fname}: `window_shape` cannot contain negative values (numpy raises "
                        "ValueError)")
    if axis is None:
        axes = tuple(range(xa.ndim))
        if len(ws) != len(axes):
            raise ctx.error(f"{fname}: Since axis is `None`, must provide window_shape for all "
                            f"dimensions of `x`; got {len(ws)} window_shape elements and "
                            f"`x.ndim` is {xa.ndim} (numpy raises ValueError)")
    else:
        axes = axes_of(ctx, axis, xa.ndim, unique=False)
        if len(ws) != len(axes):
            raise ctx.error(f"{fname}: Must provide matching length window_shape and axis; got "
                            f"{len(ws)} window_shape elements and {len(axes)} axes elements "
                            "(numpy raises ValueError)")
    y = xa
    for ax, w in zip(axes, ws):
        length = y.shape[ax]
        if length is not None and length < w:
            raise ctx.error(f"{fname}: window shape cannot be larger than input array shape "
                            "(numpy raises ValueError)")
        n_vec = ctx.op("Shape", y, start=ax, end=ax + 1)
        # numpy raises ValueError for a window longer than the axis: the run fails there.
        count = ctx.op("Sub", n_vec, ints(ctx, [w - 1]))
        ok = ctx.op("Squeeze", ctx.op("GreaterOrEqual", count, ints(ctx, [1])), ints(ctx, [0]))
        count = guard(ctx, ok, Array(count, _I64, (1,))).value
        count = ctx.op("Squeeze", count, ints(ctx, [0]))
        zero, one = ctx.const(np.array(0, np.int64)), ctx.const(np.array(1, np.int64))
        starts = ctx.op("Unsqueeze", ctx.op("Range", zero, count, one), ints(ctx, [1]))
        offs = ctx.const(np.arange(w, dtype=np.int64).reshape(1, w))
        idx = ctx.op("Add", starts, offs)  # (count, w)
        gathered = ctx.op("Gather", y, idx, axis=ax)  # y.shape[:ax] + (count, w) + rest
        nd = y.ndim + 1
        perm = [i for i in range(nd) if i != ax + 1] + [ax + 1]
        new_len = None if length is None else length - w + 1
        shape = y.shape[:ax] + (new_len,) + y.shape[ax + 1:] + (w,)
        y = Array(ctx.op("Transpose", gathered, perm=perm), xa.dtype, shape)
    return y


# ------------------------------------------------------------------ index helpers
def _n(ctx, n, what: str):
    if isinstance(n, Array):
        if n.ndim != 0 or n.dtype.kind not in "iu":
            raise ctx.error(f"{what} must be an integer")
        return n
    return int(ctx.static(n, what))


@register(np.diag_indices)
def diag_indices(ctx, n, ndim=2):
    """``np.diag_indices(n, ndim=2)``: ``(arange(n),) * ndim``."""
    ndim = int(ctx.static(ndim, "ndim"))
    idx = Np(ctx).arange(_n(ctx, n, "n"))
    return (idx,) * ndim


@register(np.diag_indices_from)
def diag_indices_from(ctx, arr):
    """``np.diag_indices_from(arr)``: every dimension of ``arr`` equal (checked at run time
    when not known)."""
    a = to_array(ctx, arr)
    if a.ndim < 2:
        raise ctx.error("np.diag_indices_from: input array must be at least 2-d (numpy raises "
                        "ValueError)")
    known = {d for d in a.shape if d is not None}
    if len(known) > 1:
        raise ctx.error("np.diag_indices_from: All dimensions of input must be of equal length "
                        "(numpy raises ValueError)")
    n = ctx.dim(a, 0)
    if isinstance(n, Array):
        n = Array(_equal_dims(ctx, a, n.value), _I64, (), weak=n.weak)
    return diag_indices(ctx, n, a.ndim)


def _equal_dims(ctx, a: Array, value):
    """The int64 0-d ``value``, failing the run unless all of ``a``'s dimensions are equal
    (numpy raises ValueError). The guard is on a scalar the result needs: onnxruntime fuses a
    guarding Reshape of the array itself with a following Reshape, dropping the check."""
    if None not in a.shape:
        return value
    shape = ctx.op("Shape", a)
    first = ctx.op("Shape", a, start=0, end=1)
    ok = ctx.op("Not", ctx.op("Cast", ctx.op("ReduceSum", ctx.op("Cast", ctx.op(
        "Not", ctx.op("Equal", shape, first)), to=7), keepdims=0), to=9))
    vec = guard(ctx, ok, Array(ctx.op("Reshape", value, ints(ctx, [1])), _I64, (1,)))
    return ctx.op("Squeeze", vec, ints(ctx, [0]))


def _tri_indices(ctx, n, k, m, upper: bool):
    N = Np(ctx)
    k = int(ctx.static(k, "k"))
    n = _n(ctx, n, "n")
    m = None if m is None else _n(ctx, m, "m")
    if upper:  # numpy: ~np.tri(n, m, k=k - 1, dtype=bool)
        mask = N.logical_not(N.tri(n, m, k=k - 1, dtype=bool))
    else:
        mask = N.tri(n, m, k=k, dtype=bool)
    return N.nonzero(mask)


@register(np.tril_indices)
def tril_indices(ctx, n, k=0, m=None):
    """``np.tril_indices(n, k=0, m=None)``: row-major, int64."""
    return _tri_indices(ctx, n, k, m, upper=False)


@register(np.triu_indices)
def triu_indices(ctx, n, k=0, m=None):
    """``np.triu_indices(n, k=0, m=None)``: row-major, int64."""
    return _tri_indices(ctx, n, k, m, upper=True)


def _from(ctx, arr, k, upper: bool, fname: str):
    a = to_array(ctx, arr)
    if a.ndim != 2:
        raise ctx.error(f"{fname}: input array must be 2-d (numpy raises ValueError)")
    return _tri_indices(ctx, ctx.dim(a, 0), k, ctx.dim(a, 1), upper)


@register(np.tril_indices_from)
def tril_indices_from(ctx, arr, k=0):
    """``np.tril_indices_from(arr, k=0)``."""
    return _from(ctx, arr, k, False, "np.tril_indices_from")


@register(np.triu_indices_from)
def triu_indices_from(ctx, arr, k=0):
    """``np.triu_indices_from(arr, k=0)``."""
    return _from(ctx, arr, k, True, "np.triu_indices_from")


# ------------------------------------------------------------------- fill_diagonal
@register(np.fill_diagonal, static_eval=False)
def fill_diagonal_value(ctx, a, val, wrap=False) -> Array:
    """The new value of ``a`` after ``np.fill_diagonal(a, val, wrap)``: numpy's
    ``a.flat[:end:step] = val``, ``val`` repeated cyclically and cast as numpy casts.

    Statement lowering never calls this as a function (numpy's returns None): the writer in
    lower/writers.py, which runs first, looks it up and writes its result into ``a``."""
    a = to_array(ctx, a)
    wrap = bool(ctx.static(wrap, "wrap"))
    if a.ndim < 2:
        raise ctx.error("np.fill_diagonal: array must be at least 2-d (numpy raises "
                        "ValueError)")
    shape = ctx.op("Shape", a)
    size = ctx.op("Size", a)
    one = ctx.const(np.array(1, np.int64))
    if a.ndim == 2:
        cols = ctx.op("Squeeze", ctx.op("Shape", a, start=1, end=2), ints(ctx, [0]))
        step = ctx.op("Add", cols, one)
        end = size if wrap else ctx.op("Min", ctx.op("Mul", cols, cols), size)
    else:
        known = {d for d in a.shape if d is not None}
        if len(known) > 1:
            raise ctx.error("np.fill_diagonal: All dimensions of input must be of equal length "
                            "(numpy raises ValueError)")
        head = ctx.op("Slice", shape, ints(ctx, [0]), ints(ctx, [-1]), ints(ctx, [0]))
        step = ctx.op("Add", one, ctx.op("ReduceSum", _cumprod(ctx, head, a.ndim - 1),
                                         keepdims=0))
        end = _equal_dims(ctx, a, size)
    pos = ctx.op("Range", ctx.const(np.array(0, np.int64)), end, step)
    v = ctx.asarray(val, a.dtype) if isinstance(val, (bool, int, float)) else \
        ctx.cast(to_array(ctx, val), a.dtype)
    flat_v = ctx.op("Reshape", v, ints(ctx, [-1]))
    count = ctx.op("Shape", pos)
    # numpy repeats val cyclically over the positions (an empty val writes nothing)
    n_v = ctx.op("Shape", flat_v)
    k = ctx.op("Range", ctx.const(np.array(0, np.int64)), ctx.op("Squeeze", count, ints(ctx, [0])),
               one)
    has_v = ctx.op("Greater", n_v, ints(ctx, [0]))
    k = ctx.op("Mod", k, ctx.op("Max", n_v, ints(ctx, [1])))
    pos = ctx.op("Compress", pos, ctx.op("Expand", has_v, count), axis=0)
    k = ctx.op("Compress", k, ctx.op("Expand", has_v, count), axis=0)
    values = ctx.op("Gather", flat_v, k, axis=0)
    flat = ctx.op("Reshape", a, ints(ctx, [-1]))
    if a.dtype == np.float16:  # moved in float32 between explicit Casts (exact)
        flat, values = (ctx.op("Cast", v, to=1) for v in (flat, values))
        out = ctx.op("Cast", ctx.op("ScatterElements", flat, pos, values, axis=0), to=10)
    else:
        out = ctx.op("ScatterElements", flat, pos, values, axis=0)
    return Array(ctx.op("Reshape", out, shape), a.dtype, a.shape)


def _cumprod(ctx, vec, n: int):
    """Cumulative products of an int64 vector of static length ``n`` (no int64 CumProd
    in onnxruntime)."""
    parts, acc = [], None
    for i in range(n):
        e = ctx.op("Slice", vec, ints(ctx, [i]), ints(ctx, [i + 1]), ints(ctx, [0]))
        acc = e if acc is None else ctx.op("Mul", acc, e)
        parts.append(acc)
    return ctx.op("Concat", *parts, axis=0)

"""Index arrays and grids of run-time size: ``np.tril_indices``, ``np.triu_indices`` (and
``_from``), ``np.diag_indices`` (and ``_from``), ``np.ix_``, ``np.fromfunction``,
``np.diagflat``, ``np.vander``, ``np.unravel_index``, ``np.ravel_multi_index``.

Input: sizes as Python ints or 0-d integers only known at run time (``x.shape[0]``), arrays.
Output: numpy's arrays (tuples of arrays for the index functions), int64 indices; each follows
numpy's own definition on the lowered functions it uses:

* ``tril_indices(n, k=0, m=None)`` = ``np.nonzero(np.tri(n, m, k, dtype=bool))`` (row-major
  order, as numpy's); ``triu_indices`` the complement of ``tri(n, m, k - 1)``;
  ``tril_indices_from(arr, k=0)`` uses a 2-D ``arr``'s shape;
* ``diag_indices(n, ndim=2)``: ``ndim`` copies of ``arange(n)``; ``diag_indices_from(arr)``
  needs every dimension equal (checked at run time when the shapes do not say so);
* ``ix_(*seqs)``: 1-D integer (or bool: their nonzero positions) arrays reshaped to broadcast
  against each other;
* ``fromfunction(function, shape, dtype=float, **kwargs)``: ``function(*np.indices(shape,
  dtype=dtype), **kwargs)``, the function inlined like any Python function;
* ``diagflat(v, k=0)`` = ``np.diag(v.ravel(), k)``; ``vander(x, N=None, increasing=False)``:
  the powers ``x[:, None] ** arange(N)`` numpy's ``multiply.accumulate`` computes;
* ``unravel_index(indices, shape)``, ``ravel_multi_index(multi_index, dims)`` with numpy's
  C order (``order='C'``; ``mode='raise'``: an index out of range fails at run time).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import lookup, register

__all__: list[str] = []

_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)


def _np(fn: Any, ctx, *args, **kwargs) -> Any:
    """The registered lowering of numpy function ``fn``."""
    return lookup(fn).fn(ctx, *args, **kwargs)


def _strong(a: Array) -> Array:
    return Array(a.value, a.dtype, a.shape)


@register(np.tril_indices)
def tril_indices(ctx, n, k=0, m=None):
    return _np(np.nonzero, ctx, _np(np.tri, ctx, n, m, k, dtype=bool))


@register(np.triu_indices)
def triu_indices(ctx, n, k=0, m=None):
    lower = _np(np.tri, ctx, n, m, _np(np.subtract, ctx, k, 1) if isinstance(k, Array) else
                k - 1, dtype=bool)
    return _np(np.nonzero, ctx, _np(np.logical_not, ctx, lower))


def _two_d(ctx, name: str, arr: Any) -> Array:
    a = ctx.asarray(arr)
    if a.ndim != 2:
        raise ctx.error(f"{name}: input array must be 2-d (numpy raises ValueError)")
    return a


@register(np.tril_indices_from)
def tril_indices_from(ctx, arr, k=0):
    a = _two_d(ctx, "np.tril_indices_from", arr)
    return tril_indices(ctx, ctx.dim(a, 0), k, ctx.dim(a, 1))


@register(np.triu_indices_from)
def triu_indices_from(ctx, arr, k=0):
    a = _two_d(ctx, "np.triu_indices_from", arr)
    return triu_indices(ctx, ctx.dim(a, 0), k, ctx.dim(a, 1))


@register(np.diag_indices)
def diag_indices(ctx, n, ndim=2):
    ndim = ctx.static(ndim, "ndim")
    idx = _strong(_np(np.arange, ctx, n))
    return (idx,) * ndim


@register(np.diag_indices_from)
def diag_indices_from(ctx, arr):
    """numpy: ``arr`` of rank >= 2 with every dimension equal."""
    a = ctx.asarray(arr)
    if a.ndim < 2:
        raise ctx.error("np.diag_indices_from: input array must be at least 2-d (numpy raises "
                        "ValueError)")
    known = {d for d in a.shape if d is not None}
    if len(known) > 1:
        raise ctx.error(f"np.diag_indices_from: all dimensions of input must be of equal "
                        f"length (shape {a.shape}; numpy raises ValueError)")
    n = ctx.dim(a, 0)
    if None in a.shape:
        shape = Array(ctx.op("Shape", a), _I64, (a.ndim,))
        first = Array(ctx.op("Shape", a, start=0, end=1), _I64, (1,))
        bad = _np(np.not_equal, ctx, shape, first)
        n = runtime_check(ctx, bad, Array(ctx.op("Squeeze", first.value), _I64, ()),
                          "all_dimensions_of_input_must_be_of_equal_length",
                          "ValueError: All dimensions of input must be of equal length")
    return diag_indices(ctx, n, a.ndim)


@register(np.ix_)
def ix_(ctx, *args):
    out = []
    nd = len(args)
    for k, seq in enumerate(args):
        a = _strong(ctx.asarray(seq))
        if a.ndim != 1:
            raise ctx.error("Cross index must be 1 dimensional (numpy raises ValueError)")
        if a.dtype == _BOOL:
            (a,) = _np(np.nonzero, ctx, a)
        elif a.dtype.kind not in "iu":
            if a.dtype.kind == "f" and a.shape == (0,):
                a = ctx.cast(a, _I64)  # numpy: an empty sequence becomes intp
            else:
                raise ctx.error("np.ix_: arrays used as indices must be of integer (or boolean) "
                                f"type, not {a.dtype} (numpy raises IndexError)")
        shape = [1] * nd
        shape[k] = -1
        out.append(_np(np.reshape, ctx, a, tuple(shape)))
    return tuple(out)


@register(np.fromfunction, static_eval=False)
def fromfunction(ctx, function, shape, *, dtype=float, like=None, **kwargs):
    """``np.fromfunction(function, shape, dtype=float, **kwargs)``: ``function`` is called once
    with the index arrays (it must work on arrays, as numpy's does)."""
    grids = _np(np.indices, ctx, shape, dtype=dtype)
    args = [g for g in grids] if isinstance(grids, (tuple, list)) else \
        [Array(ctx.op("Gather", grids, ctx.const(np.array(i, np.int64)), axis=0), grids.dtype,
               grids.shape[1:]) for i in range(len(shape))]
    return ctx.frames[-1].call_value(function, args, kwargs)


@register(np.diagflat)
def diagflat(ctx, v, k=0):
    return _np(np.diag, ctx, _np(np.ravel, ctx, ctx.asarray(v)), k)


@register(np.vander)
def vander(ctx, x, N=None, increasing=False):
    """numpy's ``vander``: ``multiply.accumulate`` of ``x`` repeated ``N`` times, the first
    column ones (so ``x ** 0`` is 1 even for 0, and integer powers wrap as numpy's)."""
    a = _strong(ctx.asarray(x))
    if a.ndim != 1:
        raise ctx.error("x must be a one-dimensional array or sequence (numpy raises "
                        "ValueError)")
    increasing = ctx.static(increasing, "increasing")
    n = ctx.dim(a, 0) if N is None else N
    dt = np.promote_types(a.dtype, int)
    rows = ctx.dim(a, 0)
    ones = _np(np.ones, ctx, (rows, 1), dtype=dt)
    reps = _np(np.maximum, ctx, _np(np.subtract, ctx, n, 1), 0)
    cols = _np(np.broadcast_to, ctx, _np(np.reshape, ctx, ctx.cast(a, dt), (-1, 1)), (rows, reps))
    body = _np(np.concatenate, ctx, [ones, cols], axis=1)
    powers = _np(np.multiply.accumulate, ctx, body, axis=1)
    powers = Array(ctx.op("Slice", powers, ctx.const(np.array([0], np.int64)), ctx.op(
        "Reshape", ctx.cast(ctx.asarray(n), _I64), ctx.const(np.array([1], np.int64))),
        ctx.const(np.array([1], np.int64))), powers.dtype, (a.shape[0], None))
    return powers if increasing else _np(np.flip, ctx, powers, axis=1)


@register(np.unravel_index)
def unravel_index(ctx, indices, shape, order="C"):
    if ctx.static(order, "order") != "C":
        raise ctx.error("np.unravel_index with order='F' is not supported; reverse the shape "
                        "and the result instead")
    idx = _strong(ctx.asarray(indices))
    if idx.dtype.kind not in "iu":
        raise ctx.error(f"only int indices permitted (numpy raises TypeError, got {idx.dtype})")
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    idx = ctx.cast(idx, _I64)
    total = 1
    for d in dims:
        total = _np(np.multiply, ctx, total, d) if isinstance(d, Array) or \
            isinstance(total, Array) else total * d
    bad = _np(np.logical_or, ctx, _np(np.less, ctx, idx, 0),
              _np(np.greater_equal, ctx, idx, total))
    idx = runtime_check(ctx, bad, idx, "index_out_of_bounds_for_array",
                        "ValueError: index is out of bounds for array")
    out = []
    rest = idx
    for d in reversed(dims[1:]):
        out.append(_strong(_np(np.remainder, ctx, rest, d)))
        rest = _strong(_np(np.floor_divide, ctx, rest, d))
    out.append(_strong(ctx.cast(rest, _I64)))
    return tuple(ctx.cast(o, _I64) for o in reversed(out))


@register(np.ravel_multi_index, limits={"mode": "'raise' only", "order": "'C' only"})
def ravel_multi_index(ctx, multi_index, dims, mode="raise", order="C"):
    if ctx.static(mode, "mode") != "raise" or ctx.static(order, "order") != "C":
        raise ctx.error("np.ravel_multi_index supports mode='raise', order='C' only")
    if not isinstance(multi_index, (tuple, list)) or len(multi_index) != len(dims):
        raise ctx.error("parameter multi_index must be a sequence of length "
                        f"{len(dims)} (numpy raises ValueError)")
    flat: Any = 0
    bad: Any = False
    for i, d in zip(multi_index, dims):
        i = _strong(ctx.asarray(i))
        if i.dtype.kind not in "iu":
            raise ctx.error("only int indices permitted (numpy raises TypeError)")
        i = ctx.cast(i, _I64)
        bad = _np(np.logical_or, ctx, bad, _np(np.logical_or, ctx, _np(np.less, ctx, i, 0),
                                                 _np(np.greater_equal, ctx, i, d)))
        flat = _np(np.add, ctx, _np(np.multiply, ctx, flat, d), i)
    flat = _strong(ctx.cast(flat, _I64))
    return runtime_check(ctx, ctx.asarray(bad), flat, "invalid_entry_in_coordinates_array",
                         "ValueError: invalid entry in coordinates array")

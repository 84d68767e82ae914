"""numpy functions and methods that write into an existing array: ``np.copyto``,
``x.fill``, ``np.add.at``/``np.subtract.at``, ``np.place``/``np.putmask``, ``np.put``/``x.put``,
``np.put_along_axis``, ``np.fill_diagonal``.

Input: the call's frontend values. Output: the write, through
:func:`pyonnx.frontend.lower.aliases.write_with` (every name of the written memory is rebound;
an argument written into is copied back to the caller); the call itself returns None, as
numpy's do. Each entry's docstring gives the syntax it supports.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pyonnx.frontend.lower import alias_writes
from pyonnx.frontend.graph.indexing.basic import INDEX_AXIS
from pyonnx.frontend.graph.values import Array, is_static

__all__ = ["function_writer", "METHODS"]


def copyto(lowering, dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """``np.copyto(dst, src, casting='same_kind', where=True)``."""
    from pyonnx.frontend.lower.setitem import setitem
    from pyonnx.frontend.numpy_calls import lookup

    ctx = lowering.ctx
    casting = ctx.static(casting, "casting")
    if isinstance(dst, Array):
        s = ctx.asarray(src)
        if not s.weak and not np.can_cast(s.dtype, dst.dtype, casting):
            raise ctx.error(f"Cannot cast array data from dtype('{s.dtype}') to "
                            f"dtype('{dst.dtype}') according to the rule '{casting}' (numpy "
                            "raises TypeError)")

    def compute(ctx, t: Array) -> Array:
        if is_static(where) and where is True:
            return setitem(ctx, t, Ellipsis, src)
        new = lookup(np.broadcast_to).fn(ctx, ctx.cast(ctx.asarray(src), t.dtype), t.shape) \
            if None not in t.shape else setitem(ctx, t, Ellipsis, src)
        return lookup(np.where).fn(ctx, where, new, t)
    alias_writes.write_with(lowering, dst, compute, "the destination of np.copyto")


def fill(lowering, arr: Any, value: Any) -> None:
    """``x.fill(value)``."""
    from pyonnx.frontend.lower.setitem import setitem

    alias_writes.write_with(lowering, arr, lambda ctx, t: setitem(ctx, t, Ellipsis, value),
                       "the array filled")


def add_at(lowering, a: Any, indices: Any, b: Any = None, negate: bool = False) -> None:
    """``np.add.at(a, indices, b)`` and ``np.subtract.at(a, indices, b)``: unbuffered, so
    repeated indices accumulate."""
    from pyonnx.frontend.lower.setitem import add_at as add_at_value

    if b is None:
        raise lowering.ctx.error("np.add.at needs the values to add (b)")
    alias_writes.write_with(lowering, a, lambda ctx, t: add_at_value(ctx, t, indices, b, negate),
                       "the array of np.add.at")


def putmask(lowering, a: Any, mask: Any, values: Any) -> None:
    """``np.putmask(a, mask, values)`` with ``values`` a scalar or an array of a's shape
    (numpy repeats a shorter ``values`` cyclically: refused)."""
    from pyonnx.frontend.numpy_calls import lookup

    ctx = lowering.ctx
    v = ctx.asarray(values)
    if v.ndim and isinstance(a, Array) and v.shape != a.shape:
        raise ctx.error("np.putmask with values of another shape than the array repeats them "
                        "cyclically, which pyonnx does not convert; use a[mask] = values[mask]")

    def compute(ctx, t: Array) -> Array:
        return ctx.cast(lookup(np.where).fn(ctx, mask, ctx.cast(v, t.dtype), t), t.dtype)
    alias_writes.write_with(lowering, a, compute, "the array of np.putmask")


def place(lowering, arr: Any, mask: Any, vals: Any) -> None:
    """``np.place(arr, mask, vals)`` with ``vals`` a scalar or exactly the true-count long."""
    from pyonnx.frontend.lower.setitem import setitem

    ctx = lowering.ctx
    if isinstance(mask, Array) and mask.dtype != np.bool_:
        mask = ctx.cast(mask, np.bool_)
    alias_writes.write_with(lowering, arr, lambda ctx, t: setitem(ctx, t, mask, vals),
                       "the array of np.place")


def fill_diagonal(lowering, a: Any, val: Any, wrap: Any = False) -> None:
    """``np.fill_diagonal(a, val, wrap=False)``: the registry entry computes the new value
    (numpy_calls/science/windows.py), written here."""
    from pyonnx.frontend.numpy_calls import lookup

    value = lookup(np.fill_diagonal).fn
    alias_writes.write_with(lowering, a, lambda ctx, t: value(ctx, t, val, wrap),
                       "the array of np.fill_diagonal")



def put(lowering, a: Any, ind: Any, v: Any, mode: str = "raise") -> None:
    """``np.put(a, ind, v, mode='raise')`` and ``a.put(ind, v, mode)``: ``a.flat[ind] = v``
    (the last of repeated indices wins); ``mode='wrap'``/``'clip'`` map the indices as numpy's;
    ``v`` is taken in order and repeated cyclically, as numpy's."""
    from pyonnx.frontend.lower.setitem import setitem
    from pyonnx.frontend.numpy_calls import lookup

    ctx = lowering.ctx
    mode = ctx.static(mode, "mode")
    if mode not in ("raise", "wrap", "clip"):
        raise ctx.error(f"np.put: mode must be 'raise', 'wrap' or 'clip', not {mode!r}")
    idx = ctx.asarray(ind)
    if idx.dtype.kind not in "iu":
        raise ctx.error(f"np.put: indices must be integers, not {idx.dtype} (numpy raises "
                        "TypeError)")
    vals = ctx.asarray(v)

    def compute(ctx, t: Array) -> Array:
        flat = lookup(np.ravel).fn(ctx, t)
        i = lookup(np.ravel).fn(ctx, ctx.cast(idx, np.dtype(np.int64)))
        n = Array(ctx.op("Size", t), np.dtype(np.int64), ())
        if mode != "raise":
            i = lookup(np.remainder).fn(ctx, i, n) if mode == "wrap" else \
                lookup(np.clip).fn(ctx, i, 0, lookup(np.subtract).fn(ctx, n, 1))
        else:
            # The positions through a Gather from arange(size): an index out of bounds fails
            # it, and its name makes the runtime raise numpy's IndexError (runtime/index_errors.py)
            iota = ctx.op("Range", ctx.const(np.array(0, np.int64)), n,
                          ctx.const(np.array(1, np.int64)))
            i = Array(ctx.op("Gather", iota, i, axis=0), i.dtype, i.shape)
            i.value.producer().name += f"{INDEX_AXIS}0"
            # (kept a Gather: GatherElements' failure message has no index, passes/gather_elements)
            i.value.producer().metadata_props["pyonnx.index_check"] = "axis 0"
        w = lookup(np.ravel).fn(ctx, vals)
        if vals.static_size != 1:
            # numpy takes the values in order, repeated cyclically as needed (the first
            # len(ind) of a longer v); an empty v with indices fails at run time
            si, sv = (Array(ctx.op("Size", z), np.dtype(np.int64), ()) for z in (i, w))
            picks = lookup(np.remainder).fn(ctx, lookup(np.arange).fn(ctx, si),
                                            lookup(np.maximum).fn(ctx, sv, 1))
            w = Array(ctx.op("Gather", w, picks, axis=0), w.dtype, (None,))
        new = setitem(ctx, flat, i, w)
        return lookup(np.reshape).fn(ctx, new, tuple(ctx.dim(t, k) for k in range(t.ndim)))
    alias_writes.write_with(lowering, a, compute, "the array of np.put")


def put_along_axis(lowering, arr: Any, indices: Any, values: Any, axis: Any) -> None:
    """``np.put_along_axis(arr, indices, values, axis)``: ``arr[idx] = values`` with the
    fancy index numpy's ``_make_along_axis_idx`` builds (``axis=None``: the flat array)."""
    from pyonnx.frontend.lower.setitem import setitem
    from pyonnx.frontend.numpy_calls import lookup

    ctx = lowering.ctx
    axis = ctx.static(axis, "axis")
    idx = ctx.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise ctx.error("`indices` must be an integer array (numpy raises IndexError)")

    def compute(ctx, t: Array) -> Array:
        if axis is None:
            if idx.ndim != 1:
                raise ctx.error("when axis=None, `indices` must have a single dimension (numpy "
                                "raises ValueError)")
            flat = lookup(np.ravel).fn(ctx, t)
            new = setitem(ctx, flat, idx, values)
            return lookup(np.reshape).fn(ctx, new, tuple(ctx.dim(t, k) for k in range(t.ndim)))
        if idx.ndim != t.ndim:
            raise ctx.error("`indices` and `arr` must have the same number of dimensions (numpy "
                            "raises ValueError)")
        k = axis % t.ndim
        parts = []
        for d in range(t.ndim):
            if d == k:
                parts.append(idx)
                continue
            shape = [1] * t.ndim
            shape[d] = -1
            parts.append(lookup(np.reshape).fn(ctx, lookup(np.arange).fn(ctx, ctx.dim(t, d)),
                                               tuple(shape)))
        return setitem(ctx, t, tuple(parts), values)
    alias_writes.write_with(lowering, arr, compute, "the array of np.put_along_axis")



_FUNCTIONS: dict[Any, Callable[..., None]] = {np.copyto: copyto, np.putmask: putmask,
                                              np.place: place, np.put: put,
                                              np.put_along_axis: put_along_axis,
                                              np.fill_diagonal: fill_diagonal}
METHODS: dict[str, Callable[..., None]] = {"fill": fill, "put": put}


def function_writer(func: Any) -> Callable[..., None] | None:
    """The writer for a numpy function object (``np.copyto``, ``np.add.at``), or None."""
    try:
        hit = _FUNCTIONS.get(func)
    except TypeError:
        return None
    if hit is not None:
        return hit
    owner = getattr(func, "__self__", None)
    if getattr(func, "__name__", None) == "at" and owner in (np.add, np.subtract):
        negate = owner is np.subtract
        return lambda lowering, a, indices, b=None: add_at(lowering, a, indices, b, negate)
    return None

"""numpy functions and methods that write into an existing array: ``np.copyto``,
``x.fill``, ``np.add.at``/``np.subtract.at``, ``np.place``/``np.putmask``, ``np.fill_diagonal``.

Input: the call's frontend values. Output: the write, through
:func:`pyonnx.frontend.lower.aliases.write_with` (every name of the written memory is rebound;
an argument written into is copied back to the caller); the call itself returns None, as
numpy's do. Each entry's docstring gives the syntax it supports.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pyonnx.frontend.lower import aliases
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
    aliases.write_with(lowering, dst, compute, "the destination of np.copyto")


def fill(lowering, arr: Any, value: Any) -> None:
    """``x.fill(value)``."""
    from pyonnx.frontend.lower.setitem import setitem

    aliases.write_with(lowering, arr, lambda ctx, t: setitem(ctx, t, Ellipsis, value),
                       "the array filled")


def add_at(lowering, a: Any, indices: Any, b: Any = None, negate: bool = False) -> None:
    """``np.add.at(a, indices, b)`` and ``np.subtract.at(a, indices, b)``: unbuffered, so
    repeated indices accumulate."""
    from pyonnx.frontend.lower.setitem import add_at as add_at_value

    if b is None:
        raise lowering.ctx.error("np.add.at needs the values to add (b)")
    aliases.write_with(lowering, a, lambda ctx, t: add_at_value(ctx, t, indices, b, negate),
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
    aliases.write_with(lowering, a, compute, "the array of np.putmask")


def place(lowering, arr: Any, mask: Any, vals: Any) -> None:
    """``np.place(arr, mask, vals)`` with ``vals`` a scalar or exactly the true-count long."""
    from pyonnx.frontend.lower.setitem import setitem

    ctx = lowering.ctx
    if isinstance(mask, Array) and mask.dtype != np.bool_:
        mask = ctx.cast(mask, np.bool_)
    aliases.write_with(lowering, arr, lambda ctx, t: setitem(ctx, t, mask, vals),
                       "the array of np.place")


def fill_diagonal(lowering, a: Any, val: Any, wrap: Any = False) -> None:
    """``np.fill_diagonal(a, val, wrap=False)``: the registry entry computes the new value
    (numpy_calls/science/windows.py), written here."""
    from pyonnx.frontend.numpy_calls import lookup

    value = lookup(np.fill_diagonal).fn
    aliases.write_with(lowering, a, lambda ctx, t: value(ctx, t, val, wrap),
                       "the array of np.fill_diagonal")


_FUNCTIONS: dict[Any, Callable[..., None]] = {np.copyto: copyto, np.putmask: putmask,
                                              np.place: place, np.fill_diagonal: fill_diagonal}
METHODS: dict[str, Callable[..., None]] = {"fill": fill}


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

"""Arrays made with a complex dtype: np.zeros/ones/empty/full and their ``_like`` forms.

Input: the creation call's arguments (a shape or an array to take it from, a dtype that is
complex or None with a complex fill value or template). Output: a Complex whose parts the real
creation lowerings make. ``complex_calls`` asks :data:`CREATION` and :func:`creation_dtype`
whether a call is one of these.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.complex_values import (
    Complex, complex_dtype, make, parts, real_dtype, zeros_like)
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls import lookup

__all__ = ["CREATION", "FUNCS", "creation_dtype", "create"]


# function -> (index of dtype among the positional arguments, index of the fill value or None,
# whether the first argument is an array to take the shape of)
CREATION = {np.zeros: (1, None, False), np.ones: (1, None, False), np.empty: (1, None, False),
             np.full: (2, 1, False), np.zeros_like: (1, None, True),
             np.ones_like: (1, None, True), np.empty_like: (1, None, True),
             np.full_like: (2, 1, True)}


def creation_dtype(func, args: list, kwargs: dict):
    i = CREATION[func][0]
    return args[i] if len(args) > i else kwargs.get("dtype")


def create(ctx, func, args: list, kwargs: dict) -> Complex:
    """np.zeros/ones/empty/full(_like) of a complex dtype: each part made by the real lowering
    (empty is zeros: numpy leaves its values unspecified)."""
    di, fi, like = CREATION[func]
    dtype = creation_dtype(func, args, kwargs)
    fill = 0 if func in (np.zeros, np.empty, np.zeros_like, np.empty_like) else 1 \
        if func in (np.ones, np.ones_like) else (args[fi] if len(args) > fi
                                                 else kwargs.get("fill_value"))
    rest = {k: v for k, v in kwargs.items() if k not in ("dtype", "fill_value")}
    if rest.get("order", "C") not in ("C", "K", "A") or set(rest) - {"order", "shape"}:
        raise ctx.error(f"np.{func.__name__}: these arguments are not supported with complex "
                        "values yet")
    src = args[0] if args else kwargs.get("a", kwargs.get("shape"))
    if dtype is None:
        # numpy: a _like array has its template's dtype (np.zeros_like of complex64 is
        # complex64; a complex fill of a real template keeps the real part, ComplexWarning)
        dtype = _dtype_of(src) if like else np.asarray(fill).dtype
    dt = np.dtype(complex if dtype is complex else ctx.static(dtype, "dtype"))
    real_result = dt.kind != "c"
    if real_result:
        dt = complex_dtype(dt)
    rd = real_dtype(dt)
    if isinstance(src, Complex):
        src = src.re
    full = lookup(np.full_like if like else np.full).fn
    if isinstance(fill, (Complex, Array)):
        fr, fi_ = parts(ctx, fill, dt)
    else:
        c = complex(ctx.static(fill, "the fill value"))
        fr, fi_ = c.real, c.imag
    # a _like call's shape= replaces its template's shape (np.ones_like(z, shape=(2, 3)))
    shape = {"shape": rest["shape"]} if like and rest.get("shape") is not None else {}
    if real_result and like and dtype is not None:
        return full(ctx, src, fr, dtype=np.dtype(dtype), **shape)
    return make(ctx, full(ctx, src, fr, dtype=rd, **shape), full(ctx, src, fi_, dtype=rd, **shape),
                dt)



def _zeros_like(ctx, a, dtype=None, **kw):
    if dtype is not None or kw:
        # (numpy's zeros of the template's shape in dtype: a complex one is made as full_like)
        return create(ctx, np.zeros_like, [a], {"dtype": dtype, **kw})
    return make(ctx, zeros_like(ctx, a.re), zeros_like(ctx, a.im), a.dtype)


def _dtype_of(v):
    if isinstance(v, (Complex, Array)):
        return v.dtype
    return np.asarray(v).dtype


FUNCS = {np.zeros_like: _zeros_like}

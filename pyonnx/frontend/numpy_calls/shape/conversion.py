"""numpy dtype conversions and copies: astype, copy.

Input: an array (or any value ``np.asarray`` accepts) and a static dtype, casting rule and copy
flag. Output: a strong Array: a Cast, or an Identity for a copy in the same dtype (numpy copies,
so later writes must not reach the input).

Supported syntax:

* ``x.astype(dtype, casting=, copy=)``, ``np.astype``, ``np.copy(x)``, ``x.copy()``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape.common import _copy, to_array


# ------------------------------------------------------------------- astype / copy
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
    """``x.copy()`` (C order: its reshape is a view of it whatever ``x``'s order)."""
    out = _copy(ctx, to_array(ctx, a))
    ctx.aliases.c_order.add(out.value)
    return out

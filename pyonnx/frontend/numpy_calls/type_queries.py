"""numpy's dtype queries, answered at conversion time (dtypes are static in pyonnx).

Input: dtypes, dtype spellings, or Arrays (whose static dtype is used). Output: the static
Python/numpy object numpy returns.

Supported syntax:

* ``np.dtype(spelling)`` (``np.dtype("float32")``, ``np.dtype(x.dtype)``),
  ``np.dtype(x)`` of an array is refused as numpy refuses it.
* ``np.finfo(t)``, ``np.iinfo(t)`` with ``t`` a dtype spelling, an array or a number
  (``np.finfo(x.dtype).eps``, ``np.iinfo(np.int32).max``).
* ``np.result_type(*arrays_and_dtypes)`` (Python scalars weak, as NEP 50 says),
  ``np.promote_types(a, b)``, ``np.can_cast(from, to, casting='safe')``,
  ``np.issubdtype(a, b)`` on dtypes (``np.issubdtype(x.dtype, np.floating)``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.numpy_calls.registry import register


def _static(ctx, fname: str, *values: Any) -> None:
    if not is_static(list(values)):
        raise ctx.error(f"{fname} needs dtypes known at conversion time; pass x.dtype")


def _dtype_of(value: Any) -> Any:
    """An Array's static dtype; other values as they are."""
    return value.dtype if isinstance(value, Array) else value


@register(np.dtype)
def dtype(ctx, obj, align=False, copy=False):
    """``np.dtype(spelling)``."""
    if isinstance(obj, Array):
        raise ctx.error("Cannot interpret an array as a data type (numpy raises TypeError); "
                        "use x.dtype")
    _static(ctx, "np.dtype", obj, align, copy)
    return np.dtype(obj, align=align, copy=copy)


@register(np.finfo)
def finfo(ctx, t):
    """``np.finfo(t)`` (an array gives its dtype's limits)."""
    try:
        return np.finfo(_dtype_of(t))
    except (TypeError, ValueError) as e:
        raise ctx.error(f"np.finfo: {e}") from None


@register(np.iinfo)
def iinfo(ctx, t):
    """``np.iinfo(t)`` (an array gives its dtype's limits)."""
    try:
        return np.iinfo(_dtype_of(t))
    except (TypeError, ValueError) as e:
        raise ctx.error(f"np.iinfo: {e}") from None


@register(np.result_type)
def result_type(ctx, *arrays_and_dtypes):
    """``np.result_type(...)``: Arrays by their dtype (weak Python scalars stay weak), dtype
    spellings as numpy reads them."""
    parts: list[Any] = []
    for v in arrays_and_dtypes:
        if isinstance(v, Array):
            p = dtypes.proxy(v)
            parts.append(p(0) if isinstance(p, type) else p)  # a weak Python number
        elif isinstance(v, (bool, int, float, np.generic, np.ndarray)):
            parts.append(v)
        else:
            try:
                parts.append(np.dtype(v))
            except TypeError:
                raise ctx.error(f"np.result_type: cannot interpret {v!r} as a data type") from None
    try:
        return np.result_type(*parts)
    except (TypeError, ValueError) as e:
        raise ctx.error(f"np.result_type: {e}") from None


@register(np.promote_types)
def promote_types(ctx, type1, type2):
    _static(ctx, "np.promote_types", type1, type2)
    return np.promote_types(type1, type2)


@register(np.can_cast)
def can_cast(ctx, from_, to, casting="safe"):
    """``np.can_cast(from, to, casting)``; an array ``from`` is judged by its dtype."""
    _static(ctx, "np.can_cast", to, casting)
    return np.can_cast(_dtype_of(from_), to, casting=casting)


@register(np.issubdtype)
def issubdtype(ctx, arg1, arg2):
    _static(ctx, "np.issubdtype", arg1, arg2)
    return np.issubdtype(arg1, arg2)

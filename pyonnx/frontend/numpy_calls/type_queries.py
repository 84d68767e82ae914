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
  ``np.issubdtype(a, b)`` on dtypes (``np.issubdtype(x.dtype, np.floating)``), ``np.isdtype``,
  ``np.common_type``, ``np.min_scalar_type``, ``np.isscalar``, ``np.iterable``.
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
def dtype(ctx, dtype, align=False, copy=False, metadata=None):
    """``np.dtype(spelling)``."""
    obj = dtype
    if metadata is not None:
        raise ctx.error("np.dtype(..., metadata=...) is not supported: pyonnx keeps no dtype "
                        "metadata")
    if isinstance(obj, Array):
        raise ctx.error("Cannot interpret an array as a data type (numpy raises TypeError); "
                        "use x.dtype")
    _static(ctx, "np.dtype", obj, align, copy)
    return np.dtype(obj, align=align, copy=copy)


@register(np.finfo)
def finfo(ctx, dtype):
    """``np.finfo(t)`` (an array gives its dtype's limits)."""
    try:
        return np.finfo(_dtype_of(dtype))
    except (TypeError, ValueError) as e:
        raise ctx.error(f"np.finfo: {e}") from None


@register(np.iinfo)
def iinfo(ctx, int_type):
    """``np.iinfo(t)`` (an array gives its dtype's limits)."""
    try:
        return np.iinfo(_dtype_of(int_type))
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


@register(np.isdtype)
def isdtype(ctx, dtype, kind):
    """``np.isdtype(dtype, kind)`` (numpy 2's Array API query): ``kind`` a dtype, a kind name
    (``"real floating"``, ``"integral"``, ...) or a tuple of them. An array is refused as numpy
    refuses it (pass ``x.dtype``)."""
    _static(ctx, "np.isdtype", dtype, kind)
    try:
        return np.isdtype(dtype, kind)
    except (TypeError, ValueError) as e:
        raise ctx.error(f"np.isdtype: {type(e).__name__}: {e}") from None


@register(np.common_type)
def common_type(ctx, *arrays):
    """``np.common_type(*arrays)``: the float scalar type for the arrays' dtypes."""
    try:
        return np.common_type(*(np.empty(0, _dtype_of(a)) if isinstance(a, Array) else a
                                for a in arrays))
    except (TypeError, ValueError) as e:
        raise ctx.error(f"np.common_type: {type(e).__name__}: {e}") from None


@register(np.min_scalar_type)
def min_scalar_type(ctx, a, /):
    """``np.min_scalar_type(a)``: for an array of rank >= 1 its dtype; a scalar's value
    decides, so it must be known at conversion time."""
    if isinstance(a, Array):
        if a.ndim == 0:
            raise ctx.error("np.min_scalar_type of a scalar depends on its value, which is only "
                            "known at run time here; pass a constant")
        return a.dtype
    return np.min_scalar_type(a)


@register(np.isscalar)
def isscalar(ctx, element):
    """``np.isscalar(v)``: True for Python numbers and numpy scalars, False for arrays (a 0-d
    array included). A 0-d value that a run-time branch or loop may make either is refused."""
    if not isinstance(element, Array):
        return bool(np.isscalar(element))
    if element.ndim:
        return False
    if element.weak:
        return True
    from pyonnx.frontend.graph.scalar_kinds import scalar_kind
    kind = scalar_kind(ctx, element)
    if kind == "unknown":
        raise ctx.error("np.isscalar of a value a run-time 'if' or loop makes: numpy scalar or "
                        "0-d array depends on the path; test v.ndim == 0 instead")
    return kind == "scalar"


@register(np.iterable)
def iterable(ctx, y):
    """``np.iterable(y)``: arrays of rank >= 1 and containers are iterable, 0-d values not."""
    if isinstance(y, Array):
        return y.ndim > 0
    if isinstance(y, (list, tuple)):
        return True
    return bool(np.iterable(y))

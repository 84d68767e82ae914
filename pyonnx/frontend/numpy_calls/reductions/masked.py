"""``where=`` of the reductions: the masked-out elements replaced by the reduction's identity.

Input: the reduced Array ``x``, numpy's ``where`` (True, or a bool array or scalar that
broadcasts to ``x``'s shape) and the identity to put in the masked-out places (0 for sum and
mean, 1 for prod, ``initial`` for max and min, False/True for any/all). Output: an Array of
``x``'s shape and dtype that the plain reduction then reduces, which gives numpy's result:
the identity changes no sum, product, maximum above ``initial`` or truth value. ``mean`` also
counts the selected elements (:func:`mask` summed, in :mod:`.statistics`).

numpy's errors: a ``where`` that is not bool (numpy's 'safe' cast to bool fails) is refused at
the call; one that does not broadcast to ``x`` (a larger shape) is refused when the shapes say
so and fails at run time when only the run-time sizes do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.common import where_
from pyonnx.frontend.numpy_calls.reductions.common import _BOOL, _I64, _NOVALUE

__all__ = ["masked", "mask", "has_where"]


def has_where(where: Any) -> bool:
    """Whether a reduction's ``where=`` selects (anything but the default True)."""
    return not (where is True or where is _NOVALUE or
                isinstance(where, (bool, np.bool_)) and bool(where))


def mask(ctx, name: str, x: Array, where: Any) -> Array:
    """``where`` as a bool Array of ``x``'s shape (numpy broadcasts it to ``x``)."""
    w = ctx.asarray(where)
    if w.dtype != _BOOL:
        raise ctx.error(f"{name}(..., where=...): where must be a bool array (numpy raises "
                        f"TypeError: Cannot cast array data from dtype('{w.dtype}') to "
                        "dtype('bool') according to the rule 'safe')")
    if w.ndim > x.ndim:
        raise ctx.error(f"{name}(..., where=...): where of rank {w.ndim} does not broadcast to "
                        f"the array of rank {x.ndim} (numpy raises ValueError)")
    for wd, xd in zip(reversed(w.shape), reversed(x.shape)):
        if wd is not None and xd is not None and wd not in (1, xd):
            raise ctx.error(f"{name}(..., where=...): where of shape {w.shape} does not "
                            f"broadcast to the array of shape {x.shape} (numpy raises "
                            "ValueError)")
    shape_x = Array(ctx.op("Shape", x), _I64, (x.ndim,))
    proven = all(wd == 1 or (wd is not None and wd == xd)
                 for wd, xd in zip(reversed(w.shape), reversed(x.shape)))
    if not proven:
        # Expand broadcasts both ways: a where larger than x at run time must fail, as numpy.
        wide = ctx.op("Shape", ctx.op("Expand", w, shape_x))
        bad = Array(ctx.op("Not", ctx.op("Equal", wide, shape_x)), _BOOL, (x.ndim,))
        shape_x = runtime_check(ctx, bad, shape_x, "where_does_not_broadcast",
                                "ValueError: operands could not be broadcast together (the "
                                "where= mask does not broadcast to the array's shape)")
    full = Array(ctx.op("Expand", w, shape_x), _BOOL, x.shape)
    return full


def masked(ctx, name: str, x: Array, where: Any, fill: Any) -> Array:
    """``x`` with ``fill`` (a number or a 0-d Array, cast to ``x``'s dtype) where ``where``
    is false; ``x`` itself when ``where`` selects everything."""
    if not has_where(where):
        return x
    w = mask(ctx, name, x, where)
    f = ctx.cast(fill, x.dtype) if isinstance(fill, Array) else \
        ctx.const_array(np.array(fill, x.dtype))
    # x in the second branch: onnxruntime's Where keeps a selected -0.0 there only.
    keep_out = Array(ctx.op("Not", w), _BOOL, x.shape)
    return where_(ctx, keep_out, Array(f.value, f.dtype, f.shape), x, x.dtype)

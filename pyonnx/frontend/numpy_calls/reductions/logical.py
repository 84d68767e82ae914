"""Logical reductions: ``np.any``, ``np.all``, ``np.count_nonzero``.

Input: an Array of any supported dtype (or anything ``np.asarray`` takes), ``axis`` and
``keepdims`` static. Output: a bool Array (int64 counts for count_nonzero) of numpy's static
shape; an element is true when nonzero (NaN is true). Empty reductions give numpy's identities
(False for any, True for all, 0 for count_nonzero).

Supported syntax::

    np.any / np.all(a, axis=None, keepdims=False, where=True)           a.any(...)
    np.count_nonzero(a, axis=None, keepdims=False)
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.reductions.common import (
    _BOOL,
    _I64,
    _NOVALUE,
    _arr,
    _axes,
    _refuse,
    _static_bool,
    reduce_any,
)
from pyonnx.frontend.numpy_calls.reductions.masked import masked
from pyonnx.frontend.numpy_calls.reductions.sums import reduce_sum


@register(np.any, methods=("any",))
def any_(ctx, a, axis=None, out=None, keepdims=_NOVALUE, *, where=_NOVALUE):
    _refuse(ctx, "np.any", out)
    x = masked(ctx, "np.any", _arr(ctx, a), where, 0)
    return reduce_any(ctx, x, _axes(ctx, "np.any", x, axis), _static_bool(ctx, keepdims,
                                                                             "keepdims"))


@register(np.all, methods=("all",))
def all_(ctx, a, axis=None, out=None, keepdims=_NOVALUE, *, where=_NOVALUE):
    _refuse(ctx, "np.all", out)
    x = masked(ctx, "np.all", _arr(ctx, a), where, 1)
    return reduce_any(ctx, x, _axes(ctx, "np.all", x, axis),
                      _static_bool(ctx, keepdims, "keepdims"), all_=True)


@register(np.count_nonzero)
def count_nonzero(ctx, a, axis=None, *, keepdims=False):
    x = _arr(ctx, a)
    axes = _axes(ctx, "np.count_nonzero", x, axis)
    b = x if x.dtype == _BOOL else ctx.cast(x, _BOOL)
    return reduce_sum(ctx, b, axes, _static_bool(ctx, keepdims, "keepdims"), _I64)

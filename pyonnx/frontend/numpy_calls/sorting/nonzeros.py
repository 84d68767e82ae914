"""numpy nonzero searches: nonzero, flatnonzero, argwhere.

Input: an array; an element counts when ``x != 0`` (NaN counts, ``-0.0`` does not). Output:
int64 index Arrays whose length is known only at run time.

Supported syntax:

* ``np.nonzero(a)``/``a.nonzero()`` (a tuple of int64 index arrays; 0-d refused as numpy does),
  ``np.flatnonzero(a)``, ``np.argwhere(a)``; ``np.where(cond)`` reaches ``np.nonzero``.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.sorting.common import _BOOL, _I64, _flatten, _ints, emit_exact


# ------------------------------------------------------------------- nonzero & friends
def _truth(ctx, x: Array):
    """``x != 0`` as bool (NaN counts as nonzero, -0.0 as zero)."""
    if x.dtype == _BOOL:
        return x.value
    zero = ctx.const_array(np.zeros((), x.dtype))
    eq = emit_exact(ctx, "Equal", [x, zero], x.dtype, out_dtype=_BOOL)
    return ctx.op("Not", eq)


@register(np.nonzero, methods=("nonzero",))
def nonzero(ctx, a):
    """``np.nonzero(a)``: a tuple of int64 index arrays, one per dimension (0-d refused)."""
    x = to_array(ctx, a)
    if x.ndim == 0:
        raise ctx.error("Calling nonzero on 0d arrays is not allowed (numpy raises ValueError); "
                        "use np.atleast_1d(x).nonzero() instead")
    nz = ctx.op("NonZero", _truth(ctx, x))
    out = tuple(Array(ctx.op("Gather", nz, ctx.const(np.array(i, np.int64)), axis=0), _I64,
                      (None,)) for i in range(x.ndim))
    if x.ndim >= 2:
        # numpy's index arrays are strided views of one (n, ndim) buffer: not C-contiguous,
        # so their ravel()/reshape(-1) is a copy (lower/layout.py reads the mark; fuzz seed
        # 26017305: t2 = t1.ravel(); t1 *= t2 changed t2)
        for a in out:
            a.value.producer().meta["pyonnx.strided"] = True
    return out


@register(np.flatnonzero)
def flatnonzero(ctx, a):
    """``np.flatnonzero(a)``: indices of the nonzero elements of ``a.ravel()``."""
    x = _flatten(ctx, to_array(ctx, a))
    return nonzero(ctx, x)[0]


@register(np.argwhere)
def argwhere(ctx, a):
    """``np.argwhere(a)``: an int64 array of shape (nonzero count, a.ndim)."""
    x = to_array(ctx, a)
    if x.ndim == 0:
        # numpy: argwhere(atleast_1d(a))[:, :0], shape (1, 0) or (0, 0).
        nz = ctx.op("NonZero", _truth(ctx, _flatten(ctx, x)))
        cols = ctx.op("Transpose", nz, perm=[1, 0])
        out = ctx.op("Slice", cols, _ints(ctx, 0), _ints(ctx, 0), _ints(ctx, 1))
        return Array(out, _I64, (None, 0))
    nz = ctx.op("NonZero", _truth(ctx, x))
    return Array(ctx.op("Transpose", nz, perm=[1, 0]), _I64, (None, x.ndim))

"""``x[m] = c``: a boolean-mask write of one value, as one ``Where``.

Input: the Array written to, its :class:`~pyonnx.frontend.lower.indexing.plan.IndexPlan` and
the value, already of x's dtype. Output: the new Array, or None when the write is not of this
form (the caller then takes the flat ``ScatterElements`` form).

The form: the subscript is one boolean mask ``m`` over x's leading k axes (``x[x < 0] = 0``,
``img[mask] = 255``, ``a[m, ...] = v``), and the value has one element (numpy broadcasts it to
every selected position; shapes ``()``, ``(1,)``, ``(1, 1)``...). Then
``y = Where(m[..., None...], c, x)``: one pass, no positions, no ``Compress`` (uint64, which
onnxruntime's Where lacks, keeps the flat form).

numpy raises IndexError when m's shape differs from x's leading dimensions; ``Where`` would
broadcast instead. When the shapes are not known equal at conversion time, the mask goes
through ``Reshape(Expand(m, x.shape[:k]), m.shape)`` (fails unless m's shape is x's, or m is
larger) and the result through ``Reshape(·, x.shape)`` (fails when m was larger), so a
mismatch fails at run time instead of writing elsewhere.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.lower.indexing.forms import MASK
from pyonnx.frontend.lower.kernels import compute_dtype, where
from pyonnx.frontend.lower.values import Array

__all__ = ["mask_fill"]


def mask_fill(ctx, x: Array, plan, v: Array) -> Array | None:
    """``x`` after ``x[m] = v`` for one leading mask and a one-element value (see the module
    docstring); None for any other write."""
    items = plan.items
    masks = [it for it in items if it.kind == MASK]
    if len(masks) != 1 or items[0] is not masks[0]:
        return None
    if any(not (it.kind == "slice" and it.value == slice(None)) for it in items[1:]):
        return None
    if v.static_size != 1:  # (numpy drops any leading length-1 dimensions of the value)
        return None
    if compute_dtype("Where", x.dtype) is None:  # uint64: no Where kernel, nor a wider exact one
        return None
    m = masks[0].value
    k = masks[0].consumes
    i64 = np.int64
    mask = ctx.const(m) if isinstance(m, np.ndarray) else m.value
    lead = x.shape[:k]
    known = None not in lead and tuple(m.shape) == tuple(lead)
    if not known:
        target = ctx.op("Shape", x, start=0, end=k) if None in lead else \
            ctx.const(np.array(lead, i64))
        mask = ctx.op("Reshape", ctx.op("Expand", mask, target), ctx.op("Shape", mask))
    if k < x.ndim:
        mask = ctx.op("Unsqueeze", mask, ctx.const(np.arange(k, x.ndim, dtype=i64)))
    scalar = v if v.ndim == 0 else Array(ctx.op("Reshape", v, ctx.const(np.array([], i64))),
                                          v.dtype, ())
    mask_shape = tuple(m.shape) + (1,) * (x.ndim - k)
    out = where(ctx, Array(mask, np.dtype(bool), mask_shape), scalar, x)
    if not known:
        out = Array(ctx.op("Reshape", out, ctx.shape_of(x)), x.dtype, x.shape)
    return Array(out.value, x.dtype, x.shape)

"""numpy discrete differences: diff.

Input: an array with a static order ``n`` and axis, and optional ``prepend``/``append`` values.
Output: an Array of the (promoted) dtype, shorter by ``n`` along the axis: integers wrap in
their dtype, bool gives ``a[1:] != a[:-1]``, float16 is rounded as numpy does.

Supported syntax:

* ``np.diff(a, n=1, axis=-1, prepend=..., append=...)``.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.sorting.common import (
    _BOOL, _INT64_MAX, _axis, _ints, emit_exact,
)


# ------------------------------------------------------------------------------ diff
def _diff_edge(ctx, edge, x: Array, axis: int) -> Array:
    e = to_array(ctx, edge)
    if e.ndim == 0:
        # numpy broadcasts a scalar to x's shape with length 1 along axis.
        dims = ctx.op("ScatterElements", ctx.shape_of(x), _ints(ctx, axis), _ints(ctx, 1), axis=0)
        shape = x.shape[:axis] + (1,) + x.shape[axis + 1:]
        return Array(ctx.op("Expand", e, dims), e.dtype, shape)
    if e.ndim != x.ndim:
        raise ctx.error(f"np.diff: prepend/append must be a scalar or have the array's rank "
                        f"{x.ndim}, got rank {e.ndim} (numpy's concatenate raises ValueError)")
    return e


@register(np.diff)
def diff(ctx, a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """``np.diff(a, n=1, axis=-1, prepend=..., append=...)``; ``n`` static; bool arrays give
    ``a[1:] != a[:-1]`` as numpy does; integers wrap in their dtype."""
    n = ctx.static(n, "n")
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise ctx.error(f"np.diff: n must be an integer, got {n!r}")
    if n < 0:
        raise ctx.error(f"order must be non-negative but got {n} (numpy raises ValueError)")
    x = to_array(ctx, a)
    if n == 0:
        return x
    if x.ndim == 0:
        raise ctx.error("diff requires input that is at least one dimensional "
                        "(numpy raises ValueError)")
    ax = _axis(ctx, axis, x.ndim, "np.diff")
    parts = []
    if prepend is not np._NoValue:
        parts.append(_diff_edge(ctx, prepend, x, ax))
    parts.append(x)
    if append is not np._NoValue:
        parts.append(_diff_edge(ctx, append, x, ax))
    if len(parts) > 1:
        dt = np.result_type(*(p.dtype for p in parts))
        length = 0
        for p in parts:
            length = None if length is None or p.shape[ax] is None else length + p.shape[ax]
        shape = x.shape[:ax] + (length,) + x.shape[ax + 1:]
        x = Array(ctx.op("Concat", *(ctx.cast(p, dt) for p in parts), axis=ax), dt, shape)
    for _ in range(int(n)):
        d = x.shape[ax]
        shape = x.shape[:ax] + (None if d is None else max(d - 1, 0),) + x.shape[ax + 1:]
        hi = Array(ctx.op("Slice", x, _ints(ctx, 1), _ints(ctx, _INT64_MAX), _ints(ctx, ax)),
                   x.dtype, shape)
        lo = Array(ctx.op("Slice", x, _ints(ctx, 0), _ints(ctx, -1), _ints(ctx, ax)),
                   x.dtype, shape)
        if x.dtype == _BOOL:
            x = Array(ctx.op("Xor", hi, lo), _BOOL, shape)
        else:
            x = emit_exact(ctx, "Sub", [hi, lo], x.dtype)
            x = Array(x.value, x.dtype, shape)
    return x

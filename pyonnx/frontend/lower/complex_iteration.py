"""``for v in z`` over a complex array: its items along the first axis.

Input: a :class:`Complex` of rank >= 1. Output: a list of items (a loop of at most
``iteration.UNROLL_LIMIT`` statically known rows is unrolled) or a :class:`DynamicIter` for a
run-time ``Loop``.

numpy's items are numpy scalars (copies) for a 1-D array and views (rows) otherwise. A row is
a Complex whose ``base`` is ``z``, so a write while it is alive is refused
(:func:`complex_writes.shared`), as for every complex view. A run-time loop reads its items
from ``z`` as it was before the loop, so a write into ``z``'s memory inside such a loop, which
numpy's later items would see, is refused: ``z``'s buffers are recorded in
``ctx.complex_iterated`` and :func:`complex_writes.shared` checks them.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.iterables import DynamicIter
from pyonnx.frontend.graph.values import Array

__all__ = ["rows", "iterated"]

_I64 = np.dtype(np.int64)


def iterated(ctx) -> set:
    """Buffers (``Complex.mem`` items) a run-time loop iterates over."""
    found = getattr(ctx, "complex_iterated", None)
    if found is None:
        found = ctx.complex_iterated = set()
    return found


def rows(ctx, z: Complex, unroll_limit: int) -> list | DynamicIter:
    from pyonnx.frontend.graph.indexing import getitem

    if z.ndim == 0:
        raise ctx.error("iteration over a 0-d array (numpy raises TypeError)")

    def item(re: Array, im: Array) -> Complex:
        out = Complex(re, im, z.dtype)
        if z.ndim > 1:  # a row: numpy's view of z
            out.base, out.mem = z, z.mem
        else:  # a numpy scalar (compared by numpy's scalar code: complex_scalar_compare)
            from pyonnx.frontend.lower.complex_calls import scalar_copies
            scalar_copies(ctx)[id(out)] = out
        return out

    n = z.shape[0]
    if n is not None and n <= unroll_limit:
        return [item(getitem(ctx, z.re, i), getitem(ctx, z.im, i)) for i in range(n)]
    iterated(ctx).update(z.mem)
    count = ctx.dim(z.re, 0)
    count = count if isinstance(count, Array) else ctx.const_array(np.array(count, np.int64))
    shape = z.shape[1:]

    def at(ctx, k: Array) -> Complex:
        return item(Array(ctx.op("Gather", z.re, k, axis=0), z.re.dtype, shape),
                    Array(ctx.op("Gather", z.im, k, axis=0), z.im.dtype, shape))
    return DynamicIter(Array(count.value, _I64, ()), at)

"""``for v in z`` over a complex array: its items along the first axis.

Input: a :class:`Complex` of rank >= 1. Output: a list of items (a loop of at most
``iteration.UNROLL_LIMIT`` statically known rows is unrolled) or a :class:`DynamicIter` for a
run-time ``Loop``.

numpy's items are numpy scalars (copies) for a 1-D array and views (rows) otherwise, read from
the array's memory as it is when the iteration reaches them. Where complex_aliases follows
``z``'s memory (its parts are buffers), as the real iteration does (iteration._rows): a
run-time loop reads item ``k`` from the parts' current contents, a row is registered as a view
of them (complex_aliases.view), and an unrolled loop re-derives each item when it binds it
(:func:`current_item`, from ``StmtLowering.stmt_For``). Otherwise a row is a Complex whose
``base`` is ``z`` (writes through it refused, as for every unfollowed view), and a run-time
loop reads from ``z`` as it was before the loop: ``z``'s memory is recorded in
``ctx.complex_iterated`` while the loop is lowered, and :func:`complex_writes.shared` refuses
writes into it.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.iterables import DynamicIter
from pyonnx.frontend.graph.values import Array

__all__ = ["rows", "iterated", "current_item"]

_I64 = np.dtype(np.int64)


def iterated(ctx) -> set:
    """Buffers (``Complex.mem`` items) a run-time loop being lowered iterates over."""
    found = getattr(ctx, "complex_iterated", None)
    if found is None:
        found = ctx.complex_iterated = set()
    return found


def _items(ctx) -> dict:
    """id(item of an unrolled iteration) → (the item, the iterated Complex, its index)."""
    found = getattr(ctx, "complex_items", None)
    if found is None:
        found = ctx.complex_items = {}
    return found


def rows(ctx, z: Complex, unroll_limit: int) -> list | DynamicIter:
    from pyonnx.frontend.graph.indexing import getitem
    from pyonnx.frontend.lower import complex_aliases as CA
    from pyonnx.frontend.lower.aliases import GetItem

    if z.ndim == 0:
        raise ctx.error("iteration over a 0-d array (numpy raises TypeError)")
    follow = CA.registrable(ctx, z)
    if follow:
        z = CA.register(ctx, z)

    def item(source: Complex, re: Array, im: Array, index) -> Complex:
        out = Complex(re, im, z.dtype)
        if z.ndim > 1:  # a row: numpy's view of z
            if follow:
                return CA.view(ctx, source, out, GetItem(index))
            out.base, out.mem = z, z.mem
        else:  # a numpy scalar (compared by numpy's scalar code: complex_scalar_compare)
            from pyonnx.frontend.lower.complex_state import scalar_copies
            scalar_copies(ctx)[id(out)] = out
            out.zero_d = "scalar"
        return out

    n = z.shape[0]
    if n is not None and n <= unroll_limit:
        out = [item(z, getitem(ctx, z.re, i), getitem(ctx, z.im, i), i) for i in range(n)]
        if follow:
            found = _items(ctx)
            for i, v in enumerate(out):
                found[id(v)] = (v, z, i)
        return out
    if not follow:
        iterated(ctx).update(z.mem)
    count = ctx.dim(z.re, 0)
    count = count if isinstance(count, Array) else ctx.const_array(np.array(count, np.int64))
    shape = z.shape[1:]

    def at(ctx, k: Array) -> Complex:
        source = CA.rederived(ctx, z) if follow else z  # (the memory as it is now)
        return item(source, Array(ctx.op("Gather", source.re, k, axis=0), z.re.dtype, shape),
                    Array(ctx.op("Gather", source.im, k, axis=0), z.im.dtype, shape), k)
    return DynamicIter(Array(count.value, _I64, ()), at)


def current_item(ctx, v: Complex) -> Complex:
    """An unrolled iteration's item as it is now (the iterated array may have been written by
    an earlier iteration): re-derived from the array's current contents."""
    from pyonnx.frontend.graph.indexing import getitem
    from pyonnx.frontend.lower import complex_aliases as CA
    from pyonnx.frontend.lower.aliases import GetItem

    hit = _items(ctx).get(id(v))
    if hit is None or hit[0] is not v or not CA.followed(ctx, hit[1]):
        return v
    _, z, i = hit
    source = CA.rederived(ctx, z)
    out = Complex(getitem(ctx, source.re, i), getitem(ctx, source.im, i), z.dtype)
    return CA.view(ctx, source, out, GetItem(i)) if z.ndim > 1 else out

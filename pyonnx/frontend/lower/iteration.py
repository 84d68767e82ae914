"""What a ``for`` loop iterates over: items known at conversion time, or a run-time sequence.

Input: the frontend value of the iterable (after lowering ``node.iter``). Output: a Python list
of items (the loop is unrolled) or a :class:`DynamicIter`, a trip count and a function giving
the item of iteration ``k`` inside the ``Loop`` body.

Supported iterables: ``range(...)`` (any bound an array value, either step sign), the rows of
an array, ``enumerate``, ``zip`` and ``reversed`` of those, ``np.ndindex(shape)`` with a static
rank, and tuples, lists and numpy constants of static length. A static range or array longer
than :data:`UNROLL_LIMIT` becomes a ``Loop`` too: unrolling it would make the graph grow with
the trip count.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.iterables import DynamicIter, DynamicRange
from pyonnx.frontend.graph.values import Array, Seq, is_static

__all__ = ["LazyIterable", "iterate", "UNROLL_LIMIT", "lazy_call", "range_sum"]

# A loop over a static range or array of at most this many items is unrolled.
UNROLL_LIMIT = 64
_I64 = np.dtype(np.int64)


class LazyIterable:
    """``enumerate``/``zip``/``reversed``/``np.ndindex`` of values only known at run time,
    kept unevaluated until a ``for`` loop asks for its items."""

    def __init__(self, kind: str, args: tuple, kwargs: dict):
        self.kind = kind
        self.args = args
        self.kwargs = kwargs

    def __iter__(self):
        raise TypeError(f"{self.kind}() of array values can only be iterated by a for loop")


def lazy_call(func: Any, args: list, kwargs: dict) -> LazyIterable | None:
    """A LazyIterable for ``func(*args)`` when ``func`` is one of the iteration builtins and an
    argument is only known at run time; None otherwise (Python evaluates the call)."""
    # (The caller passes only np.ndindex and the three builtins: func is hashable.)
    kind = "ndindex" if func is np.ndindex else {
        builtins.enumerate: "enumerate", builtins.zip: "zip",
        builtins.reversed: "reversed"}.get(func)
    if kind is None:
        return None
    dynamic = (Array, Seq, DynamicRange, LazyIterable)
    if kind == "ndindex":
        flat = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
        if is_static(list(flat)):
            return None
        return LazyIterable(kind, tuple(flat), kwargs)
    if not any(isinstance(a, dynamic) for a in args) and not (
            kind != "reversed" and any(isinstance(a, Array) for a in args)):
        return None
    return LazyIterable(kind, tuple(args), kwargs)


def iterate(ctx, iterable: Any) -> list | DynamicIter:
    """The items of ``iterable``, or its run-time description.

    Raises:
        ConversionError: not iterable, or a combination pyonnx cannot iterate at run time.
    """
    if isinstance(iterable, DynamicRange):
        return _range(ctx, iterable.start, iterable.stop, iterable.step)
    if isinstance(iterable, range):
        if len(iterable) > UNROLL_LIMIT:
            return _range(ctx, iterable.start, iterable.stop, iterable.step)
        return list(iterable)
    if isinstance(iterable, Array):
        return _rows(ctx, iterable)
    from pyonnx.frontend.graph.complex_values import Complex
    if isinstance(iterable, Complex):
        from pyonnx.frontend.lower.complex_iteration import rows
        return rows(ctx, iterable, UNROLL_LIMIT)
    if isinstance(iterable, Seq):
        from pyonnx.frontend.graph import sequences
        return sequences.iterate(ctx, iterable)
    from pyonnx.frontend.graph import records
    if isinstance(iterable, records.Records):
        return records.iterate(ctx, iterable)
    if isinstance(iterable, records.ComplexSeq):  # a run-time list of complex values
        from pyonnx.frontend.lower import complex_lists
        return complex_lists.iterate(ctx, iterable)
    if isinstance(iterable, LazyIterable):
        return _lazy(ctx, iterable)
    if isinstance(iterable, np.ndarray):
        return list(iterable)
    try:
        return list(iterable)
    except TypeError as e:
        raise ctx.error(f"cannot iterate: {e}") from None


def _int64(ctx, v: Any) -> Array:
    a = ctx.asarray(v)
    if a.dtype.kind not in "iu" or a.ndim:
        raise ctx.error(f"range() needs integer scalars, got {a!r}")
    return ctx.cast(a, _I64) if a.dtype != _I64 else Array(a.value, _I64, ())


def _range(ctx, start: Any, stop: Any, step: Any) -> DynamicIter:
    """range(start, stop, step) → its length (Python's formula) and item ``start + k*step``."""
    if is_static(step) and step == 0:
        raise ctx.error("range() arg 3 must not be zero (Python raises ValueError)")
    s0, s1 = _int64(ctx, start), _int64(ctx, stop)
    st = _int64(ctx, step)
    zero = ctx.const(np.array(0, np.int64))
    one = ctx.const(np.array(1, np.int64))
    if is_static(step):
        if step > 0:  # ceil((stop - start) / step), at least 0
            span = ctx.op("Sub", s1, s0)
            num = ctx.op("Add", span, ctx.const(np.array(step - 1, np.int64))) if step != 1 else span
        else:
            span = ctx.op("Sub", s0, s1)
            num = ctx.op("Add", span, ctx.const(np.array(-step - 1, np.int64))) \
                if step != -1 else span
        count = ctx.op("Div", num, ctx.const(np.array(abs(step), np.int64))) \
            if abs(step) != 1 else num
    else:
        # A run-time step of 0 fails at run time, as Python's ValueError does.
        is_zero = Array(ctx.op("Equal", st, zero), np.dtype(np.bool_), ())
        st = runtime_check(ctx, is_zero, st, "range_step_zero",
                           "ValueError: range() arg 3 must not be zero")
        positive = ctx.op("Greater", st, zero)
        span = ctx.op("Where", positive, ctx.op("Sub", s1, s0), ctx.op("Sub", s0, s1))
        mag = ctx.op("Abs", st)
        count = ctx.op("Div", ctx.op("Add", span, ctx.op("Sub", mag, one)), mag)
    if is_static([start, stop, step]):
        # a constant trip count: the loop lowering then knows whether it runs at least once
        count = Array(ctx.const(np.array(len(range(start, stop, step)), np.int64)), _I64, ())
    else:
        count = Array(ctx.op("Max", count, zero), _I64, ())

    def item(ctx, k: Array) -> Array:
        value = k.value
        if not (is_static(step) and step == 1):
            value = ctx.op("Mul", value, st)
        if not (is_static(start) and start == 0):
            value = ctx.op("Add", value, s0)
        return Array(value, _I64, (), weak=True)  # Python's range yields Python ints
    return DynamicIter(count, item)


def _rows(ctx, x: Array, unroll: bool = True) -> list | DynamicIter:
    """The rows of ``x``: views of it, as numpy's iteration gives (a write into a row changes
    ``x``). A run-time loop reads row ``k`` from ``x``'s memory as it is on iteration ``k``;
    an unrolled loop re-derives each row when it binds it (see ``StmtLowering.stmt_For``)."""
    from pyonnx.frontend.lower import aliases
    from pyonnx.frontend.lower import alias_writes
    from pyonnx.frontend.graph.indexing import getitem

    if x.ndim == 0:
        raise ctx.error("iteration over a 0-d array (numpy raises TypeError)")
    n = x.shape[0]
    # The items of a 1-D array are numpy scalars, copies: ``for v in x: v //= 2`` rebinds v
    # and leaves x alone (as ``x[i]`` does, see expr._selects_element).
    view = (lambda row, i: aliases.register_view(ctx, row, x, aliases.GetItem(i))) \
        if x.ndim > 1 else (lambda row, i: row)
    if unroll and n is not None and n <= UNROLL_LIMIT:
        items = [view(getitem(ctx, x, i), i) for i in range(n)]
        if x.ndim == 1:
            # numpy reads item i when the loop reaches it: an earlier iteration may have
            # written x (``for v in x: x[1] = 5``); stmt_For re-reads it (current_item)
            found = _scalar_items(ctx)
            for i, v in enumerate(items):
                found[id(v)] = (v, x, i)
        return items
    count = ctx.dim(x, 0)
    count = count if isinstance(count, Array) else ctx.const_array(np.array(count, np.int64))
    # The loop reads its rows from x's memory: x's names then follow that memory through the
    # loop (a name bound to x and written in the body is x's memory, not a state of its own
    # that the rows, read from x as it was before the loop, would not see).
    ctx.aliases.buffer_of(x)[0].shared = True

    def item(ctx, k: Array) -> Array:
        base = alias_writes.current(ctx, x)
        row = Array(ctx.op("Gather", base, k, axis=0), x.dtype, x.shape[1:])
        return view(row, k)
    return DynamicIter(Array(count.value, _I64, ()), item)


def _scalar_items(ctx) -> dict:
    """id(item of an unrolled iteration over a 1-D array) → (the item, the array, index)."""
    found = getattr(ctx, "scalar_items", None)
    if found is None:
        found = ctx.scalar_items = {}
    return found


def current_item(ctx, item: Array) -> Array:
    """An unrolled iteration's item of a 1-D array as it is now: read again from the array's
    memory when it was written since the item was made (a numpy scalar: a copy, unregistered)."""
    from pyonnx.frontend.lower import alias_writes
    from pyonnx.frontend.graph.indexing import getitem

    hit = _scalar_items(ctx).get(id(item))
    if hit is None or hit[0] is not item:
        return item
    _, x, i = hit
    now = alias_writes.current(ctx, x)
    if now is x:
        return item
    out = getitem(ctx, now, i)
    return Array(out.value, out.dtype, out.shape, out.weak)


def _as_dynamic(ctx, iterable: Any, it: list | DynamicIter) -> DynamicIter:
    """``iterable``'s items ``it`` as a run-time sequence (zip with a run-time iterable): an
    array keeps its rows as views; a static list of items is stacked."""
    if isinstance(it, DynamicIter):
        return it
    if isinstance(iterable, Array):
        return _rows(ctx, iterable, unroll=False)
    from pyonnx.frontend.graph.complex_values import Complex
    if isinstance(iterable, Complex):
        from pyonnx.frontend.lower.complex_iteration import rows
        return rows(ctx, iterable, -1)  # (-1: never unrolled)
    if not it:
        return DynamicIter(ctx.const_array(np.array(0, np.int64)), lambda ctx, k: None)
    return _rows(ctx, ctx.asarray(list(it)), unroll=False)


def _lazy(ctx, lazy: LazyIterable) -> list | DynamicIter:
    args, kwargs = lazy.args, lazy.kwargs
    if lazy.kind == "enumerate":
        start = kwargs.get("start", args[1] if len(args) > 1 else 0)
        inner = iterate(ctx, args[0])
        if isinstance(inner, list):
            return list(builtins.enumerate(inner, start))

        def item(ctx, k: Array) -> tuple:
            index = k if is_static(start) and start == 0 else \
                Array(ctx.op("Add", k, _int64(ctx, start)), _I64, (), weak=True)
            return (Array(index.value, _I64, (), weak=True), inner.item(ctx, k))
        return DynamicIter(inner.count, item)
    if lazy.kind == "zip":
        inners = [iterate(ctx, a) for a in args]
        if all(isinstance(i, list) for i in inners):
            return list(builtins.zip(*inners))
        dyn = [_as_dynamic(ctx, a, i) for a, i in zip(args, inners)]
        count = dyn[0].count
        for d in dyn[1:]:
            count = Array(ctx.op("Min", count, d.count), _I64, ())
        return DynamicIter(count, lambda ctx, k: tuple(d.item(ctx, k) for d in dyn))
    if lazy.kind == "reversed":
        inner = iterate(ctx, args[0])
        if isinstance(inner, list):
            return inner[::-1]
        last = ctx.op("Sub", inner.count, ctx.const(np.array(1, np.int64)))
        return DynamicIter(inner.count, lambda ctx, k: inner.item(
            ctx, Array(ctx.op("Sub", last, k), _I64, (), weak=True)))
    # np.ndindex(*shape): row-major multi-indices, k → (k // stride_j) % dim_j
    dims = [_int64(ctx, d) for d in args]
    count = ctx.const_array(np.array(1, np.int64))
    for d in dims:
        count = Array(ctx.op("Mul", count, d), _I64, ())

    def nd_item(ctx, k: Array) -> tuple:
        out = []
        stride = None
        for d in reversed(dims):
            q = k.value if stride is None else ctx.op("Div", k, stride)
            out.append(Array(ctx.op("Mod", q, d), _I64, (), weak=True))
            stride = d.value if stride is None else ctx.op("Mul", stride, d)
        return tuple(reversed(out))
    return DynamicIter(count, nd_item)


def range_item(ctx, r: Any, index: Array) -> Array:
    """``range(...)[i]`` with a run-time integer ``i`` (``r`` a range or a DynamicRange): a
    Python int (weak int64); negative ``i`` counts from the end, and an ``i`` out of range fails
    the run, as Python raises IndexError."""
    if index.ndim or index.dtype.kind not in "iu":
        raise ctx.error("range indices must be integers or slices, not arrays (Python raises "
                        "TypeError)")
    d = _range(ctx, r.start, r.stop, r.step)
    k = _int64(ctx, index)
    zero = ctx.const(np.array(0, np.int64))
    k = ctx.op("Where", ctx.op("Less", k, zero), ctx.op("Add", k, d.count), k)
    bad = Array(ctx.op("Or", ctx.op("Less", k, zero), ctx.op("GreaterOrEqual", k, d.count)),
                np.dtype(np.bool_), ())
    k = runtime_check(ctx, bad, Array(k, _I64, ()), "range_object_index_out_of_range",
                      "IndexError: range object index out of range")
    return d.item(ctx, k)


def range_sum(ctx, r: DynamicRange) -> Array:
    """``sum(range(...))`` with a run-time bound: a Python int (weak int64), the arithmetic
    series ``count * (first + last) // 2`` (``count * (first + last)`` is even). Python's int
    does not overflow; a sum beyond int64 fails the run instead of wrapping."""
    d = _range(ctx, r.start, r.stop, r.step)
    last = Array(ctx.op("Sub", d.count, ctx.const(np.array(1, np.int64))), _I64, ())
    first = Array(ctx.const(np.array(0, np.int64)), _I64, ())
    ends = ctx.op("Add", d.item(ctx, first), d.item(ctx, last))
    # (checked in float64 first: |count * (first + last)| stays below 2**62, far from wrapping)
    f64 = np.dtype(np.float64)
    size = ctx.op("Abs", ctx.op("Mul", ctx.cast(d.count, f64), ctx.cast(Array(ends, _I64, ()), f64)))
    bad = Array(ctx.op("GreaterOrEqual", size, ctx.const(np.array(2.0 ** 62))),
                np.dtype(np.bool_), ())
    total = ctx.op("Div", ctx.op("Mul", d.count, ends), ctx.const(np.array(2, np.int64)))
    total = runtime_check(ctx, bad, Array(total, _I64, ()), "range_sum_beyond_int64",
                          "OverflowError: the sum of this range does not fit in int64 "
                          "(Python's int would grow; pyonnx's is int64)")
    return Array(total.value, _I64, (), weak=True)

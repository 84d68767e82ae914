"""numpy histograms: histogram, histogram_bin_edges, digitize.

Input: data of any real dtype (bool is counted as uint8, with numpy's warning not repeated),
``bins`` as an int, a 1-D array of edges or an estimator name, a static ``range``, optional
``weights``. Output: ``(counts, edges)`` as numpy returns them (int64 counts, the weights'
dtype with weights, float64 with ``density=True``; edges in numpy's ``bin_type``).

Follows numpy's ``_histograms_impl`` step by step: equal-width bins find each value's bin with
numpy's float arithmetic and its two edge corrections, then add them with one
``ScatterElements(reduction='add')`` in data order (numpy's ``bincount`` order); array bins count
with a sort and two searchsorted, as numpy does. An estimator's bin count depends on the data:
the edges then have a run-time length.

Supported syntax:

* ``np.histogram(a, bins=10, range=None, density=None, weights=None)`` with ``bins`` an int,
  an increasing 1-D array (run-time values allowed), or 'auto', 'fd', 'sturges', 'sqrt',
  'rice', 'scott'; ``range`` a static (lo, hi) pair.
* ``np.histogram_bin_edges(a, bins=10, range=None, weights=None)``.
* ``np.digitize(x, bins, right=False)`` for monotonic ``bins`` (increasing or decreasing,
  which numpy checks at run time: here a run-time failure when neither).

Not supported (refused): the 'stone' and 'doane' estimators; float weights with array bins
(numpy subtracts cumulative sums of the weights sorted by an unstable sort, whose rounding
cannot be reproduced; integer weights are exact and supported). Data with NaN or inf and no
``range`` makes numpy raise ValueError: the run fails. Beyond 65536 values numpy adds weighted
counts block by block, which may round float weights differently in the last bit.
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.science.compose import Np
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.shape.common import guard, ints, ravel_array

_I64 = np.dtype(np.int64)
_F64 = np.dtype(np.float64)
_BOOL = np.dtype(np.bool_)
_ESTIMATORS = ("auto", "fd", "sturges", "sqrt", "rice", "scott")
_UNSIGNED = {np.dtype(t): np.dtype(u) for t, u in
             (("i1", "u1"), ("i2", "u2"), ("i4", "u4"), ("i8", "u8"))}


def _fail_unless(ctx, ok, value: Array) -> Array:
    """``value`` (0-d), made to fail the run unless the bool 0-d ``ok`` holds."""
    vec = Array(ctx.op("Reshape", value, ints(ctx, [1])), value.dtype, (1,))
    if value.dtype != _I64:
        idx = guard(ctx, ok, Array(ints(ctx, [0]), _I64, (1,)))
        idx = ctx.op("Squeeze", idx, ints(ctx, [0]))
        return Array(ctx.op("Gather", vec, idx, axis=0), value.dtype, ())
    return Array(ctx.op("Squeeze", guard(ctx, ok, vec), ints(ctx, [0])), _I64, ())


def _weak(a: Array) -> Array:
    return Array(a.value, a.dtype, a.shape, weak=True)


def _unsigned_subtract(ctx, N, hi: Array, lo: Array) -> Array:
    """numpy's ``_unsigned_subtract`` for two Arrays of one dtype: signed ints subtract in
    the unsigned type of their width (the difference never overflows there)."""
    unsigned = _UNSIGNED.get(hi.dtype)
    if unsigned is None:
        return N.subtract(hi, lo)
    return N.subtract(ctx.cast(hi, unsigned), ctx.cast(lo, unsigned))


class _Data:
    """The raveled data and what numpy derives from it before binning."""

    def __init__(self, ctx, a, weights, fname: str):
        x = ravel_array(ctx, to_array(ctx, a))
        if x.dtype == _BOOL:  # numpy: "Converting input from bool to uint8"
            x = ctx.cast(x, np.uint8)
        if x.dtype.kind not in "iuf":
            raise ctx.error(f"{fname}: data of dtype {x.dtype} is not supported")
        self.x = x
        self.w = None
        if weights is not None:
            w = ravel_array(ctx, to_array(ctx, weights))
            if w.dtype.kind not in "iuf":
                raise ctx.error(f"{fname}: weights of dtype {w.dtype} are not supported; "
                                "cast them to a number type")
            if x.shape[0] is not None and w.shape[0] is not None and x.shape[0] != w.shape[0]:
                raise ctx.error(f"{fname}: weights should have the same shape as a (numpy "
                                "raises ValueError)")
            self.w = w
        self.size = Array(ctx.op("Size", x), _I64, ())


def _select(ctx, cond, a: Array, b: Array) -> Array:
    """Where(cond, a, b) on two Arrays of one dtype and shape (float16 selected exactly)."""
    if a.dtype == np.float16:
        return Array(kernels.where(ctx, Array(cond, _BOOL, ()), a, b).value, a.dtype, a.shape)
    return Array(ctx.op("Where", cond, a, b), a.dtype, a.shape)


def _cmp(ctx, op: str, a, b, dtype: np.dtype):
    """A comparison of two values of ``dtype`` (float16 compared in float32: exact)."""
    if dtype == np.float16:
        a, b = (ctx.op("Cast", v, to=1) for v in (a, b))
    return ctx.op(op, a, b)


class _Edges:
    """numpy's ``_get_outer_edges`` and ``bin_type``: ``first``/``last`` are the values numpy
    passes to linspace (Arrays; weak for a Python-number range), ``span`` numpy's
    ``_unsigned_subtract(last, first)`` (an Array in numpy's dtype), ``empty`` a bool value (or
    None) for empty data, when numpy's edges come from (0, 1) instead."""

    def __init__(self, ctx, N, d: _Data, rng, fname: str):
        x = d.x
        self.empty = None
        self.range = None
        if rng is not None:
            rng = ctx.static(rng, "range")
            try:
                first, last = rng
            except (TypeError, ValueError):
                raise ctx.error(f"{fname}: range must be a (lo, hi) pair") from None
            if first > last:
                raise ctx.error(f"{fname}: max must be larger than min in range parameter "
                                "(numpy raises ValueError)")
            if not (np.isfinite(first) and np.isfinite(last)):
                raise ctx.error(f"{fname}: supplied range of [{first}, {last}] is not finite "
                                "(numpy raises ValueError)")
            if first == last:
                first, last = first - 0.5, last + 0.5
            self.range = (first, last)
            self.first, self.last = ctx.asarray(first), ctx.asarray(last)
            span = np.lib._histograms_impl._unsigned_subtract(last, first)
            self.span = ctx.const_array(np.asarray(span))
            self.bin_type = np.result_type(first, last, x.dtype)
        else:
            self._from_data(ctx, N, d)
        if self.bin_type.kind in "iub":
            self.bin_type = np.result_type(self.bin_type, float)

    def _from_data(self, ctx, N, d: _Data) -> None:
        x = d.x
        is_float = x.dtype.kind == "f"
        # int data: first_edge is an int scalar (float64 after ±0.5); linspace and the bin
        # arithmetic convert it to float64 either way.
        edge_dt = x.dtype if is_float else _F64
        self.bin_type = x.dtype
        self.empty = ctx.op("Equal", d.size, ctx.const(np.array(0, np.int64)))
        # [0] in place of empty data: Reduce{Min,Max} never reduce an empty array.
        padded = _never_empty(ctx, x, d.size)
        lo = N.min(padded)
        hi = N.max(padded)
        if is_float:
            xf = ctx.cast(x, np.float32) if x.dtype == np.float16 else x
            bad = ctx.op("Or", ctx.op("IsNaN", xf), ctx.op("IsInf", xf))
            # a count, not ReduceMax: the maximum of nothing is not False in onnxruntime
            any_bad = ctx.op("Cast", ctx.op("ReduceSum", ctx.op("Cast", bad, to=7),
                                            ints(ctx, [0]), keepdims=0), to=9)
            # numpy raises ValueError: autodetected range is not finite
            lo = _fail_unless(ctx, ctx.op("Not", any_bad), lo)
        equal = _cmp(ctx, "Equal", lo.value, hi.value, x.dtype)
        lo_e, hi_e = ctx.cast(lo, edge_dt), ctx.cast(hi, edge_dt)
        lo_e = _select(ctx, equal, N.subtract(lo_e, 0.5), lo_e)
        hi_e = _select(ctx, equal, N.add(hi_e, 0.5), hi_e)
        if is_float:
            span = N.subtract(hi_e, lo_e)
        else:
            span = _select(ctx, equal, N.subtract(hi_e, lo_e),
                           ctx.cast(_unsigned_subtract(ctx, N, hi, lo), _F64))
        # empty data: numpy's (0, 1), Python ints (their span is uint64 1, i.e. 1.0 here)
        self.first = _select(ctx, self.empty, ctx.const_array(np.zeros((), edge_dt)), lo_e)
        self.last = _select(ctx, self.empty, ctx.const_array(np.ones((), edge_dt)), hi_e)
        self.span = _select(ctx, self.empty, ctx.const_array(np.ones((), span.dtype)), span)

    def linspace(self, ctx, N, n) -> Array:
        """numpy's ``np.linspace(first, last, n + 1, endpoint=True, dtype=bin_type)``."""
        num = n + 1 if isinstance(n, int) else N.add(n, 1)
        edges = N.linspace(self.first, self.last, num, dtype=self.bin_type)
        if self.empty is None:
            return edges
        # empty data: numpy's linspace(0, 1) runs in float64 and is cast to bin_type
        unit = N.linspace(0, 1, num, dtype=self.bin_type)
        return _select(ctx, self.empty, unit, edges)


# ------------------------------------------------------------------ bin-width estimators
def _never_empty(ctx, x: Array, size) -> Array:
    """``x``, or ``[0]`` when it is empty: numpy skips the estimator on empty data, the graph
    computes it anyway (and selects n=1 after), so it must not fail there."""
    padded = Array(ctx.op("Concat", x, ctx.const(np.zeros(1, x.dtype)), axis=0), x.dtype, (None,))
    end = ctx.op("Max", ctx.op("Reshape", size, ints(ctx, [1])), ints(ctx, [1]))
    return Array(ctx.op("Slice", padded, ints(ctx, [0]), end, ints(ctx, [0])), x.dtype, (None,))


def _estimate(ctx, N, name: str, x: Array, size_f: Array) -> list[Array]:
    """Candidate widths of numpy's estimator ``name``, in numpy's dtypes: one for the plain
    estimators; for 'auto' ``[fd, sqrt/2, sturges]``, chosen by Python's max/min later."""
    ptp = _unsigned_subtract(ctx, N, N.max(x), N.min(x))
    if name == "sqrt":
        return [N.true_divide(ptp, N.sqrt(size_f))]
    if name == "sturges":
        return [N.true_divide(ptp, N.add(N.log2(size_f), 1.0))]
    if name == "rice":  # x.size ** (1.0 / 3) is a Python float
        return [N.true_divide(ptp, _weak(N.multiply(2.0, _weak(N.power(size_f, 1.0 / 3)))))]
    if name == "scott":
        c = _weak(N.power(N.true_divide(24.0 * np.pi ** 0.5, size_f), 1.0 / 3.0))
        return [N.multiply(c, N.std(x))]
    q = N.percentile(x, [75, 25])
    iqr = N.subtract(N.getitem(q, 0), N.getitem(q, 1))
    fd = N.multiply(N.multiply(2.0, iqr), _weak(N.power(size_f, -1.0 / 3.0)))
    if name == "fd":
        return [fd]
    sqrt_bw = N.true_divide(ptp, N.sqrt(size_f))
    sturges = N.true_divide(ptp, N.add(N.log2(size_f), 1.0))
    return [fd, N.true_divide(sqrt_bw, 2), sturges]


def _bins_from_width(ctx, N, width: Array, span: Array, integer_data: bool) -> Array:
    """numpy: ``int(np.ceil(_unsigned_subtract(last, first) / width))``, 1 when width is 0,
    a width below 1 raised to 1 for integer data."""
    zero = ctx.const(np.zeros((), width.dtype))
    if integer_data:
        one = ctx.const(np.ones((), width.dtype))
        width = _select(ctx, ctx.op("Less", width, one), Array(one, width.dtype, ()), width)
    n = ctx.cast(N.ceil(N.true_divide(span, width)), _I64)
    return _select(ctx, _cmp(ctx, "Equal", width.value, zero, width.dtype),
                   ctx.const_array(np.int64(1)), n)


def _estimated_bins(ctx, N, name: str, d: _Data, edges: _Edges) -> Array:
    """numpy's bin count for an estimator name (a run-time int64 0-d Array)."""
    x = d.x
    if edges.range is not None:  # numpy estimates from the data inside the range only
        keep = N.logical_and(N.greater_equal(x, edges.first), N.less_equal(x, edges.last))
        x = N.getitem(x, keep)
    size = Array(ctx.op("Size", x), _I64, ())
    safe = _never_empty(ctx, x, size)
    size_f = ctx.cast(Array(ctx.op("Size", safe), _I64, ()), _F64)
    widths = _estimate(ctx, N, name, safe, size_f)
    integer_data = x.dtype.kind in "iu"
    counts = [_bins_from_width(ctx, N, w, edges.span, integer_data) for w in widths]
    n = counts[0]
    if name == "auto":
        fd, half_sqrt, sturges = widths
        f64 = [ctx.cast(w, _F64) for w in widths]  # Python compares numpy floats exactly
        # max(fd, sqrt/2): fd unless sqrt/2 is larger; min(that, sturges): it unless
        # sturges is smaller. The chosen width keeps its dtype for the division.
        take_sqrt = ctx.op("Greater", f64[1], f64[0])
        corrected = _select(ctx, take_sqrt, f64[1], f64[0])
        take_sturges = ctx.op("Less", f64[2], corrected)
        n = _select(ctx, take_sturges, counts[2], _select(ctx, take_sqrt, counts[1], counts[0]))
    return _select(ctx, ctx.op("Equal", size, ctx.const(np.array(0, np.int64))),
                   ctx.const_array(np.int64(1)), n)


# --------------------------------------------------------------------------- counting
def _uniform_counts(ctx, N, d: _Data, edges: _Edges, bin_edges: Array, n) -> Array:
    """numpy's equal-width binning: each value's bin by its arithmetic and the two edge
    corrections, then the counts (weights) added in data order."""
    x = d.x
    keep = N.logical_and(N.greater_equal(x, edges.first), N.less_equal(x, edges.last))
    tmp = ctx.cast(x, bin_edges.dtype)
    # Values outside are binned from `first` (their result is discarded below): the float to
    # int conversion of an out-of-range value is undefined.
    first_b = ctx.cast(edges.first, bin_edges.dtype)
    tmp = _select(ctx, keep.value, tmp, Array(ctx.op("Expand", first_b, ctx.op("Shape", tmp)),
                                              tmp.dtype, tmp.shape))
    f = N.multiply(N.true_divide(N.subtract(tmp, edges.first), edges.span), n)
    idx = ctx.cast(f, _I64)
    n_arr = ctx.asarray(n) if isinstance(n, int) else n
    n_v = ctx.cast(n_arr, _I64).value
    one = ctx.const(np.array(1, np.int64))
    n1 = ctx.op("Sub", n_v, one)
    idx = ctx.op("Where", ctx.op("Equal", idx.value, n_v), n1, idx.value)
    bt = bin_edges.dtype
    dec = _cmp(ctx, "Less", tmp.value, ctx.op("Gather", bin_edges, idx, axis=0), bt)
    idx = ctx.op("Where", dec, ctx.op("Sub", idx, one), idx)
    inc = ctx.op("And", _cmp(ctx, "GreaterOrEqual", tmp.value,
                             ctx.op("Gather", bin_edges, ctx.op("Add", idx, one), axis=0), bt),
                 ctx.op("Not", ctx.op("Equal", idx, n1)))
    idx = ctx.op("Where", inc, ctx.op("Add", idx, one), idx)
    idx = ctx.op("Where", keep.value, idx, n_v)  # outside the range: the extra slot n
    slots = ctx.op("Unsqueeze", ctx.op("Add", n_v, one), ints(ctx, [0]))
    if d.w is None:
        acc_dt, upd = _I64, ctx.op("Expand", one, ctx.op("Shape", idx))
    else:  # numpy's bincount adds the weights as float64, then casts to their dtype
        acc_dt, upd = _F64, ctx.cast(d.w, _F64).value
    zeros = ctx.op("ConstantOfShape", slots, value=ir.tensor(np.zeros(1, acc_dt)))
    total = ctx.op("ScatterElements", zeros, idx, upd, axis=0, reduction="add")
    counts = Array(ctx.op("Slice", total, ints(ctx, [0]), ctx.op("Unsqueeze", n_v, ints(ctx, [0])),
                          ints(ctx, [0])), acc_dt, (n if isinstance(n, int) else None,))
    return counts if d.w is None else ctx.cast(counts, d.w.dtype)


def _sorted_counts(ctx, N, d: _Data, bin_edges: Array) -> Array:
    """numpy's counting against explicit edges: ``diff`` of the inclusive searchsorted of the
    edges in the sorted data (weights: integer weights summed per prefix, exact)."""
    n_edges = bin_edges.shape[0]
    if d.w is None:
        sa = N.sort(d.x)
        cum = N.concatenate((N.searchsorted(sa, N.getitem(bin_edges, slice(None, -1)), "left"),
                             N.searchsorted(sa, N.getitem(bin_edges, slice(-1, None)), "right")))
        return N.diff(cum)
    # cum[j] = sum of w where x < edges[j] (x <= edges[-1] for the last one)
    x = Array(ctx.op("Unsqueeze", d.x, ints(ctx, [0])), d.x.dtype, (1, None))
    e = Array(ctx.op("Unsqueeze", bin_edges, ints(ctx, [1])), bin_edges.dtype, (n_edges, 1))
    below = N.less(x, e)
    last = N.less_equal(x, N.getitem(bin_edges, -1))
    below = N.concatenate((N.getitem(below, slice(None, -1)), last))
    w = ctx.cast(d.w, _I64)
    picked = ctx.op("Where", below, ctx.op("Unsqueeze", w, ints(ctx, [0])),
                    ctx.const(np.array(0, np.int64)))
    cum = Array(ctx.op("ReduceSum", picked, ints(ctx, [1]), keepdims=0), _I64, (n_edges,))
    return ctx.cast(N.diff(cum), d.w.dtype)


# ------------------------------------------------------------------------ the entries
def _bin_edges(ctx, N, d: _Data, bins, rng, fname: str):
    """numpy's ``_get_bin_edges``: (edges, edges_info or None, n) — ``edges_info`` is the
    :class:`_Edges` of equal-width bins (None for explicit edges)."""
    if isinstance(bins, str):
        if bins not in _ESTIMATORS:
            raise ctx.error(f"{fname}: the bin estimator {bins!r} is not supported; use one of "
                            f"{', '.join(map(repr, _ESTIMATORS))} or an int")
        if d.w is not None:
            raise ctx.error(f"{fname}: Automated estimation of the number of bins is not "
                            "supported for weighted data (numpy raises TypeError)")
        edges = _Edges(ctx, N, d, rng, fname)
        n = _estimated_bins(ctx, N, bins, d, edges)
        return edges.linspace(ctx, N, n), edges, n
    if is_static(bins) and np.ndim(bins) == 0:
        try:
            n = int(bins.__index__())
        except (AttributeError, TypeError):
            raise ctx.error(f"{fname}: bins must be an int, a 1-D array or an estimator name, "
                            f"got {bins!r} (numpy raises TypeError)") from None
        if n < 1:
            raise ctx.error(f"{fname}: `bins` must be positive, when an integer (numpy raises "
                            "ValueError)")
        edges = _Edges(ctx, N, d, rng, fname)
        return edges.linspace(ctx, N, n), edges, n
    be = to_array(ctx, bins)
    if be.ndim != 1:
        raise ctx.error(f"{fname}: `bins` must be 1d, when an array (numpy raises ValueError)")
    if be.dtype.kind not in "biuf":
        raise ctx.error(f"{fname}: bins of dtype {be.dtype} are not supported")
    if be.shape[0] == 0:
        raise ctx.error(f"{fname}: bins must hold at least one edge")
    # numpy raises ValueError unless the edges increase: the run fails instead.
    inc = N.all(N.less_equal(N.getitem(be, slice(None, -1)), N.getitem(be, slice(1, None))))
    size = Array(ctx.op("Shape", be), _I64, (1,))
    be = Array(ctx.op("Reshape", be, guard(ctx, inc.value, size)), be.dtype, be.shape)
    if d.w is not None and d.w.dtype.kind == "f":
        raise ctx.error(f"{fname}: float weights with explicit bin edges are not supported "
                        "(numpy sums them in the order of an unstable sort); use integer "
                        "weights or an int number of bins")
    return be, None, None


@register(np.histogram)
def histogram(ctx, a, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """``np.histogram(a, bins=10, range=None, density=None, weights=None)``."""
    N = Np(ctx)
    d = _Data(ctx, a, weights, "np.histogram")
    bins = ctx.static(bins, "bins") if is_static(bins) or isinstance(bins, str) else bins
    density = bool(ctx.static(density, "density")) if density is not None else False
    bin_edges, edges, n = _bin_edges(ctx, N, d, bins, range, "np.histogram")
    if edges is not None:
        counts = _uniform_counts(ctx, N, d, edges, bin_edges, n)
    else:
        counts = _sorted_counts(ctx, N, d, bin_edges)
    if density:
        db = ctx.cast(N.diff(bin_edges), _F64)
        counts = N.true_divide(N.true_divide(counts, db), N.sum(counts))
    return counts, bin_edges


@register(np.histogram_bin_edges)
def histogram_bin_edges(ctx, a, bins=10, range=None, weights=None):  # noqa: A002
    """``np.histogram_bin_edges(a, bins=10, range=None, weights=None)``."""
    N = Np(ctx)
    d = _Data(ctx, a, weights, "np.histogram_bin_edges")
    bins = ctx.static(bins, "bins") if is_static(bins) or isinstance(bins, str) else bins
    return _bin_edges(ctx, N, d, bins, range, "np.histogram_bin_edges")[0]


@register(np.digitize)
def digitize(ctx, x, bins, right=False):
    """``np.digitize(x, bins, right=False)``: int64 of ``x``'s shape; ``bins`` monotonic."""
    N = Np(ctx)
    xa, b = to_array(ctx, x), to_array(ctx, bins)
    right = bool(ctx.static(right, "right"))
    if b.ndim != 1:
        raise ctx.error("np.digitize: bins must be one-dimensional (numpy raises ValueError)")
    if xa.dtype.kind not in "biuf" or b.dtype.kind not in "biuf":
        raise ctx.error("np.digitize: x and bins must be real numbers")
    side = "left" if right else "right"
    head, tail = N.getitem(b, slice(None, -1)), N.getitem(b, slice(1, None))
    inc = N.all(N.less_equal(head, tail))
    dec = N.all(N.greater_equal(head, tail))
    # numpy raises ValueError for bins neither increasing nor decreasing: the run fails.
    size = Array(ctx.op("Shape", b), _I64, (1,))
    b = Array(ctx.op("Reshape", b, guard(ctx, ctx.op("Or", inc, dec), size)), b.dtype, b.shape)
    up = N.searchsorted(b, xa, side=side)
    down = N.subtract(ctx.cast(Array(ctx.op("Size", b), _I64, ()), _I64),
                      N.searchsorted(N.getitem(b, slice(None, None, -1)), xa, side=side))
    out = _select(ctx, inc.value, up, ctx.cast(down, _I64))
    return Array(out.value, _I64, up.shape)

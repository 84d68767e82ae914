"""numpy comparisons of whole arrays, interpolation and grids.

Input: Arrays and static values. Output: Arrays (tuples of them for the grids).

Each function follows the numpy 2 Python source step by step, with every intermediate ufunc
promoted by numpy's own dtype resolution (:func:`_ufunc`), so weak Python scalars and mixed
dtypes give numpy's result dtype and rounding.

Supported syntax:

* ``np.isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)``: bool of the broadcast shape
  (0-d for scalars, as numpy's ``result[()]``).
* ``np.allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)`` and
  ``np.array_equal(a1, a2, equal_nan=False)``: a Python bool in numpy, a weak 0-d bool here;
  arrays of different (run-time) shapes are unequal, as in numpy.
* ``np.array_equiv(a1, a2)``: a weak 0-d bool; shapes that do not broadcast are unequal.
* ``np.interp(x, xp, fp, left=None, right=None)``: float64, ``xp`` increasing (as numpy
  requires), the same arithmetic as numpy's C loop (including its NaN fallbacks).
* ``np.meshgrid(*xi, copy=True, sparse=False, indexing='xy'|'ij')``.
* ``np.indices(dimensions, dtype=int, sparse=False)`` with run-time dimensions (``x.shape``).

Not supported: ``np.interp(..., period=...)``, complex ``fp``.
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes, path_weak
from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.sorting import emit_exact, searchsorted_flat

_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)
_F64 = np.dtype(np.float64)
_INT64_MAX = np.iinfo(np.int64).max


def _ints(ctx, *values: int):
    return ctx.const(np.array(values, dtype=np.int64))


def _strong(ctx, value) -> Array:
    """``np.asanyarray(value)``: Python scalars become strong int64/float64/bool arrays."""
    a = ctx.asarray(value)
    return Array(a.value, a.dtype, a.shape) if a.weak else a


def _bool_flag(ctx, value, what: str) -> bool:
    value = ctx.static(value, what)
    if not isinstance(value, (bool, np.bool_, int, np.integer)):
        raise ctx.error(f"{what} must be True or False, got {value!r}")
    return bool(value)


# -------------------------------------------------------------- numpy-promoted ufuncs
def _equal(ctx, a: Array, b: Array) -> ir.Value:
    """``a == b`` in their loop dtypes; numpy compares uint64 with signed ints exactly."""
    if a.dtype == b.dtype:
        return emit_exact(ctx, "Equal", [a, b], a.dtype, out_dtype=_BOOL).value
    signed, unsigned = (a, b) if a.dtype.kind == "i" else (b, a)
    fits = ctx.op("GreaterOrEqual", signed, ctx.const(np.zeros((), signed.dtype)))
    as_u = ctx.op("Cast", signed, to=dtypes.to_ir(unsigned.dtype))
    return ctx.op("And", fits, ctx.op("Equal", as_u, unsigned))


def _ufunc(ctx, ufunc: np.ufunc, *operands, operator: bool = False) -> Array:
    """``ufunc(*operands)`` with numpy's promotion.

    Args:
        operator: it is a Python operator (``x - y``, builtin ``abs``), not a call of the ufunc:
            on Python scalars it gives a Python scalar (weak), where the ufunc gives a strong
            numpy scalar.
    """
    # numpy treats Python bools like np.bool_ in these bool-only steps.
    operands = tuple(Array(o.value, o.dtype, o.shape) if isinstance(o, Array) and o.weak
                     and o.dtype == _BOOL else o for o in operands)
    try:
        ins, outs, weak = dtypes.ufunc_dtypes(ufunc, *operands)
    except TypeError as e:
        raise ctx.error(f"numpy has no '{ufunc.__name__}' loop for these operands: {e}") from None
    finish = path_weak.check(ctx, ufunc, operands, outs) if ctx.path_weak else None
    arrays = [ctx.asarray(o) for o in operands]
    arrays = [ctx.cast(Array(a.value, a.dtype, a.shape), d) for a, d in zip(arrays, ins)]
    out = outs[0]
    try:
        shape = broadcast_shapes(*(a.shape for a in arrays))
    except ValueError as e:
        raise ctx.error(str(e)) from None
    name = ufunc.__name__
    if name == "equal":
        value = _equal(ctx, *arrays)
    elif name in ("isnan", "isfinite"):
        (a,) = arrays
        if a.dtype == np.float16:  # see emit_exact: no float16 op after a float16 result
            a = ctx.cast(a, np.float32)
        if a.dtype.kind != "f":
            value = ctx.op("Expand", ctx.const(np.array(name == "isfinite")), ctx.shape_of(a))
        elif name == "isnan":
            value = ctx.op("IsNaN", a)
        else:
            value = ctx.op("Not", ctx.op("Or", ctx.op("IsNaN", a), ctx.op("IsInf", a)))
    elif name in ("bitwise_and", "bitwise_or") and out == _BOOL:
        value = ctx.op("And" if name == "bitwise_and" else "Or", *arrays)
    else:
        op = {"subtract": "Sub", "add": "Add", "multiply": "Mul", "absolute": "Abs",
              "less_equal": "LessOrEqual", "greater": "Greater"}[name]
        value = emit_exact(ctx, op, arrays, ins[0], out_dtype=out).value
    r = Array(value, out, shape, weak and operator and out != _BOOL)
    return r if finish is None else finish(r)


def _all(ctx, values) -> ir.Value:
    """bool 0-d: every element of ``values`` is True (True when empty)."""
    false_count = ctx.op("ReduceSum", ctx.op("Cast", ctx.op("Not", values), to=dtypes.to_ir(_I64)),
                         keepdims=0)
    return ctx.op("Equal", false_count, ctx.const(np.array(0, np.int64)))


def _python_bool(value: ir.Value) -> Array:
    """numpy returns ``builtins.bool``: a weak 0-d bool."""
    return Array(value, _BOOL, (), weak=True)


# ---------------------------------------------------------------- isclose, allclose
def _isclose_value(ctx, a, b, rtol, atol, equal_nan) -> Array:
    equal_nan = _bool_flag(ctx, equal_nan, "equal_nan")
    x, y = a, b
    for v in (x, y, rtol, atol):
        if isinstance(v, Array) and v.dtype not in dtypes.SUPPORTED_DTYPES:
            raise ctx.error(f"np.isclose: dtype {v.dtype} is not supported")
    # Python scalars stay weak; everything else is an array (numpy's asanyarray).
    x, y, atol, rtol = (v if isinstance(v, (bool, int, float)) or (isinstance(v, Array) and v.weak)
                        else _strong(ctx, v) for v in (x, y, atol, rtol))
    if isinstance(y, Array) and not y.weak:
        y = ctx.cast(y, np.result_type(y.dtype, 1.0))
    elif isinstance(y, Array) and y.dtype.kind in "biu":
        y = Array(ctx.cast(y, _F64).value, _F64, (), weak=True)  # float(y)
    elif isinstance(y, (bool, int)):
        y = float(y)
    # numpy: (less_equal(abs(x - y), atol + rtol * abs(y)) & isfinite(y) | (x == y)), where
    # the operators (-, +, *, abs, ==, &, |) keep Python scalars weak and the ufunc calls do not.
    diff = _ufunc(ctx, np.absolute, _ufunc(ctx, np.subtract, x, y, operator=True), operator=True)
    abs_y = _ufunc(ctx, np.absolute, y, operator=True)
    bound = _ufunc(ctx, np.add, atol, _ufunc(ctx, np.multiply, rtol, abs_y, operator=True),
                   operator=True)
    close = _ufunc(ctx, np.less_equal, diff, bound)
    result = _ufunc(ctx, np.bitwise_or,
                    _ufunc(ctx, np.bitwise_and, close, _ufunc(ctx, np.isfinite, y)),
                    _ufunc(ctx, np.equal, x, y, operator=True))
    if equal_nan:
        both = _ufunc(ctx, np.bitwise_and, _ufunc(ctx, np.isnan, x), _ufunc(ctx, np.isnan, y))
        result = _ufunc(ctx, np.bitwise_or, result, both)
    return result


@register(np.isclose)
def isclose(ctx, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``np.isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)``: a bool array (0-d for
    scalar inputs), ``abs(a - b) <= atol + rtol * abs(b)`` with ``b`` made inexact first."""
    result = _isclose_value(ctx, a, b, rtol, atol, equal_nan)
    return Array(result.value, _BOOL, result.shape)


@register(np.allclose)
def allclose(ctx, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``np.allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False)``: a weak 0-d bool."""
    return _python_bool(_all(ctx, _isclose_value(ctx, a, b, rtol, atol, equal_nan).value))


@register(np.array_equal)
def array_equal(ctx, a1, a2, equal_nan=False):
    """``np.array_equal(a1, a2, equal_nan=False)``: a weak 0-d bool; False when the shapes
    differ (checked at run time when they are not known at conversion time)."""
    equal_nan = _bool_flag(ctx, equal_nan, "equal_nan")
    x, y = _strong(ctx, a1), _strong(ctx, a2)
    if x.ndim != y.ndim or any(p is not None and q is not None and p != q
                               for p, q in zip(x.shape, y.shape)):
        return _python_bool(ctx.const(np.array(False)))
    same_shape = None
    if any(d is None for d in x.shape + y.shape):
        same_shape = _all(ctx, ctx.op("Equal", ctx.op("Shape", x), ctx.op("Shape", y)))
        # Compare the common prefix of the flattened arrays, so that differently shaped
        # inputs never meet in a broadcast (their answer is False anyway).
        fx = ctx.op("Reshape", x, _ints(ctx, -1))
        fy = ctx.op("Reshape", y, _ints(ctx, -1))
        n = ctx.op("Min", ctx.op("Shape", fx), ctx.op("Shape", fy))
        x = Array(ctx.op("Slice", fx, _ints(ctx, 0), n), x.dtype, (None,))
        y = Array(ctx.op("Slice", fy, _ints(ctx, 0), n), y.dtype, (None,))
    same = _ufunc(ctx, np.equal, x, y)
    if equal_nan and (x.dtype.kind == "f" or y.dtype.kind == "f"):
        both = _ufunc(ctx, np.bitwise_and, _ufunc(ctx, np.isnan, x), _ufunc(ctx, np.isnan, y))
        same = _ufunc(ctx, np.bitwise_or, same, both)
    result = _all(ctx, same.value)
    if same_shape is not None:
        result = ctx.op("And", same_shape, result)
    return _python_bool(result)


@register(np.array_equiv)
def array_equiv(ctx, a1, a2):
    """``np.array_equiv(a1, a2)``: a weak 0-d bool; False when the shapes do not broadcast
    (decided at run time when they are not known at conversion time), else ``all(a1 == a2)``.
    """
    x, y = _strong(ctx, a1), _strong(ctx, a2)
    if None not in x.shape + y.shape:
        try:
            broadcast_shapes(x.shape, y.shape)
        except ValueError:
            return _python_bool(ctx.const(np.array(False)))
        return _python_bool(_all(ctx, _ufunc(ctx, np.equal, x, y).value))
    # Run-time shapes: the aligned dimensions broadcast when each pair is equal or has a 1.
    # When they do not, both arrays are cut to at most one element per axis first, so that
    # they never meet in a failing broadcast (the answer is False anyway).
    rank = max(x.ndim, y.ndim)
    sx, sy = (ctx.op("Concat", _ints(ctx, *([1] * (rank - a.ndim))), ctx.op("Shape", a),
                     axis=0) if a.ndim < rank else ctx.op("Shape", a) for a in (x, y))
    one = _ints(ctx, 1)
    fits = ctx.op("Or", ctx.op("Equal", sx, sy),
                  ctx.op("Or", ctx.op("Equal", sx, one), ctx.op("Equal", sy, one)))
    ok = _all(ctx, fits) if rank else ctx.const(np.array(True))
    ends = ctx.op("Where", ok, _ints(ctx, _INT64_MAX), one)
    cut = [Array(ctx.op("Slice", a, _ints(ctx, *([0] * a.ndim)),
                        ctx.op("Expand", ends, _ints(ctx, a.ndim)), _ints(ctx, *range(a.ndim))),
                 a.dtype, (None,) * a.ndim) if a.ndim else a for a in (x, y)]
    same = _all(ctx, _ufunc(ctx, np.equal, *cut).value)
    return _python_bool(ctx.op("And", ok, same))


# --------------------------------------------------------------------------- interp
def _f64_scalar(ctx, value, what: str) -> Array:
    v = ctx.asarray(value)
    if v.ndim != 0:
        raise ctx.error(f"np.interp: {what} must be a scalar (numpy converts it with float())")
    if v.dtype.kind not in "biuf":
        raise ctx.error(f"np.interp: {what} must be a real number")
    return ctx.cast(Array(v.value, v.dtype, ()), _F64)


@register(np.interp)
def interp(ctx, x, xp, fp, left=None, right=None, period=None):
    """``np.interp(x, xp, fp, left=None, right=None)``: float64 of ``x``'s shape (a 0-d array
    for scalar ``x``); ``xp`` must be increasing, as numpy requires."""
    if period is not None:
        raise ctx.error("np.interp(..., period=...) is not supported; map x and xp into one "
                        "period yourself and sort xp")
    fp_arr = _strong(ctx, fp)
    if fp_arr.dtype.kind not in "biuf":
        raise ctx.error(f"np.interp: fp of dtype {fp_arr.dtype} is not supported")
    xv = ctx.cast(_strong(ctx, x), _F64)
    dx = ctx.cast(_strong(ctx, xp), _F64)
    dy = ctx.cast(fp_arr, _F64)
    if dx.ndim != 1 or dy.ndim != 1:
        raise ctx.error("np.interp: xp and fp must be 1-D sequences (numpy raises ValueError)")
    if 0 in (dx.shape[0], dy.shape[0]):
        raise ctx.error("np.interp: array of sample points is empty (numpy raises ValueError)")
    if dx.shape[0] is not None and dy.shape[0] is not None and dx.shape[0] != dy.shape[0]:
        raise ctx.error("np.interp: fp and xp are not of the same length (numpy raises "
                        "ValueError)")
    flat = xv if xv.ndim == 1 else Array(ctx.op("Reshape", xv, _ints(ctx, -1)), _F64, (None,))
    last = _ints(ctx, -1)
    # numpy's defaults: fp[0] below xp[0], fp[-1] above xp[-1].
    if left is None:
        lval = ctx.op("Gather", dy, ctx.const(np.array(0, np.int64)), axis=0)
    else:
        lval = _f64_scalar(ctx, left, "left").value
    if right is None:
        rval = ctx.op("Gather", dy, ctx.const(np.array(-1, np.int64)), axis=0)
    else:
        rval = _f64_scalar(ctx, right, "right").value
    n = ctx.op("Shape", dx)
    n_minus_1 = ctx.op("Sub", n, _ints(ctx, 1))
    # j: the largest index with xp[j] <= x (numpy's binary_search_with_guess), -1 below xp[0].
    j = ctx.op("Sub", searchsorted_flat(ctx, dx, flat, "right").value, _ints(ctx, 1))
    # Clamped so both neighbours are readable; the cases that use other values are overridden.
    j0 = ctx.op("Max", ctx.op("Min", j, ctx.op("Sub", n, _ints(ctx, 2))), _ints(ctx, 0))
    j1 = ctx.op("Min", ctx.op("Add", j0, _ints(ctx, 1)), n_minus_1)
    x0, x1 = ctx.op("Gather", dx, j0, axis=0), ctx.op("Gather", dx, j1, axis=0)
    y0, y1 = ctx.op("Gather", dy, j0, axis=0), ctx.op("Gather", dy, j1, axis=0)
    xs = flat.value
    slope = ctx.op("Div", ctx.op("Sub", y1, y0), ctx.op("Sub", x1, x0))
    res = ctx.op("Add", ctx.op("Mul", slope, ctx.op("Sub", xs, x0)), y0)
    # "If we get nan in one direction, try the other" (numpy's compiled_base.c).
    other = ctx.op("Add", ctx.op("Mul", slope, ctx.op("Sub", xs, x1)), y1)
    flat_nan = ctx.op("And", ctx.op("IsNaN", other), ctx.op("Equal", y0, y1))
    other = ctx.op("Where", flat_nan, y0, other)
    res = ctx.op("Where", ctx.op("IsNaN", res), other, res)
    # numpy's cases, lowest precedence first: x == xp[j], j == len-1, x > xp[-1], x < xp[0], NaN.
    res = ctx.op("Where", ctx.op("Equal", x0, xs), y0, res)
    y_last = ctx.op("Gather", dy, last, axis=0)
    res = ctx.op("Where", ctx.op("Equal", j, n_minus_1), y_last, res)
    x_last = ctx.op("Gather", dx, last, axis=0)
    res = ctx.op("Where", ctx.op("Greater", xs, x_last), rval, res)
    res = ctx.op("Where", ctx.op("Less", j, _ints(ctx, 0)), lval, res)
    res = ctx.op("Where", ctx.op("IsNaN", xs), xs, res)
    # numpy's separate loop for one sample point: NaN x gets fp[0] there.
    x_first = ctx.op("Gather", dx, ctx.const(np.array(0, np.int64)), axis=0)
    single = ctx.op("Where", ctx.op("Greater", xs, x_first), rval, y_last)
    single = ctx.op("Where", ctx.op("Less", xs, x_first), lval, single)
    res = ctx.op("Where", ctx.op("Equal", n, _ints(ctx, 1)), single, res)
    if xv.ndim != 1:
        res = ctx.op("Reshape", res, ctx.shape_of(xv), allowzero=1)
    return Array(res, _F64, xv.shape)


# ---------------------------------------------------------------------------- grids
@register(np.meshgrid)
def meshgrid(ctx, *xi, copy=True, sparse=False, indexing="xy"):
    """``np.meshgrid(*xi, copy=True, sparse=False, indexing='xy'|'ij')``: a tuple of arrays
    (a list for ``sparse=True, copy=False``, as numpy returns), each input flattened."""
    indexing = ctx.static(indexing, "indexing")
    if indexing not in ("xy", "ij"):
        raise ctx.error("Valid values for `indexing` are 'xy' and 'ij'.")
    sparse = _bool_flag(ctx, sparse, "sparse")
    copy = _bool_flag(ctx, copy, "copy")
    ndim = len(xi)
    flat = []
    for x in xi:
        a = _strong(ctx, x)
        flat.append(a if a.ndim == 1 else
                    Array(ctx.op("Reshape", a, _ints(ctx, -1)), a.dtype, (a.static_size,)))
    # Position of each input's axis in the grid ('xy' swaps the first two).
    where = list(range(ndim))
    if indexing == "xy" and ndim > 1:
        where[0], where[1] = 1, 0
    grid = [None] * ndim
    for a, pos in zip(flat, where):
        grid[pos] = a.shape[0]
    outputs = []
    for a, pos in zip(flat, where):
        dims = [1] * ndim
        dims[pos] = -1
        shape = tuple(a.shape[0] if i == pos else 1 for i in range(ndim))
        outputs.append(Array(ctx.op("Reshape", a, _ints(ctx, *dims)), a.dtype, shape))
    if not sparse:
        lengths = [None] * ndim
        for a, pos in zip(flat, where):
            lengths[pos] = _ints(ctx, a.shape[0]) if a.shape[0] is not None else ctx.op("Shape", a)
        full = ctx.op("Concat", *lengths, axis=0)
        outputs = [Array(ctx.op("Expand", o, full), o.dtype, tuple(grid)) for o in outputs]
    if sparse and not copy:
        return outputs
    return tuple(outputs)


@register(np.indices)
def indices(ctx, dimensions, dtype=int, sparse=False):
    """``np.indices(dimensions, dtype=int, sparse=False)`` with ``dimensions`` a tuple of
    integers known at run time (``x.shape``)."""
    dt = np.dtype(ctx.static(dtype, "dtype"))
    if dt not in dtypes.SUPPORTED_DTYPES:
        raise ctx.error(f"np.indices: dtype {dt} is not supported")
    sparse = _bool_flag(ctx, sparse, "sparse")
    if not isinstance(dimensions, (tuple, list)):
        raise ctx.error("np.indices(dimensions): dimensions must be a tuple of integers")
    n = len(dimensions)
    lengths, static = [], []
    for d in dimensions:
        if is_static(d):
            if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
                raise ctx.error(f"np.indices: dimensions must be integers, got {d!r}")
            lengths.append(ctx.const(np.array(int(d), np.int64)))
            static.append(int(d))
        else:
            a = ctx.asarray(d)
            if a.ndim != 0 or a.dtype.kind not in "iu":
                raise ctx.error("np.indices: dimensions must be integers")
            lengths.append(ctx.cast(Array(a.value, a.dtype, ()), _I64).value)
            static.append(None)
    one = ctx.const(np.array(1, np.int64))
    zero = ctx.const(np.array(0, np.int64))
    # Negative dimensions give empty ranges in numpy too (arange(-2) is empty).
    full = ctx.op("Concat", *(ctx.op("Reshape", ctx.op("Max", d, zero), _ints(ctx, 1))
                              for d in lengths), axis=0)
    outs = []
    for i, d in enumerate(lengths):
        r = ctx.cast(Array(ctx.op("Range", zero, d, one), _I64, (static[i],)), dt)
        dims = [1] * n
        dims[i] = -1
        shape = tuple(static[i] if k == i else 1 for k in range(n))
        r = Array(ctx.op("Reshape", r, _ints(ctx, *dims)), dt, shape)
        if not sparse:
            shape = tuple(None if s is None else max(s, 0) for s in static)
            r = Array(ctx.op("Expand", r, full), dt, shape)
        outs.append(r)
    if sparse:
        return tuple(outs)
    stacked = ctx.op("Concat", *(ctx.op("Unsqueeze", o, _ints(ctx, 0)) for o in outs), axis=0)
    return Array(stacked, dt, (n,) + outs[0].shape)

"""Python builtins inside compiled functions: ``len abs min max round float int bool sum range``.

On static values they run in Python. On Arrays they follow Python's meaning on numpy arrays:
``len(x)`` is the first dimension, ``float(x)``/``int(x)``/``bool(x)`` need a size-1 array and
give a weak scalar, ``abs`` is ``np.abs``, ``min``/``max`` of two values compare them (``max(a,
b)`` is ``b if b > a else a``, elementwise only for 0-d values), ``sum(x)`` sums over axis 0.
``range`` with static bounds is a Python range; with Array bounds it is a :class:`DynamicRange`
that the control-flow lowering turns into a Loop.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from pyonnx.frontend.graph import path_weak
from pyonnx.frontend.graph.iterables import DynamicRange
from pyonnx.frontend.graph.values import Array, Seq, is_static
from pyonnx.frontend.numpy_calls.registry import lookup, register


@register(builtins.range, static_eval=True)
def range_(ctx, *args):
    if not 1 <= len(args) <= 3:
        raise ctx.error(f"range expected 1 to 3 arguments, got {len(args)}")
    for a in args:
        if isinstance(a, Array) and (a.ndim != 0 or a.dtype.kind not in "iu"):
            raise ctx.error(f"range() needs integer scalars, got an array of {a.dtype} with "
                            f"{a.ndim} dimensions")
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (
        args[0], args[1], args[2] if len(args) == 3 else 1)
    return DynamicRange(start, stop, step)


@register(builtins.len)
def len_(ctx, x):
    if isinstance(x, Array):
        if x.ndim == 0:
            raise ctx.error("len() of unsized object (a 0-d array)")
        return ctx.dim(x, 0)
    if isinstance(x, (tuple, list)):
        return builtins.len(x)
    if isinstance(x, Seq):  # a list built at run time
        from pyonnx.frontend.graph import sequences
        return sequences.length(ctx, x)
    from pyonnx.frontend.graph import records
    if isinstance(x, records.Records):  # a list of tuples built at run time
        return records.length(ctx, x)
    hook = getattr(type(x), "__pyonnx_len__", None)  # value objects (np.poly1d: its order)
    if hook is not None:
        return hook(x)
    raise ctx.error(f"len() of {type(x).__name__} is not supported")


def _to_scalar(ctx, x: Array, py_type: type, name: str) -> Array:
    if x.static_size not in (1, None):
        raise ctx.error(f"only size-1 arrays can be converted to Python scalars ({name}(x) on an "
                        f"array of shape {x.shape})")
    if x.static_size is None:
        raise ctx.error(f"{name}(x) needs x to have size 1, which its shape {tuple('?' if d is None else d for d in x.shape)} "
                        "does not show at conversion time; index it first, e.g. x[0]")
    flat = x if x.ndim == 0 else Array(ctx.op("Reshape", x, ctx.const(np.array([], np.int64))),
                                       x.dtype, ())
    target = {float: np.float64, int: np.int64, bool: np.bool_}[py_type]
    if py_type is int and x.dtype.kind == "f":
        # int() of NaN or inf raises in Python; the Cast would give INT64_MIN instead.
        from pyonnx.frontend.numpy_calls.elementwise import runtime_check

        bad = lookup(np.logical_not).fn(ctx, lookup(np.isfinite).fn(ctx, flat))
        flat = Array(ctx.op("Cast", flat, to=7), np.dtype(np.int64), ())  # truncation, as int()
        flat = runtime_check(ctx, bad, flat, "cannot_convert_float_NaN_or_inf_to_integer",
                             "ValueError: cannot convert float NaN or infinity to integer")
    out = ctx.cast(flat, target)
    return Array(out.value, out.dtype, (), weak=True)


@register(builtins.float)
def float_(ctx, x=0.0):
    return _to_scalar(ctx, x, float, "float") if isinstance(x, Array) else builtins.float(x)


@register(builtins.int)
def int_(ctx, x=0):
    return _to_scalar(ctx, x, int, "int") if isinstance(x, Array) else builtins.int(x)


@register(builtins.bool)
def bool_(ctx, x=False):
    if isinstance(x, Array):
        return _to_scalar(ctx, x, bool, "bool")
    return builtins.bool(x)


@register(builtins.abs)
def abs_(ctx, x):
    if isinstance(x, Array) and x.weak and x.dtype == np.bool_:
        # abs() of a Python bool is an int (abs(True) is 1); np.absolute keeps bool
        x = Array(ctx.cast(x, np.int64).value, np.dtype(np.int64), x.shape, weak=True)
    return lookup(np.absolute).fn(ctx, x)


def _minmax(ctx, args, pick_greater: bool, name: str):
    if len(args) == 1:
        (seq,) = args
        if isinstance(seq, Seq):  # a list built at run time (empty: fails at run time)
            from pyonnx.frontend.graph import sequences
            seq = sequences.to_array(ctx, seq)
        if isinstance(seq, Array):
            return _items_extreme(ctx, seq, pick_greater, name)
        args = tuple(seq)
    if not args:
        raise ctx.error(f"{name}() arg is an empty sequence")
    best = args[0]
    for v in args[1:]:
        if is_static(best) and is_static(v):
            best = builtins.max(best, v) if pick_greater else builtins.min(best, v)
            continue
        for a in (best, v):
            if isinstance(a, Array) and a.ndim != 0:
                raise ctx.error(f"{name}() of arrays compares them with Python's truth test, "
                                "which numpy refuses for arrays; use "
                                f"np.{'maximum' if pick_greater else 'minimum'}")
        # Python returns the winning object unchanged, so its type depends on the data unless
        # every operand already has the result's dtype.
        from pyonnx.frontend.graph import dtypes

        common = dtypes.result_type(best, v)
        for a in (best, v):
            if isinstance(a, Array) and a.dtype != common:
                raise ctx.error(
                    f"{name}() of a {a.dtype} value and a {common} value: Python returns the "
                    "winner unchanged, so the result type would depend on the data; cast the "
                    f"operands to one dtype or use np.{'maximum' if pick_greater else 'minimum'}")
        # Python keeps the first of equal values and never propagates a NaN the way
        # np.maximum does: b if b > a else a.
        cmp = lookup(np.greater if pick_greater else np.less).fn(ctx, v, best)
        kb, kv = path_weak.python_kind(best), path_weak.python_kind(v)
        old = best
        best = lookup(np.where).fn(ctx, cmp, v, best)
        best = Array(best.value, best.dtype, ())  # (np.where's 0-d array: the winner's scalar)
        # The winner itself: a Python number where a Python number won (max(0.0, x[0]) is
        # the Python 0.0 when x[0] <= 0), on the paths where it did.
        best = _winner_kind(ctx, best, (kb, path_weak.python_flag(ctx, old)),
                            (kv, path_weak.python_flag(ctx, v)), cmp, name)
    return best


def _winner_kind(ctx, best: Array, kept: tuple, won: tuple, cmp: Array, name: str) -> Array:
    """The kind of ``name``'s winner ``best``: each operand's (python kind, flag of the paths
    where it is a Python number, graph/path_weak.py), ``cmp`` true where the second won."""
    (kb, fb), (kv, fv) = kept, won
    if (fb is None and fv is None) or best.dtype.kind not in "biuf" or not all(
            k is None or path_weak.holds(k, best.dtype) for k in (kb, kv)):
        return path_weak.join_kinds(ctx, best, kb, kv, cmp, f"{name}() at this line",
                                    f"{name}()'s result", name)
    # an operand that is a Python number on some paths only (s = 0.0 before a loop that may
    # run 0 times): the winner is one where the winning operand is
    true, false = ctx.const(np.array(True)), ctx.const(np.array(False))
    pb = true if kb is not None else fb if fb is not None else false
    pv = true if kv is not None else fv if fv is not None else false
    flag = ctx.op("Or", ctx.op("And", cmp.value, pv),
                  ctx.op("And", ctx.op("Not", cmp.value), pb))
    best = Array(best.value, best.dtype, ())
    path_weak.mark(ctx, best, f"{name}() at this line", flag)
    return best


def _items_extreme(ctx, x: Array, pick_greater: bool, name: str) -> Array:
    """``max(x)`` over the items of a 1-d array, as Python compares them: the first item, then
    a later one only where it is greater (``min``: less). Floats: NaN compares false, so the
    answer is the first item when it is NaN, else the first extreme among the others (np.max
    would propagate a later NaN); ties keep the first (the sign of a zero tie too)."""
    from pyonnx.frontend.graph.indexing import getitem

    if x.ndim == 0:
        raise ctx.error(f"iteration over a 0-d array (Python raises TypeError in {name}())")
    if x.ndim > 1:
        raise ctx.error(f"{name}() of the rows of a {x.ndim}-d array compares arrays with "
                        "Python's truth test, which numpy refuses; use "
                        f"np.{name}(x, axis=0)")
    if x.dtype.kind != "f":
        return lookup(np.max if pick_greater else np.min).fn(ctx, x, axis=0)
    m = lookup(np.nanmax if pick_greater else np.nanmin).fn(ctx, x, axis=0)
    first = lookup(np.argmax).fn(ctx, lookup(np.equal).fn(ctx, x, m))
    first_nan = lookup(np.any).fn(ctx, lookup(np.isnan).fn(ctx, getitem(ctx, x, slice(0, 1))))
    idx = lookup(np.where).fn(ctx, first_nan, ctx.const_array(np.array(0, np.int64)), first)
    return getitem(ctx, x, idx)


@register(builtins.max)
def max_(ctx, *args):
    return _minmax(ctx, args, True, "max")


@register(builtins.min)
def min_(ctx, *args):
    return _minmax(ctx, args, False, "min")


@register(builtins.round)
def round_(ctx, x, ndigits=None):
    """``round(x)`` → a Python int; ``round(x, n)`` → the same dtype. numpy arrays of rank ≥ 1
    have no ``__round__`` (Python raises TypeError), so only 0-d values are accepted."""
    if isinstance(x, Array):
        if x.ndim != 0:
            raise ctx.error("type numpy.ndarray doesn't define __round__ method (Python raises "
                            "TypeError); use np.round(x, decimals)")
        if ndigits is None:
            return _to_scalar(ctx, lookup(np.round).fn(ctx, x), int, "int")
        out = lookup(np.round).fn(ctx, x, ctx.static(ndigits, "ndigits"))
        out.weak = x.weak
        return out
    return builtins.round(x, ndigits) if ndigits is not None else builtins.round(x)


@register(builtins.sum)
def sum_(ctx, seq, start=0):
    if isinstance(seq, Array):
        # Python adds the rows to a weak 0 one by one: the dtype is result_type(0, rows), not
        # np.sum's widened accumulator (an int32 array sums to int32, wrapping as numpy does).
        from pyonnx.frontend.graph import dtypes

        total = lookup(np.sum).fn(ctx, seq, axis=0, dtype=dtypes.result_type(0, seq))
        return total if (is_static(start) and start == 0) else lookup(np.add).fn(ctx, start, total)
    total = start
    for v in seq:
        if is_static(total) and is_static(v):
            total = total + v
        else:
            total = lookup(np.add).fn(ctx, total, v)
    return total


# math-module functions on static values run in Python (static_eval); on Arrays they are the
# numpy ufunc of the same meaning, made weak when the input is (math returns Python floats).
_MATH_TO_NUMPY = {
    math.sqrt: np.sqrt, math.exp: np.exp, math.log: np.log, math.log10: np.log10,
    math.log2: np.log2, math.log1p: np.log1p, math.expm1: np.expm1, math.sin: np.sin,
    math.cos: np.cos, math.tan: np.tan, math.asin: np.arcsin, math.acos: np.arccos,
    math.atan: np.arctan, math.atan2: np.arctan2, math.sinh: np.sinh, math.cosh: np.cosh,
    math.tanh: np.tanh, math.asinh: np.arcsinh, math.acosh: np.arccosh, math.atanh: np.arctanh,
    math.fabs: np.fabs, math.hypot: np.hypot, math.erf: None, math.floor: np.floor,
    math.ceil: np.ceil, math.trunc: np.trunc, math.isnan: np.isnan, math.isinf: np.isinf,
    math.isfinite: np.isfinite, math.pow: np.power, math.copysign: np.copysign,
    math.degrees: np.degrees, math.radians: np.radians, math.fmod: np.fmod,
}


def _math_entry(mfn, npfn):
    def lower(ctx, *args):
        if npfn is None:
            raise ctx.error(f"math.{mfn.__name__} on array values is not supported")
        for a in args:
            if isinstance(a, Array) and a.ndim != 0:
                raise ctx.error(f"math.{mfn.__name__} takes scalars; use np.{npfn.__name__} for "
                                "arrays")
        entry = lookup(npfn)
        if entry is None:
            raise ctx.error(f"math.{mfn.__name__} on array values is not supported yet")
        out = entry.fn(ctx, *(ctx.cast(a, np.float64) if isinstance(a, Array) and
                              mfn not in (math.floor, math.ceil, math.trunc, math.isnan,
                                          math.isinf, math.isfinite) else a for a in args))
        if mfn in (math.floor, math.ceil, math.trunc):
            out = ctx.cast(out, np.int64)  # math.floor returns an int
        out.weak = True
        return out

    lower.__name__ = f"math_{mfn.__name__}"
    return lower


for _m, _n in _MATH_TO_NUMPY.items():
    register(_m)(_math_entry(_m, _n))

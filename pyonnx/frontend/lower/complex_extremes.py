"""Extremes and truth values of complex values beyond complex_order's plain reductions: Python's
``max``/``min`` builtins, ``np.max/min/nanmax/nanmin(..., initial=, where=)``, the ufunc methods
``maximum/minimum/fmax/fmin.reduce`` with those keywords, and the logical ufuncs
(``logical_not/and/or/xor`` and their ``reduce``/``accumulate``) of complex values.

Input: Complex values (0-d ones for the builtins over several arguments) and numpy's keywords.
Output: numpy's (or Python's) value: a Complex, or a bool Array for the logical functions.

* Python's ``max(a, b, ...)`` keeps the first argument and replaces it by a later one only when
  that one compares greater (``min``: less). Two numpy complex *scalars* compare as numpy's
  scalar code does, ``x > y`` being ``x.imag > y.imag if x.real == y.real else x.real >
  y.real`` (so ``1+nanj > 0j`` is True), where the ufunc (0-d arrays) is False whenever an
  imaginary part is NaN. The items of a 1-d array are scalars: the answer is the first item
  when its real part is NaN; else, among the items with the largest real part (NaN real parts
  never win), the first one when its imaginary part is NaN, else the first with the largest
  non-NaN imaginary part. Over several arguments, the fold uses the scalar comparison; where an
  argument may be a 0-d array (not known to be a numpy scalar) and the two comparisons differ
  at run time, the call fails there (a run-time refusal) rather than guess. Python returns the
  winning object itself, so the operands must share one type (else refused).
* ``np.max(z, initial=c, where=m)`` is numpy's ``maximum.reduce`` from ``c`` over the selected
  items in order: here the argmax of ``[c, z...]`` along the axis with the unselected items
  masked out (``complex_order._arg_extreme``); ``nanmax`` is ``fmax.reduce`` (NaNs skipped,
  the first item ``c`` when every item has a NaN part). ``where=`` without ``initial=`` is
  numpy's ValueError (no identity).
* A complex value's truth is ``re != 0 or im != 0`` (complex_ops.truth): the logical functions
  take it before the real lowering.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from pyonnx.frontend.graph import complex_kinds
from pyonnx.frontend.graph.complex_values import Complex, is_complex, make, parts
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import complex_ops as ops
from pyonnx.frontend.lower.complex_ops import R
from pyonnx.frontend.lower.complex_order import masked_reduce
from pyonnx.frontend.numpy_calls import lookup

__all__ = ["FUNCS", "masked_reduce"]

_NO = object()


def _type_of(v: Any) -> tuple:
    """(dtype, weak) of an operand of the builtins: what Python would return if it won."""
    if isinstance(v, Complex):
        return v.dtype, v.weak
    if isinstance(v, Array):
        return v.dtype, v.weak
    if isinstance(v, np.generic):
        return v.dtype, False
    return np.dtype(type(v)) if type(v) in (bool, int, float, complex) else None, True


def _builtin(largest: bool):
    name = "max" if largest else "min"

    def lower(ctx, *args, key=None, default=_NO):
        if key is not None:
            raise ctx.error(f"{name}(..., key=) of complex values is not supported yet; "
                            "compute the keys as an array and use np.argmax/np.argmin")
        if len(args) == 1:
            seq = args[0]
            if isinstance(seq, Complex):
                return _of_items(ctx, seq, largest, default)
            if not isinstance(seq, (list, tuple)):
                raise ctx.error(f"{name}() of a {type(seq).__name__} is not supported here")
            if not seq:
                if default is _NO:
                    raise ctx.error(f"{name}() iterable argument is empty (Python raises "
                                    "ValueError)")
                return default
            args = tuple(seq)
        elif default is not _NO:
            raise ctx.error(f"Cannot specify a default for {name}() with multiple positional "
                            "arguments (Python raises TypeError)")
        if not args:
            raise ctx.error(f"{name} expected at least 1 argument, got 0 (Python raises "
                            "TypeError)")
        types = {_type_of(v) for v in args}
        if len(types) != 1:
            raise ctx.error(f"{name}() of values of different types: Python returns the winner "
                            "unchanged, so the result's type would depend on the data; make "
                            "them one dtype (np.complex128(v)) or use "
                            f"np.{'maximum' if largest else 'minimum'}")
        dt, weak = types.pop()
        if weak and dt is not None and dt.kind == "c":
            op = ">" if largest else "<"
            raise ctx.error(f"'{op}' is not supported between instances of 'complex' and "
                            "'complex' (Python raises TypeError)")
        for v in args:
            if isinstance(v, (Complex, Array)) and v.ndim != 0:
                raise ctx.error(f"{name}() of arrays compares them with Python's truth test, "
                                "which numpy refuses for arrays; use "
                                f"np.{'maximum' if largest else 'minimum'}")
        import ast
        from pyonnx.frontend.graph.checks import runtime_check
        r = R(ctx)
        known = all(_known_scalar(ctx, v) for v in args)
        best = args[0]
        disagree = []
        for v in args[1:]:
            vr, vi = parts(ctx, v, dt)
            br, bi = parts(ctx, best, dt)
            wins = _scalar_wins(r, vr, vi, br, bi, largest)
            if not known:  # a 0-d array compares as the ufunc does
                ufunc_wins = ops.compare(ctx, ast.Gt if largest else ast.Lt, v, best)
                disagree.append(r.not_equal(wins, ufunc_wins))
            best = make(ctx, r.where(wins, vr, br), r.where(wins, vi, bi), dt)
        if not isinstance(best, Complex):
            best = make(ctx, *parts(ctx, best, dt), dt)
        if disagree:
            bad = disagree[0]
            for d in disagree[1:]:
                bad = r.logical_or(bad, d)
            re = runtime_check(ctx, bad, best.re, "refused_complex_max_min_of_a_value_that_may_"
                               "be_a_0d_array_with_a_nan_imaginary_part")
            best = Complex(re, best.im, best.dtype, best.weak)
        # Python returns the winning object: a numpy scalar, or a 0-d array whose memory the
        # result then is (not followed: writes through it refused)
        kinds = [complex_kinds.kind(v) if isinstance(v, Complex) else
                 complex_kinds.static_kind(v) for v in args]
        if best is args[0] and any(k is not None for k in kinds):
            best = Complex(best.re, best.im, best.dtype, best.weak)
        complex_kinds.mark(best, complex_kinds.join(kinds))
        if any(k in ("array", "unknown") for k in kinds):
            best.shared = best.shared or f"it is an argument of {name}(), a 0-d array"
        return best
    return lower


def _known_scalar(ctx, v: Any) -> bool:
    """Whether numpy has ``v`` as a numpy scalar (compared by numpy's scalar code)."""
    if isinstance(v, np.generic):
        return True
    return complex_kinds.kind(v) == "scalar"  # (z[i] items are marked "scalar" too)


def _scalar_wins(r, xr, xi, yr, yi, largest: bool):
    """numpy's scalar ``x > y`` (``x < y``) of complex scalars (see the module docstring)."""
    cmp = r.greater if largest else r.less
    return r.where(r.equal(xr, yr), cmp(xi, yi), cmp(xr, yr))


def _of_items(ctx, z: Complex, largest: bool, default: Any) -> Complex:
    """``max(z)`` over the items of a 1-d complex array (see the module docstring)."""
    name = "max" if largest else "min"
    if z.ndim == 0:
        raise ctx.error(f"iteration over a 0-d array (Python raises TypeError in {name}())")
    if z.ndim > 1:
        raise ctx.error(f"{name}() of the rows of a complex array compares arrays with "
                        "Python's truth test, which numpy refuses; use np.max(z, axis=0)")
    if z.shape[0] == 0:
        if default is _NO:
            raise ctx.error(f"{name}() iterable argument is empty (Python raises ValueError)")
        return default
    if default is not _NO and z.shape[0] is None:
        raise ctx.error(f"{name}(z, default=...) of a complex array whose length is known only "
                        "at run time is not supported yet; test len(z) first")
    r = R(ctx)
    fill = -np.inf if largest else np.inf
    reduce = r.max if largest else r.min
    start = len(ctx.nodes)
    nan_re = r.isnan(z.re)
    m = reduce(r.where(nan_re, fill, z.re), axis=0, keepdims=True)
    cand = r.equal(z.re, m)  # the largest real part (NaN real parts excluded)
    e1 = r.argmax(cand, axis=0, keepdims=True)
    cand2 = r.logical_and(cand, r.logical_not(r.isnan(z.im)))
    mi = reduce(r.where(cand2, z.im, fill), axis=0, keepdims=True)
    best = r.argmax(r.logical_and(cand2, r.equal(z.im, mi)), axis=0, keepdims=True)
    for node in ctx.nodes[start:]:  # (an empty array at run time: Python's words)
        if "pyonnx.raises" in node.metadata_props:
            node.metadata_props["pyonnx.raises"] = \
                f"ValueError: {name}() iterable argument is empty"
    idx = r.where(r.isnan(r.take_along_axis(z.im, e1, axis=0)), e1, best)
    first_nan = r.reshape(r.isnan(r.take(z.re, [0])), (1,))
    idx = r.where(first_nan, r.zeros_like(idx), idx)
    re = r.reshape(r.take_along_axis(z.re, idx, axis=0), ())
    im = r.reshape(r.take_along_axis(z.im, idx, axis=0), ())
    return make(ctx, re, im, z.dtype)


def _logical(func):
    """A logical ufunc (or its reduce/accumulate) of complex values: on their truth."""
    def lower(ctx, *args, **kwargs):
        args = [ops.truth(ctx, a) if isinstance(a, Complex) else _truth_static(ctx, a)
                for a in args]
        return lookup(func).fn(ctx, *args, **kwargs)
    return lower


def _truth_static(ctx, a: Any) -> Any:
    if is_complex(a) and not isinstance(a, Array):
        return np.asarray(a) != 0
    return a


def _ufunc_reduce(largest: bool, skip_nan: bool, name: str):
    """``np.maximum.reduce(z, axis=0, ..., initial=, where=)`` (numpy's default axis is 0)."""
    def lower(ctx, a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=None):
        from pyonnx.frontend.lower.complex_order import FUNCS as ORDER
        if dtype is not None or out is not None:
            raise ctx.error(f"np.{name}.reduce(..., dtype=/out=) of a complex array is not "
                            "supported yet; assign the result")
        if initial is not None or where is not None:
            return masked_reduce(ctx, a, axis, keepdims, initial, where, largest, skip_nan,
                                 f"np.{name}.reduce")
        func = (np.nanmax if largest else np.nanmin) if skip_nan else \
            (np.max if largest else np.min)
        return ORDER[func](ctx, a, axis=axis, keepdims=keepdims)
    return lower


def _accumulate(largest: bool):
    """``np.maximum.accumulate(z, axis=0)`` (``minimum``): numpy's sequential
    ``acc = maximum(acc, z[i])``, which keeps ``acc`` when it has a NaN part or ``CGE(acc,
    z[i])`` holds (the first NaN, else the first extreme so far). The combine is associative,
    so it runs as the doubling scan of the real running maximum, over the *indices* along the
    axis (each step compares the elements two indices point to); the front padding is index
    0, the earliest element, which a prefix that starts at 0 already holds."""
    name = f"np.{'maximum' if largest else 'minimum'}.accumulate"

    def lower(ctx, a, axis=0, dtype=None, out=None):
        from pyonnx.frontend.graph.loops import doubling_scan
        from pyonnx.frontend.graph.shapes import single_axis

        if dtype is not None or out is not None:
            raise ctx.error(f"{name}(..., dtype=/out=) of a complex array is not supported "
                            "yet; assign the result")
        if not isinstance(a, Complex):
            raise ctx.error(f"{name} of this value is not supported with complex values")
        if a.ndim == 0:
            raise ctx.error(f"{name} of a 0-d array (numpy raises ValueError)")
        k = single_axis(ctx, name, a.re, axis)
        i64 = np.dtype(np.int64)
        import onnx_ir as ir
        one = ctx.op("ConstantOfShape", ctx.op("Shape", a.re.value),
                     value=ir.tensor(np.ones(1, np.int64)))
        start = ctx.op("Sub", ctx.op("CumSum", one, ctx.const(np.array(k, np.int64))),
                       ctx.const(np.array(1, np.int64)))
        re, im = a.re.value, a.im.value

        def at(idx):
            return (ctx.op("GatherElements", re, idx, axis=k),
                    ctx.op("GatherElements", im, idx, axis=k))

        def combine(earlier, later):
            (xr, xi), (yr, yi) = at(earlier), at(later)
            nan_x = ctx.op("Or", ctx.op("IsNaN", xr), ctx.op("IsNaN", xi))
            no_nan_i = ctx.op("Not", ctx.op("Or", ctx.op("IsNaN", xi), ctx.op("IsNaN", yi)))
            strict = ctx.op("Greater" if largest else "Less", xr, yr)
            tie = ctx.op("GreaterOrEqual" if largest else "LessOrEqual", xi, yi)
            # numpy's CGE/CLE, then NaN first
            keep = ctx.op("Or", ctx.op("And", strict, no_nan_i),
                          ctx.op("And", ctx.op("Equal", xr, yr), tie))
            return ctx.op("Where", ctx.op("Or", nan_x, keep), earlier, later)

        idx = doubling_scan(ctx, Array(start, i64, a.shape), k, combine, 0)
        out_re = Array(ctx.op("GatherElements", re, idx.value, axis=k), a.re.dtype, a.shape)
        out_im = Array(ctx.op("GatherElements", im, idx.value, axis=k), a.im.dtype, a.shape)
        return make(ctx, out_re, out_im, a.dtype)
    return lower


FUNCS = {builtins.max: _builtin(True), builtins.min: _builtin(False),
         np.maximum.accumulate: _accumulate(True), np.minimum.accumulate: _accumulate(False),
         np.maximum.reduce: _ufunc_reduce(True, False, "maximum"),
         np.minimum.reduce: _ufunc_reduce(False, False, "minimum"),
         np.fmax.reduce: _ufunc_reduce(True, True, "fmax"),
         np.fmin.reduce: _ufunc_reduce(False, True, "fmin")}
for _f in (np.logical_not, np.logical_and, np.logical_or, np.logical_xor):
    FUNCS[_f] = _logical(_f)
    if _f is not np.logical_not:
        for _m in ("reduce", "accumulate"):
            FUNCS[getattr(_f, _m)] = _logical(getattr(_f, _m))

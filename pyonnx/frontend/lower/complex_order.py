"""Ordering complex values as numpy does: max/min/argmax/argmin (and the ``ndarray`` methods),
nanmax/nanmin, maximum/minimum/fmax/fmin, clip, sort/argsort/sort_complex.

Input: a :class:`Complex` (or, for the binary functions, one complex operand and one real or
complex one). Output: numpy's value: a Complex, or int64 indices.

numpy's order of complex values is lexicographic (real part, then imaginary part):

* ``maximum(a, b)`` is ``a`` when ``a`` has a NaN part or ``a >= b`` (``CGE``), else ``b``, so
  NaNs propagate; ``minimum`` likewise with ``<=``; ``fmax``/``fmin`` prefer the non-NaN side.
  ``max``/``min`` are their reductions in index order: the FIRST element with a NaN part, else
  the first extreme element — which is also ``argmax``/``argmin``'s answer, so ``max`` is the
  element at ``argmax`` (exact, including the sign of a zero).
* ``clip(x, lo, hi)`` is numpy's clip loop ``Min(Max(x, lo), hi)`` where ``Max(a, b)`` is
  ``a`` when ``a`` has a NaN part or ``a > b`` (strictly: an equal bound wins, so
  ``clip(-0j, 0j, 1)`` is ``0j``), else ``b``; a None bound is ``np.minimum``/``np.maximum``.
* ``sort`` puts NaNs last, in four classes: both parts numbers (by real, then imaginary part),
  then a NaN imaginary part (by real part), a NaN real part (by imaginary part), both NaN.
  Here it is a stable ``lexsort`` on (class, first key, second key): numpy's quicksort is not
  stable, so the order of equal values (``0j`` and ``-0j``) can differ from numpy's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex, make, parts, zeros_like
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.lower import complex_ops as ops
from pyonnx.frontend.lower.complex_ops import R
from pyonnx.frontend.numpy_calls import lookup

__all__ = ["FUNCS", "METHODS", "masked_reduce"]


def _has_nan(r: R, re, im):
    return r.logical_or(r.isnan(re), r.isnan(im))


def _flat_axis(ctx, z: Complex, axis: Any, fname: str) -> tuple[Complex, int]:
    axis = ctx.static(axis, "axis")
    if axis is None:
        r = R(ctx)
        return make(ctx, r.ravel(z.re), r.ravel(z.im), z.dtype), 0
    if not isinstance(axis, (int, np.integer)):
        raise ctx.error(f"{fname} of a complex array over several axes is not supported yet; "
                        "reduce one axis at a time")
    if not -max(z.ndim, 1) <= axis < max(z.ndim, 1):
        raise ctx.error(f"{fname}: axis {axis} is out of bounds for array of dimension {z.ndim} "
                        "(numpy raises AxisError)")
    return z, int(axis) % max(z.ndim, 1)


def _arg_extreme(ctx, z: Complex, axis: int, largest: bool, skip_nan: bool = False,
                 valid=None):
    """int64 index (keepdims) of the first NaN-part element along ``axis``, else of the first
    lexicographic maximum (``largest``) or minimum. ``skip_nan`` (nanmax/nanmin, numpy's
    ``fmax.reduce``): the first extreme among the elements without a NaN part, the first
    element when they all have one. ``valid`` (a bool mask of z's shape, True at index 0 of
    the axis): only the elements it selects count (numpy's ``where=``)."""
    r = R(ctx)
    nan = _has_nan(r, z.re, z.im)
    if valid is not None:
        nan = r.logical_and(nan, valid)
    fill = -np.inf if largest else np.inf
    reduce = r.max if largest else r.min
    skip = nan if valid is None else r.logical_or(nan, r.logical_not(valid))
    m = reduce(r.where(skip, fill, z.re), axis=axis, keepdims=True)
    cand = r.logical_and(r.equal(z.re, m), r.logical_not(skip))
    mi = reduce(r.where(cand, z.im, fill), axis=axis, keepdims=True)
    best = r.logical_and(cand, r.equal(z.im, mi))
    first_best = r.argmax(best, axis=axis, keepdims=True)
    if skip_nan:
        return first_best
    first_nan = r.argmax(nan, axis=axis, keepdims=True)
    return r.where(r.any(nan, axis=axis, keepdims=True), first_nan, first_best)


def _argfunc(largest: bool, fname: str):
    def lower(ctx, a, axis=None, out=None, *, keepdims=False):
        if out is not None:
            raise ctx.error(f"{fname}(..., out=) is not supported; assign the result")
        z = _complex(ctx, a, fname)
        if z.ndim == 0:
            r = R(ctx)
            return r.argmax(r.isnan(z.re), axis=axis)  # numpy: 0 (checks the axis too)
        keep = ctx.static(keepdims, "keepdims")
        axis_given = ctx.static(axis, "axis")
        flat, ax = _flat_axis(ctx, z, axis, fname)
        _check_nonempty(ctx, flat, ax, f"attempt to get {fname[3:]} of an empty sequence")
        idx = _arg_extreme(ctx, flat, ax, largest)
        r = R(ctx)
        if axis_given is None:
            idx = r.reshape(idx, (1,) * z.ndim if keep else ())
        elif not keep:
            idx = r.squeeze(idx, axis=ax)
        return idx
    return lower


def _check_nonempty(ctx, z: Complex, axis: int, message: str) -> None:
    """A reduction with no identity over an axis of length 0: numpy raises ValueError; refused
    at conversion time when the length is known to be 0, else checked by the real argmax."""
    if z.shape[axis] == 0:
        raise ctx.error(f"{message} (numpy raises ValueError)")


def _reduce(largest: bool, fname: str, skip_nan: bool = False):
    def lower(ctx, a, axis=None, out=None, keepdims=False, initial=None, where=None):
        if out is not None:
            raise ctx.error(f"{fname}(..., out=) of a complex array is not supported yet; "
                            "assign the result")
        if initial is not None or where is not None:
            return masked_reduce(ctx, a, axis, keepdims, initial, where, largest, skip_nan,
                                 fname)
        z = _complex(ctx, a, fname)
        if z.ndim == 0:  # a new numpy scalar, not the argument itself (its writes are z's)
            return ops.new_copy(ctx, z)
        keep = ctx.static(keepdims, "keepdims")
        axis_given = ctx.static(axis, "axis")
        flat, ax = _flat_axis(ctx, z, axis, fname)
        empty = ("zero-size array to reduction operation "
                 f"{('fmax' if largest else 'fmin') if skip_nan else ('maximum' if largest else 'minimum')}"
                 " which has no identity")
        _check_nonempty(ctx, flat, ax, empty)
        start = len(ctx.nodes)
        idx = _arg_extreme(ctx, flat, ax, largest, skip_nan)
        for node in ctx.nodes[start:]:
            # (the nodes onnxruntime fails at on an empty axis say numpy's words for max/min)
            if "pyonnx.raises" in node.metadata_props:
                node.metadata_props["pyonnx.raises"] = f"ValueError: {empty}"
        r = R(ctx)
        re = r.take_along_axis(flat.re, idx, axis=ax)
        im = r.take_along_axis(flat.im, idx, axis=ax)
        if axis_given is None:
            shape = (1,) * z.ndim if keep else ()
            re, im = r.reshape(re, shape), r.reshape(im, shape)
        elif not keep:
            re, im = r.squeeze(re, axis=ax), r.squeeze(im, axis=ax)
        return make(ctx, re, im, z.dtype)
    return lower


def _complex(ctx, a: Any, fname: str) -> Complex:
    if isinstance(a, Complex):
        return a
    re, im = parts(ctx, a, np.asarray(a).dtype if not hasattr(a, "dtype") else a.dtype)
    return make(ctx, re, im, np.result_type(a.dtype if hasattr(a, "dtype") else
                                            np.asarray(a).dtype, np.complex64))


def masked_reduce(ctx, a: Any, axis: Any, keepdims: Any, initial: Any, where: Any,
                  largest: bool, skip_nan: bool, fname: str) -> Complex:
    """``np.max``/``np.nanmax`` (``largest``) and ``min``/``nanmin`` with ``initial=`` and/or
    ``where=`` of a complex array (see complex_extremes's module docstring; it lives here,
    beside the ``_arg_extreme`` it runs, so that complex_order does not import complex_extremes
    back)."""
    ufunc = ("fmax" if largest else "fmin") if skip_nan else ("maximum" if largest else "minimum")
    if initial is None:
        raise ctx.error(f"reduction operation '{ufunc}' does not have an identity, so to use a "
                        "where mask one has to specify 'initial' (numpy raises ValueError)")
    if isinstance(initial, (Complex, Array)) and initial.ndim != 0 or \
            isinstance(initial, (list, tuple, np.ndarray)) and np.ndim(initial) != 0:
        raise ctx.error(f"{fname}: initial must be a scalar (numpy raises TypeError)")
    if where is not None and not (
            isinstance(where, Array) and where.dtype.kind == "b"
            or is_static(where) and np.asarray(where).dtype.kind == "b"):
        raise ctx.error(f"{fname}: where= takes a boolean mask (numpy raises TypeError for "
                        "other dtypes); write where=(m != 0)")
    z = _complex(ctx, a, fname)
    r = R(ctx)
    zeros = zeros_like(ctx, z.re)
    falses = r.not_equal(zeros, zeros)  # False in z's (run-time) shape
    mask = r.logical_not(falses) if where is None else r.logical_or(
        ctx.const_array(np.asarray(where, bool)) if is_static(where) else where, falses)
    keep = ctx.static(keepdims, "keepdims")
    axis = ctx.static(axis, "axis")
    re, im = z.re, z.im
    if axis is None or z.ndim == 0:
        re, im, mask = r.ravel(re), r.ravel(im), r.ravel(mask)
        ax = 0
    elif isinstance(axis, (int, np.integer)):
        if not -z.ndim <= axis < z.ndim:
            raise ctx.error(f"{fname}: axis {axis} is out of bounds for array of dimension "
                            f"{z.ndim} (numpy raises AxisError)")
        ax = int(axis) % z.ndim
    else:
        raise ctx.error(f"{fname} of a complex array over several axes is not supported yet; "
                        "reduce one axis at a time")
    ir_, ii = parts(ctx, initial, z.dtype)
    lane = r.sum(zeros_like(ctx, re), axis=ax, keepdims=True)  # zeros of the result's shape
    minus_zero = r.negative(lane)  # (x + -0.0 is x exactly: -0.0 in initial=-1j stays)
    ir_, ii = r.add(ir_, minus_zero), r.add(ii, minus_zero)
    cat = lookup(np.concatenate).fn
    re = cat(ctx, [ir_, re], axis=ax)
    im = cat(ctx, [ii, im], axis=ax)
    # (the initial value's slot is always selected)
    mask = cat(ctx, [r.equal(lane, lane), mask], axis=ax)
    idx = _arg_extreme(ctx, make(ctx, re, im, z.dtype), ax, largest, skip_nan, valid=mask)
    out_re = r.take_along_axis(re, idx, axis=ax)
    out_im = r.take_along_axis(im, idx, axis=ax)
    if axis is None or z.ndim == 0:
        shape = (1,) * z.ndim if keep else ()
        out_re, out_im = r.reshape(out_re, shape), r.reshape(out_im, shape)
    elif not keep:
        out_re, out_im = r.squeeze(out_re, axis=ax), r.squeeze(out_im, axis=ax)
    return make(ctx, out_re, out_im, z.dtype)


def _binary(kind: str):
    """maximum/minimum (NaNs propagate) and fmax/fmin (NaNs ignored), elementwise."""
    import ast

    def lower(ctx, a, b, out=None, **kwargs):
        if out is not None or kwargs:
            raise ctx.error(f"np.{kind}(..., out=/where=/dtype=) with complex values is not "
                            "supported yet")
        dt, weak = ops.result_dtype(ctx, np.maximum, a, b)
        r = R(ctx)
        ar, ai = parts(ctx, a, dt)
        br, bi = parts(ctx, b, dt)
        ge = ops.compare(ctx, ast.GtE if kind in ("maximum", "fmax") else ast.LtE,
                         make(ctx, ar, ai, dt), make(ctx, br, bi, dt))
        if kind in ("maximum", "minimum"):
            take_a = r.logical_or(_has_nan(r, ar, ai), ge)
        else:
            take_a = r.logical_or(ge, _has_nan(r, br, bi))
        return make(ctx, r.where(take_a, ar, br), r.where(take_a, ai, bi), dt, weak)
    return lower


_NO = object()  # numpy's _NoValue: an argument not given


def clip(ctx, a, a_min=_NO, a_max=_NO, out=None, *, min=_NO, max=_NO, **kwargs):
    """``np.clip(z, lo, hi)`` and ``z.clip(lo, hi)`` (see the module docstring)."""
    if out is not None or kwargs:
        raise ctx.error("np.clip(..., out=/where=/dtype=) with complex values is not supported "
                        "yet; assign the result")
    if a_min is _NO and a_max is _NO:
        lo, hi = (None if min is _NO else min), (None if max is _NO else max)
    elif min is not _NO or max is not _NO:
        raise ctx.error("Passing `min` or `max` keyword argument when `a_min` and `a_max` are "
                        "provided is forbidden (numpy raises ValueError)")
    else:
        lo, hi = (None if a_min is _NO else a_min), (None if a_max is _NO else a_max)
    if lo is None and hi is None:
        return ops.new_copy(ctx, _complex(ctx, a, "np.clip"))
    if lo is None:
        return FUNCS[np.minimum](ctx, a, hi)
    if hi is None:
        return FUNCS[np.maximum](ctx, a, lo)
    dt, weak = ops.result_dtype(ctx, np.maximum, a, lo)
    dt = np.result_type(dt, ops.result_dtype(ctx, np.maximum, a, hi)[0])
    r = R(ctx)
    x, low, high = (parts(ctx, v, dt) for v in (a, lo, hi))

    def greater(p, q):  # numpy's clip order: real parts, ties by imaginary parts
        return r.where(r.equal(p[0], q[0]), r.greater(p[1], q[1]), r.greater(p[0], q[0]))

    def pick(p, q, take_p):
        return r.where(take_p, p[0], q[0]), r.where(take_p, p[1], q[1])

    t = pick(x, low, r.logical_or(_has_nan(r, *x), greater(x, low)))
    out_ = pick(t, high, r.logical_or(_has_nan(r, *t), greater(high, t)))
    return make(ctx, out_[0], out_[1], dt, weak and all(ops._weak(v) for v in (a, lo, hi)))


def _clip_method(ctx, z, min=None, max=None, out=None, **kwargs):
    return clip(ctx, z, min=min, max=max, out=out, **kwargs)


def _sort_keys(ctx, z: Complex):
    """(second key, first key, class) of numpy's complex order (see the module docstring)."""
    r = R(ctx)
    nr, ni = r.isnan(z.re), r.isnan(z.im)
    # class: 0 numbers, 1 NaN imaginary part, 2 NaN real part, 3 both
    cls = r.add(r.astype(ni, np.int8), r.multiply(r.astype(nr, np.int8), 2))
    first = r.where(nr, r.where(ni, 0.0, z.im), z.re)
    second = r.where(r.logical_or(nr, ni), 0.0, z.im)
    return second, first, cls


def argsort(ctx, a, axis=-1, kind=None, order=None, *, stable=None):
    if order is not None:
        raise ctx.error("np.argsort(..., order=) needs a structured array")
    z = _complex(ctx, a, "np.argsort")
    r = R(ctx)
    if z.ndim == 0:
        return r.argsort(z.re, axis=axis)
    flat, ax = _flat_axis(ctx, z, axis, "np.argsort")
    return r.lexsort(_sort_keys(ctx, flat), axis=ax)


def sort(ctx, a, axis=-1, kind=None, order=None, *, stable=None):
    z = _complex(ctx, a, "np.sort")
    if z.ndim == 0:
        raise ctx.error("np.sort: axis -1 is out of bounds for array of dimension 0 (numpy "
                        "raises AxisError)")
    flat, ax = _flat_axis(ctx, z, axis, "np.sort")
    perm = argsort(ctx, flat, ax, kind, order, stable=stable)
    r = R(ctx)
    return make(ctx, r.take_along_axis(flat.re, perm, axis=ax),
                r.take_along_axis(flat.im, perm, axis=ax), z.dtype)


def sort_complex(ctx, a):
    """``np.sort_complex(z)``: the sort along the last axis (a complex argument)."""
    return sort(ctx, a)


FUNCS = {np.max: _reduce(True, "np.max"), np.amax: _reduce(True, "np.max"),
         np.min: _reduce(False, "np.min"), np.amin: _reduce(False, "np.min"),
         np.argmax: _argfunc(True, "np.argmax"), np.argmin: _argfunc(False, "np.argmin"),
         np.maximum: _binary("maximum"), np.minimum: _binary("minimum"),
         np.fmax: _binary("fmax"), np.fmin: _binary("fmin"),
         np.sort: sort, np.argsort: argsort, np.clip: clip,
         np.nanmax: _reduce(True, "np.nanmax", skip_nan=True),
         np.nanmin: _reduce(False, "np.nanmin", skip_nan=True)}
METHODS = {"max": FUNCS[np.max], "min": FUNCS[np.min], "argmax": FUNCS[np.argmax],
           "argmin": FUNCS[np.argmin], "argsort": argsort, "clip": _clip_method}

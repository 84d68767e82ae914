"""np.ediff1d, np.trapezoid, np.union1d, np.setdiff1d, np.nanargmax and np.nanargmin with complex values.

Input: numpy's arguments, at least one complex. Output: numpy's result and dtype.

* ``ediff1d``: a subtraction, which numpy does part by part, so the real lowering of each part
  (with the parts of ``to_begin``/``to_end``, cast as numpy casts them: ``same_kind``).
* ``trapezoid``: numpy's own formula, ``add.reduce(d * (y[1:] + y[:-1]) / 2.0, axis)``, in
  complex arithmetic (``d * ...`` is a complex product even for a real ``d``: numpy casts it,
  so ``inf`` parts give numpy's NaNs), the sum part by part (as numpy's pairwise complex sum).
* ``union1d``: numpy's ``unique(concatenate((ar1, ar2), axis=None))`` (sorted
  lexicographically, NaNs last, as complex ``np.unique``).
* ``setdiff1d``: ``unique(ar1)`` without the values ``==`` one of ``unique(ar2)``.
* ``nanargmax``/``nanargmin``: numpy's ``_replace_nan``: an element with a NaN in either part
  becomes ``∓inf + 0j``, then the complex (lexicographic) argmax/argmin; an all-NaN slice
  raises ValueError at run time, as in numpy.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex, make, parts
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.complex_arith import R
from pyonnx.frontend.numpy_calls import lookup

__all__ = ["FUNCS"]

_NOVALUE = np._NoValue


def _dtype(v: Any) -> np.dtype:
    if isinstance(v, (Complex, Array)):
        return v.dtype
    return np.asarray(v).dtype


def _static_array(v: Any) -> Any:
    return np.asarray(v) if isinstance(v, (list, tuple)) else v


def ediff1d(ctx, ary, to_end=None, to_begin=None):
    """``np.ediff1d`` of a complex ``ary`` (or with complex edges)."""
    if not isinstance(ary, Complex) and np.dtype(_dtype(ary)).kind != "c":
        raise ctx.error("np.ediff1d: dtype of the complex `to_begin`/`to_end` must be "
                        "compatible with input `ary` under the `same_kind` rule (numpy raises "
                        "TypeError); make ary complex (ary.astype(complex))")
    z = ary if isinstance(ary, Complex) else make(ctx, *parts(ctx, _static_array(ary),
                                                             _dtype(ary)), _dtype(ary))
    edges = {}
    for name, edge in (("to_begin", to_begin), ("to_end", to_end)):
        if edge is None:
            edges[name] = (None, None)
            continue
        edge = _static_array(edge)
        if not np.can_cast(_dtype(edge), z.dtype, casting="same_kind"):
            raise ctx.error(f"np.ediff1d: dtype of `{name}` must be compatible with input "
                            "`ary` under the `same_kind` rule (numpy raises TypeError)")
        re, im = parts(ctx, edge if isinstance(edge, (Complex, Array)) else np.asarray(edge),
                       z.dtype)
        edges[name] = (re, im)
    real = lookup(np.ediff1d).fn
    re = real(ctx, z.re, to_end=edges["to_end"][0], to_begin=edges["to_begin"][0])
    im = real(ctx, z.im, to_end=edges["to_end"][1], to_begin=edges["to_begin"][1])
    return make(ctx, re, im, z.dtype)


def trapezoid(ctx, y, x=None, dx=1.0, axis=-1):
    """``np.trapezoid`` with a complex ``y``, ``x`` or ``dx``."""
    from pyonnx.frontend.graph.indexing import getitem as real_getitem
    from pyonnx.frontend.lower.complex_functions import partwise
    from pyonnx.frontend.lower.complex_ops import binary

    def take(v, index):
        if isinstance(v, Complex):  # (a temporary: not registered as a view)
            return partwise(ctx, v, lambda p: real_getitem(ctx, p, index))
        return real_getitem(ctx, v if isinstance(v, Array) else ctx.asarray(v), index)

    def diff(v, ax):
        fn = lookup(np.diff).fn
        if isinstance(v, Complex):
            return partwise(ctx, v, lambda p: fn(ctx, p, axis=ax))
        return fn(ctx, v if isinstance(v, Array) else ctx.asarray(v), axis=ax)

    y = _static_array(y)
    if not isinstance(y, (Complex, Array)):
        y = make(ctx, *parts(ctx, np.asarray(y), _dtype(y)), _dtype(y)) \
            if _dtype(y).kind == "c" else ctx.asarray(y)
    nd = y.ndim
    if nd == 0:
        raise ctx.error("np.trapezoid: y must have at least one dimension (numpy raises "
                        "IndexError)")
    ax = ctx.static(axis, "axis")
    if not isinstance(ax, (int, np.integer)) or not -nd <= ax < nd:
        raise ctx.error(f"np.trapezoid: axis {axis} is out of bounds for array of dimension "
                        f"{nd} (numpy raises AxisError)")
    ax = int(ax) % nd
    if x is None:
        d = dx
    else:
        x = _static_array(x)
        xd = x.ndim if isinstance(x, (Complex, Array)) else np.ndim(x)
        if xd == 1:
            d = diff(x, 0)
            shape = [1] * nd
            shape[ax] = -1
            d = _reshape(ctx, d, tuple(shape))
        else:
            d = diff(x, ax)
    s1 = [slice(None)] * nd
    s2 = [slice(None)] * nd
    s1[ax], s2[ax] = slice(1, None), slice(None, -1)
    t = binary(ctx, ast.Add, take(y, tuple(s1)), take(y, tuple(s2)))
    t = binary(ctx, ast.Mult, d, t) if isinstance(t, Complex) or isinstance(d, Complex) \
        or _dtype(d).kind == "c" else lookup(np.multiply).fn(ctx, d, t)
    t = binary(ctx, ast.Div, t, 2.0)
    return partwise(ctx, t, lambda p: lookup(np.sum).fn(ctx, p, axis=ax))


def _reshape(ctx, v, shape):
    fn = lookup(np.reshape).fn
    if isinstance(v, Complex):
        from pyonnx.frontend.lower.complex_functions import partwise
        return partwise(ctx, v, lambda p: fn(ctx, p, shape))
    return fn(ctx, v, shape)


def _nanarg(largest: bool, fname: str):
    def lower(ctx, a, axis=None, out=None, *, keepdims=_NOVALUE):
        from pyonnx.frontend.graph.checks import runtime_check
        from pyonnx.frontend.lower.complex_order import FUNCS as ORDER

        if out is not None:
            raise ctx.error(f"{fname}(..., out=) is not supported; assign the result")
        if not isinstance(a, Complex):
            a = make(ctx, *parts(ctx, np.asarray(a), _dtype(a)), _dtype(a))
        r = R(ctx)
        mask = r.logical_or(r.isnan(a.re), r.isnan(a.im))
        fill = -np.inf if largest else np.inf
        z = Complex(r.where(mask, fill, a.re), r.where(mask, 0.0, a.im), a.dtype)
        kd = False if keepdims is _NOVALUE else keepdims
        res = ORDER[np.argmax if largest else np.argmin](ctx, z, axis, keepdims=kd)
        if 0 in a.shape or a.ndim == 0:
            return res  # (argmax of an empty array raises; numpy checks non-empty masks only)
        every = r.all(mask, axis=axis)
        bad = r.any(every)
        return runtime_check(ctx, bad, res, "All_NaN_slice_encountered",
                             "ValueError: All-NaN slice encountered")
    return lower


def union1d(ctx, ar1, ar2):
    """``np.union1d``: numpy's ``unique(concatenate((ar1, ar2), axis=None))``."""
    from pyonnx.frontend.lower.complex_sorted import FUNCS as SORTED

    dt = np.result_type(*(_dtype(v) if isinstance(v, (Complex, Array)) else
                          np.asarray(v).dtype for v in (ar1, ar2)))
    fn_ravel, fn_cat = lookup(np.ravel).fn, lookup(np.concatenate).fn
    pieces = [parts(ctx, v if isinstance(v, (Complex, Array)) else np.asarray(v), dt)
              for v in (ar1, ar2)]
    flat = [(fn_ravel(ctx, ctx.asarray(re)), fn_ravel(ctx, ctx.asarray(im))) for re, im in pieces]
    joined = make(ctx, fn_cat(ctx, (flat[0][0], flat[1][0])),
                  fn_cat(ctx, (flat[0][1], flat[1][1])), dt)
    return SORTED[np.unique](ctx, joined)


def setdiff1d(ctx, ar1, ar2, assume_unique=False):
    """``np.setdiff1d``: numpy's ``unique(ar1)`` without the values equal (``==``, so never a
    NaN) to one of ``unique(ar2)``."""
    from pyonnx.frontend.graph.indexing import getitem as real_getitem
    from pyonnx.frontend.lower.complex_functions import partwise
    from pyonnx.frontend.lower.complex_sorted import FUNCS as SORTED

    if ctx.static(assume_unique, "assume_unique"):
        raise ctx.error("np.setdiff1d(..., assume_unique=True) of complex values is not "
                        "supported (numpy's result on repeated values depends on its sort); "
                        "leave assume_unique at False")
    if not isinstance(ar1, Complex):
        raise ctx.error("np.setdiff1d of a real first array with complex values is not "
                        "supported; make the first array complex (ar1.astype(complex))")
    r = R(ctx)
    u1 = SORTED[np.unique](ctx, ar1)
    if not isinstance(ar2, Complex):
        ar2 = make(ctx, *parts(ctx, ar2 if isinstance(ar2, Array) else np.asarray(ar2),
                               ar1.dtype), ar1.dtype)
    u2 = SORTED[np.unique](ctx, ar2)
    eq = r.logical_and(r.equal(r.expand_dims(u1.re, 1), r.expand_dims(u2.re, 0)),
                       r.equal(r.expand_dims(u1.im, 1), r.expand_dims(u2.im, 0)))
    keep = r.logical_not(r.any(eq, axis=1))
    return partwise(ctx, u1, lambda p: real_getitem(ctx, p, keep))


FUNCS = {np.ediff1d: ediff1d, np.union1d: union1d, np.setdiff1d: setdiff1d, np.trapezoid: trapezoid,
         np.nanargmax: _nanarg(True, "np.nanargmax"),
         np.nanargmin: _nanarg(False, "np.nanargmin")}

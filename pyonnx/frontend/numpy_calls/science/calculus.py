"""numpy finite differences and integration: gradient, ediff1d, trapezoid.

Input: arrays of real dtypes with static axes and orders. Output: Arrays in numpy's dtypes
(gradient: float64 for integer data, the float dtype otherwise; a tuple for several axes).

Each follows numpy's Python source step by step through :mod:`.compose`: the same
formulas, in the same order, with the same promotions, so the roundings are numpy's.

Supported syntax:

* ``np.gradient(f, *varargs, axis=None, edge_order=1)``: spacing scalars (one for all axes or
  one per axis) or 1-D coordinate arrays (numpy uses its uniform formula when the coordinate
  steps are all equal, which only the run time knows: both are computed and one selected),
  ``edge_order`` 1 or 2.
* ``np.ediff1d(ary, to_end=None, to_begin=None)``.
* ``np.trapezoid(y, x=None, dx=1.0, axis=-1)``.

Differences: an axis shorter than ``edge_order + 1`` makes numpy raise ValueError: a conversion
error when its length is known, a run-time failure otherwise. ``trapezoid`` sums as
``np.sum`` does here (see reductions/sums.py for where that is not bit for bit).
"""

from __future__ import annotations

import types

import numpy as np

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.numpy_calls.registry import register, register_steps
from pyonnx.frontend.numpy_calls.science.compose import Np
from pyonnx.frontend.numpy_calls.shape import to_array
from pyonnx.frontend.numpy_calls.shape.common import axes_of, axis_of, guard, ints

_I64 = np.dtype(np.int64)
_F64 = np.dtype(np.float64)
_BOOL = np.dtype(np.bool_)


def _along(nd: int, axis: int, s) -> tuple:
    index = [slice(None)] * nd
    index[axis] = s
    return tuple(index)


def _at_least(ctx, f: Array, axis: int, need: int) -> Array:
    """``f``, failing the run when its length along ``axis`` is below ``need`` (numpy raises
    ValueError; a conversion error when the length is known)."""
    n = f.shape[axis]
    msg = ("np.gradient: Shape of array too small to calculate a numerical gradient, at least "
           "(edge_order + 1) elements are required (numpy raises ValueError)")
    if n is not None:
        if n < need:
            raise ctx.error(msg)
        return f
    length = ctx.op("Shape", f, start=axis, end=axis + 1)
    ok = ctx.op("Squeeze", ctx.op("GreaterOrEqual", length, ints(ctx, [need])), ints(ctx, [0]))
    shape = Array(ctx.op("Shape", f), _I64, (f.ndim,))
    return Array(ctx.op("Reshape", f, guard(ctx, ok, shape)), f.dtype, f.shape)


def _spacings(ctx, N, f: Array, varargs, axes) -> list:
    """numpy's ``dx`` list: per axis, a scalar or ``(diffx, uniform)`` for coordinates."""
    n = len(varargs)
    if n == 0:
        return [1.0] * len(axes)
    if n == 1 and (is_static(varargs[0]) and np.ndim(varargs[0]) == 0
                   or isinstance(varargs[0], Array) and varargs[0].ndim == 0):
        return [varargs[0]] * len(axes)
    if n != len(axes):
        raise ctx.error("np.gradient: invalid number of arguments (numpy raises TypeError)")
    out = []
    for i, d in enumerate(varargs):
        if is_static(d) and np.ndim(d) == 0 or isinstance(d, Array) and d.ndim == 0:
            out.append(d)
            continue
        dist = to_array(ctx, d)
        if dist.ndim != 1:
            raise ctx.error("np.gradient: distances must be either scalars or 1d (numpy raises "
                            "ValueError)")
        if dist.dtype.kind not in "biuf":
            raise ctx.error(f"np.gradient: distances of dtype {dist.dtype} are not supported")
        size = f.shape[axes[i]]
        if dist.shape[0] is not None and size is not None and dist.shape[0] != size:
            raise ctx.error("np.gradient: when 1d, distances must match the length of the "
                            "corresponding dimension (numpy raises ValueError)")
        if dist.dtype.kind in "iu":
            dist = ctx.cast(dist, _F64)
        diffx = N.diff(dist)
        first = N.getitem(diffx, 0)
        uniform = N.all(N.equal(diffx, first))
        out.append((diffx, first, uniform))
    return out


def _combine(N, coeffs, parts):
    """``a * f1 + b * f2 + c * f3`` in numpy's order."""
    (a, b, c), (f1, f2, f3) = coeffs, parts
    return N.add(N.add(N.multiply(a, f1), N.multiply(b, f2)), N.multiply(c, f3))


def _uniform(ctx, N, f, axis, dx, edge_order):
    nd = f.ndim
    g = lambda s: N.getitem(f, _along(nd, axis, s))  # noqa: E731
    interior = N.true_divide(N.subtract(g(slice(2, None)), g(slice(None, -2))),
                             N.multiply(2.0, dx))
    if edge_order == 1:
        first = N.true_divide(N.subtract(g(slice(1, 2)), g(slice(0, 1))), dx)
        last = N.true_divide(N.subtract(g(slice(-1, None)), g(slice(-2, -1))), dx)
    else:
        first = _combine(N, (N.true_divide(-1.5, dx), N.true_divide(2.0, dx),
                             N.true_divide(-0.5, dx)),
                         (g(slice(0, 1)), g(slice(1, 2)), g(slice(2, 3))))
        last = _combine(N, (N.true_divide(0.5, dx), N.true_divide(-2.0, dx),
                            N.true_divide(1.5, dx)),
                        (g(slice(-3, -2)), g(slice(-2, -1)), g(slice(-1, None))))
    return first, interior, last


def _nonuniform(ctx, N, f, axis, ax_dx, edge_order):
    nd = f.ndim
    g = lambda s: N.getitem(f, _along(nd, axis, s))  # noqa: E731
    dx1, dx2 = N.getitem(ax_dx, slice(0, -1)), N.getitem(ax_dx, slice(1, None))
    a = N.true_divide(N.negative(dx2), N.multiply(dx1, N.add(dx1, dx2)))
    b = N.true_divide(N.subtract(dx2, dx1), N.multiply(dx1, dx2))
    c = N.true_divide(dx1, N.multiply(dx2, N.add(dx1, dx2)))
    shape = [1] * nd
    shape[axis] = -1
    a, b, c = (N.reshape(v, tuple(shape)) for v in (a, b, c))
    interior = _combine(N, (a, b, c), (g(slice(None, -2)), g(slice(1, -1)), g(slice(2, None))))
    if edge_order == 1:
        first = N.true_divide(N.subtract(g(slice(1, 2)), g(slice(0, 1))), N.getitem(ax_dx, 0))
        last = N.true_divide(N.subtract(g(slice(-1, None)), g(slice(-2, -1))),
                             N.getitem(ax_dx, -1))
    else:
        d1, d2 = N.getitem(ax_dx, 0), N.getitem(ax_dx, 1)
        s = N.add(d1, d2)
        coeffs = (N.true_divide(N.negative(N.add(N.multiply(2.0, d1), d2)), N.multiply(d1, s)),
                  N.true_divide(s, N.multiply(d1, d2)),
                  N.true_divide(N.negative(d1), N.multiply(d2, s)))
        first = _combine(N, coeffs, (g(slice(0, 1)), g(slice(1, 2)), g(slice(2, 3))))
        d1, d2 = N.getitem(ax_dx, -2), N.getitem(ax_dx, -1)
        s = N.add(d1, d2)
        coeffs = (N.true_divide(d2, N.multiply(d1, s)),
                  N.true_divide(N.negative(N.add(d2, d1)), N.multiply(d1, d2)),
                  N.true_divide(N.add(N.multiply(2.0, d2), d1), N.multiply(d2, s)))
        last = _combine(N, coeffs, (g(slice(-3, -2)), g(slice(-2, -1)), g(slice(-1, None))))
    return first, interior, last


def _assemble(ctx, parts, axis: int, otype, like: Array) -> Array:
    """``out`` of dtype ``otype``: the parts (numpy assigns them into ``out``: cast) joined."""
    vals = [ctx.cast(p, otype) for p in parts]
    return Array(ctx.op("Concat", *vals, axis=axis), otype, like.shape)


@register(np.gradient)
def gradient(ctx, f, *varargs, axis=None, edge_order=1):
    """``np.gradient(f, *varargs, axis=None, edge_order=1)``."""
    N = Np(ctx)
    fa = to_array(ctx, f)
    edge_order = ctx.static(edge_order, "edge_order")
    if edge_order not in (1, 2):
        raise ctx.error("np.gradient: 'edge_order' must be 1 or 2 (numpy raises ValueError)")
    if fa.dtype == _BOOL:
        raise ctx.error("np.gradient: numpy boolean subtract is not supported (numpy raises "
                        "TypeError); cast the array to a number type first")
    if fa.dtype.kind not in "iuf":
        raise ctx.error(f"np.gradient: dtype {fa.dtype} is not supported")
    axes = tuple(range(fa.ndim)) if axis is None else axes_of(ctx, axis, fa.ndim)
    dx = _spacings(ctx, N, fa, varargs, axes)
    otype = fa.dtype
    if otype.kind in "iu":
        fa, otype = ctx.cast(fa, _F64), _F64
    outs = []
    for ax, d in zip(axes, dx):
        fa_ax = _at_least(ctx, fa, ax, edge_order + 1)
        if isinstance(d, tuple):
            diffx, first, uniform = d
            uni = _assemble(ctx, _uniform(ctx, N, fa_ax, ax, first, edge_order), ax, otype, fa)
            non = _assemble(ctx, _nonuniform(ctx, N, fa_ax, ax, diffx, edge_order), ax, otype,
                            fa)
            outs.append(kernels.where(ctx, Array(uniform.value, _BOOL, ()), uni, non))
        else:
            outs.append(_assemble(ctx, _uniform(ctx, N, fa_ax, ax, d, edge_order), ax, otype,
                                  fa))
    return outs[0] if len(outs) == 1 else tuple(outs)


# The complex np.gradient (lower/complex_gradient.py) runs these steps with a complex facade.
register_steps("gradient", types.SimpleNamespace(
    Np=Np, axes_of=axes_of, spacings=_spacings, at_least=_at_least, uniform=_uniform,
    nonuniform=_nonuniform))


@register(np.ediff1d)
def ediff1d(ctx, ary, to_end=None, to_begin=None):
    """``np.ediff1d(ary, to_end=None, to_begin=None)``: in ``ary``'s dtype."""
    N = Np(ctx)
    x = N.ravel(to_array(ctx, ary))
    if x.dtype == _BOOL:
        raise ctx.error("np.ediff1d: numpy boolean subtract is not supported (numpy raises "
                        "TypeError); cast the array to a number type first")
    parts = []
    for edge, name in ((to_begin, "to_begin"), (None, None), (to_end, "to_end")):
        if name is None:
            parts.append(N.subtract(N.getitem(x, slice(1, None)), N.getitem(x, slice(None, -1))))
            continue
        if edge is None:
            continue
        e = to_array(ctx, edge)
        if not np.can_cast(e.dtype, x.dtype, casting="same_kind"):
            raise ctx.error(f"np.ediff1d: dtype of `{name}` must be compatible with input "
                            f"`ary` under the `same_kind` rule (numpy raises TypeError)")
        parts.append(ctx.cast(N.ravel(e), x.dtype))
    if len(parts) == 1:
        return parts[0]
    return N.concatenate(tuple(parts))


@register(np.trapezoid)
def trapezoid(ctx, y, x=None, dx=1.0, axis=-1):
    """``np.trapezoid(y, x=None, dx=1.0, axis=-1)``."""
    N = Np(ctx)
    ya = to_array(ctx, y)
    if ya.ndim == 0:
        raise ctx.error("np.trapezoid: y must have at least one dimension (numpy raises "
                        "IndexError)")
    ax = axis_of(ctx, axis, ya.ndim)
    if x is None:
        d = dx
    else:
        xa = to_array(ctx, x)
        if xa.ndim == 1:
            d = N.diff(xa)
            shape = [1] * ya.ndim
            shape[ax] = -1
            d = N.reshape(d, tuple(shape))
        else:
            d = N.diff(xa, axis=ax)
    if ya.dtype == _BOOL:  # numpy adds bools with logical or here
        pass
    nd = ya.ndim
    total = N.add(N.getitem(ya, _along(nd, ax, slice(1, None))),
                  N.getitem(ya, _along(nd, ax, slice(None, -1))))
    return N.sum(N.true_divide(N.multiply(d, total), 2.0), axis=ax)

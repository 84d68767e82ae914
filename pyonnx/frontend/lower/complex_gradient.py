"""``np.gradient`` and ``np.diff`` of a complex array (issue 11).

Input: a Complex ``f`` and numpy's real spacings (scalars or 1-D coordinates), ``axis``,
``edge_order``. Output: numpy's gradient, ``f``'s complex dtype (a tuple for several axes).

numpy's formulas (numpy_calls/science/calculus.py follows its source step by step) run
unchanged on a facade whose arithmetic is complex where an operand is: numpy divides the
complex differences by the real spacing and multiplies them by real coefficients *as complex
numbers* (the real one cast to ``x + 0j``), so an infinite part gives numpy's NaNs (``(inf+1j)
/ 2`` is ``inf+nanj``), which part-by-part arithmetic would not.
"""

from __future__ import annotations

import ast
import functools
from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex, is_complex, make, parts
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import complex_ops as ops
from pyonnx.frontend.lower.complex_functions import partwise
from pyonnx.frontend.numpy_calls import lookup_steps

__all__ = ["FUNCS"]


def _real():
    """calculus's gradient steps (numpy_calls/science/calculus.py registers them): statement
    lowering reaches a family only through the registry package's look-ups."""
    return lookup_steps("gradient")


@functools.cache
def _complex_np() -> type:
    """The complex facade class, made on first use (its base, calculus's :class:`Np`, comes
    from the registry, which loads the families on its first look-up)."""
    Np = _real().Np

    class _ComplexNp(Np):
        """:class:`Np` whose add/subtract/multiply/true_divide/negative/getitem/reshape take a
        Complex operand (numpy's complex arithmetic, complex_ops)."""

        _NAMES = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply",
                  ast.Div: "true_divide"}

        def _binary(self, op, a, b):
            if isinstance(a, Complex) or isinstance(b, Complex):
                return ops.binary(self.ctx, op, a, b)
            return Np.__getattr__(self, self._NAMES[op])(a, b)

        def add(self, a, b):
            return self._binary(ast.Add, a, b)

        def subtract(self, a, b):
            return self._binary(ast.Sub, a, b)

        def multiply(self, a, b):
            return self._binary(ast.Mult, a, b)

        def true_divide(self, a, b):
            return self._binary(ast.Div, a, b)

        def negative(self, a):
            if isinstance(a, Complex):
                return ops.unary(self.ctx, ast.USub, a)
            return Np.__getattr__(self, "negative")(a)

        def getitem(self, x, index):
            if isinstance(x, Complex):
                from pyonnx.frontend.graph.indexing import getitem
                return partwise(self.ctx, x, lambda p: getitem(self.ctx, p, index))
            return super().getitem(x, index)

        def reshape(self, x, shape):
            if isinstance(x, Complex):
                return partwise(self.ctx, x, lambda p: Np.__getattr__(self, "reshape")(p, shape))
            return Np.__getattr__(self, "reshape")(x, shape)

    return _ComplexNp


def gradient(ctx, f, *varargs, axis=None, edge_order=1):
    """``np.gradient(f, *varargs, axis=None, edge_order=1)`` of a complex ``f``."""
    from pyonnx.frontend.graph import kernels
    from pyonnx.frontend.graph.values import Array

    if not isinstance(f, Complex):
        raise ctx.error("np.gradient with complex spacings is not supported yet; the spacings "
                        "are distances (real numbers)")
    if any(is_complex(v) for v in varargs):
        raise ctx.error("np.gradient with complex spacings is not supported yet; the spacings "
                        "are distances (real numbers)")
    real = _real()
    N = _complex_np()(ctx)
    edge_order = ctx.static(edge_order, "edge_order")
    if edge_order not in (1, 2):
        raise ctx.error("np.gradient: 'edge_order' must be 1 or 2 (numpy raises ValueError)")
    axes = tuple(range(f.ndim)) if axis is None else real.axes_of(ctx, axis, f.ndim)
    dx = real.spacings(ctx, N, f.re, varargs, axes)
    outs = []
    for ax, d in zip(axes, dx):
        checked = real.at_least(ctx, f.re, ax, edge_order + 1)
        fa = Complex(checked, f.im, f.dtype)  # (the length check rides on the real part)
        if isinstance(d, tuple):
            diffx, first, uniform = d
            uni = _assemble(ctx, real.uniform(ctx, N, fa, ax, first, edge_order), ax, f)
            non = _assemble(ctx, real.nonuniform(ctx, N, fa, ax, diffx, edge_order), ax, f)
            flag = Array(uniform.value, np.dtype(np.bool_), ())
            outs.append(make(ctx, kernels.where(ctx, flag, uni.re, non.re),
                             kernels.where(ctx, flag, uni.im, non.im), f.dtype))
        else:
            outs.append(_assemble(ctx, real.uniform(ctx, N, fa, ax, d, edge_order), ax, f))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _assemble(ctx, parts: Any, axis: int, like: Complex) -> Complex:
    """numpy's ``out`` (``like``'s dtype): the edge and interior parts joined along ``axis``."""
    from pyonnx.frontend.graph.values import Array

    zs = [p if isinstance(p, Complex) else make(ctx, *parts(ctx, p, like.dtype), like.dtype)
          for p in parts]
    zs = [make(ctx, z.re, z.im, like.dtype) for z in zs]  # (cast: numpy assigns into out)
    re = Array(ctx.op("Concat", *[z.re.value for z in zs], axis=axis), like.re.dtype,
               like.shape)
    im = Array(ctx.op("Concat", *[z.im.value for z in zs], axis=axis), like.im.dtype,
               like.shape)
    return Complex(re, im, like.dtype)


def diff(ctx, a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """``np.diff`` with a complex array or edge: numpy concatenates the edges and subtracts,
    which for complex values is exactly a subtraction of each part (no products): the real
    lowering on the real parts and on the imaginary parts (a real edge's are zeros)."""
    from pyonnx.frontend.numpy_calls import lookup

    given = [v for v in (a, prepend, append) if v is not np._NoValue]
    dt = np.result_type(*[v.dtype if isinstance(v, (Complex, Array)) else np.asarray(v).dtype
                          for v in given])
    if dt.kind != "c":
        raise ctx.error("np.diff of these values is not supported with complex values")
    edge = {}
    for name, v in (("prepend", prepend), ("append", append)):
        if v is not np._NoValue:
            edge[name] = parts(ctx, np.asarray(v) if isinstance(v, (list, tuple)) else v, dt)
    a_re, a_im = parts(ctx, np.asarray(a) if isinstance(a, (list, tuple)) else a, dt)
    real = lookup(np.diff).fn
    re = real(ctx, a_re, n, axis, **{k: p[0] for k, p in edge.items()})
    im = real(ctx, a_im, n, axis, **{k: p[1] for k, p in edge.items()})
    return make(ctx, re, im, dt)


FUNCS = {np.gradient: gradient, np.diff: diff}

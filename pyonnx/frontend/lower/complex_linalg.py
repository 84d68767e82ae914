"""Complex products: ``@``/``np.matmul``, ``np.dot``, ``np.vdot``, ``np.inner``, ``np.outer``.

Input: operands of which one is complex. Output: a Complex of numpy's dtype. A complex product
is four real ones, (A + iB)(C + iD) = (AC - BD) + i(AD + BC), each through the registry's real
lowering (so shapes, batching and errors are numpy's); with a real operand, two.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex, make, parts
from pyonnx.frontend.lower.complex_ops import R, result_dtype

__all__ = ["matmul", "product"]


def product(ctx, name: str, a: Any, b: Any) -> Complex:
    """``np.<name>(a, b)`` for the bilinear products matmul, dot, inner, outer."""
    r = R(ctx)
    f = getattr(r, name)
    dt, _ = result_dtype(ctx, np.multiply, a, b)
    ar, ai = parts(ctx, a, dt)
    br, bi = parts(ctx, b, dt)
    a_real = not isinstance(a, Complex) and not np.iscomplexobj(a)
    b_real = not isinstance(b, Complex) and not np.iscomplexobj(b)
    if a_real:
        return make(ctx, f(ar, br), f(ar, bi), dt)
    if b_real:
        return make(ctx, f(ar, br), f(ai, br), dt)
    re = r.subtract(f(ar, br), f(ai, bi))
    im = r.add(f(ar, bi), f(ai, br))
    return make(ctx, re, im, dt)


def matmul(ctx, a: Any, b: Any) -> Complex:
    return product(ctx, "matmul", a, b)


def vdot(ctx, a: Any, b: Any) -> Complex:
    """``np.vdot``: the conjugate of ``a`` times ``b``, both flattened."""
    r = R(ctx)
    dt, _ = result_dtype(ctx, np.multiply, a, b)
    ar, ai = parts(ctx, a, dt)
    br, bi = parts(ctx, b, dt)
    ar, ai, br, bi = (r.ravel(x) for x in (ar, ai, br, bi))
    # conj(a) . b = (ar - i ai)(br + i bi)
    re = r.add(r.dot(ar, br), r.dot(ai, bi))
    im = r.subtract(r.dot(ar, bi), r.dot(ai, br))
    return make(ctx, re, im, dt)

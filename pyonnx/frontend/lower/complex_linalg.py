"""Complex products: ``@``/``np.matmul``, ``np.dot``, ``np.vdot``, ``np.inner``, ``np.outer``,
``np.tensordot``, ``np.kron``, ``np.einsum``.

Input: operands of which one is complex. Output: a Complex of numpy's dtype. A complex product
is four real ones, (A + iB)(C + iD) = (AC - BD) + i(AD + BC), each through the registry's real
lowering (so shapes, batching and errors are numpy's); with a real operand, two.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex, make, parts
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.complex_ops import R, result_dtype

__all__ = ["matmul", "product", "vdot", "einsum"]


def product(ctx, name: str, a: Any, b: Any, **kwargs: Any) -> Complex:
    """``np.<name>(a, b, **kwargs)`` for the bilinear products matmul, dot, inner, outer,
    tensordot (``axes=``), kron."""
    r = R(ctx)
    f = getattr(r, name)
    if kwargs:
        g = f
        f = lambda x, y: g(x, y, **kwargs)  # noqa: E731
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


_EINSUM_OPERANDS = 4  # 2**4 real einsums at most


def einsum(ctx, subscripts: Any, *operands: Any, **kwargs: Any) -> Any:
    """``np.einsum(subscripts, *operands)`` with complex operands: multilinear in them, so the
    expansion over the parts (a term's imaginary factors give its power of i) of real einsums
    of the registry; up to four operands (sixteen real einsums)."""
    from itertools import product as cartesian

    if not isinstance(ctx.static(subscripts, "subscripts"), str):
        raise ctx.error("np.einsum with complex operands takes the subscripts string form")
    if set(kwargs) - {"optimize"} or kwargs.get("optimize", False) not in (False, True, None,
                                                                           "greedy", "optimal"):
        raise ctx.error("np.einsum(..., out=/dtype=/order=/casting=) with complex operands is "
                        "not supported yet")
    if not operands:
        raise ctx.error("np.einsum needs at least one operand")
    r = R(ctx)
    # (einsum makes every operand an array: Python numbers are not weak here)
    dt = np.result_type(np.complex64, *(v.dtype if isinstance(v, (Complex, Array))
                                        else np.asarray(v).dtype for v in operands))
    if len(operands) > _EINSUM_OPERANDS:
        return _pairwise(ctx, ctx.static(subscripts, "subscripts"), operands, dt)
    pairs = []
    for op in operands:
        real_only = not isinstance(op, Complex) and not np.iscomplexobj(op)
        re, im = parts(ctx, op, dt)
        pairs.append((re, None if real_only else im))
    re_terms, im_terms = [], []
    for choice in cartesian((0, 1), repeat=len(operands)):
        if any(k == 1 and pairs[i][1] is None for i, k in enumerate(choice)):
            continue  # a real operand's imaginary part is zero
        term = r.einsum(subscripts, *(pairs[i][k] for i, k in enumerate(choice)))
        power = sum(choice) % 4  # i**power: 1, i, -1, -i
        (re_terms if power % 2 == 0 else im_terms).append((term, power in (2, 3)))

    def total(terms):
        out = None
        for term, negative in terms:
            if out is None:
                out = r.negative(term) if negative else term
            else:
                out = r.subtract(out, term) if negative else r.add(out, term)
        return out

    re = total(re_terms)
    im = total(im_terms)
    if im is None:
        from pyonnx.frontend.graph.complex_values import zeros_like
        im = zeros_like(ctx, re)
    return make(ctx, re, im, dt)


def _pairwise(ctx, subscripts: str, operands: tuple, dt: np.dtype) -> Complex:
    """An einsum of more than four operands as a chain of two-operand einsums, left to right:
    each step keeps the indices a later operand or the output still needs (numpy's
    ``optimize=True`` contracts pairwise too; the sums are the same, their order differs).
    Every operand is first in ``dt`` (numpy computes the whole einsum in it)."""
    spec = subscripts.replace(" ", "")
    if "." in spec:
        raise ctx.error(f"np.einsum of {len(operands)} complex operands with '...' is not "
                        "supported; name the axes")
    ins, _, out = spec.partition("->")
    terms = ins.split(",")
    if len(terms) != len(operands):
        raise ctx.error(f"np.einsum: {len(terms)} subscripts for {len(operands)} operands "
                        "(numpy raises ValueError)")
    if "->" not in spec:  # numpy's implicit output: the indices seen once, sorted
        counts = {c: ins.count(c) for c in set(ins) - {","}}
        out = "".join(sorted(c for c, k in counts.items() if k == 1))
    values = [make(ctx, *parts(ctx, op, dt), dt) if isinstance(op, Complex) or np.iscomplexobj(op)
              else Array(ctx.cast(ctx.asarray(op), dt.type(0).real.dtype).value,
                         dt.type(0).real.dtype, np.shape(op) if not isinstance(op, Array)
                         else op.shape) for op in operands]
    current, sub = values[0], terms[0]
    for k in range(1, len(values)):
        later = set("".join(terms[k + 1:])) | set(out)
        keep = "".join(c for c in dict.fromkeys(sub + terms[k]) if c in later)
        current = einsum(ctx, f"{sub},{terms[k]}->{keep}", current, values[k])
        sub = keep
    return einsum(ctx, f"{sub}->{out}", current)

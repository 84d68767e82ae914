"""The numpy kind (scalar or 0-d array) of a complex call's 0-d result, where the rule of
graph/complex_kinds does not give it.

Input: the call (function, arguments; for a method, the array and the name) and the result
complex_calls lowered. Output: the result with ``Complex.zero_d`` set: a 0-d array from an
array constructor (``np.asarray(z.sum())``, ``np.zeros((), complex)``), the argument's kind
from a kind-keeping method (``np.complex64(1).copy()`` is a numpy scalar,
``np.zeros(()).copy()`` a 0-d array), a numpy scalar from a scalar type (``np.complex64(a)``).
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from pyonnx.frontend.graph import complex_kinds, scalar_kinds
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import ArrayMethod
from pyonnx.frontend.lower.complex_creation import CREATION

__all__ = ["with_kind", "hashable"]

# numpy's array constructors: a 0-d result is a 0-d array
_ARRAY_MAKERS = frozenset({np.array, np.asarray, np.asanyarray, np.ascontiguousarray,
                           np.asfortranarray, np.copy, np.where, np.require, *CREATION})
# numpy's scalar types: a numpy scalar
_SCALAR_MAKERS = frozenset({np.complex64, np.complex128, np.cdouble, np.csingle})
# methods and functions whose 0-d result is what their first argument is
_KIND_KEEPING_METHODS = frozenset({"copy", "astype", "reshape", "squeeze", "transpose",
                                   "swapaxes", "permute_dims", "view"})
_KIND_KEEPING = frozenset({np.reshape, np.squeeze, np.transpose, np.permute_dims})


def with_kind(ctx, func: Any, args: list, out: Any, method: tuple | None = None) -> Any:
    """``out`` (the result of ``func(*args)``; ``method``: (array, name) for a complex
    array's method) with numpy's kind recorded where it is not the rule's."""
    if complex_kinds.kind(out) is None:
        return out
    if method is not None:
        kind = complex_kinds.kind(method[0]) if method[1] in _KIND_KEEPING_METHODS else None
        args = [method[0], *args]
    elif isinstance(func, ArrayMethod):  # x.astype(complex) of a real 0-d value
        kind = scalar_kinds.scalar_kind(ctx, func.array) if func.name == "astype" else None
    elif not hashable(func) or func is builtins.complex:
        kind = None
    elif func in _ARRAY_MAKERS:
        kind = "array"
    elif func in _SCALAR_MAKERS:
        kind = "scalar"
    elif func in _KIND_KEEPING and args:
        kind = complex_kinds.kind(args[0])
    else:
        kind = None
    if kind is None or complex_kinds.kind(out) == kind:
        return out
    if any(out is a for a in args):
        # (the argument itself, of the other kind: np.asarray(s) of a numpy scalar is a new
        # 0-d array, np.complex64(a) of a 0-d array a new scalar; either is memory of its own)
        out = Complex(out.re, out.im, out.dtype, out.weak)
    return complex_kinds.mark(out, kind)


def hashable(f: Any) -> bool:
    """Whether ``f`` can be looked up in a set (a numpy function, a type)."""
    try:
        hash(f)
        return True
    except TypeError:
        return False

"""Python's ordering operators (``<``, ``<=``, ``>``, ``>=``) on complex values, as numpy
evaluates them: numpy scalars by numpy's scalar code, arrays by the ufunc.

Input: the operator and two operands, one complex (a Complex or a conversion-time complex).
Output: the bool Array of the comparison.

numpy's ``less``/``greater`` ufuncs on complex values are lexicographic and False whenever an
imaginary part is NaN (``CLT``); two numpy *scalars* (also a scalar and a Python number)
compare by the scalar code, ``x.imag < y.imag if x.real == y.real else x.real < y.real``, so
``np.complex128(1+nanj) > np.complex128(0)`` is True where the ufunc says False. The two
differ only there (an imaginary part NaN, the real parts different). Here:

* an operand with dimensions, or a 0-d array argument: the ufunc (ndarray's operators);
* numpy scalars pyonnx knows as such (``z[i]`` read by integer indices, numpy scalar
  constants) and Python numbers: the scalar code;
* any other 0-d value (carried by a loop, made by a function): numpy may hold a scalar or a
  0-d array there, so the ufunc's answer is checked at run time against the scalar code's,
  and the call fails (a run-time refusal) where they differ, rather than guess.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex, parts
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import complex_ops as ops
from pyonnx.frontend.lower.complex_ops import R

__all__ = ["compare"]

_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _kind(ctx, v: Any) -> str:
    """"array", "scalar" (numpy scalar or Python number) or "unknown" for a 0-d operand."""
    from pyonnx.frontend.lower.complex_state import scalar_copies

    if isinstance(v, (Complex, Array)):
        if v.ndim != 0 or (isinstance(v, Complex) and v.param is not None):
            return "array"
        if isinstance(v, Complex) and scalar_copies(ctx).get(id(v)) is v:
            return "scalar"
        if isinstance(v, Array) and v.weak:
            return "scalar"  # a Python number computed in the model
        return "unknown"
    if isinstance(v, np.ndarray):
        return "array"
    return "scalar"  # numpy scalar or Python number constants


def compare(ctx, op: type, a: Any, b: Any) -> Array:
    """``a <op> b`` as numpy evaluates Python's operator (see the module docstring)."""
    ufunc = ops.compare(ctx, op, a, b)
    if op not in _ORDER:
        return ufunc
    kinds = {_kind(ctx, a), _kind(ctx, b)}
    if "array" in kinds:
        return ufunc
    dt, _ = ops.result_dtype(ctx, np.add, a, b)
    r = R(ctx)
    ar, ai = parts(ctx, a, dt)
    br, bi = parts(ctx, b, dt)
    cmp = {ast.Lt: r.less, ast.LtE: r.less_equal, ast.Gt: r.greater,
           ast.GtE: r.greater_equal}[op]
    scalar = r.where(r.equal(ar, br), cmp(ai, bi), cmp(ar, br))
    if kinds == {"scalar"}:
        return scalar
    from pyonnx.frontend.graph.checks import runtime_check
    return runtime_check(ctx, r.not_equal(scalar, ufunc), ufunc,
                         "refused_complex_comparison_of_a_value_that_may_be_a_numpy_scalar_or_"
                         "a_0d_array_with_a_nan_imaginary_part")

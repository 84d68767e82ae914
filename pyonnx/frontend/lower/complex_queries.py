"""``np.iscomplex``, ``np.isreal``, ``np.real_if_close`` (element-wise questions about the
imaginary part, for real and complex arguments alike) and ``np.sort_complex`` of real arrays.

Input: one argument (an Array, a :class:`Complex`, or a 0-d value). Output: numpy's value.
These functions are in the complex dispatch (``complex_calls.involved`` sends them here even
for real arguments), so that one place owns them:

* ``np.iscomplex(x)``: ``x.imag != 0`` for complex ``x``; all False (a bool array of ``x``'s
  shape, a numpy bool for 0-d ``x``) for every other dtype;
* ``np.isreal(x)``: ``x.imag == 0`` (all True for a real ``x``);
* ``np.real_if_close(a, tol=100)``: ``a`` itself (numpy's same object: a view here) for a real
  ``a``. For a complex ``a`` numpy's result dtype depends on the values (complex, or real when
  every imaginary part is below ``tol``), which one ONNX model cannot have: refused;
* ``np.sort_complex(a)``: ``np.sort(a)`` made complex for a real ``a``; numpy's complex order
  (complex_order) for a complex one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex, is_complex, make
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.lower import complex_ops as ops

__all__ = ["FUNCS", "LIMITS"]


def _operand(ctx, x: Any, name: str) -> Array:
    """A real, dynamic argument as an Array; refuses a list that mixes complex items in."""
    if is_complex(x) or any(is_complex(v) for v in _flat(x)):
        raise ctx.error(f"np.{name} of a list holding complex values is not supported; make it "
                        "an array first (np.array([...]))")
    return ctx.asarray(x)


def _flat(x: Any) -> list:
    if isinstance(x, (list, tuple)):
        return [w for v in x for w in _flat(v)]
    return [x]


def _imag_test(ctx, x: Any, name: str, compare: str, real_answer: bool) -> Array:
    """``x.imag <compare> 0`` for complex ``x``; ``real_answer`` everywhere for a real one;
    a constant argument's answer is numpy's, computed at conversion time (a Python bool for a
    Python number in ``np.isreal``, as numpy's ``imag(x) == 0`` gives)."""
    if is_static(x):
        out = getattr(np, name)(x)
        return out if isinstance(out, bool) else ctx.const_array(np.asarray(out))
    r = ops.R(ctx)
    if isinstance(x, Complex):
        return getattr(r, compare)(x.im, 0)
    like = r.ones_like if real_answer else r.zeros_like
    return like(_operand(ctx, x, name), dtype=np.bool_)


def iscomplex(ctx, x: Any) -> Array:
    """``np.iscomplex(x)``: a bool array of ``x``'s shape (a numpy bool for 0-d ``x``)."""
    return _imag_test(ctx, x, "iscomplex", "not_equal", False)


def isreal(ctx, x: Any) -> Array:
    """``np.isreal(x)``: a bool array of ``x``'s shape (a numpy bool for 0-d ``x``)."""
    return _imag_test(ctx, x, "isreal", "equal", True)


def real_if_close(ctx, a: Any, tol: Any = 100) -> Any:
    """``np.real_if_close(a, tol=100)``: ``a`` for a real ``a`` (numpy's same object: a view
    writes through which are refused); numpy's answer for a constant ``a``; refused for a
    complex array."""
    if isinstance(a, Complex):
        raise ctx.error("np.real_if_close of a complex array is not supported: its result dtype "
                        "depends on the values (real when every imaginary part is within tol), "
                        "which one ONNX model cannot have; write z.real where you know the "
                        "imaginary parts are negligible, or keep z complex")
    if is_static(a):
        out = np.asarray(np.real_if_close(a, tol=ctx.static(tol, "tol")))
        if out.dtype.kind == "c":
            return make(ctx, out.real, out.imag, out.dtype)
        return ctx.const_array(out)
    if not isinstance(a, Array):
        return _operand(ctx, a, "real_if_close")  # a new array, as np.asarray makes one
    from pyonnx.frontend.lower.aliases import UNKNOWN, register_view
    return register_view(ctx, a, a, UNKNOWN)  # as np.real's view of a real array


def sort_complex(ctx, a: Any) -> Any:
    """``np.sort_complex(a)``: ``np.sort(a)`` as complex (complex64 for (u)int8/(u)int16,
    else complex128) for a real ``a``; complex_order's sort for a complex one."""
    if is_complex(a) and not isinstance(a, Complex):
        arr = np.asarray(a)
        a = make(ctx, ctx.const_array(arr.real), ctx.const_array(np.imag(arr)), arr.dtype)
    if isinstance(a, Complex):
        from pyonnx.frontend.lower.complex_order import sort
        return sort(ctx, a)
    from pyonnx.frontend.numpy_calls import lookup
    x = _operand(ctx, a, "sort_complex")
    if x.ndim == 0:
        raise ctx.error("np.sort_complex: axis -1 is out of bounds for array of dimension 0 "
                        "(numpy raises AxisError)")
    srt = lookup(np.sort).fn(ctx, x)
    dt = np.dtype(np.complex64 if x.dtype.char in "bhBH" else np.complex128)
    return make(ctx, srt, 0.0, dt)


FUNCS = {np.iscomplex: iscomplex, np.isreal: isreal, np.real_if_close: real_if_close,
         np.sort_complex: sort_complex}
# What the coverage table (tools/numpy_coverage.py) prints as "partly".
LIMITS = {np.real_if_close: "a complex array (not a constant) is refused: numpy's result dtype "
                            "depends on its values"}

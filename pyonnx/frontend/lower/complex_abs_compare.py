"""``abs(z) <op> t`` for a complex ``z`` and a number ``t`` known at conversion time, without
computing ``abs(z)``: the Mandelbrot escape test ``np.abs(z) <= 2.0`` and its kind.

Input: the comparison's operands, one of them an Array that :func:`absolute` made (recorded in
``ctx.complex_abs`` with the parts it came from), the other a static real number. Output: the
bool Array, or None when this form does not apply (the comparison is then the real one of the
computed ``abs``).

Why it is exact: ``abs`` lowers (registry ``np.hypot``) to ``g(s)`` with ``s = re*re + im*im``
(in float64 for complex64) and ``g`` the square root followed by roundings (to float32 for
complex64): a non-decreasing function of ``s`` while ``|z|`` is neither huge nor tiny (float64:
between the hypot lowering's scaling thresholds, 3e-151 and 3e150). So ``g(s) <= t`` is
``s <= T`` for ``T`` the largest ``s`` with ``g(s) <= t``, found here with numpy's correctly
rounded ``sqrt`` (onnxruntime's ``Sqrt`` is correctly rounded too) by a bisection; and
``g(s) < t`` is ``s < T'`` with ``T'`` the smallest ``s`` with ``g(s) >= t``. A ``t`` outside
``[1e-140, 1e140]`` keeps the real comparison (then a huge or tiny ``|z|`` could fall on either
side). Special values: an infinite part makes ``abs`` infinite (``s`` is inf or NaN), a NaN part
without an infinite one makes it NaN (``s`` is NaN): ``<``/``<=`` are false for both, as
``s <op> T`` is; ``>``/``>=`` are true for an infinite part, which is tested as ``|re| == inf``.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.complex_ops import R

__all__ = ["record", "compare"]

_F64 = np.dtype(np.float64)
_FLIP = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}


def record(ctx, out: Array, re: Array, im: Array) -> Array:
    """Remembers that ``out`` is ``abs`` of the complex value with parts ``re``, ``im``."""
    found = getattr(ctx, "complex_abs", None)
    if found is None:
        found = ctx.complex_abs = {}
    found[id(out)] = (out, re, im)  # (out held: its id stays unique)
    return out


def compare(ctx, op: type, left: Any, right: Any) -> Array | None:
    """``left <op> right`` when one side is a recorded ``abs`` and the other a static number
    in range (see the module docstring); None otherwise."""
    found = getattr(ctx, "complex_abs", None)
    if not found or op not in _FLIP:
        return None
    if _recorded(found, left) and _threshold(right) is not None:
        entry, t = found[id(left)], _threshold(right)
    elif _recorded(found, right) and _threshold(left) is not None:
        entry, t, op = found[id(right)], _threshold(left), _FLIP[op]
    else:
        return None
    out, re, im = entry
    kind = out.dtype
    if kind not in (np.float32, np.float64):
        return None
    t = float(np.dtype(kind).type(t))  # numpy compares in abs's dtype (NEP 50: t is weak)
    if not 1e-140 <= t <= 1e140:
        return None
    r = R(ctx)
    if re.dtype != _F64:
        re, im = ctx.cast(re, _F64), ctx.cast(im, _F64)
    s = r.add(r.multiply(re, re), r.multiply(im, im))
    g = _rounding(kind)
    if op is ast.LtE:
        return r.less_equal(s, _largest_at_most(g, t))
    if op is ast.Lt:
        return r.less(s, _smallest_at_least(g, t))
    inf = r.logical_or(r.equal(r.absolute(re), np.inf), r.equal(r.absolute(im), np.inf))
    if op is ast.Gt:
        return r.logical_or(r.greater(s, _largest_at_most(g, t)), inf)
    return r.logical_or(r.greater_equal(s, _smallest_at_least(g, t)), inf)


def _recorded(found: dict, v: Any) -> bool:
    return isinstance(v, Array) and id(v) in found and found[id(v)][0] is v


def _threshold(v: Any) -> float | None:
    """``v`` as a float when it is a real number known now (not a bool), else None."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer,
                                                              np.floating)):
        return None
    v = float(v)
    return v if np.isfinite(v) else None


def _rounding(kind: np.dtype):
    """``g``: abs's value from ``s`` as the hypot lowering computes it."""
    def g32(s):
        with np.errstate(over="ignore"):  # (the bisection tries huge s: inf, as onnxruntime)
            return float(np.float32(np.sqrt(np.float64(s))))
    return g32 if kind == np.float32 else (lambda s: float(np.sqrt(np.float64(s))))


def _bits(s: float) -> int:
    return int(np.array(s, np.float64).view(np.int64))


def _float(bits: int) -> np.float64:
    return np.array(bits, np.int64).view(np.float64)[()]


def _last_true(pred) -> np.float64:
    """The largest non-negative finite float64 ``s`` with ``pred(s)`` (``pred`` true up to a
    point, then false; true at 0): a bisection on the bit patterns, which order positive
    floats."""
    lo, hi = 0, _bits(np.inf)  # pred(lo) holds; pred(hi) does not (g(inf) is inf)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pred(_float(mid)):
            lo = mid
        else:
            hi = mid
    return _float(lo)


def _largest_at_most(g, t: float) -> np.float64:
    return _last_true(lambda s: g(s) <= t)


def _smallest_at_least(g, t: float) -> np.float64:
    return np.nextafter(_last_true(lambda s: g(s) < t), np.inf)

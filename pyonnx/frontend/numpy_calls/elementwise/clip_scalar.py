"""``np.clip`` of floats between one-element bounds as onnxruntime's ``Clip``, numpy's result bit
for bit.

Input: ``x``, ``lo``, ``hi`` already in the float loop dtype (float16/32/64), ``lo`` and ``hi``
with every dimension statically 1 and no more dimensions than ``x`` (so the result has ``x``'s
shape). Output: numpy 2.4's ``np.clip(x, lo, hi)``, or None when the form does not apply.

numpy's loop for one-element bounds keeps ``x`` on a tie (``np.clip(-0.0, 0.0, 1.0)`` is -0.0),
keeps a NaN ``x``, gives ``hi`` when ``lo > hi``, and gives NaN everywhere when a bound is NaN.
Which loop runs depends on the bounds' strides, which :func:`ties_keep_x` reproduces from the
shapes: of a ``±0`` tie float32/float64 keep ``x`` when both bounds hold one element and reach
the loop with stride 0, the bound otherwise (float16 keeps ``x`` always; measured with numpy
2.4.6).
onnxruntime's ``Clip`` is ``min(max(x, lo), hi)`` with ``std::max``'s pick: of equal values
the first (``x``), a NaN ``x`` kept, vectorized body and tail alike, and ``lo > hi`` gives
``hi`` (measured on every pair of -0.0, 0.0, ±1, ±3, 0.5, 5, ±1e-30, ±inf and NaN in ``x``,
lengths 1 to 100003, one and two threads, float16/32/64). Only a NaN bound differs: ``Clip``
ignores it. A constant bound is checked here; to a run-time one's ``Clip`` the 0-d
``where(isnan(bound), NaN, -0.0)`` is added (``x + -0.0`` is ``x``, zeros' signs included).

Measured (onnxruntime 1.32, one thread, (8400, 2) float32 against a run-time 0-d ``hi``):
``Clip`` 4.0 µs, with an ``If`` on the bound's NaN 5.0 µs, with the added 0-d value 6.1 µs,
``Max``/``Min`` 7.2 µs (before any zero-sign fix-up; the exact ``Max``/``Min`` picks this
replaces took 17 µs). The addition is kept although the ``If`` is 1 µs cheaper alone: the
passes see through elementwise ops, not an ``If`` (clip_boxes on (8400, 4): the ``If`` kept
two Transposes and a ScatterND chain that otherwise fold into one Concat).
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.rare_case import only_if
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.elementwise.common import _I64, _const, _emit, _logic

__all__ = ["clip_one_element_bounds", "ties_keep_x"]


def clip_one_element_bounds(ctx, x: Array, lo: Array, hi: Array, dt: np.dtype) -> Array | None:
    """numpy's float ``clip`` as one ``Clip`` (module docstring); None when a bound may hold
    more than one element or has more dimensions than ``x`` (the caller's general form)."""
    if dt.kind != "f" or any(b.ndim > x.ndim or any(d != 1 for d in b.shape) for b in (lo, hi)):
        return None
    if ties_keep_x(ctx, x, lo, hi, dt) is not True:
        return None
    lo, hi = (_scalar(ctx, b) for b in (lo, hi))
    out = _emit(ctx, "Clip", [x, lo, hi], dt)
    out = Array(out.value, dt, x.shape)
    flags = []
    for b in (lo, hi):
        const = b.value.const_value
        if const is None:
            flags.append(_emit(ctx, "IsNaN", [b], dt, np.dtype(np.bool_)))
        elif np.isnan(const.numpy()).any():
            return _nan_like(ctx, x, dt)
    if not flags:
        return out
    flag = flags[0] if len(flags) == 1 else _logic(ctx, "Or", *flags)
    if dt == np.float16:  # (float16 arithmetic runs between Casts: the If keeps it off the path)
        return only_if(ctx, flag, out, lambda ctx: _nan_like(ctx, x, dt), "clip_nan_bound")
    # numpy: a NaN bound makes every element NaN; onnxruntime's Clip would ignore it. The
    # 0-d NaN-or--0.0 added is exact otherwise (x + -0.0 is x, the sign of a zero included),
    # and elementwise: the passes see through it (an If here kept the Transposes of column
    # writes apart: clip_boxes).
    nan_or_zero = Array(ctx.op("Where", flag.value, _const(ctx, np.nan, dt).value,
                               _const(ctx, -0.0, dt).value), dt, ())
    return Array(_emit(ctx, "Add", [out, nan_or_zero], dt).value, dt, x.shape)


def ties_keep_x(ctx, x: Array, lo: Array, hi: Array, dt: np.dtype) -> bool | Array:
    """Whether numpy 2.4's float ``clip(x, lo, hi)`` keeps ``x`` of a ``±0`` tie (else the
    bound): True/False when the shapes say, else a 0-d bool Array computed at run time.

    float16 keeps ``x`` always. float32/float64 keep ``x`` only in the loop for bounds of
    stride 0: both bounds hold one element, and numpy does not take its trivially-iterable path
    (every operand 0-d or of the result's shape), where a non-0-d bound has its own stride
    (``np.clip(x, lo, 1.0)`` with ``x`` and ``lo`` both of shape (1,) keeps ``lo``; with ``x``
    of shape (2,) or (1, 1), ``x``). With every operand of one element, an operand has the
    result's shape exactly when it has its number of dimensions.

    Not reproduced: numpy's buffered iteration also reaches the stride-0 loop for larger
    bounds broadcast along a long enough inner axis (``x`` (3, 10000) with ``lo`` (3, 1): ``x``;
    (5, 4) with (5, 1): the bound), depending on sizes and memory layout; such bounds are
    taken to keep the bound.
    """
    if dt == np.float16:
        return True
    ones = [_one_element(ctx, b) for b in (lo, hi)]
    if any(o is False for o in ones):
        return False
    ndim = max(x.ndim, lo.ndim, hi.ndim)
    trivial_ndims = all(a.ndim in (0, ndim) for a in (x, lo, hi)) and ndim > 0 and \
        ndim in (lo.ndim, hi.ndim)
    if trivial_ndims:
        one_x = _one_element(ctx, x)
        if one_x is True:
            return False
        if one_x is not False:
            ones.append(_logic(ctx, "Not", one_x))
    flags = [o for o in ones if o is not True]
    if not flags:
        return True
    out = flags[0]
    for f in flags[1:]:
        out = _logic(ctx, "And", out, f)    # (And is binary)
    return out


def _one_element(ctx, a: Array) -> bool | Array:
    """Whether ``a`` holds one element: True/False when its shape says, else a 0-d bool Array."""
    if all(d == 1 for d in a.shape):
        return True
    if any(isinstance(d, int) and d != 1 for d in a.shape):
        return False
    size = Array(ctx.op("Size", a), _I64, ())
    return _emit(ctx, "Equal", [size, _const(ctx, 1, _I64)], _I64, np.dtype(np.bool_))


def _scalar(ctx, b: Array) -> Array:
    """A one-element bound as the 0-d tensor ``Clip`` requires."""
    if not b.ndim:
        return b
    return Array(ctx.op("Reshape", b, _const(ctx, np.zeros(0, np.int64), _I64)), b.dtype, ())


def _nan_like(ctx, x: Array, dt: np.dtype) -> Array:
    """NaN in ``x``'s shape and dtype (``x + NaN``)."""
    out = _emit(ctx, "Add", [x, _const(ctx, np.nan, dt)], dt)
    return Array(out.value, dt, x.shape)

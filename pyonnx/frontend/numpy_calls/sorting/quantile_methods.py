"""numpy's quantile methods (``_QuantileMethods``): the virtual index of each quantile and
the fix of its interpolation weight, for :mod:`.quantiles`.

Input: the Lowering, the number of values ``n`` (an int64 0-d value, known at run time), the
quantiles (a constant Array of their dtype, float) and the method name. Output: either integer
indexes (the discontinuous methods: numpy takes the elements, no interpolation) or float
virtual indexes plus numpy's ``fix_gamma``, each computed with numpy's own expression, in its
order and in the quantiles' dtype (``n`` is a Python int there: weak).

The 13 methods: 'inverted_cdf', 'averaged_inverted_cdf', 'closest_observation',
'interpolated_inverted_cdf', 'hazen', 'weibull', 'linear', 'median_unbiased',
'normal_unbiased', 'lower', 'higher', 'midpoint', 'nearest'.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.sorting.common import _BOOL, _I64, emit_exact

__all__ = ["METHODS", "DISCRETE", "virtual_indexes", "fix_gamma"]

# numpy's (alpha, beta) of the continuous methods built on _compute_virtual_index
_ALPHA_BETA = {"interpolated_inverted_cdf": (0, 1), "hazen": (0.5, 0.5), "weibull": (0, 0),
               "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}
DISCRETE = frozenset({"inverted_cdf", "closest_observation", "lower", "higher", "nearest"})
METHODS = frozenset(_ALPHA_BETA) | DISCRETE | {"linear", "averaged_inverted_cdf", "midpoint"}


def _c(ctx, value, dtype) -> Array:
    """A Python number as numpy uses it next to an array of ``dtype`` (weak: cast)."""
    return ctx.const_array(np.array(value, dtype))


def _op(ctx, op: str, a: Array, b: Array) -> Array:
    return emit_exact(ctx, op, [a, b], a.dtype)


def _floor(ctx, a: Array) -> Array:
    return emit_exact(ctx, "Floor", [a], a.dtype)


def _to_index(ctx, a: Array) -> Array:
    """``.astype(np.intp)``, then numpy's ``res[res < 0] = 0`` (harmless where not needed:
    these indexes are never negative otherwise)."""
    idx = ctx.cast(a, _I64)
    zero = ctx.const(np.array(0, np.int64))
    return Array(ctx.op("Max", idx, zero), _I64, a.shape)


def _boundaries(ctx, index: Array, closest: bool) -> Array:
    """numpy's ``_discrete_interpolation_to_boundaries``: previous where the condition holds,
    else next (``gamma == 0``, and for closest_observation an odd previous)."""
    dt = index.dtype
    previous = _floor(ctx, index)
    nxt = _op(ctx, "Add", previous, _c(ctx, 1, dt))
    gamma = _op(ctx, "Sub", index, previous)
    cond = emit_exact(ctx, "Equal", [gamma, _c(ctx, 0, dt)], dt, out_dtype=_BOOL)
    if closest:
        # np.floor(index) % 2 == 1 (Python's modulo; previous is integral, so exact)
        half = _floor(ctx, _op(ctx, "Div", previous, _c(ctx, 2, dt)))
        mod = _op(ctx, "Sub", previous, _op(ctx, "Mul", half, _c(ctx, 2, dt)))
        odd = emit_exact(ctx, "Equal", [mod, _c(ctx, 1, dt)], dt, out_dtype=_BOOL)
        cond = Array(ctx.op("And", cond, odd), _BOOL, cond.shape)
    return _to_index(ctx, kernels.where(ctx, cond, previous, nxt))


def virtual_indexes(ctx, method: str, n: Array, q: Array) -> tuple[bool, Array]:
    """(discrete, indexes): int64 element indexes for the discrete methods, else the float
    virtual indexes in ``q``'s dtype. ``n`` is the int64 0-d number of values."""
    dt = q.dtype
    nq = ctx.cast(n, dt)
    n1 = ctx.cast(Array(ctx.op("Sub", n, ctx.const(np.array(1, np.int64))), _I64, ()), dt)
    if method in ("linear", "lower", "higher", "nearest", "midpoint"):
        v = _op(ctx, "Mul", n1, q)  # (n - 1) * quantiles
        if method == "linear":
            return False, v
        if method == "lower":
            return True, _to_index(ctx, _floor(ctx, v))
        if method == "higher":
            return True, _to_index(ctx, emit_exact(ctx, "Ceil", [v], dt))
        if method == "nearest":  # np.around: half to even, as ONNX Round
            return True, _to_index(ctx, emit_exact(ctx, "Round", [v], dt))
        total = _op(ctx, "Add", _floor(ctx, v), emit_exact(ctx, "Ceil", [v], dt))
        return False, _op(ctx, "Mul", _c(ctx, 0.5, dt), total)
    nq_q = _op(ctx, "Mul", nq, q)  # n * quantiles
    if method == "inverted_cdf":
        return True, _boundaries(ctx, _op(ctx, "Sub", nq_q, _c(ctx, 1, dt)), False)
    if method == "closest_observation":
        index = _op(ctx, "Sub", _op(ctx, "Sub", nq_q, _c(ctx, 1, dt)), _c(ctx, 0.5, dt))
        return True, _boundaries(ctx, index, True)
    if method == "averaged_inverted_cdf":
        return False, _op(ctx, "Sub", nq_q, _c(ctx, 1, dt))
    alpha, beta = _ALPHA_BETA[method]
    # n * quantiles + (alpha + quantiles * (1 - alpha - beta)) - 1
    inner = _op(ctx, "Add", _c(ctx, alpha, dt), _op(ctx, "Mul", q, _c(ctx, 1 - alpha - beta, dt)))
    return False, _op(ctx, "Sub", _op(ctx, "Add", nq_q, inner), _c(ctx, 1, dt))


def fix_gamma(ctx, method: str, gamma: Array, vi: Array) -> Array:
    """numpy's ``fix_gamma`` of the continuous methods (identity for most)."""
    dt = gamma.dtype
    if method == "averaged_inverted_cdf":  # 0.5 where gamma == 0, else 1
        zero = emit_exact(ctx, "Equal", [gamma, _c(ctx, 0, dt)], dt, out_dtype=_BOOL)
        return kernels.where(ctx, zero, _c(ctx, 0.5, dt), _c(ctx, 1, dt))
    if method == "midpoint":  # 0 where index % 1 == 0, else 0.5 (vi >= 0: fmod is Python's %)
        whole = emit_exact(ctx, "Equal", [vi, _floor(ctx, vi)], dt, out_dtype=_BOOL)
        return kernels.where(ctx, whole, _c(ctx, 0, dt), _c(ctx, 0.5, dt))
    return gamma

"""``sklearn.metrics.pairwise`` on dense arrays (see :mod:`pyonnx.sklearn.helpers`).

As scikit-learn computes them (``check_pairwise_arrays``: float32 when both are float32, else
float64; ``Y=None`` means ``Y = X``, and then ``X is Y``):

- ``euclidean_distances(X, Y=None, *, Y_norm_squared=None, squared=False,
  X_norm_squared=None)``: ``-2 X·Yᵀ + |x|² + |y|²`` clipped at 0 (float32 inputs computed in
  float64 and cast back, as scikit-learn's upcast does; given norms used unless float32),
  a zero diagonal when ``X is Y``, the square root unless ``squared``.
- ``manhattan_distances``: ``Σ|x - y|`` (float64, as scipy's ``cdist`` returns).
- ``cosine_similarity(X, Y=None)``: rows scaled to unit length (a norm under 10 eps counts as
  1) and multiplied; ``cosine_distances`` = ``clip(1 - S, 0, 2)`` with a zero diagonal when
  ``X is Y``.
- ``linear_kernel`` ``X·Yᵀ``; ``polynomial_kernel`` ``(gamma X·Yᵀ + coef0) ** degree``;
  ``rbf_kernel`` ``exp(-gamma |x - y|²)`` (``gamma=None``: ``1 / n_features``).
- ``pairwise_distances(X, Y=None, metric=...)`` for the metrics ``"euclidean"``/``"l2"``,
  ``"manhattan"``/``"l1"``/``"cityblock"`` and ``"cosine"`` (others are refused).

The arguments must be 2-D arrays with the same number of columns (known at conversion time
where the shapes are); ``dense_output`` is always dense here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.metrics import pairwise as _pw

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.sklearn.helpers import bind, inline

__all__ = []


# ------------------------------------------------------------ numpy cores (converted source)
def _diagonal_zero(d):
    n = d.shape[0]
    return np.where(np.arange(n)[:, None] == np.arange(n)[None, :], 0, d).astype(d.dtype)


def _euclidean_core(X, Y, XX, YY, same, squared):
    upcast = X.dtype == np.float32
    if upcast:
        X = X.astype(np.float64)
        Y = Y.astype(np.float64)
    if XX is None:
        XX = (X * X).sum(axis=1)[:, None]
    else:
        XX = XX.reshape(-1, 1)
    if YY is None:
        YY = (Y * Y).sum(axis=1)[None, :]
    else:
        YY = YY.reshape(1, -1)
    d = -2 * (X @ Y.T)
    d = d + XX
    d = d + YY
    if upcast:
        d = d.astype(np.float32)
    d = np.maximum(d, 0)
    if same:
        d = _diagonal_zero(d)
    if squared:
        return d
    return np.sqrt(d)


def _manhattan_core(X, Y):
    X = X.astype(np.float64)
    Y = Y.astype(np.float64)
    return np.abs(X[:, None, :] - Y[None, :, :]).sum(axis=2)


def _unit_rows(X):
    norms = np.sqrt((X * X).sum(axis=1))
    norms = np.where(norms < 10 * np.finfo(X.dtype).eps, 1, norms).astype(X.dtype)
    return X / norms[:, None]


def _cosine_core(X, Y, same):
    Xn = _unit_rows(X)
    if same:
        return Xn @ Xn.T
    return Xn @ _unit_rows(Y).T


def _cosine_distances_core(X, Y, same):
    S = _cosine_core(X, Y, same)
    S = np.clip(1 - S, 0, 2)
    if same:
        S = _diagonal_zero(S)
    return S


def _linear_core(X, Y):
    return X @ Y.T


def _polynomial_core(X, Y, degree, gamma, coef0):
    K = X @ Y.T
    K *= gamma
    K += coef0
    K **= degree
    return K


def _rbf_core(X, Y, same, gamma):
    K = _euclidean_core(X, Y, None, None, same, True)
    K *= -gamma
    return np.exp(K)


# ------------------------------------------------------------ conversion-time decisions
def _pair(ctx, X: Any, Y: Any, name: str) -> tuple[Array, Array, bool]:
    """``check_pairwise_arrays``: both as float arrays of one dtype, and whether ``X is Y``."""
    same = Y is None or Y is X
    if Y is None:
        Y = X
    arrays = []
    for v, which in ((X, "X"), (Y, "Y")):
        if isinstance(v, np.ndarray):
            v = ctx.asarray(v)
        if not isinstance(v, Array):
            raise ctx.error(f"{name}(): {which} must be an array (got {type(v).__name__})")
        if v.ndim != 2:
            raise ctx.error(f"{name}(): expected 2D arrays, got a {v.ndim}-D {which}; reshape "
                            "it with x.reshape(1, -1) for one sample (scikit-learn raises "
                            "ValueError)")
        arrays.append(v)
    X, Y = arrays
    if X.shape[1] is not None and Y.shape[1] is not None and X.shape[1] != Y.shape[1]:
        raise ctx.error(f"{name}(): incompatible dimension for X and Y matrices: "
                        f"X.shape[1] == {X.shape[1]} while Y.shape[1] == {Y.shape[1]}")
    dtype = np.dtype(np.float32 if X.dtype == Y.dtype == np.float32 else np.float64)
    X = X if X.dtype == dtype else ctx.cast(Array(X.value, X.dtype, X.shape), dtype)
    Y = X if same else (Y if Y.dtype == dtype else
                        ctx.cast(Array(Y.value, Y.dtype, Y.shape), dtype))
    return X, Y, same


def _norms(ctx, norms: Any) -> Any:
    """A given squared-norms argument: used unless float32 (scikit-learn ignores those)."""
    if norms is None:
        return None
    if isinstance(norms, np.ndarray):
        norms = ctx.asarray(norms)
    if not isinstance(norms, Array):
        raise ctx.error("euclidean_distances(): squared norms must be an array")
    return None if norms.dtype == np.float32 else norms


def _gamma(ctx, gamma: Any, X: Array) -> Any:
    if gamma is not None:
        return gamma
    if X.shape[1] is None:
        raise ctx.error("gamma=None means 1 / n_features, unknown at conversion time here; "
                        "pass gamma=")
    return 1.0 / X.shape[1]


@register(_pw.euclidean_distances, name="sklearn.metrics.pairwise.euclidean_distances")
def euclidean_distances_(ctx, *args, **kwargs):
    p = bind(ctx, _pw.euclidean_distances, "euclidean_distances", args, kwargs)
    X, Y, same = _pair(ctx, p["X"], p["Y"], "euclidean_distances")
    XX = _norms(ctx, p["X_norm_squared"])
    YY = XX if same and p["Y_norm_squared"] is None else _norms(ctx, p["Y_norm_squared"])
    return inline(ctx, _euclidean_core, X, Y, XX, YY, same,
                  bool(ctx.static(p["squared"], "squared")))


@register(_pw.manhattan_distances, name="sklearn.metrics.pairwise.manhattan_distances")
def manhattan_distances_(ctx, *args, **kwargs):
    p = bind(ctx, _pw.manhattan_distances, "manhattan_distances", args, kwargs)
    X, Y, _ = _pair(ctx, p["X"], p["Y"], "manhattan_distances")
    return inline(ctx, _manhattan_core, X, Y)


@register(_pw.cosine_similarity, name="sklearn.metrics.pairwise.cosine_similarity")
def cosine_similarity_(ctx, *args, **kwargs):
    p = bind(ctx, _pw.cosine_similarity, "cosine_similarity", args, kwargs)
    X, Y, same = _pair(ctx, p["X"], p["Y"], "cosine_similarity")
    return inline(ctx, _cosine_core, X, Y, same)


@register(_pw.cosine_distances, name="sklearn.metrics.pairwise.cosine_distances")
def cosine_distances_(ctx, *args, **kwargs):
    p = bind(ctx, _pw.cosine_distances, "cosine_distances", args, kwargs)
    X, Y, same = _pair(ctx, p["X"], p["Y"], "cosine_distances")
    return inline(ctx, _cosine_distances_core, X, Y, same)


@register(_pw.linear_kernel, name="sklearn.metrics.pairwise.linear_kernel")
def linear_kernel_(ctx, *args, **kwargs):
    p = bind(ctx, _pw.linear_kernel, "linear_kernel", args, kwargs)
    X, Y, _ = _pair(ctx, p["X"], p["Y"], "linear_kernel")
    return inline(ctx, _linear_core, X, Y)


@register(_pw.polynomial_kernel, name="sklearn.metrics.pairwise.polynomial_kernel")
def polynomial_kernel_(ctx, *args, **kwargs):
    p = bind(ctx, _pw.polynomial_kernel, "polynomial_kernel", args, kwargs)
    X, Y, _ = _pair(ctx, p["X"], p["Y"], "polynomial_kernel")
    return inline(ctx, _polynomial_core, X, Y, p["degree"], _gamma(ctx, p["gamma"], X),
                  p["coef0"])


@register(_pw.rbf_kernel, name="sklearn.metrics.pairwise.rbf_kernel")
def rbf_kernel_(ctx, *args, **kwargs):
    p = bind(ctx, _pw.rbf_kernel, "rbf_kernel", args, kwargs)
    X, Y, same = _pair(ctx, p["X"], p["Y"], "rbf_kernel")
    return inline(ctx, _rbf_core, X, Y, same, _gamma(ctx, p["gamma"], X))


_METRICS = {"euclidean": euclidean_distances_, "l2": euclidean_distances_,
            "manhattan": manhattan_distances_, "l1": manhattan_distances_,
            "cityblock": manhattan_distances_, "cosine": cosine_distances_}


@register(_pw.pairwise_distances, name="sklearn.metrics.pairwise.pairwise_distances")
def pairwise_distances_(ctx, *args, **kwargs):
    p = bind(ctx, _pw.pairwise_distances, "pairwise_distances", args, kwargs)
    metric = ctx.static(p["metric"], "metric")
    lowering = _METRICS.get(metric) if isinstance(metric, str) else None
    if lowering is None:
        raise ctx.error(f"pairwise_distances(metric={metric!r}) is not converted; the metrics "
                        f"converted are {sorted(_METRICS)} (for another, write the distance "
                        "with numpy broadcasting: X[:, None, :] - Y[None, :, :])")
    extra = dict(p.get("kwds", {}))
    return lowering(ctx, p["X"], p["Y"], **extra)

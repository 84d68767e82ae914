"""``sklearn.utils.extmath`` on dense arrays (see :mod:`pyonnx.sklearn.helpers`).

- ``softmax(X, copy=True)``: ``exp(X - max)`` over each row, divided by its sum (float ``X``;
  scikit-learn computes in place, which refuses integer arrays).
- ``stable_cumsum(arr, axis=None)``: ``np.cumsum(arr, axis=axis, dtype=np.float64)``; the
  stability check only warns in scikit-learn and is not part of the model.

- ``row_norms(X, squared=False)``: ``np.einsum("ij,ij->i", X, X)`` (and its square root), as
  scikit-learn computes it for a numpy array. Registered rather than followed from its source:
  scikit-learn 1.6's array-API helpers use a set expression pyonnx does not convert.

``safe_sparse_dot`` converts from scikit-learn's own source.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import extmath as _em

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.sklearn.helpers import bind, inline

__all__ = []


def _softmax_core(X):
    X = X - X.max(axis=1).reshape(-1, 1)
    X = np.exp(X)
    return X / X.sum(axis=1).reshape(-1, 1)


def _row_norms_core(X):
    return np.einsum("ij,ij->i", X, X)


def _row_norms_sqrt_core(X):
    return np.sqrt(np.einsum("ij,ij->i", X, X))


def _cumsum_core(arr, axis):
    return np.cumsum(arr, axis=axis, dtype=np.float64)


@register(_em.softmax, name="sklearn.utils.extmath.softmax")
def softmax_(ctx, *args, **kwargs):
    p = bind(ctx, _em.softmax, "softmax", args, kwargs)
    X = p["X"]
    if not isinstance(X, Array) or X.ndim != 2 or X.dtype.kind != "f":
        raise ctx.error("softmax(X) is converted for a 2-D float array X (scikit-learn "
                        "computes in place, in X's dtype)")
    return inline(ctx, _softmax_core, X)


@register(_em.row_norms, name="sklearn.utils.extmath.row_norms")
def row_norms_(ctx, *args, **kwargs):
    p = bind(ctx, _em.row_norms, "row_norms", args, kwargs)
    X = p["X"]
    if not isinstance(X, Array) or X.ndim != 2:
        raise ctx.error("row_norms(X) is converted for a 2-D array X (a dense array: scikit-learn "
                        "computes np.einsum('ij,ij->i', X, X))")
    squared = ctx.static(p["squared"], "squared")
    return inline(ctx, _row_norms_core if squared else _row_norms_sqrt_core, X)


if hasattr(_em, "stable_cumsum"):  # deprecated in scikit-learn 1.8
    @register(_em.stable_cumsum, name="sklearn.utils.extmath.stable_cumsum")
    def stable_cumsum_(ctx, *args, **kwargs):
        p = bind(ctx, _em.stable_cumsum, "stable_cumsum", args, kwargs)
        return inline(ctx, _cumsum_core, p["arr"], p["axis"])

"""scikit-learn's validation helpers on dense arrays (see :mod:`pyonnx.sklearn.helpers`).

- ``as_float_array(X, copy=True)``: float32/float64 ``X`` itself (a copy when ``copy``); other
  dtypes cast as scikit-learn does (bool and integers of at most 4 bytes to float32, the rest
  to float64).
- ``column_or_1d(y, dtype=None)``: a 1-D ``y``, or a ``(n, 1)`` column raveled; other shapes
  are refused (scikit-learn raises ValueError). The shape must be known at conversion time.
- ``check_consistent_length(*arrays)``: the first dimensions are compared where known at
  conversion time; a mismatch is refused (scikit-learn raises ValueError).
- ``_check_feature_names(est, X, reset=False)``: nothing for an array ``X`` (it has no
  feature names; scikit-learn only warns when the estimator was fitted on a DataFrame).
- ``_check_n_features(est, X, reset=False)``: ``X``'s column count against the fitted
  ``n_features_in_``, at conversion time.

``reset=True`` refits the estimator's input description: refused (a ``transform`` or
``predict`` calls these with ``reset=False``). Checks of values are not part of the model (as
for ``check_array``: see :mod:`pyonnx.sklearn.validation`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils import validation as _sk

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.sklearn.helpers import bind, inline

__all__ = []


def _copied(X):
    return X.copy()


def _raveled(y):
    return y.ravel()


def _array(ctx, value: Any, name: str) -> Array:
    if not isinstance(value, Array):
        if isinstance(value, np.ndarray):
            return ctx.asarray(value)
        raise ctx.error(f"{name}() is converted for arrays; got {type(value).__name__}")
    return value


@register(_sk.as_float_array, name="sklearn.utils.as_float_array")
def as_float_array_(ctx, *args, **kwargs):
    params = bind(ctx, _sk.as_float_array, "as_float_array", args, kwargs)
    X = _array(ctx, params["X"], "as_float_array")
    if X.dtype in (np.float32, np.float64):
        return inline(ctx, _copied, X) if ctx.static(params["copy"], "copy") else X
    small = X.dtype.kind in "uib" and X.dtype.itemsize <= 4
    return ctx.cast(Array(X.value, X.dtype, X.shape), np.float32 if small else np.float64)


@register(_sk.column_or_1d, name="sklearn.utils.column_or_1d")
def column_or_1d_(ctx, *args, **kwargs):
    params = bind(ctx, _sk.column_or_1d, "column_or_1d", args, kwargs)
    y = _array(ctx, params["y"], "column_or_1d")
    dtype = ctx.static(params["dtype"], "dtype")
    if dtype is not None and np.dtype(dtype) != y.dtype:
        y = ctx.cast(Array(y.value, y.dtype, y.shape), np.dtype(dtype))
    if y.ndim == 1:
        return y
    if y.ndim == 2 and y.shape[1] == 1:
        return inline(ctx, _raveled, y)
    if y.ndim == 2 and y.shape[1] is None:
        raise ctx.error("column_or_1d(): the column count of y is not known at conversion "
                        "time, so whether it is a column cannot be decided; write y.ravel() "
                        "or y[:, 0]")
    shape = tuple("?" if d is None else d for d in y.shape)
    raise ctx.error(f"column_or_1d(): y should be a 1d array, got an array of shape {shape} "
                    "instead (scikit-learn raises ValueError)")


@register(_sk.check_consistent_length, name="sklearn.utils.check_consistent_length")
def check_consistent_length_(ctx, *arrays):
    lengths = set()
    for a in arrays:
        if a is None:
            continue
        if isinstance(a, Array):
            if a.ndim == 0:
                raise ctx.error("check_consistent_length(): a 0-d array has no length "
                                "(scikit-learn raises TypeError)")
            if a.shape[0] is not None:
                lengths.add(a.shape[0])
        elif hasattr(a, "__len__"):
            lengths.add(len(a))
    if len(lengths) > 1:
        raise ctx.error(f"check_consistent_length(): found input variables with inconsistent "
                        f"numbers of samples: {sorted(lengths)} (scikit-learn raises ValueError)")
    return None


def _no_reset(ctx, reset: Any, name: str) -> None:
    if ctx.static(reset, "reset"):
        raise ctx.error(f"{name}(..., reset=True) refits the estimator's input description; "
                        f"transform and predict call {name}(self, X, reset=False)")


@register(_sk._check_feature_names, name="sklearn.utils.validation._check_feature_names")
def check_feature_names_(ctx, *args, **kwargs):
    params = bind(ctx, _sk._check_feature_names, "_check_feature_names", args, kwargs)
    _no_reset(ctx, params["reset"], "_check_feature_names")
    _array(ctx, params["X"], "_check_feature_names")
    return None


@register(_sk._check_n_features, name="sklearn.utils.validation._check_n_features")
def check_n_features_(ctx, *args, **kwargs):
    params = bind(ctx, _sk._check_n_features, "_check_n_features", args, kwargs)
    _no_reset(ctx, params["reset"], "_check_n_features")
    X = _array(ctx, params["X"], "_check_n_features")
    estimator = params["estimator"]
    fitted = getattr(estimator, "n_features_in_", None)
    if X.ndim == 2 and isinstance(fitted, int) and X.shape[1] is not None \
            and X.shape[1] != fitted:
        raise ctx.error(f"X has {X.shape[1]} features, but {type(estimator).__name__} is "
                        f"expecting {fitted} features as input (scikit-learn raises ValueError)")
    return None

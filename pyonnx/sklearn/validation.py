"""scikit-learn's input validation calls, as they appear in a ``transform`` or ``predict``.

Input: calls in the converted source. Output: pyonnx registry entries, so they are understood
instead of inlined (their own source is sklearn's, which handles sparse matrices and data
frames). Supported forms:

- ``check_is_fitted(self, ...)``: runs at conversion time on the fitted instance (it raises
  ``NotFittedError`` there, as in scikit-learn).
- ``check_array(X, ...)`` and ``validate_data(self, X, reset=False, ...)`` on the array ``X``:
  ``X`` itself (numpy keeps numeric dtypes for ``dtype="numeric"``; a copy for ``copy=True``),
  cast when ``dtype=`` names another dtype or a list of dtypes that does not hold ``X``'s;
  ``ensure_2d``/``allow_nd``/``ensure_min_features``/``ensure_min_samples`` and the fitted
  ``n_features_in_`` are checked against ``X``'s shape at conversion where it is known.
  ``order``, ``accept_sparse``, ``accept_large_sparse``, ``force_writeable``, ``estimator``
  and ``input_name`` do not change a dense result.

Known difference: the checks scikit-learn makes on the *values* (``ensure_all_finite``,
``ensure_non_negative``, ``ensure_min_samples``) raise in Python and are not part of the model,
which computes with NaN and infinities as numpy does (as skl2onnx's own converters do).
Refused: ``validate_data(..., reset=True)`` (it refits ``n_features_in_``) and validating ``y``.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from sklearn.utils import validation as _sk
from sklearn.utils.validation import check_array, check_is_fitted

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register

__all__ = []


def _bind(ctx, target, args: tuple, kwargs: dict) -> dict[str, Any]:
    try:
        bound = inspect.signature(target).bind(*args, **kwargs)
    except TypeError as e:
        raise ctx.error(f"{target.__name__}(): {e}") from None
    bound.apply_defaults()
    return bound.arguments


def _checked(ctx, array: Any, params: dict[str, Any], name: str) -> Array:
    """``check_array``'s result for an array ``X`` (see the module docstring)."""
    if not isinstance(array, Array):
        raise ctx.error(f"{name}() is converted for the array X only")
    if params.get("ensure_2d", True) and array.ndim != 2:
        raise ctx.error(f"{name}(): expected a 2-D array, got {array.ndim}-D (scikit-learn "
                        "raises ValueError)")
    if not params.get("allow_nd", False) and array.ndim > 2:
        raise ctx.error(f"{name}(): found an array with {array.ndim} dimensions; pass "
                        "allow_nd=True")
    min_features = params.get("ensure_min_features", 1)
    if array.ndim == 2 and array.shape[1] is not None and array.shape[1] < min_features:
        raise ctx.error(f"{name}(): {array.shape[1]} feature(s), a minimum of {min_features} "
                        "is required")
    min_samples = params.get("ensure_min_samples", 1)
    if array.ndim >= 1 and array.shape[0] is not None and array.shape[0] < min_samples:
        raise ctx.error(f"{name}(): {array.shape[0]} sample(s), a minimum of {min_samples} is "
                        "required (scikit-learn raises ValueError)")
    dtype = ctx.static(params.get("dtype", "numeric"), "dtype")
    if isinstance(dtype, (list, tuple)):
        wanted = [np.dtype(d) for d in dtype]
        dtype = None if array.dtype in wanted else wanted[0]
    if dtype is not None and not (isinstance(dtype, str) and dtype == "numeric"):
        if np.dtype(dtype) == object:
            raise ctx.error(f"{name}(dtype=object) is not converted: a model computes with "
                            "numbers; pass a numeric dtype")
        if np.dtype(dtype) != array.dtype:
            return ctx.cast(array, np.dtype(dtype))  # a new array: numpy copies to cast
    if ctx.static(params.get("copy", False), "copy"):
        from pyonnx.sklearn.helpers import inline
        from pyonnx.sklearn.helpers.checks import _copied

        return inline(ctx, _copied, array)
    return array


@register(check_array, name="sklearn.utils.validation.check_array")
def check_array_(ctx, *args, **kwargs):
    """``check_array(X, ...)`` → ``X`` (cast to ``dtype=`` when given)."""
    params = _bind(ctx, check_array, args, kwargs)
    return _checked(ctx, params["array"], params, "check_array")


def validate_data_(ctx, *args, **kwargs):
    """``validate_data(self, X, reset=False, ...)`` → ``X`` (cast to ``dtype=`` when given)."""
    params = _bind(ctx, _sk.validate_data, args, kwargs)
    estimator, X = params["_estimator"], params["X"]
    if ctx.static(params["reset"], "reset"):
        raise ctx.error("validate_data(..., reset=True) refits n_features_in_; transform and "
                        "predict call validate_data(self, X, reset=False)")
    y = params["y"]
    if not (y is None or (isinstance(y, str) and y == "no_validation")):
        raise ctx.error("validate_data() of y is not converted: a prediction graph has X only")
    check_params = params.get("check_params", {})
    if params["skip_check_array"]:
        return X
    fitted = getattr(estimator, "n_features_in_", None)
    if (isinstance(X, Array) and X.ndim == 2 and isinstance(fitted, int)
            and X.shape[1] is not None and X.shape[1] != fitted):
        raise ctx.error(f"X has {X.shape[1]} features, but {type(estimator).__name__} is "
                        f"expecting {fitted} features as input")
    return _checked(ctx, X, check_params, "validate_data")


if hasattr(_sk, "validate_data"):  # scikit-learn 1.6+
    register(_sk.validate_data, name="sklearn.utils.validation.validate_data")(validate_data_)


@register(check_is_fitted, name="sklearn.utils.validation.check_is_fitted")
def check_is_fitted_(ctx, *args, **kwargs):
    """``check_is_fitted(self, ...)``: runs at conversion time (all its arguments are static)."""
    raise ctx.error("check_is_fitted() takes the estimator, not an array")

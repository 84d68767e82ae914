"""Objects custom code builds inside ``transform``: converted where their meaning is a numpy
expression, else refused with advice.

Input: calls in the converted source. Output: registry entries and advice (see
:func:`pyonnx.frontend.lower.followed.add_advice`).

- ``MissingIndicator(features="all", missing_values=np.nan).fit_transform(X)`` (or
  ``.fit(X).transform(X)``) is ``np.isnan(X)`` (``X == missing_values`` for a number): with
  ``features="all"`` fitting learns nothing the result depends on. ``features="missing-only"``
  keeps the columns where the data had missing values, which the batch decides: refused, with
  the advice to fit it in ``fit`` and keep it on ``self``.
- Any other scikit-learn estimator created inside a method is refused with that advice (a
  fitted estimator on ``self`` converts; see :mod:`pyonnx.sklearn.fitted`).
"""

from __future__ import annotations

import numpy as np
from sklearn.impute import MissingIndicator

from pyonnx.frontend.lower.followed import add_advice
from pyonnx.frontend.numpy_calls.registry import register

__all__ = []

_KEEP_ON_SELF = ("fit it in fit() and keep it on self (self.{attr}_ = {cls}(...).fit(X)); "
                 "pyonnx converts self.{attr}_.transform(X) / .predict(X) with the fitted "
                 "estimator's own graph")


class _AllFeaturesIndicator:
    """``MissingIndicator(features="all")`` as pyonnx converts it (its methods are converted
    from this source)."""

    def __init__(self, missing_values, nan):
        self.missing_values = missing_values
        self.nan = nan

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        if self.nan:
            return np.isnan(X)
        return X == self.missing_values

    def fit_transform(self, X, y=None):
        return self.transform(X)


@register(MissingIndicator, static_eval=False, name="sklearn.impute.MissingIndicator")
def missing_indicator_(ctx, *args, **kwargs):
    """``MissingIndicator(...)`` inside a method: the all-features form (module docstring)."""
    import inspect

    try:
        bound = inspect.signature(MissingIndicator).bind(*args, **kwargs)
    except TypeError as e:
        raise ctx.error(f"MissingIndicator(): {e}") from None
    bound.apply_defaults()
    params = bound.arguments
    features = ctx.static(params["features"], "features")
    if features != "all":
        raise ctx.error(
            f"MissingIndicator(features={features!r}) built inside the method keeps the columns "
            "where this batch has missing values, which changes the output's width per batch; "
            + _KEEP_ON_SELF.format(attr="indicator", cls="MissingIndicator")
            + " (or pass features='all': np.isnan(X))")
    if ctx.static(params["sparse"], "sparse") is True:
        raise ctx.error("MissingIndicator(sparse=True) returns a sparse matrix; pyonnx "
                        "converts dense arrays (sparse='auto' or False)")
    missing = ctx.static(params["missing_values"], "missing_values")
    nan = isinstance(missing, float) and np.isnan(missing)
    if not nan and not isinstance(missing, (int, float, np.number)):
        raise ctx.error(f"MissingIndicator(missing_values={missing!r}) is not converted: use "
                        "np.nan or a number")
    return _AllFeaturesIndicator(missing, nan)


def _advice(name: str) -> str | None:
    short = name.rsplit(".", 1)[-1]
    if short[:1].isupper():  # a class: an estimator built inside the method
        return _KEEP_ON_SELF.format(attr=short.lower(), cls=short)
    return ("pyonnx.sklearn converts the scikit-learn helpers listed in the README (\"what "
            f"converts inside a custom transformer\"); {short}() is not one of them: write what "
            "it computes with numpy")


add_advice("sklearn.", _advice)

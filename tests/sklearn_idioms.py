"""Custom scikit-learn steps written the way public repositories write them (issue 18): the
idioms of tests/test_sklearn_idioms.py. Keep the marked lines: the tests check errors there."""

from __future__ import annotations

import collections

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.impute import MissingIndicator
from sklearn.preprocessing import StandardScaler


class KwargsTransformer(BaseEstimator, TransformerMixin):
    """Unused ``*args``/``**transform_params`` in the signatures."""

    def fit(self, X, y=None, **fit_params):
        self.mean_ = X.mean(axis=0)
        return self

    def transform(self, X, *args, **transform_params):
        return X - self.mean_


class FrameTolerant(BaseEstimator, TransformerMixin):
    """Accepts a DataFrame, a sparse matrix or an array; converted for an array."""

    def fit(self, X, y=None):
        return self

    def transform(self, X, y=None):
        if hasattr(X, "values"):
            X = X.values
        if sp.issparse(X):
            X = X.toarray()
        if type(X) is not np.ndarray:
            X = np.asarray(X)
        return np.c_[X, np.log1p(np.abs(X))]


class AddIndicators(BaseEstimator, TransformerMixin):
    """Appends missing-value indicators built inside transform."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        indicators = MissingIndicator(features="all").fit_transform(X)
        return np.c_[np.nan_to_num(X), indicators.astype(X.dtype)]


class IndicatorMissingOnly(BaseEstimator, TransformerMixin):
    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return MissingIndicator().fit_transform(X)  # MARK: missing-only


class CountsValues(BaseEstimator, TransformerMixin):
    def fit(self, X, y=None):
        return self

    def transform(self, X):
        counts = collections.Counter(X[:, 0])  # MARK: counter
        return X * len(counts)


class ScalerInside(BaseEstimator, TransformerMixin):
    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return StandardScaler().fit_transform(X)  # MARK: estimator built inside


class RowStacker(BaseEstimator, TransformerMixin):
    """np.r_ on rows, np.s_ slices kept on self."""

    def fit(self, X, y=None):
        self.cols_ = np.s_[:, 1:]
        return self

    def transform(self, X):
        kept = X[self.cols_]
        return np.c_[kept, np.r_["-1", kept, X[:, :1]]]

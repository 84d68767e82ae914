"""Custom steps calling scikit-learn's helpers, written as public repositories write them
(tests/test_sklearn_helpers.py converts them)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
from sklearn.metrics import pairwise
from sklearn.metrics.pairwise import (cosine_similarity, euclidean_distances, linear_kernel,
                                      manhattan_distances, pairwise_distances,
                                      polynomial_kernel, rbf_kernel)
from sklearn.utils import as_float_array, check_array, column_or_1d
from sklearn.utils.extmath import row_norms, safe_sparse_dot, softmax
from sklearn.utils.validation import (_check_feature_names, _check_n_features,
                                      check_consistent_length, check_is_fitted, validate_data)

try:
    from sklearn.utils.extmath import stable_cumsum
except ImportError:  # pragma: no cover - removed in a later scikit-learn
    stable_cumsum = None


class FloatLog(TransformerMixin, BaseEstimator):
    def fit(self, X, y=None):
        X = check_array(X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X, copy=True):
        check_is_fitted(self)
        X = check_array(X, dtype=[np.float64, np.float32], copy=copy, order="C",
                        ensure_all_finite="allow-nan", accept_sparse=False)
        _check_n_features(self, X, reset=False)
        _check_feature_names(self, X, reset=False)
        X = as_float_array(X, copy=False)
        return np.log1p(np.abs(X))


class ValidatedCenters(TransformerMixin, BaseEstimator):
    def fit(self, X, y=None):
        X = validate_data(self, X)
        self.mean_ = X.mean(axis=0)
        return self

    def transform(self, X):
        X = validate_data(self, X, reset=False, dtype=np.float64)
        first = column_or_1d(X[:, :1])
        check_consistent_length(X, first)
        return X - self.mean_ + first[:, None]


class Prototypes(TransformerMixin, BaseEstimator):
    """Distances and kernels to fitted prototypes (RBF features, a hand-written KNN)."""

    def __init__(self, kind="euclidean", n_prototypes=4):
        self.kind = kind
        self.n_prototypes = n_prototypes

    def fit(self, X, y=None):
        self.prototypes_ = X[:: max(1, len(X) // self.n_prototypes)][: self.n_prototypes]
        self.gamma_ = 0.3
        return self

    def transform(self, X):
        P = self.prototypes_
        if self.kind == "euclidean":
            return euclidean_distances(X, P)
        if self.kind == "sq_euclidean":
            return euclidean_distances(X, P, squared=True)
        if self.kind == "self_euclidean":
            return euclidean_distances(X)
        if self.kind == "norms":
            return euclidean_distances(X, P, Y_norm_squared=(P.astype(np.float64) ** 2).sum(1))
        if self.kind == "rbf":
            return rbf_kernel(X, P, gamma=self.gamma_)
        if self.kind == "rbf_default_gamma":
            return pairwise.rbf_kernel(X, P)
        if self.kind == "linear":
            return linear_kernel(X, P)
        if self.kind == "poly":
            return polynomial_kernel(X, P, degree=2, coef0=0.5)
        if self.kind == "cosine":
            return cosine_similarity(X, P)
        if self.kind == "self_cosine":
            return cosine_similarity(X)
        if self.kind == "manhattan":
            return manhattan_distances(X, P)
        if self.kind.startswith("pairwise_"):
            return pairwise_distances(X, P, metric=self.kind[len("pairwise_"):])
        if self.kind == "row_norms":
            return np.c_[row_norms(X), row_norms(X, squared=True)]
        if self.kind == "safe_sparse_dot":
            return safe_sparse_dot(X, P.T)
        if self.kind == "stable_cumsum":
            return stable_cumsum(X, axis=1)
        raise ValueError(self.kind)


class NearestPrototypeClassifier(ClassifierMixin, BaseEstimator):
    """A softmax over negative distances to one prototype per class."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.centers_ = np.stack([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def predict_proba(self, X):
        X = check_array(X)
        return softmax(-euclidean_distances(X, self.centers_))

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class KernelRidgeByHand(RegressorMixin, BaseEstimator):
    def fit(self, X, y):
        self.X_fit_ = X.astype(np.float64)
        K = rbf_kernel(self.X_fit_, gamma=0.2)
        self.dual_coef_ = np.linalg.solve(K + np.eye(len(K)), y)
        return self

    def predict(self, X):
        return rbf_kernel(X, self.X_fit_, gamma=0.2) @ self.dual_coef_

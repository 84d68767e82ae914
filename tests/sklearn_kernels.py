"""Custom scikit-learn steps for tests/test_sklearn.py (module level: pyonnx reads their source)."""

import numpy as np
from sklearn.base import (BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin,
                          TransformerMixin)
from sklearn.utils.validation import check_array, check_is_fitted, validate_data


class LogClipScale(TransformerMixin, BaseEstimator):
    """Caps each column at a fitted quantile, log-compresses when the data allow, rescales."""

    def __init__(self, clip=True, quantile=0.95):
        self.clip = clip
        self.quantile = quantile

    def fit(self, X, y=None):
        X = validate_data(self, X)
        self.threshold_ = np.quantile(X, self.quantile, axis=0)
        self.log_ = bool(np.all(X >= 0))  # a fitted flag: log1p only non-negative data
        self.scale_ = self._compress(np.minimum(X, self.threshold_)).std(axis=0) + 1e-3
        return self

    def _compress(self, X):
        if self.log_:
            return np.log1p(X)
        return X

    def transform(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        if self.clip:
            X = np.minimum(X, self.threshold_)
        return self._compress(X) / self.scale_


class OutlierCapper(TransformerMixin, BaseEstimator):
    """Caps each column to [q1 - k*iqr, q3 + k*iqr], one column at a time."""

    def __init__(self, k=1.5):
        self.k = k

    def fit(self, X, y=None):
        X = validate_data(self, X)
        q1, q3 = np.quantile(X, 0.25, axis=0), np.quantile(X, 0.75, axis=0)  # X's dtype
        self.low_ = q1 - self.k * (q3 - q1)
        self.high_ = q3 + self.k * (q3 - q1)
        return self

    def transform(self, X, copy=None):
        X = check_array(X)
        out = X.copy()
        for j in range(X.shape[1]):
            out[:, j] = np.clip(X[:, j], self.low_[j], self.high_[j])
        return out


class SelectPower(TransformerMixin, BaseEstimator):
    """Keeps the fitted columns (a list) raised to a power (a number)."""

    def __init__(self, power=2):
        self.power = power

    def fit(self, X, y=None):
        X = validate_data(self, X)
        self.columns_ = [j for j in range(X.shape[1]) if X[:, j].std() > 0.5]
        return self

    def transform(self, X):
        return X[:, self.columns_] ** self.power


class Bins(TransformerMixin, BaseEstimator):
    """Integer codes: how many fitted edges each value reaches (numpy returns int64)."""

    def fit(self, X, y=None):
        X = validate_data(self, X)
        self.edges_ = np.quantile(X, [0.25, 0.5, 0.75], axis=0)
        return self

    def transform(self, X):
        return (X[None, :, :] >= self.edges_[:, None, :]).sum(axis=0)


class Above(TransformerMixin, BaseEstimator):
    """A boolean mask: above the fitted column mean."""

    def fit(self, X, y=None):
        self.mean_ = np.asarray(X).mean(axis=0)
        return self

    def transform(self, X):
        return X > self.mean_


class ShrunkLinearRegressor(RegressorMixin, BaseEstimator):
    """Least squares shrunk towards zero; predict returns a 1-D array."""

    def __init__(self, shrink=0.5):
        self.shrink = shrink

    def fit(self, X, y):
        X = validate_data(self, X)
        A = np.column_stack([X, np.ones(len(X))])
        coef = np.linalg.lstsq(A, y, rcond=None)[0]
        self.coef_ = coef[:-1] * (1 - self.shrink)
        self.intercept_ = coef[-1]
        return self

    def predict(self, X):
        X = validate_data(self, X, reset=False)
        return X @ self.coef_ + self.intercept_


class CentroidClassifier(ClassifierMixin, BaseEstimator):
    """Nearest centroid with softmax probabilities."""

    def fit(self, X, y):
        X = validate_data(self, X)
        self.classes_ = np.unique(y)
        self.centroids_ = np.stack([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def decision_function(self, X):
        return -((X[:, None, :] - self.centroids_[None, :, :]) ** 2).sum(axis=2)

    def predict_proba(self, X):
        scores = self.decision_function(X)
        e = np.exp(scores - scores.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def predict(self, X):
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]


class ZScoreDetector(OutlierMixin, BaseEstimator):
    """Outlier when any |z| exceeds the threshold."""

    def __init__(self, threshold=2.5):
        self.threshold = threshold

    def fit(self, X, y=None):
        X = validate_data(self, X)
        self.mean_ = X.mean(axis=0)
        self.std_ = X.std(axis=0)
        return self

    def decision_function(self, X):
        return self.threshold - np.abs((X - self.mean_) / self.std_).max(axis=1)

    def predict(self, X):
        return np.where(self.decision_function(X) >= 0, 1, -1)

    def score_samples(self, X):
        return -np.abs((X - self.mean_) / self.std_).max(axis=1)


class Printing(TransformerMixin, BaseEstimator):
    """Uses something pyonnx refuses (I/O inside transform)."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        print(X)
        return X


def add_ratio(X, numerator=0, denominator=1, eps=1e-3):
    """A FunctionTransformer function with keyword arguments."""
    ratio = X[:, numerator] / (np.abs(X[:, denominator]) + eps)
    return np.column_stack([X, ratio])

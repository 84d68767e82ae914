"""Custom steps holding fitted scikit-learn estimators (tests/test_sklearn_composed.py)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin, clone
from sklearn.decomposition import PCA
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from tests.sklearn_kernels import LogClipScale


class ScaledRegressor(RegressorMixin, BaseEstimator):
    """A fitted scaler and a fitted regressor inside one custom step."""

    def fit(self, X, y):
        self.scaler_ = StandardScaler().fit(X)
        self.model_ = Ridge(alpha=0.5).fit(self.scaler_.transform(X), y)
        return self

    def predict(self, X):
        Z = self.scaler_.transform(X)
        return np.maximum(self.model_.predict(Z), 0.0)


class HoldsPipeline(TransformerMixin, BaseEstimator):
    def fit(self, X, y):
        self.pipe_ = make_pipeline(StandardScaler(), PCA(n_components=2)).fit(X)
        return self

    def transform(self, X):
        return np.c_[X[:, :1], self.pipe_.transform(X)]


class HoldsPipelineWithCustomStep(TransformerMixin, BaseEstimator):
    """The held pipeline has a custom step: pyonnx's converter inside skl2onnx's graph."""

    def fit(self, X, y):
        self.pipe_ = make_pipeline(LogClipScale(), StandardScaler()).fit(np.abs(X))
        return self

    def transform(self, X):
        return self.pipe_.transform(np.abs(X)) * 0.5


class Stacked(TransformerMixin, BaseEstimator):
    """Probabilities, a PCA projection and a KNN prediction as features."""

    def fit(self, X, y):
        self.pca_ = PCA(n_components=2).fit(X)
        self.clf_ = LogisticRegression().fit(X, y)
        self.knn_ = KNeighborsRegressor(n_neighbors=3).fit(X, X[:, 0])
        return self

    def transform(self, X):
        proba = self.clf_.predict_proba(X)
        return np.c_[self.pca_.transform(X), proba[:, 1], self.knn_.predict(X)]


class Ensemble(RegressorMixin, BaseEstimator):
    """A list and a dict of fitted models, iterated when converting."""

    def fit(self, X, y):
        self.models_ = [Ridge(alpha=a).fit(X, y) for a in (0.1, 1.0, 10.0)]
        self.by_name_ = {"lin": LinearRegression().fit(X, y),
                         "knn": KNeighborsRegressor(n_neighbors=4).fit(X, y)}
        self.weights_ = {"lin": 0.25, "knn": 0.75}
        return self

    def predict(self, X):
        preds = [m.predict(X) for m in self.models_]
        mean = sum(preds) / len(preds)
        for name, model in self.by_name_.items():
            mean = mean + self.weights_[name] * model.predict(X)
        return mean


class GatedClassifier(ClassifierMixin, BaseEstimator):
    """Labels of a held classifier, passed through."""

    def fit(self, X, y):
        self.inner_ = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
        self.classes_ = self.inner_.classes_
        return self

    def predict(self, X):
        return self.inner_.predict(X)

    def predict_proba(self, X):
        return self.inner_.predict_proba(X)


class DecisionInside(TransformerMixin, BaseEstimator):
    def fit(self, X, y):
        self.clf_ = LogisticRegression().fit(X, y)
        return self

    def transform(self, X):
        return self.clf_.decision_function(X)  # MARK: decision


class HeldScores(TransformerMixin, BaseEstimator):
    """``decision_function``/``score_samples`` of a held estimator (issue 18)."""

    def __init__(self, model=None, method="decision_function"):
        self.model = model
        self.method = method

    def fit(self, X, y=None):
        self.inner_ = clone(self.model).fit(X, y) if y is not None else \
            clone(self.model).fit(X)
        return self

    def transform(self, X):
        if self.method == "score_samples":
            return self.inner_.score_samples(X) * 2.0  # MARK: score_samples
        return self.inner_.decision_function(X) + 0.0


class ClassifierWithStringLabels(ClassifierMixin, BaseEstimator):
    """A held classifier fitted on string labels: its predict gives strings."""

    def fit(self, X, y):
        self.inner_ = LogisticRegression().fit(X, y)
        self.classes_ = self.inner_.classes_
        return self

    def predict_proba(self, X):
        return self.inner_.predict_proba(X)

    def predict(self, X):
        return self.inner_.predict(X)  # MARK: string labels


class HeldProba(TransformerMixin, BaseEstimator):
    """Probabilities of a held classifier fitted on string labels."""

    def fit(self, X, y):
        self.inner_ = LogisticRegression().fit(X, y)
        return self

    def transform(self, X):
        return self.inner_.predict_proba(X)[:, 1:]

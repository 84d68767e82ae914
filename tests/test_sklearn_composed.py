"""Fitted scikit-learn estimators held by a custom step (pyonnx/sklearn/fitted.py): their own
ONNX graphs, inlined into the step's.

Oracle: scikit-learn's method on the fitted step against onnxruntime (tests/sklearn_check.py),
float32 and float64, one row and many.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression, Ridge, RidgeClassifier
from sklearn.mixture import GaussianMixture
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC, LinearSVC
from sklearn.preprocessing import StandardScaler

import pyonnx
import pyonnx.sklearn
from pyonnx.errors import ConversionError
from tests import sklearn_composed as c
from tests.sklearn_check import check_step, run

DTYPES = [np.float32, np.float64]


def _data(dtype, rows=40):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(rows, 4)).astype(dtype)
    y = X[:, 0] - 2 * X[:, 1] + rng.normal(scale=0.1, size=rows)
    return X, y, (y > 0).astype(np.int64)


def _tol(dtype):
    # skl2onnx's converters compute in the input's dtype
    return (2e-4, 2e-4) if dtype == np.float32 else (1e-7, 1e-7)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("cls, method", [
    (c.ScaledRegressor, "predict"), (c.HoldsPipeline, "transform"),
    (c.HoldsPipelineWithCustomStep, "transform"), (c.Stacked, "transform"),
    (c.Ensemble, "predict"),
], ids=lambda v: getattr(v, "__name__", v))
def test_fitted_estimators_inside(cls, method, dtype):
    X, y, labels = _data(dtype)
    est = cls().fit(X, labels if cls is c.Stacked else y)
    rtol, atol = _tol(dtype)
    check_step(est, X, methods=(method,), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_composed_step_inside_a_pipeline(dtype):
    X, y, _ = _data(dtype)
    pipe = make_pipeline(StandardScaler(), c.ScaledRegressor(), ).fit(X, y)
    rtol, atol = _tol(dtype)
    check_step(pipe, X, methods=("predict",), dtype=False, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_held_classifier_labels_and_probabilities(dtype):
    X, _, labels = _data(dtype)
    est = c.GatedClassifier().fit(X, labels)
    model = pyonnx.sklearn.to_onnx(est, X[:1], options={id(est): {"zipmap": False}})
    for rows in (X[:1], X):
        label, proba = run(model, rows)
        np.testing.assert_array_equal(label, est.predict(rows))
        want = est.predict_proba(rows)
        assert proba.shape == want.shape
        np.testing.assert_allclose(proba, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fitted_estimator_in_a_compiled_function(dtype):
    X, y, _ = _data(dtype)
    scaler = StandardScaler().fit(X)
    model = Ridge().fit(scaler.transform(X), y)

    def predict(X):
        return model.predict(scaler.transform(X)) + 1.0

    compiled = pyonnx.compile(predict, static_shapes=True)
    for rows in (X[:1], X):
        got, want = compiled(rows), predict(rows)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=_tol(dtype)[0], atol=_tol(dtype)[1])


def test_unknown_column_count_refused_with_advice():
    X, y, _ = _data(np.float64)
    scaler = StandardScaler().fit(X)

    def f(X):
        return scaler.transform(X)

    with pytest.raises(ConversionError, match=r"static_shapes=True") as info:
        pyonnx.compile(f)(X)
    assert info.value.lineno == f.__code__.co_firstlineno + 1


@pytest.mark.parametrize("dtype", DTYPES)
def test_decision_function_of_held_logistic_regression(dtype):
    X, _, labels = _data(dtype)
    check_step(c.DecisionInside().fit(X, labels), X, rtol=2e-3, atol=2e-3)


def test_example_runs(capsys):
    from tests.test_examples import load

    load("sklearn_composed_step").main()
    out = capsys.readouterr().out
    assert "output float64 (2000,)" in out
    assert float(out.rsplit("= ", 1)[1]) < 1e-9


def _labels3(X):
    return (X[:, 0] > 0).astype(np.int64) + (X[:, 1] > 0.5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("model, classes", [
    (LogisticRegression(), 2), (LogisticRegression(), 3), (LinearSVC(), 2), (LinearSVC(), 3),
    (SVC(), 3), (RidgeClassifier(), 3), (make_pipeline(StandardScaler(), LogisticRegression()), 3),
], ids=lambda v: type(v).__name__ if not isinstance(v, int) else f"{v}classes")
def test_held_decision_function(model, classes, dtype):
    X, _, labels = _data(dtype)
    y = labels if classes == 2 else _labels3(X)
    est = c.HeldScores(model).fit(X, y)
    rtol, atol = _tol(dtype)
    check_step(est, X, rtol=rtol * 10, atol=atol * 10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_held_score_samples(dtype):
    X, _, _ = _data(dtype)
    est = c.HeldScores(GaussianMixture(2, random_state=0), "score_samples").fit(X)
    rtol, atol = _tol(dtype)
    check_step(est, X, rtol=rtol * 10, atol=atol * 10)


def test_score_samples_without_skl2onnx_output_refused():
    X, _, _ = _data(np.float64)
    est = c.HeldScores(PCA(2), "score_samples").fit(X)
    with pytest.raises(ConversionError, match=r"PCA\.score_samples\(X\) .* call transform") \
            as info:
        pyonnx.sklearn.to_onnx(est, X[:1])
    lines, start = inspect.getsourcelines(c.HeldScores)
    assert info.value.lineno == start + next(
        i for i, line in enumerate(lines) if "MARK: score_samples" in line)


@pytest.mark.parametrize("dtype", DTYPES)
def test_string_class_labels_refused_probabilities_converted(dtype):
    X, _, labels = _data(dtype)
    names = np.array(["low", "high"])[labels]
    est = c.ClassifierWithStringLabels().fit(X, names)
    with pytest.raises(ConversionError, match=r"string class labels.*LabelEncoder") as info:
        pyonnx.sklearn.to_onnx(est, X[:1])
    lines, start = inspect.getsourcelines(c.ClassifierWithStringLabels)
    assert info.value.lineno == start + next(
        i for i, line in enumerate(lines) if "MARK: string labels" in line)
    check_step(c.HeldProba().fit(X, names), X, rtol=2e-3, atol=2e-3)

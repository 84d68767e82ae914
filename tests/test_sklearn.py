"""pyonnx.sklearn: custom steps in scikit-learn pipelines, converted and run by onnxruntime.

Oracle: scikit-learn's own transform/predict/predict_proba on the fitted pipeline against
onnxruntime on the converted model, for batches of 1 and 1,000 rows with the same model.
"""

from __future__ import annotations

import functools
import importlib
import pathlib
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import skl2onnx
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import FeatureUnion, make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

import pyonnx
import pyonnx.sklearn
from tests import sklearn_kernels as k

SIZES = (1, 1000)


def _data(dtype=np.float32, signed=False, seed=0):
    """(X_train, X_test, y_regression, y_classes) with 5 skewed features."""
    rng = np.random.default_rng(seed)
    X = rng.lognormal(size=(1500, 5)) * np.array([1, 3, 10, 0.5, 2])
    if signed:
        X = X - np.median(X, axis=0)
    X = X.astype(dtype)
    y = X[:, 0] - 0.5 * X[:, 1] + np.log1p(np.abs(X[:, 2])) + rng.normal(size=len(X))
    classes = np.digitize(y, np.quantile(y, [0.33, 0.66]))
    return X[:500], X[500:], y[:500], classes[:500]


def _run(model, X):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {sess.get_inputs()[0].name: X})


def _convert(estimator, X, **kwargs):
    model = pyonnx.sklearn.to_onnx(estimator, X[:1], **kwargs)
    onnx.checker.check_model(model, full_check=True)
    return model


def _close(got, want, rtol, atol, shape_exact=True):
    assert got.dtype == want.dtype or not shape_exact, (got.dtype, want.dtype)
    if not shape_exact:  # skl2onnx's own regressors return (N, 1) where sklearn returns (N,)
        got = got.reshape(want.shape)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def _labels(got, want, proba):
    """Equal labels, except where scikit-learn's two best probabilities tie within 1e-4
    (float32 ONNX against float64 scikit-learn may pick either)."""
    top2 = np.sort(proba, axis=1)[:, -2:]
    differ = got != want
    assert np.all(top2[differ, 1] - top2[differ, 0] < 1e-4), np.flatnonzero(differ)
    assert differ.mean() < 0.01


# ---------------------------------------------------------------- regression pipelines
REGRESSORS = {
    "log_clip_scale": lambda: make_pipeline(k.LogClipScale(), StandardScaler(), Ridge()),
    "log_clip_scale_no_clip": lambda: make_pipeline(
        k.LogClipScale(clip=False), StandardScaler(), Ridge()),
    "outlier_capper": lambda: make_pipeline(k.OutlierCapper(), StandardScaler(), Ridge()),
    "function_transformers": lambda: make_pipeline(
        FunctionTransformer(np.abs), FunctionTransformer(np.log1p),
        FunctionTransformer(np.clip, kw_args={"a_min": 0.05, "a_max": 3.0}),
        FunctionTransformer(k.add_ratio, kw_args={"numerator": 0, "denominator": 2}),
        StandardScaler(), Ridge()),
    "column_transformer": lambda: make_pipeline(
        ColumnTransformer([("log", k.LogClipScale(), [0, 1]), ("cap", k.OutlierCapper(), [2, 3]),
                           ("square", FunctionTransformer(np.square), [4])]),
        StandardScaler(), Ridge()),
    "feature_union": lambda: make_pipeline(
        FeatureUnion([("cap", k.OutlierCapper()), ("log", k.LogClipScale(quantile=0.9))]),
        Ridge()),
}


@pytest.mark.parametrize("name", sorted(REGRESSORS))
@pytest.mark.parametrize("signed", [False, True])
def test_regression_pipeline(name, signed):
    X_train, X_test, y, _ = _data(signed=signed)
    _check_regression(REGRESSORS[name]().fit(X_train, y), X_train, X_test)


def _check_regression(pipe, X_train, X_test):
    model = _convert(pipe, X_train)
    for n in SIZES:
        (got,) = _run(model, X_test[:n])
        _close(got, pipe.predict(X_test[:n]).astype(np.float32), rtol=1e-4, atol=1e-4,
               shape_exact=False)


def test_fitted_flag_folds():
    """The fitted flag picks the branch at conversion time: no Log in the signed model."""
    for signed, logs in [(False, True), (True, False)]:
        X_train, _, y, _ = _data(signed=signed)
        step = k.LogClipScale().fit(X_train)
        assert step.log_ is logs
        model = _convert(step, X_train)
        assert any(nd.op_type == "Log" for nd in model.graph.node) is logs


# ---------------------------------------------------------------- transformers alone: dtypes
TRANSFORMERS = {
    "bins_int64": (k.Bins, np.float32),
    "above_bool": (k.Above, np.float64),
    "select_power_float64": (k.SelectPower, np.float64),
    "outlier_capper_float64": (k.OutlierCapper, np.float64),
    "abs_int64_input": (lambda: FunctionTransformer(np.abs), np.int64),
    "add_ratio_int32_input": (lambda: FunctionTransformer(k.add_ratio, kw_args={"eps": 1}),
                              np.int32),
    "partial_clip": (lambda: FunctionTransformer(functools.partial(np.clip, a_min=-5.0),
                                                 kw_args={"a_max": 5.0}), np.float32),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMERS))
def test_transformer_output_dtype(name):
    make, dtype = TRANSFORMERS[name]
    X_train, X_test, _, _ = _data(signed=True)
    X_train, X_test = (X_train * 10).astype(dtype), (X_test * 10).astype(dtype)
    step = make().fit(X_train)
    model = _convert(step, X_train)
    for n in SIZES:
        (got,) = _run(model, X_test[:n])
        _close(got, step.transform(X_test[:n]), rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- custom estimators
def test_custom_regressor_predict():
    X_train, X_test, y, _ = _data(np.float64)
    pipe = make_pipeline(StandardScaler(), k.SelectPower(), k.ShrunkLinearRegressor()).fit(
        X_train, y)
    model = _convert(pipe, X_train)
    for n in SIZES:
        (got,) = _run(model, X_test[:n])
        _close(got, pipe.predict(X_test[:n]), rtol=1e-9, atol=1e-9)  # 1-D, as numpy's


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_custom_classifier_label_and_probabilities(dtype):
    X_train, X_test, _, classes = _data(dtype)
    pipe = make_pipeline(k.LogClipScale(), StandardScaler(), k.CentroidClassifier()).fit(
        X_train, classes)
    model = _convert(pipe, X_train, options={k.CentroidClassifier: {"zipmap": False}})
    assert [o.name for o in model.graph.output] == ["label", "probabilities"]
    for n in SIZES:
        label, proba = _run(model, X_test[:n])
        want_proba = pipe.predict_proba(X_test[:n])
        _close(proba, want_proba, rtol=1e-4, atol=1e-5)
        assert label.dtype == np.int64
        _labels(label, pipe.predict(X_test[:n]), want_proba)


def test_custom_classifier_zipmap_default():
    """skl2onnx's default for classifiers: a label output and a list of {class: probability}."""
    X_train, X_test, _, classes = _data()
    pipe = make_pipeline(StandardScaler(), k.CentroidClassifier()).fit(X_train, classes * 10)
    model = _convert(pipe, X_train)
    label, proba = _run(model, X_test)
    want = pipe.predict_proba(X_test)
    _labels(label, pipe.predict(X_test), want)
    got = np.array([[row[c] for c in pipe.classes_] for row in proba])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_zipmap_of_float64_probabilities_refused():
    """ONNX's ZipMap takes float32: a clear error instead of a model onnxruntime rejects."""
    X_train, _, _, classes = _data(np.float64)
    clf = k.CentroidClassifier().fit(X_train, classes)
    with pytest.raises(pyonnx.ConversionError, match="'zipmap': False"):
        pyonnx.sklearn.to_onnx(clf, X_train[:1])


def test_sklearn_classifier_after_custom_steps():
    X_train, X_test, _, classes = _data()
    pipe = make_pipeline(k.OutlierCapper(), FunctionTransformer(np.log1p), StandardScaler(),
                         LogisticRegression()).fit(X_train, classes)
    model = _convert(pipe, X_train, options={LogisticRegression: {"zipmap": False}})
    for n in SIZES:
        label, proba = _run(model, X_test[:n])
        want = pipe.predict_proba(X_test[:n])
        np.testing.assert_allclose(proba, want, rtol=1e-4, atol=1e-5)
        _labels(label, pipe.predict(X_test[:n]), want)


def test_outlier_detector_default_outputs():
    X_train, X_test, _, _ = _data(np.float64, signed=True)
    det = k.ZScoreDetector().fit(X_train)
    model = _convert(det, X_train)
    assert [o.name for o in model.graph.output] == ["label", "scores"]
    for n in SIZES:
        label, scores = _run(model, X_test[:n])
        _close(label, det.predict(X_test[:n]), rtol=0, atol=0)
        _close(scores, det.decision_function(X_test[:n]), rtol=1e-12, atol=1e-12)


def test_register_decorator_with_methods_and_plain_skl2onnx():
    """register(cls, methods=...) chooses the outputs; skl2onnx.to_onnx then converts it."""

    @pyonnx.sklearn.register(methods=("score_samples", "predict"))
    class Samples(k.ZScoreDetector):
        pass

    X_train, X_test, _, _ = _data(np.float64, signed=True)
    det = Samples().fit(X_train)
    # Samples' methods are ZScoreDetector's (module-level source): the class itself may be local.
    model = skl2onnx.to_onnx(det, X_train[:1], target_opset=21)
    assert [o.name for o in model.graph.output] == ["score_samples", "label"]
    for n in SIZES:
        samples, label = _run(model, X_test[:n])
        _close(samples, det.score_samples(X_test[:n]), rtol=1e-12, atol=1e-12)
        _close(label, det.predict(X_test[:n]), rtol=0, atol=0)


def test_register_rejects_unknown_methods():
    with pytest.raises(ValueError, match="methods must be"):
        pyonnx.sklearn.register(k.Above, methods=("fit",))
    with pytest.raises(ValueError, match="classifier"):
        pyonnx.sklearn.register(k.CentroidClassifier, methods=("predict",))


def test_function_transformer_identity_keeps_skl2onnx_converter():
    X_train, X_test, y, _ = _data()
    pipe = make_pipeline(FunctionTransformer(), Ridge()).fit(X_train, y)
    model = _convert(pipe, X_train)
    (got,) = _run(model, X_test)
    _close(got, pipe.predict(X_test).astype(np.float32), rtol=1e-4, atol=1e-4,
           shape_exact=False)


def test_custom_steps_found():
    pipe = make_pipeline(
        ColumnTransformer([("a", k.OutlierCapper(), [0]), ("b", "drop", [1])]),
        FeatureUnion([("c", k.Bins()), ("d", StandardScaler())]), Ridge())
    assert [type(s) for s in pyonnx.sklearn.custom_steps(pipe)] == [k.OutlierCapper, k.Bins]


# ---------------------------------------------------------------- errors
def _line_of(cls, text):
    import inspect

    lines, first = inspect.getsourcelines(cls)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_unsupported_construct_errors_at_transform_line():
    X_train, _, y, _ = _data()
    pipe = make_pipeline(StandardScaler(), k.Printing(), Ridge()).fit(X_train, y)
    with pytest.raises(pyonnx.ConversionError, match=r"\d+:\d+: error: ") as info:
        pyonnx.sklearn.to_onnx(pipe, X_train[:1])
    err = info.value
    assert pathlib.Path(err.filename).name == "sklearn_kernels.py"
    assert err.lineno == _line_of(k.Printing, "print(X)")
    assert "print()" in err.message
    assert any("Printing" in note for note in err.__notes__)
    # The same error through skl2onnx's own entry point, once the class is registered.
    with pytest.raises(pyonnx.ConversionError, match=r"\d+:\d+: error: ") as info:
        skl2onnx.to_onnx(pipe, X_train[:1], target_opset=21)
    assert info.value.lineno == err.lineno


def test_lambda_function_transformer():
    # (refused at its line before pyonnx.compile took lambdas: frontend/source.py)
    X_train, X_test, y, _ = _data()
    pipe = make_pipeline(FunctionTransformer(lambda Z: Z * 2), Ridge()).fit(X_train, y)
    _check_regression(pipe, X_train, X_test)


def test_lambda_function_transformer_errors_at_its_line():
    X_train, _, _, _ = _data()
    step = FunctionTransformer(lambda Z: Z.tofile("x.bin")).fit(X_train)
    with pytest.raises(pyonnx.ConversionError, match="tofile") as info:
        pyonnx.sklearn.to_onnx(step, X_train[:1])
    assert pathlib.Path(info.value.filename).name == "test_sklearn.py"


def test_wrong_feature_count_refused():
    X_train, _, _, _ = _data()
    step = k.LogClipScale().fit(X_train)
    with pytest.raises(pyonnx.ConversionError, match="expecting 5 features"):
        pyonnx.sklearn.to_onnx(step, X_train[:1, :3])


@pytest.mark.filterwarnings("ignore:Parameter target_opset 23:UserWarning")  # skl2onnx's
def test_target_opset_outside_21_22_refused():
    X_train, _, y, _ = _data()
    pipe = make_pipeline(k.OutlierCapper(), Ridge()).fit(X_train, y)
    with pytest.raises(pyonnx.ConversionError, match="opset 21 or newer"):
        pyonnx.sklearn.to_onnx(pipe, X_train[:1], target_opset=18)
    # Operators changed after opset 22 may mean something else than the opset-21 form.
    with pytest.raises(pyonnx.ConversionError, match="changed in opset"):
        pyonnx.sklearn.to_onnx(pipe, X_train[:1], target_opset=23)
    model = _convert(pipe, X_train, target_opset={"": 22, "ai.onnx.ml": 3})
    assert {o.domain: o.version for o in model.opset_import}[""] == 22


def test_import_error_names_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "pyonnx.sklearn" or
                 m.startswith("pyonnx.sklearn.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "skl2onnx", None)  # "import skl2onnx" raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'pyonnx\[sklearn\]'"):
        importlib.import_module("pyonnx.sklearn")


def test_example_runs(capsys):
    from tests.test_examples import load

    load("sklearn_custom_transformer").main()
    assert "max |onnx - sklearn|" in capsys.readouterr().out

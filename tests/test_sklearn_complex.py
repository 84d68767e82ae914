"""pyonnx.sklearn with complex X: custom steps and FunctionTransformer compute on complex values,
the model's complex inputs and outputs are real tensors with a trailing dimension of 2.

Oracle: the fitted step's own numpy transform against onnxruntime on the converted model (fed
``z.view(z.real.dtype).reshape(*z.shape, 2)``, read back the same way), batches of 1 and 200
rows with the same model.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import skl2onnx
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

import pyonnx
import pyonnx.sklearn
from pyonnx.complex_io import from_pairs, plan_of_model, to_pairs


class Centre(TransformerMixin, BaseEstimator):
    """complex → complex: centred, rotated by the mean's phase, scaled."""

    def fit(self, X, y=None):
        self.mean_ = X.mean(axis=0)
        self.phase_ = np.exp(-1j * np.angle(self.mean_))
        return self

    def transform(self, X):
        return (X - self.mean_) * self.phase_ / (np.abs(self.mean_) + 1)


class Features(TransformerMixin, BaseEstimator):
    """complex → real: magnitude, phase and power features."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        power = (X * np.conj(X)).real
        return np.hstack([np.abs(X), np.angle(X), np.log1p(power)])


class Spectrum(TransformerMixin, BaseEstimator):
    """real → complex: the spectrum of each row."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return np.fft.fft(X, axis=1) * 0.5


def _complex_data(dtype, rows, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(rows, 4)) + 1j * rng.normal(size=(rows, 4)) + (1 + 2j)
    return z.astype(dtype)


def _run(model, X):
    """The model's outputs for X, complex outputs read back as numpy complex arrays."""
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names, outputs = plan_of_model(model)
    name = sess.get_inputs()[0].name
    feed = to_pairs(X) if name in names else X
    outs = sess.run(None, {name: feed})
    return [from_pairs(o, outputs[k]) if k in outputs else o for k, o in enumerate(outs)]


def _check(estimator, X_fit, dtype_in, rtol):
    estimator.fit(X_fit)
    model = pyonnx.sklearn.to_onnx(estimator, X_fit[:1])
    onnx.checker.check_model(model, full_check=True)
    for rows in (1, 200):
        X = X_fit[:rows]
        X_before = X.copy()
        want = estimator.transform(X)
        got = _run(model, X)[0]
        assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
        np.testing.assert_array_equal(X, X_before)
    return model


@pytest.mark.parametrize("dtype, rtol", [(np.complex64, 2e-5), (np.complex128, 1e-12)])
def test_complex_to_complex_custom_step(dtype, rtol):
    model = _check(Centre(), _complex_data(dtype, 200), dtype, rtol)
    real = np.float32 if dtype == np.complex64 else np.float64
    x = model.graph.input[0]
    assert x.type.tensor_type.elem_type == onnx.helper.np_dtype_to_tensor_dtype(np.dtype(real))
    assert [d.dim_value for d in x.type.tensor_type.shape.dim][1:] == [4, 2]
    assert {p.key: p.value for p in x.metadata_props} == {"pyonnx.complex": np.dtype(dtype).name}
    assert "trailing dimension of 2" in model.doc_string
    assert plan_of_model(model) == (frozenset({x.name}), {0: np.dtype(dtype)})


@pytest.mark.parametrize("dtype, rtol", [(np.complex64, 2e-5), (np.complex128, 1e-12)])
def test_complex_to_real_custom_step(dtype, rtol):
    model = _check(Features(), _complex_data(dtype, 200), dtype, rtol)
    assert plan_of_model(model)[1] == {}


@pytest.mark.parametrize("dtype, rtol", [(np.float32, 2e-5), (np.float64, 1e-12)])
def test_real_to_complex_custom_step(dtype, rtol):
    X = np.random.default_rng(1).normal(size=(200, 6)).astype(dtype)
    model = _check(Spectrum(), X, dtype, rtol)
    assert plan_of_model(model)[0] == frozenset()


def test_complex_function_transformers_then_ridge():
    """complex steps, then a real tail that skl2onnx converts itself."""
    # complex64: onnxruntime's LinearRegressor (skl2onnx's Ridge) computes in float32 only
    z = _complex_data(np.complex64, 300, seed=2)
    y = np.abs(z).sum(axis=1)
    pipe = make_pipeline(Centre(), FunctionTransformer(np.conj),
                         FunctionTransformer(np.abs), StandardScaler(), Ridge())
    pipe.fit(z, y)
    model = pyonnx.sklearn.to_onnx(pipe, z[:1])
    onnx.checker.check_model(model, full_check=True)
    for rows in (1, 300):
        got = _run(model, z[:rows])[0].reshape(-1)
        np.testing.assert_allclose(got, pipe.predict(z[:rows]), rtol=1e-4, atol=1e-4)


def test_complex_into_a_skl2onnx_step_is_refused():
    z = _complex_data(np.complex128, 50)
    # (scikit-learn's own fit refuses complex data: the steps are fitted one by one)
    pipe = make_pipeline(Centre().fit(z), StandardScaler().fit(np.abs(z)))
    with pytest.raises(pyonnx.ConversionError):
        pyonnx.sklearn.to_onnx(pipe, z[:1])


def test_complex_input_to_skl2onnx_directly_is_refused():
    z = _complex_data(np.complex128, 50)
    step = Centre().fit(z)
    pyonnx.sklearn.register(Centre)
    with pytest.raises(pyonnx.ConversionError, match="pyonnx.sklearn.to_onnx"):
        skl2onnx.to_onnx(step, z[:1], target_opset=21)


def test_complex_columns_into_a_column_transformer_are_refused():
    from sklearn.compose import ColumnTransformer

    z = _complex_data(np.complex128, 50)
    ct = ColumnTransformer([("a", FunctionTransformer(np.conj), [0, 1]),
                            ("b", FunctionTransformer(np.abs), [2, 3])])
    ct.fit(z)
    with pytest.raises(pyonnx.ConversionError, match="complex"):
        pyonnx.sklearn.to_onnx(ct, z[:1])


def test_a_step_needing_bitcast_is_refused():
    """np.sqrt of a complex array reads NaN sign bits (BitCast, opset 26)."""
    z = _complex_data(np.complex128, 50)
    step = FunctionTransformer(np.sqrt).fit(z)
    with pytest.raises(pyonnx.ConversionError, match="opset 26"):
        pyonnx.sklearn.to_onnx(step, z[:1])

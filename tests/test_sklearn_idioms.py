"""Idioms of custom scikit-learn steps (issue 18): np.c_/np.r_/np.s_, checks on the input's
type, unused ``**kwargs``, objects built inside ``transform``.

Oracle: scikit-learn's transform on the fitted step against onnxruntime
(tests/sklearn_check.py), float32 and float64, one row and many; refusals at their lines.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline

import pyonnx.sklearn
from pyonnx.errors import ConversionError
from tests import sklearn_idioms as idioms
from tests.sklearn_check import check_step


def _data(dtype, nan=False):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 4)).astype(dtype)
    if nan:
        X[rng.random(X.shape) < 0.2] = np.nan
    return X


def _line(cls, text):
    lines, start = inspect.getsourcelines(cls)
    return start + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cls", [idioms.KwargsTransformer, idioms.FrameTolerant,
                                 idioms.AddIndicators, idioms.RowStacker],
                         ids=lambda c: c.__name__)
def test_idiom_matches_sklearn(cls, dtype):
    X = _data(dtype, nan=cls is idioms.AddIndicators)
    check_step(cls().fit(X), X)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_idiom_in_pipeline_with_regressor(dtype):
    X = _data(dtype, nan=True)
    y = np.arange(len(X), dtype=np.float64)
    pipe = make_pipeline(idioms.AddIndicators(), idioms.KwargsTransformer(), Ridge()).fit(X, y)
    check_step(pipe, X, methods=("predict",), dtype=False, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("cls, mark, match", [
    (idioms.IndicatorMissingOnly, "MARK: missing-only",
     r"MissingIndicator\(features='missing-only'\) built inside the method .* fit it in fit\(\) "
     r"and keep it on self"),
    (idioms.CountsValues, "MARK: counter",
     r"creating collections\.Counter objects is not supported .* np\.unique\(x, "
     r"return_counts=True\)"),
    (idioms.ScalerInside, "MARK: estimator built inside",
     r"creating sklearn\.preprocessing\._data\.StandardScaler objects .* fit it in fit\(\) and "
     r"keep it on self \(self\.standardscaler_ = StandardScaler\(\.\.\.\)\.fit\(X\)\)"),
])
def test_objects_built_inside_refused_with_advice(cls, mark, match):
    X = _data(np.float32)
    with pytest.raises(ConversionError, match=match) as info:
        pyonnx.sklearn.to_onnx(cls().fit(X), X[:1])
    assert info.value.lineno == _line(cls, mark)

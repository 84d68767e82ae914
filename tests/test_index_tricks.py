"""np.r_, np.c_, np.s_, np.index_exp and hasattr/isinstance/type on arguments (issue 18).

Oracle: numpy runs the function, onnxruntime the model (tests/oracle.py ``check``), float32 and
float64, one row and many.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import pyonnx
from tests.oracle import check


def c_columns(X):
    return np.c_[X, X * 2]


def c_vectors(X):
    return np.c_[X[:, 0], X[:, 1] ** 2]


def c_bias(X):
    return np.c_[np.ones(len(X)), X]


def c_row_sum(X):
    return np.c_[X, X.sum(axis=1)]


def c_single(X):
    return np.c_[X[:, 0]]


def r_rows(X):
    return np.r_[X, X[:1]]


def r_vectors_and_range(X):
    return np.r_[X[0], X[-1], 0:3]


def r_scalars_weak(X):
    return np.r_[X[0], 1.5, 7]


def r_linspace(X):
    return np.r_[X[0], 0:1:5j]


def r_axis_directive(X):
    return np.r_["-1", X, X * 3]


def r_python_number_from_model(X):
    return np.r_[X[0], float(X[0, 0])]


def r_int_and_float(X):
    return np.r_[X[0].astype(np.int32), 2]


def s_slices(X):
    return X[np.s_[::2, 1:]] + X[np.index_exp[:1]].sum()


def s_single(X):
    return X[np.s_[1:]]


def hasattr_values(X):
    if hasattr(X, "values"):  # a DataFrame's data
        X = X.values
    if hasattr(X, "toarray"):
        X = X.toarray()
    return X * 2 if hasattr(X, "shape") else X


class _DataFrameLike:
    pass


def isinstance_frame(X):
    if isinstance(X, _DataFrameLike):
        return X
    if not isinstance(X, np.ndarray):
        raise TypeError("expected an array")
    return X + 1


def issparse_check(X):
    if sp.issparse(X):
        X = X.toarray()
    return np.log1p(np.abs(X))


def type_check(X):
    if type(X) is not np.ndarray:
        return X
    return X - 1


FUNCTIONS = [c_columns, c_vectors, c_bias, c_row_sum, c_single, r_rows, r_vectors_and_range,
             r_scalars_weak, r_linspace, r_axis_directive, r_python_number_from_model,
             r_int_and_float, s_slices, s_single, hasattr_values, isinstance_frame,
             issparse_check, type_check]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [1, 7])
@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_index_tricks_and_argument_checks(fn, rows, dtype):
    if fn in (s_slices, s_single, r_vectors_and_range) and rows == 1:
        rows = 2
    X = np.random.default_rng(rows).normal(size=(rows, 3)).astype(dtype)
    check(fn, X)


def test_static_items_are_numpy_constants():
    def f(x):
        return x + np.r_[1:4, 10] + np.c_[[1, 2, 3, 4]].ravel()

    check(f, np.arange(4, dtype=np.float32)[:4])


@pytest.mark.parametrize("directive, match", [
    ("0,2", r"np\.r_\['0,2', \.\.\.\]: the 'axis,ndmin\[,trans1d\]' directive is not supported"),
    ("r", r"builds a np\.matrix"),
    ("x", r"unknown directive 'x'"),
])
def test_directive_strings_refused_at_the_line(directive, match):
    def f(X):
        return np.r_[directive, X[0], X[1]]

    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(f)(np.ones((2, 3)))
    assert info.value.lineno == f.__code__.co_firstlineno + 1


def test_dynamic_range_bounds_refused_with_advice():
    def f(X, n):
        return np.r_[X, 0:n]

    with pytest.raises(pyonnx.ConversionError, match=r"np\.arange\(a, b, step\)") as info:
        pyonnx.compile(f)(np.ones(3), 4)
    assert info.value.lineno == f.__code__.co_firstlineno + 1

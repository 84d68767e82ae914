"""``np.max``/``np.min`` of floats with the NaN check behind the NaN guard
(pyonnx/frontend/numpy_calls/reductions/extrema.py): a ``ReduceSum`` over x decides whether
the exact NaN flag runs. numpy's results for arrays with and without NaN, with infinities of
both signs (their sum is NaN without a NaN: the exact branch), empty axes raising as numpy,
inside loops (no guard there), and the softmax idiom still found through the guard."""

import warnings

import numpy as np
import pytest

import pyonnx
from tests.oracle import check, op_types

FLOATS = ["float16", "float32", "float64"]


def extrema(x):
    return (np.max(x), np.min(x, axis=0), np.max(x, axis=1, keepdims=True), x.min(axis=-1),
            np.max(x, axis=(0, 1)))


def data(dtype, shape, seed=0):
    return (np.random.default_rng(seed).normal(size=shape) * 10).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (100, 60), (1, 5000)])
def test_no_nan(dtype, shape):
    check(extrema, data(dtype, shape))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("at", [(0, 0), (0, 59), (57, 0), (99, 59), (50, 30)])
def test_one_nan_anywhere(dtype, at):
    x = data(dtype, (100, 60), seed=at[0])
    x[at] = np.nan
    check(extrema, x)


@pytest.mark.parametrize("dtype", FLOATS)
def test_infinities_without_nan(dtype):
    x = data(dtype, (100, 60))
    x[3, 4], x[70, 10] = np.inf, -np.inf     # the sum is NaN: the exact branch, no NaN out
    check(extrema, x)
    x[:, 7] = np.inf
    x[9, :] = -np.inf
    check(extrema, x)
    x[20, 20] = np.nan
    check(extrema, x)


def test_all_nan_and_one_size_one_model():
    f = pyonnx.compile(extrema)
    for shape in ((100, 60), (2, 3), (70, 1)):
        x = data("float64", shape)
        check(f, x)
        check(f, np.full(shape, np.nan))
    assert f.conversions == 1


def test_empty_axis_raises_as_numpy():
    def f(x):
        return np.max(x, axis=1)
    c = pyonnx.compile(f)
    check(c, np.zeros((0, 4)))  # the reduced axis is not empty: an empty result
    with pytest.raises(ValueError, match="zero-size array"):
        f(np.zeros((3, 0)))
    with pytest.raises(pyonnx.errors.ExecutionError, match="zero-size array") as info:
        c(np.zeros((3, 0)))
    assert "test_max_nan_guard.py" in str(info.value)


def in_loop(x, n):
    acc = np.zeros(x.shape[1])
    for i in range(n):
        acc = acc + np.max(x * (i + 1), axis=0)
    return acc


def test_inside_a_loop():
    x = data("float64", (50, 100))
    for n in (0, 1, 3):
        check(in_loop, x, n)
    x[10, 10] = np.nan
    check(in_loop, x, 3)


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def test_softmax_idiom_through_the_guard():
    x = data("float32", (200, 300))
    c = check(softmax, x)
    types = op_types(c, x)
    assert "Softmax" in types and "If" not in types
    x[5, 5] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(c, x)

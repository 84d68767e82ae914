"""np.nanquantile and np.nanpercentile against numpy: every dtype numpy accepts (floats skip
each slice's NaNs; integers are np.quantile's), numpy's 13 methods, axes and keepdims, NaN
placements (none, some, a slice all NaN, every element), size-1 and empty arrays (numpy then
returns np.nanmean's result), and the refusals where numpy's result dtype or shape would
depend on the data."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
           "normal_unbiased", "lower", "higher", "midpoint", "nearest"]

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def forms(x):
    return (np.nanquantile(x, 0.3), np.nanquantile(x, 0.75, axis=0),
            np.nanpercentile(x, 40.0, axis=-1, keepdims=True), np.nanquantile(x, 1, axis=1),
            np.nanpercentile(x, 0, axis=(0, 1)))


def forms_q_array(x):
    return (np.nanquantile(x, [0.0, 0.25, 0.5, 1.0], axis=0),
            np.nanpercentile(x, [[10.0, 90.0]], axis=1, keepdims=True))


def by_method(x, m):
    return np.nanquantile(x, 0.4, axis=0, method=m), np.nanpercentile(x, 85.0, method=m)


def _data(dtype, nan: str, shape=(5, 4)):
    rng = np.random.default_rng(9)
    x = rng.normal(size=shape) * 10
    if nan == "some":
        x[rng.random(shape) < 0.3] = np.nan
    elif nan == "column":
        x[..., -1] = np.nan
        x[0] = np.nan
    elif nan == "all":
        x[...] = np.nan
    return x.astype(dtype)


@pytest.mark.parametrize("nan", ["none", "some", "column", "all"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_floats(dtype, nan):
    check(forms, _data(dtype, nan))
    check(forms, _data(dtype, nan, (1, 1)))


@pytest.mark.parametrize("nan", ["none", "some", "column"])
def test_q_arrays(nan):
    check(forms_q_array, _data(np.float64, nan))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int16, np.uint64])
def test_methods(dtype, method):
    x = _data(np.float64, "some" if np.dtype(dtype).kind == "f" else "none")
    if np.dtype(dtype).kind in "iu":
        x = np.abs(np.nan_to_num(x))
    x = x.astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_ok = True
        try:
            by_method(x, method)
        except TypeError:
            want_ok = False
    if want_ok:
        check(by_method, x, method)


@pytest.mark.parametrize("dtype", INTS)
def test_integers_as_quantile(dtype):
    x = np.abs(_data(np.float64, "none")).astype(dtype)
    check(forms, x)


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_placements_1d(dtype):
    for v in ([np.nan, 1.0, 2.0], [1.0, 2.0, np.nan], [np.nan], [3.0], [np.nan, np.nan],
              [-0.0, np.nan, 0.0], [np.inf, np.nan, -np.inf, 1.0]):
        check(forms_1d, np.array(v, dtype))


def forms_0d(x):
    return np.nanquantile(x[0], 0.5), np.nanpercentile(x[1], 30.0, keepdims=True)


@pytest.mark.parametrize("dtype", FLOATS)
def test_0d(dtype):
    check(forms_0d, np.array([np.nan, 2.5], dtype))


def forms_1d(x):
    return np.nanquantile(x, 0.5), np.nanpercentile(x, 12.5, method="nearest"), \
        np.nanquantile(x, 0.999, method="hazen")


def empty_scalar_q(x):
    return np.nanquantile(x, 0.5, axis=0), np.nanpercentile(x, 50.0), \
        np.nanquantile(x, 0.5, axis=1, keepdims=True)


@pytest.mark.parametrize("dtype", FLOATS)
def test_empty_float_scalar_q(dtype):
    check(empty_scalar_q, np.zeros((0, 3), dtype))
    check(empty_scalar_q, np.zeros((3, 0), dtype))


def empty_q_list(x):
    return np.nanquantile(x, [0.5, 0.7], axis=0)


def empty_masked(x):
    return np.nanquantile(x[x > 100], [0.5])


def test_empty_with_q_array_fails():
    # numpy returns np.nanmean's result (no q axis): a run-time error here.
    with pytest.raises(pyonnx.ExecutionError, match="nanquantile_of_an_empty_array"):
        pyonnx.compile(empty_q_list)(np.zeros((0, 3)))
    with pytest.raises(pyonnx.ExecutionError, match="nanquantile_of_an_empty_array"):
        pyonnx.compile(empty_masked)(np.ones(3))
    check(empty_masked, np.array([200.0, np.nan, 300.0]))  # not empty: runs


def integer_scalar_q(x):
    return np.nanquantile(x, 0.5)


def test_empty_integer_fails():
    with pytest.raises(pyonnx.ExecutionError, match="nanquantile_of_an_empty_array"):
        pyonnx.compile(integer_scalar_q)(np.zeros(0, np.int64))


def f32_with_f64_q(x):
    return np.nanquantile(x, [0.5], axis=0)


def test_value_dependent_dtype_refused():
    with pytest.raises(pyonnx.ConversionError, match="unless a slice is all NaN"):
        pyonnx.compile(f32_with_f64_q)(np.ones((3, 2), np.float32))


def bool_linear(x):
    return np.nanquantile(x, 0.5)


def test_bool_refused_as_numpy():
    with pytest.raises(TypeError, match="numpy boolean subtract"):
        bool_linear(np.array([True, False]))
    with pytest.raises(pyonnx.ConversionError, match="boolean subtract"):
        pyonnx.compile(bool_linear)(np.array([True, False]))

"""Sorting, searching and set functions against numpy: every dtype, NaNs, ties, empty arrays."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pyonnx
from tests.oracle import check

ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64"]
RNG = np.random.default_rng(1234)


def data(dtype: str, shape=(4, 6)) -> np.ndarray:
    """Small values with ties and each dtype's extremes (NaN, ±inf, -0.0, uint64 ≥ 2**63)."""
    x = RNG.integers(-3, 4, shape)
    if dtype == "bool":
        return x > 0
    dt = np.dtype(dtype)
    if dt.kind == "u":
        x = np.abs(x)
    x = x.astype(dt)
    flat = x.reshape(-1)
    if dt.kind == "f":
        flat[[1, 5, 9]] = np.nan
        flat[2], flat[3], flat[7], flat[11] = np.inf, -np.inf, -0.0, np.finfo(dt).max
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        flat[0], flat[4] = info.max, info.min
        if dt == np.uint64:
            flat[[6, 8]] = [2**63, 2**63 - 1]
    return x


# ---------------------------------------------------------------------------- sort
def sort_last(x):
    return np.sort(x)


def sort_first(x):
    return np.sort(x, axis=0)


def sort_flat(x):
    return np.sort(x, axis=None)


def sort_stable_kw(x):
    return np.sort(x, axis=-2, kind="stable"), np.sort(x, stable=True)


def argsort_last(x):
    return np.argsort(x, kind="stable")


def argsort_first(x):
    return np.argsort(x, axis=0, stable=True)


def argsort_flat(x):
    return x.argsort(axis=None, kind="stable")


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sort_and_argsort(dtype):
    x = data(dtype)
    for fn in (sort_last, sort_first, sort_flat, sort_stable_kw, argsort_last, argsort_first,
               argsort_flat):
        # numpy's default sort is not stable (SIMD sorts on most CPUs): the order of -0.0 and
        # +0.0, which compare equal, is not defined.
        check(fn, x, signed_zeros=False)


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4), (2, 3, 4)])
def test_sort_shapes(shape):
    x = RNG.normal(size=shape)
    for fn in (sort_last, sort_first, sort_flat, argsort_last, argsort_first, argsort_flat):
        check(fn, x)


def test_sort_0d():
    check(sort_flat, np.array(2.5))
    check(argsort_last, np.array(2.5))
    check(argsort_flat, np.array(7, np.int8))


def sort_scalar_list(a, b):
    return np.sort([b, a, 1.5])


def test_sort_list_of_values():
    check(sort_scalar_list, np.float32(3.0), np.float32(-1.0))


def test_argsort_default_kind_without_ties():
    # Without ties every sorting algorithm gives the same permutation.
    x = RNG.permutation(50).astype(np.float32).reshape(5, 10)
    check(argsort_default_kind, x)


def argsort_default_kind(x):
    return np.argsort(x), np.argsort(x, axis=0, kind="quicksort")


def lexsort_two(a, b):
    return np.lexsort((a, b))


def lexsort_axis0(a, b, c):
    return np.lexsort([a, b, c], axis=0)


def test_lexsort():
    a = np.array([3, 1, 2, 1, 3, 2, 1])
    b = np.array([0.5, 0.5, np.nan, 0.5, -1.0, np.nan, 0.5])
    check(lexsort_two, a, b)
    check(lexsort_two, a.astype(np.uint64) + np.uint64(2**63), b)
    m = RNG.integers(0, 2, (5, 3))
    check(lexsort_axis0, m, m[::-1].copy(), m * 0)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.0, -2.5, np.nan, np.inf, -np.inf, 3.0]),
                max_size=12))
def test_sort_hypothesis(values):
    x = np.array(values, dtype=np.float64)
    check(sort_last, x, signed_zeros=False)  # the order of ±0 is not defined (see above)
    check(argsort_last, x)
    check(argsort_last, x.astype(np.float16))


# -------------------------------------------------------------------- nonzero family
def nonzero_fn(x):
    return np.nonzero(x)


def nonzero_method(x):
    r, c = x.nonzero()
    return c, r


def where_one_argument(x):
    return np.where(x > 1)


def flatnonzero_fn(x):
    return np.flatnonzero(x)


def argwhere_fn(x):
    return np.argwhere(x)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_nonzero_family(dtype):
    x = data(dtype)
    for fn in (nonzero_fn, nonzero_method, flatnonzero_fn, argwhere_fn):
        check(fn, x)
    if dtype != "bool":
        check(where_one_argument, x)
    check(nonzero_fn, x[0])
    check(nonzero_fn, x.reshape(2, 3, 4))


@pytest.mark.parametrize("shape", [(0,), (3, 0)])
def test_nonzero_empty(shape):
    x = np.zeros(shape, np.float32)
    check(nonzero_fn, x)
    check(flatnonzero_fn, x)
    check(argwhere_fn, x)


def test_nonzero_0d_forms():
    for v in (np.array(0.0), np.array(-0.0), np.array(3), np.array(np.nan)):
        check(flatnonzero_fn, v)
        check(argwhere_fn, v)


# ---------------------------------------------------------------------------- unique
def unique_plain(x):
    return np.unique(x)


def unique_all(x):
    return np.unique(x, return_index=True, return_inverse=True, return_counts=True)


def unique_inverse(x):
    u, inv = np.unique(x, return_inverse=True)
    return u, inv


def unique_no_nan_merge(x):
    return np.unique(x, return_index=True, return_counts=True, equal_nan=False)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_unique(dtype):
    x = data(dtype)
    for fn in (unique_plain, unique_all, unique_inverse, unique_no_nan_merge):
        check(fn, x, signed_zeros=False)  # which of -0.0/+0.0 is kept follows the sort order


@pytest.mark.parametrize("x", [np.zeros(0), np.zeros((3, 0), np.int32), np.array(4.0),
                               np.array([np.nan, np.nan]), np.array([-0.0, 0.0, -0.0])],
                         ids=["empty", "empty2d", "0d", "nans", "zeros"])
def test_unique_edges(x):
    check(unique_plain, x)
    check(unique_all, x)
    check(unique_no_nan_merge, x)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-3, 3), max_size=15))
def test_unique_hypothesis(values):
    x = np.array(values, dtype=np.int16)
    check(unique_all, x)


# ----------------------------------------------------------------------- searchsorted
def search_both(a, v):
    return np.searchsorted(a, v), np.searchsorted(a, v, side="right")


def search_method(a, v):
    return a.searchsorted(v, "right")


def search_scalars(a):
    return np.searchsorted(a, 2), np.searchsorted(a, 2.5), np.searchsorted(a, -1, side="right")


def search_sorter(a, v, s):
    return np.searchsorted(a, v, sorter=s), np.searchsorted(a, v, "right", s)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_searchsorted(dtype):
    x = data(dtype)
    a = np.sort(x.reshape(-1))
    check(search_both, a, x)
    check(search_both, a, x[0])
    check(search_both, a, x[0, 0])
    check(search_method, a, x[1])
    check(search_scalars, a)
    check(search_sorter, x.reshape(-1), x, np.argsort(x.reshape(-1), kind="stable"))


def test_searchsorted_mixed_dtypes():
    a8 = np.array([1, 2, 2, 200], np.uint8)
    check(search_both, a8, np.array([2.5, -1.0, 300.0, 2.0]))
    check(search_both, np.array([1.0, 2.0, 3.0], np.float16), np.array([2.0001, 1.0]))
    check(search_both, np.array([0.1, 0.2], np.float32), np.array([0.1, 0.2]))
    big = np.array([0, 2**63 - 1, 2**63, 2**64 - 1], np.uint64)
    check(search_both, big, big)
    check(search_both, big, np.array([-1, 2**62], np.int64))  # numpy compares in float64
    check(search_both, np.zeros(0, np.int32), np.array([1, 2]))
    check(search_both, np.array([1, 2, 3]), np.zeros((0, 2), np.int64))
    check(search_sorter, np.array([3, 1, 2], np.int64), np.array([2]),
          np.array([1, 2, 0], np.uint8))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, 1.0, 2.5, np.nan, -np.inf, np.inf]), max_size=8),
       st.lists(st.sampled_from([0.0, 1.0, 2.0, 2.5, np.nan, -np.inf, np.inf, -0.0]), max_size=5))
def test_searchsorted_hypothesis(a, v):
    check(search_both, np.sort(np.array(a, np.float64)), np.array(v, np.float64))


# ------------------------------------------------------------------------------ diff
def diff_default(x):
    return np.diff(x)


def diff_forms(x):
    return np.diff(x, n=2, axis=0), np.diff(x, axis=-1, n=0), np.diff(x, 3)


def diff_edges(x):
    return np.diff(x, prepend=0, append=x[:, -1:]), np.diff(x, axis=0, append=1.5)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_diff(dtype):
    x = data(dtype)
    for fn in (diff_default, diff_forms, diff_edges):
        check(fn, x)


def test_diff_short_and_empty():
    check(diff_forms, np.ones((2, 2), np.int32))
    check(diff_default, np.zeros(0, np.float32))
    check(diff_edges, np.zeros((0, 1), np.float32))


# ----------------------------------------------------------------------- isin, bincount
def isin_fn(e, t):
    return np.isin(e, t), np.isin(e, t, invert=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_isin(dtype):
    x = data(dtype)
    check(isin_fn, x, x[1, :3])
    check(isin_fn, x[0], x)
    check(isin_fn, x, x[:0, 0])


def test_isin_mixed_and_scalar():
    check(isin_fn, np.array([1, 2, 3, 2**53 + 1]), np.array([2.0, 3.5, 2.0**53]))
    check(isin_fn, np.array([0.0, -0.0, np.nan]), np.array([0.0, np.nan]))
    check(isin_fn, np.float32(2.0), np.array([1, 2], np.int8))
    check(isin_fn, np.array([True, False]), np.array([1, 5], np.uint16))


def bincount_fn(x):
    return np.bincount(x), np.bincount(x, minlength=7)


def bincount_weights(x, w):
    return np.bincount(x, weights=w, minlength=2)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint32"])
def test_bincount(dtype):
    x = RNG.integers(0, 6, 9).astype(dtype)
    check(bincount_fn, x)
    check(bincount_weights, x, RNG.normal(size=x.shape))
    check(bincount_weights, x, np.arange(x.shape[0], dtype=np.int32))


def test_bincount_empty_and_negative():
    check(bincount_fn, np.zeros(0, np.int64))
    # numpy returns int64 zeros for an empty x even with weights; pyonnx's dtype is fixed at
    # conversion time, so it gives float64 zeros (the documented exception).
    got = pyonnx.compile(bincount_weights)(np.zeros(0, np.int64), np.zeros(0, np.float32))
    want = bincount_weights(np.zeros(0, np.int64), np.zeros(0, np.float32))
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.float64 and want.dtype == np.int64
    f = pyonnx.compile(bincount_fn)
    # numpy raises ValueError for a negative value; the model fails at run time with numpy's
    # exception instead of counting it at a wrapped index.
    with pytest.raises(pyonnx.ExecutionError, match=r"must have no negative elements"):
        f(np.array([1, -1, 2]))
    with pytest.raises(ValueError, match=r"must have no negative elements"):
        f(np.array([1, -1, 2]))


# ------------------------------------------------------------------ quantile, percentile
def quantile_forms(x):
    return (np.quantile(x, 0.3), np.quantile(x, [0.0, 0.25, 0.5, 0.75, 1.0], axis=0),
            np.quantile(x, 1), np.quantile(x, 0, axis=-1),
            np.quantile(x, np.float32(0.4), axis=-1, keepdims=True))


def percentile_forms(x):
    return (np.percentile(x, 50, axis=1, keepdims=True), np.percentile(x, [10, 90], axis=(0, 2)),
            np.percentile(x, 37.5, axis=(2, 0), keepdims=True),
            np.percentile(x, np.array([[5.0, 95.0], [50.0, 50.0]]), keepdims=True))


def quantile_of_arg(x, q):
    return np.quantile(x, q, axis=0)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d != "bool"])
def test_quantile_percentile(dtype):
    x = data(dtype, (3, 5, 4))
    if dtype.startswith("float"):
        x = RNG.normal(size=(3, 5, 4)).astype(dtype)
        x[0, 1, 2], x[1, 1, 1], x[2, 3, 0] = np.nan, np.inf, -np.inf
    check(quantile_forms, x)
    check(percentile_forms, x)
    check(quantile_forms, x[:, :, :1])
    check(quantile_of_arg, x[:, :0], 0.5)  # empty kept dimension
    check(quantile_of_arg, x, 0.75)  # a Python float argument becomes static


def quantile_empty(x):
    return np.quantile(x, 0.5, axis=0)


def test_quantile_empty_fails_at_run_time():
    # numpy raises IndexError for an empty reduction; the model fails instead of inventing a value.
    with pytest.raises(pyonnx.errors.ExecutionError, match="quantile_empty"):
        pyonnx.compile(quantile_empty)(np.ones((0, 2)))


def quantile_bool(x):
    return np.quantile(x, 1), np.quantile(x, [0, 1], axis=0)


def test_quantile_bool_and_0d():
    check(quantile_bool, np.array([[True, False], [False, False]]))
    check(quantile_forms, np.array([[2.5]]))
    check(quantile_of_arg, np.array(3.0, np.float32).reshape(1), 0.5)


# ---------------------------------------------------------------------------- errors
def sort_in_place(x):
    x.sort()
    return x


def unique_axis(x):
    return np.unique(x,
                     axis=0)


def unique_unsorted(x):
    return np.unique(x, sorted=False)


def sort_order(x):
    return np.sort(x, order="a")


def sort_bad_kind(x):
    return np.argsort(x, kind="bogo")


def nonzero_0d(x):
    return np.nonzero(x)


def diff_0d(x):
    return np.diff(x)


def partition_fn(x):  # (np.partition itself converts now: tests/test_prepost.py)
    return np.partition(x, 2, kind="heapsort")


def isin_uint64_int(x, y):
    return np.isin(x, y)


def search_2d(a, v):
    return np.searchsorted(a, v)


def bincount_float(x):
    return np.bincount(x)


def sort_axis_0d(x):
    return np.sort(x)


def quantile_method(x):
    return np.quantile(x, 0.5, method="bogus")  # numpy raises ValueError


def quantile_range(x):
    return np.percentile(x, 101)


def quantile_dynamic_q(x, q):
    return np.quantile(x, q)


def quantile_nan_dtype(x):
    return np.quantile(x, np.float64(0.5))


def quantile_bool_interp(x):
    return np.quantile(x, 0.5)


ERRORS = [
    (sort_in_place, (np.ones(3),), "x = np.sort(x)"),
    (unique_axis, (np.ones((2, 2)),), "axis"),
    (unique_unsorted, (np.ones(3),), "sorted=False"),
    (sort_order, (np.ones(3),), "structured"),
    (sort_bad_kind, (np.ones(3),), "kind"),
    (nonzero_0d, (np.array(1.0),), "atleast_1d"),
    (diff_0d, (np.array(1.0),), "at least one dimensional"),
    (partition_fn, (np.ones(5),), "kind must be 'introselect'"),
    (isin_uint64_int, (np.ones(2, np.uint64), np.ones(2, np.int64)), "uint64"),
    (search_2d, (np.ones((2, 2)), np.ones(2)), "1-D"),
    (bincount_float, (np.ones(3),), "int64"),
    (sort_axis_0d, (np.array(1.0),), "axis=None"),
    (quantile_method, (np.ones(3),), "method"),
    (quantile_range, (np.ones(3),), "[0, 100]"),
    (quantile_dynamic_q, (np.ones(3), np.array([0.5])), "conversion time"),
    (quantile_nan_dtype, (np.ones(3, np.float16),), "NaN"),
    (quantile_bool_interp, (np.ones(3, bool),), "boolean subtract"),
]


@pytest.mark.parametrize("fn, args, words", ERRORS, ids=[e[0].__name__ for e in ERRORS])
def test_errors_at_the_call_line(fn, args, words):
    with pytest.raises(pyonnx.ConversionError, match=r"\d+:\d+: error: ") as info:
        pyonnx.compile(fn)(*args)
    assert info.value.lineno == fn.__code__.co_firstlineno + 1
    assert words in info.value.message

"""Reductions against numpy: every dtype, axis forms (None, int, negative, tuple, ()), keepdims,
empty and 0-d arrays, NaN rules, integer wrap-around, and numpy's errors at the user's line."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ConversionError, ExecutionError
from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]
NUMERIC = [d for d in ALL if d != "bool"]


def data(dtype, shape, seed=0, nan=False, low=None, high=None):
    """Random values over the dtype's whole range (ints wrap in sums and products)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo = info.min if low is None else low
        hi = info.max if high is None else high
        return rng.integers(lo, hi, size=shape, dtype=dt, endpoint=True)
    lo = -10 if low is None else low
    hi = 10 if high is None else high
    x = rng.uniform(lo, hi, size=shape).astype(dt)
    if nan and x.size:
        x[rng.random(shape) < 0.3] = np.nan
        x[rng.random(shape) < 0.1] = np.inf
    return x


# float16: the reference evaluator sums float32 in float32 (we accumulate wider, as numpy's
# pairwise sum effectively does), which can move a float16 result by one ulp.
F16_RTOL = 2e-3

# Shapes per rank; the (0, ...) ones exercise empty reductions where numpy has an identity.
SHAPES2 = [(3, 4), (0, 4), (4, 0), (1, 1)]
SHAPES3 = [(2, 3, 4), (2, 0, 3), (3, 2, 0), (0, 2, 3)]


def run_shapes(fn, dtype, shapes, seed=0, rtol=None, **kw):
    rtol = rtol if rtol is not None else (F16_RTOL if dtype == "float16" else None)
    f = None
    for i, shape in enumerate(shapes):
        f = check(f or fn, data(dtype, shape, seed + i, **kw), rtol=rtol)
    assert f.conversions == 1  # one model serves every size


# ------------------------------------------------------------------------------ sum / prod
def sums(x):
    return (np.sum(x), np.sum(x, axis=0), x.sum(axis=-1, keepdims=True),
            np.sum(x, axis=(0, -1)), np.sum(x, axis=(-1, 0), keepdims=True), np.sum(x, axis=()))


def sums_01(x):
    return np.sum(x), x.sum(keepdims=True), np.sum(x, axis=())


def sums_1d(x):
    return np.sum(x, axis=0), np.sum(x, axis=-1, keepdims=True)


def sums_dtype(x):
    return (np.sum(x, dtype=np.int8), np.sum(x, axis=0, dtype=np.float32),
            np.sum(x, axis=1, dtype=np.uint64), x.sum(initial=5), np.sum(x, axis=0, initial=2))


@pytest.mark.parametrize("dtype", ALL)
def test_sum(dtype):
    run_shapes(sums, dtype, SHAPES2)
    run_shapes(sums, dtype, SHAPES3)
    run_shapes(sums_01, dtype, [()])
    run_shapes(sums_1d, dtype, [(5,), (0,)])


@pytest.mark.parametrize("dtype", ["bool", "int16", "int64", "uint64", "float16", "float32"])
def test_sum_dtype_and_initial(dtype):
    run_shapes(sums_dtype, dtype, [(3, 4), (0, 2)], low=0 if dtype == "float32" else None)


def test_sum_wraps_exactly_for_big_int64():
    # onnxruntime's int64 ReduceSum rounds through double; numpy wraps modulo 2**64.
    x = np.array([[2**62, 2**62, 2**62], [2**60 + 1, 1, 2**60]], dtype=np.int64)
    check(sums, x)
    check(sums, (x.astype(np.uint64) * np.uint64(3)))
    check(sums, x.astype(np.int32))


def contiguous_sums(x):
    return np.sum(x), np.sum(x, axis=-1), np.mean(x, axis=1)


def test_float32_sum_matches_pairwise():
    # numpy sums contiguous float32 pairwise; accumulating in float64 matches it to the bit
    # here, where onnxruntime's float32 ReduceSum is off by about 1e-6.
    x = data("float32", (3, 50000), low=0, high=1)
    check(contiguous_sums, x, rtol=1e-7, atol=0)


def prods(x):
    return np.prod(x), x.prod(axis=0), np.prod(x, axis=-1, keepdims=True), np.prod(x, axis=(0, -1))


def prods_01(x):
    return np.prod(x), x.prod(keepdims=True), np.cumprod(x)


def prods_dtype(x):
    return np.prod(x, dtype=np.int16), x.prod(axis=1, initial=3), np.prod(x, dtype=np.float64)


@pytest.mark.parametrize("dtype", ALL)
def test_prod(dtype):
    float_range = {"low": 0.5, "high": 1.5} if dtype.startswith("float") else {}
    run_shapes(prods, dtype, SHAPES2 + [(7, 5)], **float_range)
    run_shapes(prods, dtype, SHAPES3, **float_range)
    run_shapes(prods_01, dtype, [()], **float_range)


def test_prod_dtype_and_initial():
    run_shapes(prods_dtype, "int8", [(3, 5), (0, 5)])
    run_shapes(prods_dtype, "uint64", [(3, 5)])


def test_prod_wraps_exactly():
    x = np.array([[2**31 + 1, 2**31 - 1, 7], [2**40, 2**40, 3]], dtype=np.int64)
    check(prods, x)
    check(prods, np.full((3, 33), 3, dtype=np.int64))  # 3**99 wraps; odd lengths pair with 1


def nan_sums(x):
    return np.nansum(x), np.nansum(x, axis=0), np.nanmean(x, axis=-1), np.nanmean(x)


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float16", "float32", "float64"])
def test_nansum_nanmean(dtype):
    rtol = F16_RTOL if dtype == "float16" else None
    f = check(nan_sums, data(dtype, (4, 5), nan=False), rtol=rtol)
    if dtype.startswith("float"):
        x = data(dtype, (4, 5), seed=3)
        x[x > 3] = np.nan
        check(f, x, rtol=rtol)


# ------------------------------------------------------------------------- mean / var / std
def means(x):
    return (np.mean(x), x.mean(axis=0), np.mean(x, axis=-1, keepdims=True),
            np.mean(x, axis=(0, -1)))


def variances(x):
    return (np.var(x), x.var(axis=0), np.std(x, axis=-1, keepdims=True), x.std(ddof=1),
            np.var(x, axis=(0, -1), ddof=1.5), np.std(x, correction=1))


def means_dtype(x):
    return (np.mean(x, dtype=np.float32), np.var(x, axis=0, dtype=np.float32),
            x.std(dtype=np.float64))


def means_01(x):
    return np.mean(x), np.var(x), np.std(x, keepdims=True)


@pytest.mark.parametrize("dtype", ALL)
def test_mean_var_std(dtype):
    # Sizes without an empty reduction: numpy's nan results for those are tested below.
    rtol = {"float16": 3e-3}.get(dtype)
    run_shapes(means, dtype, [(3, 4), (1, 7)], rtol=rtol)
    run_shapes(means, dtype, [(2, 3, 4)], rtol=rtol)
    run_shapes(means_01, dtype, [()], rtol=rtol)
    if dtype != "bool":
        run_shapes(variances, dtype, [(3, 4), (2, 7)], rtol=rtol)
        run_shapes(variances, dtype, [(2, 3, 4)], rtol=rtol)


@pytest.mark.parametrize("dtype", ["int64", "float16", "float64"])
def test_mean_dtype(dtype):
    run_shapes(means_dtype, dtype, [(3, 4)], rtol=1e-6)


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
def test_mean_of_empty_is_nan():
    check(means, np.zeros((0, 3), np.float32))
    check(means, np.zeros((0, 3), np.int64))


# ------------------------------------------------------------------------------ max / min
def extrema(x):
    return (np.max(x), x.min(axis=0), np.amax(x, axis=-1, keepdims=True),
            np.amin(x, axis=(0, -1)), np.max(x, axis=(-1, 0), keepdims=True), np.min(x, axis=()))


def extrema_01(x):
    return np.max(x), x.min(keepdims=True), np.ptp(x) if x.dtype != bool else x.max()


def extrema_initial(x):
    return np.max(x, initial=3), x.min(axis=0, initial=5), np.max(x, axis=-1, initial=0)


def ptps(x):
    return np.ptp(x), np.ptp(x, axis=0), np.ptp(x, axis=-1, keepdims=True)


@pytest.mark.parametrize("dtype", ALL)
def test_max_min(dtype):
    run_shapes(extrema, dtype, [(3, 4), (1, 1), (5, 1)])
    run_shapes(extrema, dtype, [(2, 3, 4)])
    run_shapes(extrema_01, dtype, [()])
    run_shapes(extrema_initial, dtype, [(3, 4), (0, 4), (3, 0)],
               **({"low": 0, "high": 100} if dtype.startswith("uint") else {}))
    if dtype != "bool":
        run_shapes(ptps, dtype, [(3, 4)])


def test_uint64_max_is_exact_above_2_63():
    x = np.array([[2**64 - 1, 2**63, 5], [2**63 - 1, 2**63 + 1, 0]], dtype=np.uint64)
    check(extrema, x)
    check(arg_extrema, x)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_max_min_propagate_nan(dtype):
    f = None
    for seed in range(6):
        x = data(dtype, (4, 5), seed, nan=True)
        f = check(f or extrema, x)
    g = check(extrema_initial, data(dtype, (3, 4), 1, nan=True))
    check(g, np.zeros((0, 4), dtype))


# ------------------------------------------------------------------------- argmax / argmin
def arg_extrema(x):
    return (np.argmax(x), x.argmin(), np.argmax(x, axis=0), x.argmin(axis=-1),
            np.argmax(x, axis=1, keepdims=True), np.argmin(x, keepdims=True))


def arg_extrema_01(x):
    return np.argmax(x), np.argmin(x, keepdims=True)


@pytest.mark.parametrize("dtype", ALL)
def test_argmax_argmin(dtype):
    run_shapes(arg_extrema, dtype, [(3, 4), (1, 1)])
    run_shapes(arg_extrema_01, dtype, [(), ])
    # Ties: numpy returns the first occurrence.
    check(arg_extrema, data(dtype, (6, 7), low=0, high=1))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_argmax_first_nan(dtype):
    f = None
    for seed in range(8):
        f = check(f or arg_extrema, data(dtype, (5, 6), seed, nan=True))


# ------------------------------------------------------------------------ any / all / count
def logicals(x):
    return (np.any(x), x.all(), np.any(x, axis=0), x.all(axis=-1, keepdims=True),
            np.all(x, axis=(0, 1)), np.count_nonzero(x), np.count_nonzero(x, axis=0),
            np.count_nonzero(x, axis=(0, -1), keepdims=True))


def logicals_01(x):
    return np.any(x), np.all(x, keepdims=True), np.count_nonzero(x)


@pytest.mark.parametrize("dtype", ALL)
def test_any_all_count_nonzero(dtype):
    def sparse(shape, seed):
        x = data(dtype, shape, seed)
        return np.where(np.random.default_rng(seed).random(shape) < 0.5, x, np.zeros_like(x))
    f = None
    for i, shape in enumerate([(3, 4), (0, 4), (4, 0), (1, 3)]):
        f = check(f or logicals, sparse(shape, i))
    check(f, np.ones((2, 3), dtype))
    check(logicals_01, sparse((), 0))
    if dtype.startswith("float"):
        check(f, np.full((2, 2), np.nan, dtype))  # NaN is nonzero


# ---------------------------------------------------------------------- cumsum / cumprod
def cums(x):
    return np.cumsum(x), x.cumsum(axis=0), np.cumsum(x, axis=-1), np.cumprod(x, axis=0), \
        x.cumprod(axis=-1), np.cumprod(x)


def cums_dtype(x):
    return np.cumsum(x, dtype=np.int8), np.cumprod(x, axis=1, dtype=np.float64), \
        np.cumsum(x, axis=0, dtype=np.float32)


def cums_01(x):
    return np.cumsum(x), np.cumprod(x)


@pytest.mark.parametrize("dtype", ALL)
def test_cumsum_cumprod(dtype):
    float_range = {"low": 0.5, "high": 1.5} if dtype.startswith("float") else {}
    run_shapes(cums, dtype, [(3, 4), (0, 3), (3, 0), (1, 9), (9, 2)], **float_range)
    run_shapes(cums, dtype, [(2, 3, 4)], **float_range)
    run_shapes(cums_01, dtype, [()], **float_range)
    run_shapes(cums_01, dtype, [(17,), (0,)], **float_range)


def test_cum_dtype_and_wrap():
    run_shapes(cums_dtype, "int64", [(3, 4)])
    check(cums, np.full((3, 40), 3, np.int64))  # cumprod wraps modulo 2**64 like numpy
    check(cums, np.array([[2**62, 2**62, 2**62, 5]], np.int64))


def extreme_accumulates(x):
    return np.maximum.accumulate(x), np.minimum.accumulate(x, axis=-1), \
        np.maximum.accumulate(x, axis=0)


@pytest.mark.parametrize("dtype", ALL)
def test_maximum_minimum_accumulate(dtype):
    run_shapes(extreme_accumulates, dtype, [(3, 4), (0, 3), (3, 0), (1, 9), (9, 2)])
    run_shapes(extreme_accumulates, dtype, [(2, 3, 4)])
    if dtype.startswith("float"):  # NaN propagates from where it appears
        check(extreme_accumulates, np.array([[1, np.nan, 3], [-np.inf, 2, np.nan]], dtype))


def test_accumulate_refusals():
    def zero_d(x):
        return np.maximum.accumulate(x)
    with pytest.raises(ConversionError, match="0-d"):
        pyonnx.compile(zero_d)(np.float64(1.0))


# -------------------------------------------------------------------------------- median
def medians(x):
    return (np.median(x), np.median(x, axis=0), np.median(x, axis=-1, keepdims=True),
            np.median(x, axis=(0, 1)), np.median(x, keepdims=True))


def median_01(x):
    return np.median(x), np.median(x, keepdims=True)


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value")
@pytest.mark.parametrize("dtype", ALL)
def test_median(dtype):
    run_shapes(medians, dtype, [(3, 4), (4, 5), (1, 1), (0, 3), (3, 0), (2, 7)])
    run_shapes(medians, dtype, [(2, 3, 4)])
    run_shapes(median_01, dtype, [()])
    if dtype.startswith("float"):
        x = data(dtype, (4, 5), 1)
        x[1, 2] = np.nan
        check(medians, x)


# ------------------------------------------------------------------------------- average
def averages(x, w):
    return np.average(x), np.average(x, weights=w), np.average(x, axis=0, weights=w), \
        np.average(x, axis=(0, 1), weights=w, keepdims=True)


def average_1d_weights(x, w):
    avg, scl = np.average(x, axis=1, weights=w, returned=True)
    avg0, scl0 = np.average(x, axis=0, returned=True)
    return np.average(x, axis=1, weights=w), avg, scl, avg0, scl0


def average_tuple_weights(x, w):
    return np.average(x, axis=(2, 0), weights=w)


@pytest.mark.parametrize("dtype", ["int32", "bool", "float16", "float32", "float64"])
def test_average(dtype):
    rtol = {"float16": 3e-3}.get(dtype)
    x = data(dtype, (3, 4), 1)
    check(averages, x, data(dtype if dtype != "bool" else "int8", (3, 4), 2, low=1, high=5),
          rtol=rtol)
    check(average_1d_weights, x, data("float32", (4,), 3, low=1, high=5), rtol=rtol)


def test_average_weights_along_axes():
    x = data("float64", (3, 2, 4), 1)
    check(average_tuple_weights, x, data("float64", (4, 3), 2, low=1, high=2))


def test_average_zero_weight_sum_raises_at_run_time():
    f = pyonnx.compile(averages)
    x = data("float64", (3, 4), 1)
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        averages(x, np.zeros((3, 4)))
    with pytest.raises(ExecutionError, match="line|averages"):
        f(x, np.zeros((3, 4)))


def list_inputs(x):
    return np.sum([x[0], x[1]], axis=0), np.max([x[0, 0], x[1, 1], 2.5]), np.mean([x, x])


def zero_d_axis(x):
    # numpy's ufunc reductions take axis=0/-1 on a 0-d array (mean, var, median do not).
    return (np.sum(x, axis=0), np.max(x, axis=-1, keepdims=True), np.any(x, axis=0),
            np.argmax(x, axis=0), np.argmin(x, axis=-1, keepdims=True), np.cumsum(x, axis=0),
            np.count_nonzero(x, axis=0), np.prod(x, axis=-1))


def test_zero_d_with_axis_0():
    check(zero_d_axis, np.float32(2.5))
    check(zero_d_axis, np.array(3, np.int64))


def mean_zero_d_axis(x):
    return np.mean(x, axis=0)


def test_mean_of_zero_d_with_axis_0_is_an_error():
    with pytest.raises(np.exceptions.AxisError, match="axis 0 is out of bounds"):
        mean_zero_d_axis(np.float64(2))
    with pytest.raises(ConversionError, match="out of bounds"):
        pyonnx.compile(mean_zero_d_axis)(np.float64(2))


def test_reductions_of_lists_holding_arrays():
    check(list_inputs, data("float32", (3, 4)))
    check(list_inputs, data("int16", (2, 2)))


# --------------------------------------------------------------------- static arguments
def sum_axis_arg(x, ax, kd):
    return np.sum(x, axis=ax, keepdims=kd), np.max(x, axis=ax), np.argmax(x, axis=ax)


def test_axis_from_python_arguments():
    x = data("float32", (3, 4))
    f = check(sum_axis_arg, x, 1, True)
    check(f, x, -2, False)


# -------------------------------------------------------------------------------- errors
def bad_axis(x):
    return np.sum(x, axis=2)


def repeated_axis(x):
    return np.max(x, axis=(0, -2))


def list_axis(x):
    return np.mean(x, axis=[0, 1])


def tuple_axis_argmax(x):
    return np.argmax(x, axis=(0, 1))


def max_of(x):
    return np.max(x, axis=0)


def argmax_of(x):
    return np.argmax(x)


def ddof_and_correction(x):
    return np.var(x, ddof=1, correction=1)


def sum_out(x):
    return np.sum(x, out=x)


def nanmean_int_dtype(x):
    return np.nanmean(x, dtype=np.int64)


def cumsum_bad_axis(x):
    return np.cumsum(x, axis=-3)


@pytest.mark.parametrize("fn, match, numpy_match", [
    (bad_axis, "axis 2 is out of bounds for array of dimension 2", None),
    (repeated_axis, "repeated axis", "duplicate value in 'axis'"),
    (list_axis, "tuple", "cannot be interpreted as an integer"),
    (tuple_axis_argmax, "axis must be an int", "cannot be interpreted as an integer"),
    (ddof_and_correction, "ddof and correction", None),
    (sum_out, "out=", "output parameter"),
    (nanmean_int_dtype, "must be inexact", None),
    (cumsum_bad_axis, "out of bounds", None),
])
def test_errors_at_the_users_line(fn, match, numpy_match):
    check_refused(fn, np.ones((2, 3)), match=match, numpy_match=numpy_match)


@pytest.mark.parametrize("fn", [max_of, argmax_of])
def test_static_empty_reduction_is_a_conversion_error(fn):
    with pytest.raises(ValueError, match="zero-size array|empty sequence"):
        fn(np.zeros((0, 3)))
    with pytest.raises(ConversionError, match="empty|zero-size") as info:
        pyonnx.compile(fn).to_onnx(pyonnx.spec("float64", (0, 3)))
    assert info.value.lineno == fn.__code__.co_firstlineno + 1


@pytest.mark.parametrize("dtype", ["int32", "uint64", "int16", "bool", "float32"])
@pytest.mark.parametrize("fn", [max_of, argmax_of])
def test_run_time_empty_reduction_raises(fn, dtype):
    f = pyonnx.compile(fn)
    check(f, np.ones((2, 3), dtype))
    with pytest.raises(ValueError, match="zero-size array|empty sequence"):
        fn(np.zeros((0, 3), dtype))
    with pytest.raises(ExecutionError, match=fn.__name__):
        f(np.zeros((0, 3), dtype))
    # Reducing a non-empty axis of an array with no rows is fine in numpy.
    if fn is max_of:
        check(f, np.zeros((0, 3), dtype).T.copy())


def max_axis1(x):
    return np.max(x, axis=1), np.min(x, axis=(1, 2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_extrema_nan_flag_and_empty_axis(dtype):
    # The NaN flag is reduced in uint8; a bool ReduceMax over the first element of each
    # reduced axis keeps the run-time error on an empty axis.
    x = np.random.default_rng(3).normal(size=(3, 700, 2)).astype(dtype)
    x[1, 650, 0] = np.nan
    x[2, 0, 1] = np.nan
    f = check(max_axis1, x)
    check(f, x[:, :1].copy())
    check(f, np.zeros((0, 4, 2), dtype))  # empty, but no empty reduction
    with pytest.raises(ExecutionError, match=r"zero-size array to reduction operation (maximum|minimum) which has no identity"):
        f(np.zeros((2, 0, 2), dtype))

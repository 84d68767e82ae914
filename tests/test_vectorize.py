"""Loop vectorization (pyonnx/frontend/vectorize): every form against the Python loop (numpy is
the oracle) at 0, 1 and many iterations, in every dtype the form claims; the vectorized model
holds no ``Loop``; loops with a cross-iteration dependence keep their ``Loop`` and stay right."""

import numpy as np
import pytest

import pyonnx
from tests import vectorize_kernels as K
from tests.oracle import LOOPS, assert_same, check, loop_nodes, op_types

FLOATS = [np.float32, np.float64]
NUMBERS = [np.int32, np.int64, np.float32, np.float64]
SIZES = [0, 1, 2, 37]


def data(n, dtype, seed=0, shape=None):
    rng = np.random.default_rng(seed + n)
    v = rng.normal(size=shape or (n,)) * 4
    return v.astype(dtype)


def vectorized(fn, *args, scan=False, **kw):
    """``check`` of ``fn`` and an assertion that its model runs no Loop (``scan``: only the
    log-depth Hillis-Steele Loops of ``np.maximum.accumulate``, whose body shifts with Pad)."""
    c = check(fn, *args, **kw)
    if not scan:
        assert not LOOPS & op_types(c, *args), f"{fn.__name__} was not vectorized"
        return c
    loops = loop_nodes(c.to_onnx(*args).graph)
    for n in loops:
        body = next(a.g for a in n.attribute if a.name == "body")
        assert "Pad" in {b.op_type for b in body.node}, f"{fn.__name__} was not vectorized"
    return c


def stays_loop(fn, *args, **kw):
    # onnx's reference evaluator cannot stack a Loop's scan output of 0 iterations.
    kw.setdefault("reference", all(np.size(a) > 1 for a in args if isinstance(a, np.ndarray)))
    c = check(fn, *args, **kw)
    assert LOOPS & op_types(c, *args), f"{fn.__name__} must keep its Loop"


# ------------------------------------------------------------------------------- maps
@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", SIZES)
def test_affine_map(dtype, n):
    vectorized(K.affine_map, data(n, dtype), np.int64(n))


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_map_with_index_keeps_python_int_promotion(dtype, n):
    # i is a Python int: x[i] + i stays float32/int8 (NEP 50), as the loop's.
    x = (np.arange(n) % 50).astype(dtype)
    vectorized(K.map_with_index, x)


@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 40])
def test_stencil_1d(dtype, n):
    vectorized(K.stencil_1d, data(n, dtype))


@pytest.mark.parametrize("n", [0, 1, 6, 25])
def test_negative_and_strided_steps(n):
    x = data(n, np.float64)
    vectorized(K.reversed_map, x, np.int64(n))
    vectorized(K.strided_map, x, np.int64(n))


@pytest.mark.parametrize("rows", [0, 1, 5])
def test_row_map(rows):
    vectorized(K.row_map, data(rows, np.float64, shape=(rows, 3)), data(3, np.float64),
               data(rows, np.float64, seed=2))


@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", SIZES)
def test_masked_maps(dtype, n):
    x = data(n, dtype)
    vectorized(K.masked_map, x)
    vectorized(K.clamp_map, x, 0.5 if x.dtype.kind == "f" else 1)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 1), (4, 5), (2, 2), (3, 2)])
@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_nested_maps(shape, dtype):
    a = data(shape[0], dtype, shape=shape)
    vectorized(K.element_map_2d, a, data(shape[1], dtype, 1), data(shape[0], dtype, 2))
    vectorized(K.stencil_2d, a)


@pytest.mark.parametrize("n", [0, 3])
def test_in_place_write_to_argument(n):
    # (onnx's reference evaluator returns the written argument as a second output)
    vectorized(K.in_place_scale, data(n, np.float64), np.int64(n), reference=False)


@pytest.mark.parametrize("n", [0, 1, 6])
def test_writes_into_fresh_and_viewed_arrays(n):
    x = data(n, np.float64)
    vectorized(K.view_sees_writes, x)       # a view of y: an item write, seen through it
    vectorized(K.cast_on_write, x)          # y = y[:s] + v + y[e:], v cast like y[i] = v
    vectorized(K.constant_write, x, np.int64(n))  # a scalar broadcast over the range


# ------------------------------------------------------------------------- reductions
@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", SIZES)
def test_sums(dtype, n):
    x = data(n, dtype)
    vectorized(K.sum_squares, x, np.int64(n), rtol=1e-5 if dtype == np.float32 else None)
    if n == 0 and x.dtype.kind == "f":
        # numpy keeps the Python int 0 when no iteration runs and gives a float after any: the
        # model fails at run time then, as the Loop lowering does (never the wrong type).
        with pytest.raises(pyonnx.ExecutionError, match="changes_type_in_the_loop"):
            pyonnx.compile(K.int_sum)(x)
    else:
        vectorized(K.int_sum, x, rtol=1e-5 if dtype == np.float32 else None)
    vectorized(K.masked_sum, x, rtol=1e-5 if dtype == np.float32 else None)


@pytest.mark.parametrize("n", [0, 5])
def test_reduction_through_a_temporary(n):
    vectorized(K.distance_sum, data(n, np.float64), data(n, np.float64, 1))


def test_float16_accumulation_stays_a_loop():
    # The loop rounds every partial sum to float16; numpy's pairwise sum does not.
    # (not through check: the Loop's own float16 arithmetic fails its float16 audit today)
    x = data(40, np.float16)
    for fn, args in ((K.int_sum, (x,)), (K.distance_sum, (x, x[::-1].copy()))):
        c = pyonnx.compile(fn)
        assert_same(c(*args), fn(*args), rtol=2e-2, atol=1e-2)
        assert LOOPS & op_types(c, *args)


def test_int32_sum_wraps_like_the_loop():
    x = np.full(5, 2**30, np.int32)
    with np.errstate(over="ignore"):
        vectorized(K.int_sum, x)


@pytest.mark.parametrize("n", SIZES)
def test_product_count_flags(n):
    x = data(n, np.float64) / 4 + 1
    vectorized(K.product, x)
    vectorized(K.count_between, x, 0.5, 1.5)
    vectorized(K.count_between, x.astype(np.float32), 0.5, 1.5)
    vectorized(K.any_negative, x - 1)
    vectorized(K.all_positive, x - 0.2)


@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", SIZES)
def test_extrema(dtype, n):
    x = data(n, dtype)
    vectorized(K.py_max, x, -100 if x.dtype.kind == "i" else -np.inf)
    vectorized(K.np_min, x)


def test_extrema_with_nan_follow_python():
    x = np.array([1.0, np.nan, 3.0, -2.0])
    vectorized(K.py_max, x, -np.inf)      # max(m, nan) keeps m
    vectorized(K.py_max, x, np.nan)       # nothing compares greater than a NaN start
    vectorized(K.np_min, x)               # np.minimum propagates the NaN


@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", SIZES)
def test_arg_extrema_first_index(dtype, n):
    x = (data(n, dtype) // 2).astype(dtype)  # ties: the loop keeps the first
    if x.dtype.kind == "f":  # best = -inf: an int array's best would be a float or an int
        vectorized(K.arg_max, x)
    if n:
        vectorized(K.arg_min_reversed, x)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint64, np.float16])
def test_small_and_unsigned_dtypes(dtype):
    x = (np.arange(9) * 7 % 5).astype(dtype)
    vectorized(K.arg_min_reversed, x)   # the padding identity is cast into the value's dtype
    vectorized(K.affine_map, x, np.int64(9), rtol=1e-3 if dtype == np.float16 else None)
    vectorized(K.running_max, x, scan=True)  # float16 too: a maximum rounds nothing


@pytest.mark.parametrize("shape", [(0, 2), (3, 4)])
def test_nested_reduction(shape):
    vectorized(K.nested_sum, data(shape[0], np.int64, shape=shape))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_loop_variable_after_the_loop(n):
    vectorized(K.last_index, data(4, np.float64), np.int64(n), reference=False)


# ---------------------------------------------------------------------------- prefix
@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", [1, 2, 50])
def test_prefix_recurrences(dtype, n):
    x = data(n, dtype)
    tol = 1e-5 if dtype == np.float32 else None
    vectorized(K.prefix_sum, x, rtol=tol)
    vectorized(K.suffix_sum, x, rtol=tol)
    small = (x % 3 + 1).astype(dtype) if x.dtype.kind == "i" else x / 8 + 1
    check(K.prefix_product, small, rtol=tol)  # integer cumprod is itself a log-depth Loop


@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", [1, 2, 50])
def test_running_extrema(dtype, n):
    x = data(n, dtype)
    vectorized(K.running_max, x, scan=True)
    vectorized(K.running_min_reversed, x, scan=True)


def test_running_extrema_nan_follow_the_loop():
    x = np.array([1.0, np.nan, 3.0, 2.0, np.nan, 5.0])
    vectorized(K.running_max, x, scan=True)            # max(prev, nan) keeps prev
    vectorized(K.running_min_reversed, x, scan=True)   # np.minimum propagates the NaN
    vectorized(K.running_max, np.array([np.nan, 1.0, 2.0]), scan=True)  # a NaN start stays


@pytest.mark.parametrize("dtype", FLOATS)
def test_running_extrema_keep_a_negative_zero_that_wins(dtype):
    # NaN becomes the identity through one Where with the values in its second branch, the
    # branch onnxruntime copies exactly (-0.0 included); no tie of zeros here (the accumulate
    # picks either zero of a tie).
    x = np.array([-3.0, np.nan, -0.0, -1.0, -5.0, np.nan, 2.0], dtype)
    vectorized(K.running_max, x, scan=True)
    vectorized(K.running_min_reversed, -x, scan=True)


def test_prefix_sum_int32_wraps():
    x = np.full(6, 2**30, np.int32)
    with np.errstate(over="ignore"):
        vectorized(K.prefix_sum, x)


# ---------------------------------------------------------------------------- search
@pytest.mark.parametrize("n", SIZES)
def test_first_index_search(n):
    x = data(n, np.float64)
    for t in (-100.0, 0.5, 100.0):  # first element, somewhere, never
        vectorized(K.first_above, x, t)
        vectorized(K.last_above, x, t)


# ------------------------------------------------------- loops that must stay Loops
@pytest.mark.parametrize("n", [0, 1, 6])
def test_affine_recurrence_on_integers_stays_a_loop(n):
    stays_loop(K.affine_recurrence, np.arange(n, dtype=np.int64), 3)


@pytest.mark.parametrize("fn", [K.write_through_view, K.read_after_write, K.running_scalar,
                                K.temp_live_after, K.wraps_negative])
@pytest.mark.parametrize("n", [0, 1, 6])
def test_dependent_loops_stay_loops(fn, n):
    x = data(n, np.float64)
    if n == 0 and fn is K.write_through_view:
        check(fn, x, reference=False)  # no loop at all: nothing to vectorize
        return
    stays_loop(fn, x, reference=False if fn is K.write_through_view else n > 1)


@pytest.mark.parametrize("shape", [(3, 0), (3, 2), (0, 2)])
def test_flag_of_a_nest_is_right_for_empty_inner_ranges(shape):
    check(K.flag_in_empty_inner, np.ones((3, max(shape[1], 1)))[:shape[0], :shape[1]]
          if shape[1] else np.ones(shape), 0.5)


@pytest.mark.parametrize("n", [1, 6])
def test_read_ahead_of_another_written_array_stays_a_loop(n):
    stays_loop(K.read_other_written_ahead, data(n, np.float64), reference=n > 1)


def test_out_of_range_read_fails_at_run_time():
    # Python raises IndexError on the last iteration; a slice would silently clamp.
    x = np.arange(4.0)
    with pytest.raises(IndexError, match=r"index 4 is out of bounds for axis 0 with size 4"):
        K.reads_past_end(x, 4)
    compiled = pyonnx.compile(K.reads_past_end)
    np.testing.assert_array_equal(compiled(x, np.int64(3)), K.reads_past_end(x, 3))
    with pytest.raises(pyonnx.ExecutionError, match=r"vectorized_loop_index_out_of_range"):
        compiled(x, np.int64(4))


def test_range_bounds_with_side_effects_are_evaluated_once():
    # grow() appends to the list: bounds are only vectorized when evaluating them is pure.
    check(K.bounds_from_a_call, data(3, np.float64))


def test_bounds_proved_from_len_only_when_they_hold():
    x = np.arange(5.0)
    with pytest.raises(IndexError, match=r"index 5 is out of bounds for axis 0 with size 5"):
        K.reads_one_past_len(x)
    with pytest.raises(pyonnx.ExecutionError, match=r"vectorized_loop_index_out_of_range"):
        pyonnx.compile(K.reads_one_past_len)(x)
    vectorized(K.stencil_1d, x)  # range(1, len(x) - 1) reading x[i - 1], x[i + 1]: no check


def test_environment_switch_keeps_loops(monkeypatch):
    monkeypatch.setenv("PYONNX_VECTORIZE", "0")
    stays_loop(K.affine_map, data(5, np.float64), np.int64(5))


# ----------------------------------------------------------- loops over array elements
@pytest.mark.parametrize("n", SIZES)
def test_loops_over_elements(n):
    x = data(n, np.float64)
    vectorized(K.count_in_range, x, -1.0, 1.0)
    vectorized(K.enumerate_argmax, x)
    vectorized(K.rows_norms, data(n, np.float64, shape=(n, 2)))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_element_live_after_the_loop_stays_a_loop(n):
    check(K.element_live_after, data(n, np.float64))  # v is the last element (a Loop)


# ------------------------------------------------------------------------- gradients
def _loss(fn):
    def loss(x):
        r = fn(x)
        return np.sum(r * r)
    loss.__name__ = f"{fn.__name__}_loss"
    return loss


def _best(x):
    best, _ = K.arg_max(x)
    return best


@pytest.mark.parametrize("fn", [_loss(K.stencil_1d), _loss(K.prefix_sum), _loss(K.masked_map),
                                _loss(K.running_max), _loss(K.stencil_2d), _best])
def test_gradients_through_vectorized_loops(fn):
    from tests.test_grad_control_flow import check as check_grad

    x = data(5, np.float64, shape=(4, 5) if "2d" in fn.__name__ else (7,))
    check_grad(fn, [(x,)], rtol=1e-5, atol=1e-6)


def unused_comparison_of_the_index(a0, a1):
    for i1 in range(3):
        t2 = i1 != i1  # noqa: F841  (dead: the fuzzer's seed 700237)
    for i2 in range(a1.shape[0]):
        t3 = i2 < 2  # noqa: F841
    return a0


def compares_index_with_python_int(x):
    y = np.zeros_like(x)
    for i in range(3):
        y[i] = x[i] * (i != 1)
    return y


def test_static_range_index_compared_with_itself_and_ints():
    """A static range's index vector is a conversion-time arange: materialized (it crashed with
    AttributeError), and compared with Python ints element by element (it crashed in the
    comparison's constant path, which read it as one int)."""
    check(unused_comparison_of_the_index, np.ones((2, 3)), np.arange(4, dtype=np.uint8))
    check(compares_index_with_python_int, np.arange(5.0))

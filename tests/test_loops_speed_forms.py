"""The loop forms made cheaper for issue 14: prefix extrema (np.maximum/minimum.accumulate as a
doubling scan, pyonnx/frontend/numpy_calls/reductions/doubling.py), prefix scans written with
their initial element, first-index searches with a False sentinel. Differential against numpy:
0, 1, 2, a power of two, one past it and many elements, every dtype, NaN and signed zeros;
loops with a true cross-iteration dependence stay run-time loops and right."""

import numpy as np
import pytest

from tests import loops_speed_kernels as K
from tests.oracle import LOOPS, check, op_types

SIZES = [0, 1, 2, 3, 4, 5, 8, 9, 16, 17, 100]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]


def values(n, dtype, seed=0):
    rng = np.random.default_rng(seed + n)
    if np.dtype(dtype).kind == "f":
        return (rng.normal(size=n) * 10).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", INTS + FLOATS)
@pytest.mark.parametrize("n", SIZES)
def test_accumulate_extrema(n, dtype):
    x = values(n, dtype)
    check(K.max_accumulate, x)
    check(K.min_accumulate, x)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_accumulate_int64_beyond_32_bits(dtype):
    # (onnxruntime's int64 Max compares 32 bits in places: integers combine by Where)
    x = np.array([3653403231, 1322117304, 2**40 + 1, 2**40, 7, 2**63 - 1], dtype=dtype)
    check(K.max_accumulate, x)
    check(K.min_accumulate, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_accumulate_nan_and_signed_zeros(dtype):
    # Values, NaN propagation and dtype exact; the sign of a zero tie is not: onnxruntime's
    # Where gives +0.0 for a -0.0 taken from its X input (Where([True], [-0.0], [1.0]) is
    # [0.0], measured on 1.32) and its Max/Min pick either zero depending on the length.
    x = np.array([-0.0, 0.0, -0.0, 1.0, np.nan, 2.0, -np.inf, np.inf], dtype=dtype)
    check(K.max_accumulate, x, signed_zeros=False)
    check(K.min_accumulate, x, signed_zeros=False)
    z = np.array([0.0, -0.0, 0.0, -0.0, -1.0, 0.0], dtype=dtype)
    check(K.max_accumulate, z, signed_zeros=False)
    check(K.min_accumulate, -z, signed_zeros=False)
    check(K.max_accumulate, np.full(33, np.nan, dtype))
    check(K.min_accumulate, np.array([3.0, np.nan, 1.0], dtype))


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 1), (4, 9), (7, 17)])
def test_accumulate_along_axis_1(shape):
    check(K.max_accumulate_axis1, values(int(np.prod(shape)), np.float64).reshape(shape))
    check(K.max_accumulate, values(int(np.prod(shape)), np.int32).reshape(shape))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 3, 17, 100])
def test_prefix_max_loop(n, dtype):
    x = values(n, dtype)
    c = check(K.prefix_max, x)
    assert not LOOPS & op_types(c, x) or "Pad" in op_types(c, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_prefix_max_loop_nan(dtype):
    # builtin max(prev, nan) keeps prev; np.minimum propagates it
    x = np.array([1.0, np.nan, 3.0, -1.0, np.nan, 5.0], dtype)
    check(K.prefix_max, x)
    check(K.prefix_np_min, x)
    check(K.prefix_max, np.array([np.nan, 1.0, 2.0], dtype))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 2, 50])
def test_prefix_sums_write_their_first_element(n, dtype):
    x = values(n, dtype)
    check(K.prefix_sum_from, x, dtype(3))
    check(K.suffix_sum, x)
    check(K.prefix_np_min, x) if n else None


@pytest.mark.parametrize("n", [0, 1, 2, 10, 100])
def test_first_index_searches(n):
    x = np.linspace(0, 1, n)
    for t in (-1.0, 0.0, 0.5, 1.0, 2.0):
        check(K.first_above, x, t)
        check(K.last_below, x, t)
    ints = np.arange(n, dtype=np.int32)
    check(K.first_above, ints, 3)
    check(K.last_below, ints, 3)


def test_search_model_is_small():
    x = np.linspace(0, 1, 10)
    c = check(K.first_above, x, 0.5)
    nodes = c.to_onnx(x, 0.5).graph.node
    assert not LOOPS & op_types(c, x, 0.5) and len(nodes) <= 7


@pytest.mark.parametrize("n", [0, 1, 2, 3, 20])
def test_dependences_are_never_vectorized(n):
    x = np.linspace(-1, 1, n)
    c = check(K.write_through_view, x, reference=n > 1)   # y[i + 1] = y[i] + x[i] via a view
    c2 = check(K.two_back, x)                             # a read at offset -2
    if n > 2:
        assert LOOPS & op_types(c2, x)
    ints = (np.arange(n) % 7).astype(np.int64)
    c3 = check(K.linear_recurrence, ints, np.int64(-3))   # y[i-1] * a + x[i]
    if n > 1:
        assert LOOPS & op_types(c3, ints, np.int64(-3))
    assert c is not None

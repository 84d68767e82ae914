"""``np.clip`` between one-element bounds as one onnxruntime ``Clip``
(frontend/numpy_calls/elementwise/clip_scalar.py), against numpy with the sign of every zero:
ties keep ``x``, NaN from ``x`` or from a bound, ±inf, ``lo > hi`` (``hi`` wins), constant and
run-time bounds, 0-d and (1,)/(1, 1) bounds, ``None`` bounds, integer inputs and array bounds
(the general form beside it)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from tests.oracle import check

SPECIAL = [-0.0, 0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 5.0, 1e-30, -1e-30, 3.0, -3.0, 0.5]
FLOATS = [np.float16, np.float32, np.float64]
# (lo, hi): ±0 ties both ways, NaN in either or both, infinities, lo > hi, lo == hi.
PAIRS = [(0.0, 3.0), (-0.0, 0.0), (0.0, -0.0), (0.0, 0.0), (-0.0, -0.0), (np.nan, 1.0),
         (0.0, np.nan), (np.nan, np.nan), (np.inf, -np.inf), (-np.inf, np.inf), (5.0, 1.0),
         (1.0, 0.0), (0.5, -0.0), (-1e-30, 1e-30), (3.0, 3.0)]


def _x(dtype, shape=(7, 13)):
    n = int(np.prod(shape))
    return np.resize(np.array(SPECIAL), n).astype(dtype).reshape(shape)


def clip_runtime(x, lo, hi):
    return np.clip(x, lo, hi), x.clip(lo, hi), np.clip(x, min=lo, max=hi), np.clip(x, 0, hi)


@pytest.mark.parametrize("dtype", FLOATS)
def test_runtime_scalar_bounds(dtype):
    f = pyonnx.compile(clip_runtime)
    for shape in [(7, 13), (37,), (), (0, 3)]:
        x = _x(dtype, shape) if shape != (0, 3) else np.zeros(shape, dtype)
        for lo, hi in PAIRS:
            check(f, x, dtype(lo), dtype(hi))


def test_runtime_bounds_non_contiguous_input():
    x = _x(np.float32, (13, 7))
    for lo, hi in PAIRS[:6]:
        check(clip_runtime, x.T, np.float32(lo), np.float32(hi))
        check(clip_runtime, x[::2, 1::3], np.float32(lo), np.float32(hi))


def clip_constants(x):
    return (np.clip(x, 0, 600.0), np.clip(x, -0.0, 0.0), np.clip(x, 0.0, -0.0),
            np.clip(x, np.nan, 1), np.clip(x, 0, np.nan), x.clip(-np.inf, np.inf),
            np.clip(x, 5, 1),
            np.clip(x, np.float32(-0.0), 3), 1 / np.clip(x, -0.0, 0.0))


@pytest.mark.parametrize("dtype", FLOATS)
def test_constant_bounds(dtype):
    check(clip_constants, _x(dtype))
    check(clip_constants, _x(dtype, ()))


def clip_one_element_arrays(x, lo, hi):
    return np.clip(x, lo, hi), np.clip(x, lo, 2.0), np.clip(x, -1, hi)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape", [(1,), (1, 1)])
def test_one_element_array_bounds(dtype, shape):
    for lo, hi in [(0.0, -0.0), (-0.0, 0.0), (np.nan, 1.0), (1.0, np.nan), (4.0, 2.0)]:
        args = [np.full(shape, v, dtype) for v in (lo, hi)]
        check(clip_one_element_arrays, _x(dtype, (5, 4)), *args)
        # bounds with more dimensions than x: the result takes theirs (general form)
        check(clip_one_element_arrays, _x(dtype, (6,)), *args)
        check(clip_one_element_arrays, _x(dtype, ()), *args)


def clip_array_bounds(x, lo, hi):
    return np.clip(x, lo, hi), np.clip(x, lo, 0.0), np.clip(x, 0.0, hi)


@pytest.mark.parametrize("dtype", FLOATS)
def test_array_bounds_keep_numpy_ties_and_nan(dtype):
    x = _x(dtype, (6, 13))
    lo = np.resize(np.array([-0.0, 0.0, np.nan, 1.0, -np.inf, 5.0]), 13).astype(dtype)
    hi = np.resize(np.array([0.0, -0.0, 2.0, np.nan, np.inf, 1.0]), 13).astype(dtype)
    check(clip_array_bounds, x, lo, hi)
    check(clip_array_bounds, x, lo[None, :1].repeat(6, 0).reshape(6, 1), hi[:1])


def clip_none(x, w):
    return (np.clip(x, None, w), np.clip(x, w, None), x.clip(max=w), x.clip(min=w),
            np.clip(x, None, 0.0), np.clip(x, -0.0, None))


@pytest.mark.parametrize("dtype", FLOATS)
def test_none_bounds(dtype):
    f = pyonnx.compile(clip_none)
    for w in [0.0, -0.0, np.nan, np.inf, 1.0]:
        check(f, _x(dtype), dtype(w))


def clip_ints(x, lo, hi):
    return np.clip(x, lo, hi), np.clip(x, 0, hi), np.clip(x, -1000, 1000), np.clip(x, 0.5, 3.5)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64])
def test_integer_inputs(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min, info.min + 1, 0, 1, 2, 3, 4, info.max - 1, info.max], dtype)
    for lo, hi in [(1, 3), (3, 1), (0, 0), (info.min, info.max)]:
        check(clip_ints, x, dtype(lo), dtype(hi))


def clip_mixed(x, lo, w):
    return np.clip(x, lo, w), np.clip(x, 0, w, dtype=np.float64), np.clip(x.astype(np.int32), 0, w)


def test_mixed_dtypes():
    x = _x(np.float32)
    for lo, w in [(-0.0, 0.0), (np.nan, 1.0), (2.0, 1.0)]:
        check(clip_mixed, x, np.float64(lo), np.float32(w))


def clip_in_loop(x, w):
    for _ in range(3):
        x = np.clip(x * 2, -w, w)
    return x


def test_inside_a_loop():
    f = pyonnx.compile(clip_in_loop)
    for w in [1.0, 0.0, np.nan]:
        check(f, _x(np.float64), w)


def test_one_clip_and_a_nan_guard():
    def ops(fn, *args):
        model = pyonnx.compile(fn).to_onnx(*args)
        onnx.checker.check_model(model, full_check=True)
        return [n.op_type for n in model.graph.node]

    def run_time(x, w):
        return np.clip(x, 0, w)

    def constant(x):
        return x.clip(0, 600.0)

    x = np.zeros((8400, 2), np.float32)
    # a NaN bound: the 0-d where(isnan(w), NaN, -0.0) added (elementwise: the passes see
    # through it); float16 keeps the If (its arithmetic runs between Casts)
    assert ops(run_time, x, np.float32(1.0)) == ["Clip", "IsNaN", "Where", "Add"]
    assert ops(run_time, x.astype(np.float16), np.float16(1.0))[-3:] == ["Cast", "IsNaN", "If"]
    assert ops(constant, x) == ["Clip"]


def clip_two(x, lo, hi):
    return np.clip(x, lo, hi), np.clip(x, lo, 1.0)


@pytest.mark.parametrize("dtype", FLOATS)
def test_tie_pick_follows_numpy_loop_choice(dtype):
    """numpy keeps x of a ±0 tie in its loop for stride-0 bounds, the bound when it takes the
    trivially-iterable path with a one-element bound of the result's shape."""
    shapes = [(), (1,), (2,), (1, 1), (3, 1), (1, 3), (5, 4)]
    for xs in shapes:
        for ls, hs in [((), ()), ((1,), ()), ((1,), (1,)), ((1, 1), ()), ((1, 1), (1, 1)),
                       ((), (1,)), ((1,), (1, 1))]:
            for xv, lv, hv in [(-0.0, 0.0, 1.0), (0.0, -0.0, 1.0), (-0.0, -1.0, 0.0),
                               (0.0, -1.0, -0.0)]:
                x = np.full(xs, xv, dtype)
                check(clip_two, x, np.full(ls, lv, dtype), np.full(hs, hv, dtype))


def test_tie_pick_decided_at_run_time_for_symbolic_shapes():
    f = pyonnx.compile(clip_two)
    for n in (1, 2, 7, 1):
        for lv, hv in [(0.0, 1.0), (-0.0, 0.0)]:
            check(f, np.full(n, -0.0 if lv == 0.0 else 0.0, np.float32),
                  np.full(1, lv, np.float32), np.full(1, hv, np.float32))


def clip_loss(x, lo, w):
    return np.sum(np.clip(x, lo, w) ** 2 + x)


def max_min_loss(x, lo, w):
    return np.sum(np.minimum(np.maximum(x, lo), w) ** 2 + x)


def test_gradient_is_the_max_min_composition():
    """Clip's VJP splits ties as Max then Min did (halved), so np.clip's gradient did not change
    with its lowering; and it matches finite differences away from the kinks."""
    x = np.array([-1.0, 0.5, 2.0, 3.0, 0.0, 1.0, 0.25])
    for lo, w in [(0.0, 1.0), (0.25, 0.25), (1.0, 0.0), (0.5, 2.0)]:
        args = (x, np.float64(lo), np.float64(w))
        for argnum in (0, 1, 2):
            got = pyonnx.grad(clip_loss, argnums=argnum)(*args)
            want = pyonnx.grad(max_min_loss, argnums=argnum)(*args)
            np.testing.assert_array_equal(got, want)
    x = np.array([-1.3, 0.4, 2.2, 0.7])
    g = pyonnx.grad(clip_loss, argnums=(0, 1, 2))(x, np.float64(0.1), np.float64(1.5))
    eps = 1e-6
    e = np.eye(4) * eps
    fd = [(clip_loss(x + e[i], 0.1, 1.5) - clip_loss(x - e[i], 0.1, 1.5)) / (2 * eps)
          for i in range(4)]
    np.testing.assert_allclose(g[0], fd, rtol=1e-6)
    np.testing.assert_allclose(g[1], (clip_loss(x, 0.1 + eps, 1.5) - clip_loss(x, 0.1 - eps, 1.5))
                               / (2 * eps), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g[2], (clip_loss(x, 0.1, 1.5 + eps) - clip_loss(x, 0.1, 1.5 - eps))
                               / (2 * eps), rtol=1e-6)

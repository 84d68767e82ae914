"""np.bincount of clipped bins (numpy_calls/sorting/counting.py): ``np.clip(v, 0, m - 1)`` with
minlength ``m`` needs no pass over the values for the length or the negative check (the
bound says both); every other form computes them (one ReduceMax, one ReduceMin). Against
numpy: 0, 1 and many values, minlength 0 (``m - 1`` negative: numpy raises), values at both
ends, and look-alikes that must not take the short form. Also np.clip of integers as one
``Clip`` node (onnxruntime 1.32's Clip is numpy's min(max(x, lo), hi), ``lo > hi`` included)."""

import numpy as np
import pytest

import pyonnx
from tests.oracle import check, op_types


def raises_as_numpy(fn, *args):
    """numpy raises ValueError for a negative value; the compiled call fails at run time with
    numpy's message (a ValueError naming the line)."""
    with pytest.raises(ValueError, match="must have no negative elements"):
        fn(*args)
    with pytest.raises(ValueError, match="must have no negative elements"):
        pyonnx.compile(fn)(*args)


def histogram(x, bins):
    idx = np.clip((x * bins).astype(np.int64), 0, bins - 1)
    return np.bincount(idx, minlength=bins)


def histogram_by_min_max(x, bins):
    idx = np.minimum(np.maximum((x * bins).astype(np.int64), 0), bins - 1)
    return np.bincount(idx, minlength=bins)


def histogram_other_bound(x, bins, top):
    idx = np.clip((x * bins).astype(np.int64), 0, top - 1)   # not minlength's m - 1
    return np.bincount(idx, minlength=bins)


def histogram_signed_low(x, bins):
    idx = np.clip((x * bins).astype(np.int64), -1, bins - 1)  # may be negative: numpy raises
    return np.bincount(idx, minlength=bins)


def histogram_static(x):
    return np.bincount(np.clip((x * 10).astype(np.int64), 0, 9), minlength=10)


def plain(x, m):
    return np.bincount(x, minlength=m)


def clip_ints(x, lo, hi):
    return np.clip(x, lo, hi), x.clip(lo, hi), np.clip(x, 3, 1)


@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_clipped_histograms(n):
    x = np.random.default_rng(n).uniform(-0.2, 1.2, n)
    if n:
        x[0] = 1.0  # exactly the top bin's edge: clipped to bins - 1
    for bins in (1, 3, 100):
        check(histogram, x, np.int64(bins))
        check(histogram_by_min_max, x, np.int64(bins))
        check(histogram_other_bound, x, np.int64(bins), np.int64(bins + 2))
        check(histogram_other_bound, x, np.int64(bins + 2), np.int64(bins))
        try:
            histogram_signed_low(x, np.int64(bins))
        except ValueError:
            raises_as_numpy(histogram_signed_low, x, np.int64(bins))
        else:
            check(histogram_signed_low, x, np.int64(bins))
    if n:  # clip(v, 0, -1) is -1 everywhere: numpy raises
        raises_as_numpy(histogram, x, np.int64(0))
        raises_as_numpy(histogram_by_min_max, x, np.int64(0))
    else:
        check(histogram, x, np.int64(0))
    check(histogram_static, x)


def test_the_clip_bound_replaces_the_passes_over_the_values():
    x = np.linspace(0, 1, 50)
    assert not {"ReduceMax", "ReduceMin"} & op_types(pyonnx.compile(histogram), x, np.int64(7))
    assert {"ReduceMax", "ReduceMin"} <= op_types(pyonnx.compile(histogram_other_bound), x,
                                                   np.int64(7), np.int64(5))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.int64])
def test_plain_bincount_and_negative_values(dtype):
    x = np.array([3, 0, 7, 7, 1], dtype)
    check(plain, x, np.int64(2))
    check(plain, x, np.int64(12))
    check(plain, x[:0], np.int64(4))
    if np.dtype(dtype).kind == "i":
        raises_as_numpy(plain, np.array([3, -1, 2], dtype), np.int64(2))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.int64])
def test_integer_clip_is_one_clip(dtype):
    info = np.iinfo(dtype)
    x = np.array([info.min, info.max, 0, 5, -3 if info.min < 0 else 3, 2**6], dtype)
    for lo, hi in ((0, 5), (5, 0), (info.min, info.max), (-2 if info.min < 0 else 2, 7)):
        check(clip_ints, x, dtype(lo), dtype(hi))
        check(clip_ints, x[:0], dtype(lo), dtype(hi))
    assert "Clip" in op_types(pyonnx.compile(clip_ints), x, dtype(0), dtype(5))

"""``return None`` on one run-time path and a number or an array on another (issue 20: "None
for an empty request"): returned as numpy code gets it, per call (the "maybe" output: a flag
and the value; structure.optional_array_join). Refused before."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def kept_boxes(boxes, scores, thr):
    keep = scores > thr
    if not keep.any():
        return None
    return boxes[keep] * 2


def best_score(scores):
    if scores.shape[0] == 0:
        return None
    return scores.max()


def first_negative_row(x):
    for i in range(x.shape[0]):
        if x[i].sum() < 0:
            return x[i]
    return None


def complex_or_none(z):
    if np.abs(z).max() > 10:
        return None
    return z * 1j


def different_ranks(x):
    if x.sum() > 0:
        return None
    if x.shape[0] > 2:
        return x
    return x.sum(axis=0)


BOXES = np.arange(12, dtype=np.float32).reshape(3, 4)


@pytest.mark.parametrize("scores", [[0.1, 0.9, 0.5], [0.1, 0.2, 0.3], [0.9, 0.8, 0.7]])
def test_kept_boxes(scores):
    check(kept_boxes, BOXES, np.array(scores, np.float32), np.float32(0.4))


@pytest.mark.parametrize("scores", [[1.0, 3.0], [], [-2.0]])
def test_best_score(scores):
    check(best_score, np.array(scores))


@pytest.mark.parametrize("x", [[[1.0, 2.0], [-3.0, 1.0]], [[1.0, 2.0]], np.zeros((0, 2))])
def test_early_return_in_a_loop(x):
    check(first_negative_row, np.array(x))


@pytest.mark.parametrize("scale", [1, 100])
def test_complex(scale):
    check(complex_or_none, np.array([1 + 2j, -3j]) * scale)


def test_arrays_of_different_ranks_refused():
    with pytest.raises(pyonnx.ConversionError, match="rank|shape"):
        pyonnx.compile(different_ranks)(np.ones((3, 2)))


# Seed 44000377 (crash, compile 44000000, as generated): None, then arrays of two dtypes on
# the other paths: the JoinError of the two arrays escaped as a raw exception.
def none_then_two_dtypes(a0, a1):
    t4 = np.sqrt(np.abs(a0))
    if a0 < -2.125:
        return None
    if a1.max() < 1.125:
        return a1
    return t4


def test_none_then_two_dtypes_refused_at_the_line():
    with pytest.raises(pyonnx.ConversionError, match="ONNX gives a variable one dtype") as info:
        pyonnx.compile(none_then_two_dtypes)(np.float32(-4.0), np.array(-2, np.int64))
    assert info.value.lineno == none_then_two_dtypes.__code__.co_firstlineno + 6


def sentinel_of_two_dtypes(x, y):
    best = None
    if x[0] > 0:
        best = x[0]
    elif x[1] > 0:
        best = y[0]
    return best


def test_sentinel_of_two_dtypes_refused_at_the_line():
    # (a user's 'best = None' sentinel: the same escape)
    with pytest.raises(pyonnx.ConversionError, match="dtype"):
        pyonnx.compile(sentinel_of_two_dtypes)(np.ones(2, np.float32), np.ones(2, np.int64))


# Seeds 45000188 and 45000543 (crash, compile 45000000, as generated): a None path joined
# again with a None-or-array return value lost the array's rank (the number sentinel's 0-d
# leaf): onnxruntime refused the If output's shape.
def seed_45000188(a0, a1):
    if a0.size < 2.125:
        return None
    if not a1.max() >= -2.0:
        raise ValueError(f'a1 is {a1.max()}')
    if not a1.max() >= -2.0:
        raise ValueError()
    return a1


def seed_45000543(a0, a1):
    if a1.any():
        pass
    elif a0.max() < 4.625:
        return None
    if a1.any():
        return a0


def test_seed_45000188():
    check(seed_45000188, np.zeros((3, 0), np.float32), np.array([-1], np.int32))
    check(seed_45000188, np.ones((4, 1), np.float32), np.array([-3, 4, -3], np.int32))


def test_seed_45000543():
    check(seed_45000543, np.arange(12, dtype=np.int8).reshape(3, 4), np.ones((4, 1)))
    check(seed_45000543, np.arange(6, dtype=np.int8).reshape(3, 2), np.zeros((5, 1)))
    check(seed_45000543, np.full((3, 2), 9, np.int8), np.zeros((5, 1)))

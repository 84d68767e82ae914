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

"""Reductions with ``where=`` (reductions/masked.py) against numpy: every dtype, empty and
size-1 inputs, broadcasting masks, numpy's errors."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ExecutionError
from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


def masked_reductions(x, w):
    return (np.sum(x, where=w), np.sum(x, axis=0, where=w[:1], keepdims=True),
            x.prod(axis=1, where=w), np.max(x, where=w, initial=0),
            np.min(x, axis=0, where=w, initial=3), np.mean(x, axis=1, where=w),
            np.mean(x, where=w), np.any(x, where=w, axis=0), x.all(where=w),
            np.nansum(x, where=w), x.max(axis=-1, initial=1, where=w[:, -1:]),
            np.sum(x, where=True), np.sum(x, axis=1, where=False))


@pytest.mark.parametrize("dtype", ALL)
def test_where_every_dtype(dtype):
    f = None
    for i, shape in enumerate([(3, 4), (0, 4), (1, 1), (2, 0)]):
        rng = np.random.default_rng(i)
        x = (rng.random(shape) * 10).astype(dtype)
        if x.dtype.kind == "f" and x.size:
            x[0, 0] = np.nan
        f = check(f or masked_reductions, x, rng.random(shape) < 0.5,
                  rtol=2e-3 if dtype == "float16" else None)
    assert f.conversions == 1


def test_where_scalar_mask_and_weights():
    def f(x):
        return np.sum(x, where=x > 0), np.mean(x, axis=0, where=x > 0), np.max(
            x, where=np.isfinite(x), initial=-np.inf)
    check(f, np.array([[1.0, -2.0, np.inf], [-1.0, 3.0, 0.5]]))


def test_where_refusals():
    def no_initial(x):
        return np.max(x, where=x > 0)
    check_refused(no_initial, np.ones(3), match="to use a where mask one has to specify "
                                                 "'initial'")

    def int_mask(x):
        return np.sum(x, where=np.array([1, 0, 1]))
    check_refused(int_mask, np.ones(3), match="Cannot cast array data from dtype\\('int64'\\) "
                                              "to dtype\\('bool'\\)")

    def wide_mask(x):
        return np.sum(x, where=np.ones((2, 3), bool))
    check_refused(wide_mask, np.ones(3), match="does not broadcast",
                  numpy_match="more dimensions")


def test_where_larger_at_run_time_fails():
    """A mask of unknown length that numpy cannot broadcast to the array fails the run."""
    def f(x, w):
        return np.sum(x, where=w)
    g = pyonnx.compile(f)
    assert g(np.ones(3), np.ones(3, bool)) == 3.0
    assert g(np.ones(3), np.ones(1, bool)) == 3.0
    with pytest.raises(ValueError, match=r"non-broadcastable operand with shape \(1,\) doesn't"):
        f(np.ones(1), np.ones(3, bool))
    with pytest.raises(ExecutionError, match=r"where_does_not_broadcast"):
        g(np.ones(1), np.ones(3, bool))

"""The sign of a zero sum (numpy_calls/reductions/sums.py, passes/zero_signs.py): numpy's
``add.reduce`` starts from its identity ``+0.0``, so a float sum of ``-0.0`` values (of one,
of none, over no axes) is ``+0.0``, and its mean too; ``np.sum(..., initial=-0.0)`` starts from
``-0.0`` instead, also with ``where=``. The oracle compares the sign of every zero."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from tests.oracle import check

Z = -0.0
FLOATS = [np.float16, np.float32, np.float64]


def sums(x):
    return np.sum(x), x.sum(axis=0), np.sum(x, keepdims=True), x.mean(), np.nansum(x), \
        np.average(x), np.add.reduce(x)


def sums_2d(m):
    return m.sum(axis=0), m.sum(axis=1), m.T.sum(axis=1), np.mean(m, axis=0), np.sum(m)


def sums_with_initial(x, w):
    return np.sum(x, initial=-0.0, where=w), np.sum(x, where=w), np.sum(x, initial=-0.0), \
        np.sum(x, initial=0.0, where=w)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("values", [[Z], [Z, Z], [Z] * 9, [Z, 0.0], [1.5, -1.5], [Z, 2.0]])
def test_a_sum_of_negative_zeros_is_positive_zero(values, dtype):
    check(sums, np.array(values, dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_sums_along_axes_and_of_a_0d_array(dtype):
    check(sums_2d, np.full((3, 4), Z, dtype))
    check(sums_2d, np.zeros((0, 4), dtype))
    check(sums, np.array(Z, dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("w", [[False, False], [True, False], [True, True]])
def test_an_initial_negative_zero_is_kept_under_where(dtype, w):
    check(sums_with_initial, np.array([Z, Z], dtype), np.array(w))
    check(sums_with_initial, np.array([1.0, Z], dtype), np.array(w))


def test_the_identity_add_is_dropped_where_no_sign_is_seen():
    def compared(x):
        return np.sum(x) > 0
    def squares(x):
        return np.sqrt(np.sum(x * x))
    def returned(x):
        return np.sum(x, axis=1)
    ops = {f.__name__: [n.op_type for n in pyonnx.compile(f).to_onnx(np.ones((2, 3))).graph.node]
           for f in (compared, squares, returned)}
    assert "Add" not in ops["compared"]
    assert "Add" not in ops["squares"]  # (squares hold no -0.0; the L2 idiom stays whole)
    assert ops["returned"].count("Add") == 1
    for f in (compared, squares, returned):
        onnx.checker.check_model(pyonnx.compile(f).to_onnx(np.ones((2, 3))), full_check=True)

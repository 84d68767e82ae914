"""Run-time asserts without If nodes (issue 15): the check is Where/And nodes, and the code
after it runs without the early-return guard where nothing there can fail; differential
against Python (the same exception class and message, or the same result)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx

from tests import checks_cheap_kernels as k
from tests.oracle import check, op_types

X = np.array([1.0, 4.0, 9.0])


@pytest.mark.parametrize("x", [X, -X, np.array([1.0, -1.0, 2.0]), np.array([50.0, 200.0]),
                               np.zeros(0)])
def test_asserts_without_if(x):
    check(k.assert_then_math, x)
    check(k.assert_per_iteration, x)
    check(k.assert_after_early_return, x)
    check(k.assert_in_while, x)
    if x.size:  # (x.max() of an empty array: numpy's ValueError, onnxruntime's failure)
        check(k.assert_then_write, x.copy())
        check(k.raise_then_later_assert, x)


def test_no_if_nodes_for_a_plain_assert():
    assert "If" not in op_types(pyonnx.compile(k.assert_then_math), X)
    assert "If" not in op_types(pyonnx.compile(k.assert_per_iteration), X)


@pytest.mark.parametrize("y", [X, np.ones(2)])
def test_failed_shape_assert_raises_assertion_error(y):
    """The code after a shape assert stays guarded: numpy's AssertionError, not a broadcasting
    failure of the model."""
    check(k.assert_shapes_then_add, X, y)


@pytest.mark.parametrize("kk", [0, 2, 3, 7])
def test_failed_index_assert_raises_assertion_error(kk):
    check(k.assert_index_then_read, X, np.int64(kk))


@pytest.mark.parametrize("b", [3, 0, -2])
def test_failed_assert_before_integer_division(b):
    check(k.assert_then_integer_division, np.array([7, -7, 0]), np.int64(b))

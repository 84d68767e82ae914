"""out= and where= on ufuncs and reductions (issue 15), differential against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests import out_kernels as k
from tests.oracle import check

A = np.array([0.5, -1.0, 2.0, 3.0])


def test_ufunc_out():
    check(k.exp_out, A, np.zeros(4))
    # computed in float32 (float32 ulps), then cast
    check(k.exp_out, A.astype(np.float32), np.zeros(4), rtol=1e-6)


def test_out_is_an_input_and_is_returned():
    check(k.add_into_first, A.copy(), np.ones(4))


def test_out_tuple():
    check(k.out_tuple, A, np.zeros(4))


def test_where_with_out():
    check(k.out_where, A, np.full(4, 7.0))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_reduction_out(dtype):
    check(k.sum_out, np.arange(6.0).reshape(2, 3).astype(dtype), np.zeros(3, dtype))


def test_reduction_accumulates_in_out_dtype():
    check(k.sum_into_int8, np.full((2, 3), 100, np.int8))


def test_reduction_out_keepdims():
    check(k.max_keepdims_out, np.arange(6.0).reshape(2, 3))


def test_out_is_a_view():
    check(k.out_view, np.arange(6.0))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_out_in_loop(n):
    check(k.out_in_loop, A, n)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_out_in_branch(sign):
    check(k.out_in_branch, A * sign + 5 * sign, np.zeros(4))


def test_same_kind_casting():
    check(k.int_into_float, np.arange(4), np.zeros(4))


@pytest.mark.parametrize("fn, args, words, numpy_error", [
    (k.float_into_int, (A, np.zeros(4, np.int64)), "Cannot cast ufunc 'add' output",
     (TypeError, "Cannot cast ufunc 'add' output")),
    # numpy gives uninitialized values, not an error: pyonnx refuses
    (k.where_without_out, (A,), "uninitialized", None),
    (k.sum_rank_mismatch, (np.ones((2, 3)), np.zeros((1, 3))), "dimension",
     (ValueError, "has the wrong number of dimensions")),
])
def test_refused_as_numpy_refuses(fn, args, words, numpy_error):
    if numpy_error is not None:
        with pytest.raises(numpy_error[0], match=numpy_error[1]):
            fn(*[a.copy() for a in args])
    with pytest.raises(pyonnx.ConversionError, match=words) as info:
        pyonnx.compile(fn)(*args)
    assert info.value.lineno is not None

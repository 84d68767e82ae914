"""numpy's exceptions for conditions known only at run time.

Where numpy raises on values or sizes the model only sees at run time (an empty reduction, a
``range`` step of 0, an out-of-bounds ``kth``), the model fails at a run-time check and the
compiled call raises an ExecutionError that is also numpy's exception class, with numpy's words
at the user's line: ``except ValueError`` around the code works as it did with numpy.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ExecutionError
from tests.oracle import check


def _raises_like_numpy(fn, *args, words: str | None = None):
    """numpy raises on ``args``: the compiled ``fn`` raises an ExecutionError of numpy's class
    whose message has numpy's ``words`` (default: numpy's message) at ``fn``'s line."""
    with pytest.raises(Exception) as want:
        fn(*args)
    compiled = pyonnx.compile(fn)
    with pytest.raises(type(want.value)) as got:
        compiled(*args)
    assert isinstance(got.value, ExecutionError), repr(got.value)
    text = str(got.value)
    assert (words or str(want.value)) in text, (text, str(want.value))
    assert re.search(rf"{re.escape(__file__.split('/')[-1])}:\d+:\d+: error: ", text), text
    return compiled


def max_last_axis(x):
    return np.max(x, axis=-1, keepdims=True)


def min_all(x):
    return x.min()


def argmax_last(x):
    return np.argmax(x, axis=-1)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int32", "uint64", "bool"])
@pytest.mark.parametrize("fn", [max_last_axis, min_all, argmax_last])
def test_empty_reduction_raises_numpys_value_error(fn, dtype):
    compiled = check(fn, np.arange(6).reshape(2, 3).astype(dtype))
    _raises_like_numpy(compiled.fn, np.zeros((2, 0), dtype))
    if fn is not min_all:
        check(compiled, np.zeros((0, 3), dtype))  # no row: nothing to reduce per row
    else:
        _raises_like_numpy(compiled.fn, np.zeros((0, 3), dtype))


def test_empty_reduction_is_caught_as_value_error_in_user_code():
    f = pyonnx.compile(max_last_axis)
    try:
        f(np.zeros((2, 0)))
    except ValueError as e:
        assert "zero-size array to reduction operation maximum which has no identity" in str(e)
    else:
        raise AssertionError("no error")


def sum_range_step(x, s):
    t = 0.0
    for i in range(0, 4, s):
        t += x[i]
    return t


def test_range_step_zero():
    check(sum_range_step, np.arange(4.0), 2)
    _raises_like_numpy(sum_range_step, np.arange(4.0), np.int64(0))


def partitioned(x, k):
    return np.partition(x, 2)


def test_partition_kth_out_of_bounds():
    check(partitioned, np.array([3.0, 1.0, 2.0, 0.5]), 2)
    _raises_like_numpy(partitioned, np.array([3.0, 1.0]), 2, words="out of bounds")


def chkfinite(x):
    return np.asarray_chkfinite(x) * 2


def test_asarray_chkfinite():
    check(chkfinite, np.array([1.0, 2.0]))
    _raises_like_numpy(chkfinite, np.array([1.0, np.inf]))


def geom(a, b):
    return np.geomspace(a, b, 4)


def test_geomspace_zero():
    check(geom, np.float64(1.0), np.float64(8.0))
    _raises_like_numpy(geom, np.float64(0.0), np.float64(8.0))


def unpack_rows(x):
    a, b = x
    return a - b


def test_unpack_length_is_value_error():
    check(unpack_rows, np.ones((2, 3)))
    with pytest.raises(ValueError):
        unpack_rows(np.ones((3, 3)))
    with pytest.raises(ValueError, match="values to unpack") as info:
        pyonnx.compile(unpack_rows)(np.ones((3, 3)))
    assert isinstance(info.value, ExecutionError)


def nanargmax_of(x):
    return np.nanargmax(x, axis=0)


def test_all_nan_slice():
    check(nanargmax_of, np.array([[1.0, np.nan], [2.0, 3.0]]))
    _raises_like_numpy(nanargmax_of, np.array([[1.0, np.nan], [2.0, np.nan]]))


def chosen(i, a, b):
    return np.choose(i, [a, b])


def test_choose_invalid_entry():
    a, b = np.arange(3.0), -np.arange(3.0)
    check(chosen, np.array([0, 1, 0]), a, b)
    _raises_like_numpy(chosen, np.array([0, 2, 0]), a, b)


def unravel(i):
    return np.unravel_index(i, (2, 3))


def test_unravel_index_out_of_bounds():
    check(unravel, np.array([0, 5]))
    _raises_like_numpy(unravel, np.array([0, 6]), words="out of bounds for array")

"""Tuples appended to a list whose length is only known at run time (issue 15): one ONNX
sequence per tuple field; differential against Python, the list returned as a list of
tuples; uses that would read it as an array are refused at the line."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests import python_records_kernels as k
from tests.oracle import check

XS = [np.array([1.0, 3.0, 2.0, 5.0]), np.array([4.0]), np.zeros(0),
      np.array([0.5, 2.5, 1.5], np.float32)]


@pytest.mark.parametrize("x", XS)
def test_tuples_appended_in_loops(x):
    check(k.scored, x)
    check(k.filtered_then_read, x)
    check(k.last_record, x)
    check(k.windows, x)


@pytest.mark.parametrize("x", [np.array([1.0, 3.0]), np.array([1.0, 1.0])])
def test_tuples_appended_in_a_branch(x):
    check(k.records_in_branch, x)


@pytest.mark.parametrize("fn, line, match", [
    (k.wrong_arity, 2, "tuples of one length"),
    (k.as_array_refused, 4, "keep one list per field"),
    (k.appended_non_tuple, 4, "keep one list per field"),
    (k.non_tuple_after_loop, 4, "appending a float64 value to a list of 2-tuples"),
])
def test_refused_at_the_line(fn, line, match):
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(np.array([1.0, 3.0]))
    assert info.value.lineno == fn.__code__.co_firstlineno + line

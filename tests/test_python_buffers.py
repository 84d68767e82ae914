"""Double buffering (issue 15): ``a, b = b, a`` in a loop that writes through the names,
differential against numpy (results and the arguments after the call); with arguments and a
run-time trip count it is refused at the loop with what to write instead."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests import python_buffers_kernels as k
from tests.oracle import check

A = np.array([0.0, 1.0, 4.0, 9.0, 16.0, 25.0])


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_swapped_private_buffers_run_time_trip_count(n):
    check(k.swap_private_copies, A.copy(), np.zeros(6), np.int64(n))
    check(k.swap_with_scratch, A.copy(), np.int64(n))
    check(k.swap_through_helper, A.copy(), np.zeros(6), np.int64(n))


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_swapped_arguments_static_trip_count(n):
    check(k.swap_arguments, A.copy(), np.zeros(6), n, static_argnames=("n",))


@pytest.mark.parametrize("fn, args, match, line", [
    (k.swap_arguments, (A.copy(), np.zeros(6), np.int64(3)), "double buffering", 1),
    (k.swap_scratch_with_argument, (A.copy(), np.int64(3)), r"private copy before the loop", 2),
])
def test_swapped_shared_memory_run_time_trip_count_refused(fn, args, match, line):
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(*args)
    assert info.value.lineno == fn.__code__.co_firstlineno + line

"""Stencil codes' memory (issue 15): double buffering by swapping names, views written in a
loop, a view rebound to a new array; numpy's meaning (arguments after the call included)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests import stencil_memory_kernels as k
from tests.oracle import check

G = np.arange(20.0).reshape(4, 5) ** 1.5


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_double_buffer_swaps_the_callers_array(n):
    check(k.double_buffer, np.arange(6.0) ** 2, n)
    check(k.double_buffer_empty_like, np.arange(6.0) ** 2, n)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_views_written_in_loop(n):
    check(k.views_written_in_loop, G.copy(), np.ones((4, 5)), n)
    check(k.view_rebound_to_new_array, G.copy(), n)


def test_double_buffer_swapping_an_argument_is_refused():
    # numpy writes the caller's array on every second iteration; the loop's state does not
    # follow memory that changes names across iterations (it was silently lost before)
    with pytest.raises(pyonnx.ConversionError, match="rebound in it to the memory of 'a'") as info:
        pyonnx.compile(k.double_buffer_argument)(np.arange(6.0), 2)
    assert info.value.lineno is not None


def test_view_written_then_rebound_is_refused():
    with pytest.raises(pyonnx.ConversionError, match="bound to a new array") as info:
        pyonnx.compile(k.view_written_then_rebound)(np.arange(5.0), 2)
    assert info.value.lineno is not None


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_double_buffer_of_an_argument_unrolled(n):
    # a trip count known at conversion time unrolls the loop: numpy's writes into the
    # caller's array are followed exactly
    check(k.double_buffer_argument, np.arange(6.0) ** 2, n, static_argnames=("n",))

"""Tuples and lists of Python constants that differ between run-time paths join item by item
(fuzz, c18000000: "the return value is (False, 1.5) on one path and (True, 2.5) on the other"
was refused): each item is a Python number on every path, returned as Python's type (an item
that is an int on one path and a float on the other is refused when returned: graph/path_weak)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests import static_tuple_join_kernels as k
from tests.oracle import check

XS = [np.ones(2), -np.ones(3), np.zeros(0)]


@pytest.mark.parametrize("fn", [k.flag_and_scale, k.item_in_arithmetic, k.list_in_loop])
@pytest.mark.parametrize("x", XS)
def test_constants_joined_item_by_item(fn, x):
    check(fn, x)


def test_an_item_that_is_an_int_or_a_float_is_refused_when_returned():
    """numpy returns 2 on one path and 1.5 on the other; a model output has one type."""
    with pytest.raises(pyonnx.ConversionError, match=r"returns a Python int on some paths and "
                       r"a Python float on others \(the branches of the 'if' at line 15\)"):
        pyonnx.compile(k.int_or_float_item)(np.ones(2))


def test_strings_that_differ_are_still_refused():
    with pytest.raises(pyonnx.ConversionError, match=r"'r' is 'a' on one path and 'b'"):
        pyonnx.compile(k.different_strings)(np.ones(2))

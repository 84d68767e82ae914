"""Python's max()/min() over the items of a real 1-d array, against Python on numpy: the
first item when it is NaN, else the first extreme among the others (a later NaN never wins, as
it would in np.max), ties keep the first item (the sign of a zero tie too); rows of a 2-d
array are refused (Python's truth test of an array)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

NAN = np.nan


def items(x):
    return max(x), min(x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("values", [[1.0, NAN, 2.0], [NAN, 1.0, 2.0], [0.0, -0.0], [-0.0, 0.0, -1.0],
                                    [NAN, NAN], [2.5], [np.inf, -np.inf, NAN, 3.0]])
def test_float_items(dtype, values):
    check(items, np.array(values, dtype))


def test_int_items():
    check(items, np.array([3, -1, 7, 7], np.int32))


def test_rows_refused():
    with pytest.raises(pyonnx.ConversionError, match="truth test"):
        pyonnx.compile(items)(np.ones((2, 2)))

"""An unrolled ``for v in x`` over a 1-D array reads item ``i`` when the loop reaches it, as
numpy does: an earlier iteration's write into ``x`` shows (found while making complex iteration
follow numpy: with static shapes ``for v in x: x[1] = 5; s += v`` summed the old ``x[1]``).
Against numpy (tests/oracle.py), static and symbolic shapes, float and int arrays."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def write_ahead(x):
    s = 0.0
    for v in x:
        x[1] = 5
        s = s + v
    return s, x


def item_is_a_copy(x):
    s = 0.0
    for v in x:
        v += 1  # a numpy scalar: rebinds v, x unchanged by it
        x[-1] += v
        s = s + v
    return s, x


def through_an_alias(x):
    w = x
    for v in x:
        w[2] -= v
    return x


@pytest.mark.parametrize("fn", [write_ahead, item_is_a_copy, through_an_alias])
@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_items_read_when_reached(fn, static, dtype):
    check(pyonnx.compile(fn, static_shapes=static), np.arange(3).astype(dtype))

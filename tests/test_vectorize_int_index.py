"""A vectorized loop that reads a loop-invariant int index (``boxes[i, 5]``,
``boxes[i, -1]``, ``g[i, j, 2]``), against numpy: a loop that runs 0 times reads nothing, so it
does not fail even when the index is out of range (it failed before: the one-element slice
under the int index was empty), and a loop that runs raises numpy's IndexError."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def column_product(boxes, n):
    total = np.float32(0)
    for i in range(n):
        total = total + boxes[i, 0] * boxes[i, 5]
    return total


def last_minus_second(boxes, n):
    out = np.zeros(n, np.float32)
    for i in range(n):
        out[i] = boxes[i, -1] - boxes[i, 1]
    return out


def plane(g, n, m):
    t = 0.0
    for i in range(n):
        for j in range(m):
            t += g[i, j, 2]
    return t


def _boxes(rows, cols):
    return np.arange(rows * cols, dtype=np.float32).reshape(rows, cols) - 7.5


@pytest.mark.parametrize("shape", [(4, 3), (4, 6), (0, 0), (3, 0), (5, 2)])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_invariant_int_index_reads(shape, n):
    b = _boxes(*shape)
    for fn in (column_product, last_minus_second):
        try:
            fn(b, np.int64(n))
        except IndexError:
            with pytest.raises(IndexError):
                pyonnx.compile(fn)(b, np.int64(n))
        else:
            check(fn, b, np.int64(n))


@pytest.mark.parametrize("n, m", [(0, 0), (0, 3), (2, 0), (2, 3)])
def test_invariant_int_index_in_a_nest(n, m):
    check(plane, np.random.default_rng(0).normal(size=(3, 4, 5)), np.int64(n), np.int64(m))
    small = np.random.default_rng(1).normal(size=(3, 4, 2))
    if n and m:
        with pytest.raises(IndexError):
            pyonnx.compile(plane)(small, np.int64(n), np.int64(m))
    else:
        check(plane, small, np.int64(n), np.int64(m))


def test_the_loop_is_vectorized():
    model = pyonnx.compile(column_product).to_onnx(_boxes(4, 6), np.int64(3))
    assert not {"Loop", "Scan"} & {n.op_type for n in model.graph.node}


def write_column(y, x, n):
    y = y.copy()
    for i in range(n):
        y[i, 5] = x[i]
    return y


@pytest.mark.parametrize("shape", [(4, 3), (4, 6), (5, 2)])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_invariant_int_index_writes(shape, n):
    y, x = _boxes(*shape), np.arange(5, dtype=np.float32)
    try:
        write_column(y, x, np.int64(n))
    except IndexError:
        with pytest.raises(IndexError):
            pyonnx.compile(write_column)(y, x, np.int64(n))
    else:
        check(write_column, y, x, np.int64(n))

"""``c[k] op= v`` on a list's or dict's array item writes into the array, as numpy's in-place
operator does (lower/item_in_place.py): every other name of that memory sees it. Silently
wrong before (the item was rebound to a new array, the other names kept the old values)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def list_item(x):
    g = x * 0
    grads = [g, x.copy()]
    grads[0] += x
    grads[1] *= 2
    return g, grads


def dict_item(x):
    acc = {"a": np.zeros(x.shape), "b": x[1:]}
    view = acc["a"][1:]
    acc["a"] -= x
    acc["b"] *= 3  # (x's memory: x is written too)
    return view, acc, x


def row_view_item(x):
    m = np.zeros((2, x.shape[0]))
    rows = [m[0], m[1]]
    rows[1] += x
    rows[0][::2] = 7.0
    return m, rows


def scalar_item(x):
    s = [x.sum(), x[0]]
    t = s[0]
    s[0] += 1.0  # a numpy scalar: immutable, t keeps its value
    s[1] += 1.0
    return t, s, x


def in_a_loop(x):
    g = np.zeros(x.shape[1:])
    grads = [g]
    for i in range(x.shape[0]):
        grads[0] += x[i]
    return g


def zero_d_array_item(x):
    a = np.zeros(())
    c = [a]
    c[0] += x[0]
    return a


def complex_list_item(z):
    a = z * 0
    c = [a[0], a]
    c[0] += 1j
    c[1] *= 2
    return a, c


@pytest.mark.parametrize("fn", [list_item, dict_item, row_view_item, scalar_item,
                                zero_d_array_item])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_item_in_place(fn, dtype):
    check(fn, np.arange(1, 5).astype(dtype))


def test_item_in_place_in_a_loop_through_another_name_refused():
    # (a list carried by a loop holds copies: which memory the item is, is not followed;
    # returned the zeros before)
    with pytest.raises(pyonnx.ConversionError, match="'grads\\[0\\]' may refer to different memory"):
        pyonnx.compile(in_a_loop)(np.ones((3, 4)))


def in_a_loop_list_only(x):
    grads = [np.zeros(x.shape[1:]), 0.0]
    for i in range(x.shape[0]):
        grads[0] += x[i]
        grads[1] += 1.0
    return grads


@pytest.mark.parametrize("n", [0, 1, 3])
def test_item_in_place_in_a_loop(n):
    check(in_a_loop_list_only, np.arange(n * 4, dtype=np.float64).reshape(n, 4))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_item_in_place(dtype):
    check(complex_list_item, (np.arange(6).reshape(2, 3) + 1j).astype(dtype))

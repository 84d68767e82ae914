"""np.rot90, row_stack, unstack, block, resize, broadcast_shapes
(numpy_calls/arrangement.py) against numpy: every dtype, empty and size-1 inputs, views."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ExecutionError
from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


def arrangements(x, y):
    return (np.rot90(x), np.rot90(x, 2), np.rot90(x, -1), np.rot90(x, 3, axes=(1, 0)),
            np.rot90(x, 0), np.row_stack([x, x]),
            np.block([[x, x], [x, x]]), np.block([y, y, 1]), np.block(x),
            np.block([[x], [x]]), np.resize(x, (2, 5)), np.resize(y, 7),
            np.resize(x, x.shape[0] + 1), np.broadcast_shapes(x.shape, (1, 4)))


@pytest.mark.parametrize("dtype", ALL)
def test_arrangements(dtype):
    rng = np.random.default_rng(0)
    f = None
    for shape in [(3, 4), (1, 4), (0, 4)]:
        x = (rng.random(shape) * 5).astype(dtype)
        f = check(f or arrangements, x, x.reshape(-1))
    assert f.conversions == 1


def test_unstack_and_3d():
    def f(x):
        a, b, c = np.unstack(x, axis=1)
        return a, b + c, np.rot90(x, 1, axes=(0, 2)), np.block([[[x]]])
    # static_shapes: the axis length (the number of arrays) is known at conversion
    check(pyonnx.compile(f, static_shapes=True), np.arange(24.0).reshape(2, 3, 4))

    def g(x):
        return np.unstack(x)
    with pytest.raises(pyonnx.ConversionError, match="known at conversion time"):
        pyonnx.compile(g)(np.ones((2, 3)))


def test_rot90_is_a_view():
    """numpy's rot90 is a view of m: a later write to m shows through it, which pyonnx does
    not re-derive: refused at the read, never a stale value."""
    def f(x):
        r = np.rot90(x)
        x[0, 0] = 9.0
        return r.copy()
    with pytest.raises(pyonnx.ConversionError, match="was written at line"):
        pyonnx.compile(f)(np.arange(6.0).reshape(2, 3))

    def g(x):
        r = np.rot90(x)
        r[0, 0] = 9.0
        return x
    with pytest.raises(pyonnx.ConversionError, match="view"):
        pyonnx.compile(g)(np.arange(6.0).reshape(2, 3))


def test_broadcast_shapes_run_time():
    def f(x, y):
        return np.broadcast_shapes(x.shape, y.shape, (1,))
    g = check(f, np.ones((3, 1)), np.ones((1, 4)))
    check(g, np.ones((1, 1)), np.ones((5, 1)))
    with pytest.raises(ValueError, match=r"shape mismatch: objects cannot be broadcast to a"):
        f(np.ones((3, 1)), np.ones((2, 4)))
    with pytest.raises(ExecutionError, match=r"shape_mismatch_objects_cannot_be_broadcast"):
        g(np.ones((3, 1)), np.ones((2, 4)))


def test_refusals():
    def axes(x):
        return np.rot90(x, axes=(0, 0))
    check_refused(axes, np.ones((2, 2)), match="Axes must be different")

    def depths(x):
        return np.block([[x], x])
    check_refused(depths, np.ones(2), match="depths are mismatched")

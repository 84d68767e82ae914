"""x.item(), x.flat reads and writes, x.nbytes, x.device against numpy
(numpy_calls/array_methods.py, the .flat forms in frontend/lower/expr.py and
frontend/canonicalize/setitem.py)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ExecutionError
from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


def items(x):
    s = x.sum(keepdims=True)
    return (s.item(), x.item(0), x.item(-1), x.item(1, 2), x.item((2, 3)), x.nbytes,
            x.device == "cpu", x[:1, :1].item() * np.float32(2), x[-1:, 1:2].item() + 1)


@pytest.mark.parametrize("dtype", ALL)
def test_item(dtype):
    x = np.arange(12).reshape(3, 4).astype(dtype)
    check(items, x)
    if dtype == "uint64":  # pyonnx's Python ints are int64: larger ones fail, never wrap
        with pytest.raises(ExecutionError, match=r"Python_int_beyond_int64"):
            pyonnx.compile(items)(x + np.uint64(2**63))

    def one(x):
        return x.item(), x.nbytes
    check(one, np.ones((1, 1), dtype))
    check(one, np.ones((), dtype))


def test_item_size_checked_at_run_time():
    def f(x):
        return x.item()
    g = pyonnx.compile(f)
    assert g(np.array([2.5])) == 2.5
    with pytest.raises(ValueError, match="size 1"):
        f(np.array([1.0, 2.0]))
    with pytest.raises(ExecutionError, match=r"can_only_convert_an_array_of_size_1"):
        g(np.array([1.0, 2.0]))


def flat_writes(x, v):
    x.flat[2] = 7
    if x.dtype != np.float16:
        # main's integer-array write into float16 reads float16 in ScatterElements, which the
        # oracle refuses (x[[0, -1]] = v fails the same way); reported, not this module's
        x.flat[[0, -1]] = v
    if x.dtype != np.bool_:
        x.flat[3:5] += 1
    return x.flat[4], x.flat[1:4], x.flat[x.flat[:] > 2], x.flat[::-2]


@pytest.mark.parametrize("dtype", ALL)
def test_flat(dtype):
    check(flat_writes, np.arange(12).reshape(3, 4).astype(dtype), True if dtype == "bool" else 5)
    check(flat_writes, np.arange(6).reshape(2, 3, 1).astype(dtype), 1)

    def loop(x):
        for i in range(x.size):
            x.flat[i] = ~x.flat[i] if x.dtype == np.bool_ else x.flat[i] * 2
        r = x.flat[1:3]
        x[0, 1] = 0  # numpy's x.flat[...] is a copy: r keeps its values
        return r
    check(loop, np.arange(6).reshape(2, 3).astype(dtype))


def test_refusals():
    def wrong_size(x):
        return (np.zeros((2, 2)) + x).item()  # shape (2, 2) known at conversion
    check_refused(wrong_size, np.ones((2, 2)), match="size 1")

    def bare_flat(x):
        return x.flat
    with pytest.raises(pyonnx.ConversionError, match=r"x.flat\[i\]"):
        pyonnx.compile(bare_flat)(np.ones(3))



def flat_of_views(x):
    # numpy's flat iterator addresses a strided view's or a transpose's elements in C order
    y = x[:, 1:]
    y.flat[0] = 9
    y.flat[-1] += 1
    x.T.flat[1] = 7
    return x, y


@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_flat_writes_through_views_and_transposes(dtype):
    check(flat_of_views, np.arange(6).reshape(2, 3).astype(dtype))
    check(flat_of_views, np.asfortranarray(np.arange(12).reshape(3, 4)).astype(dtype))


def tolists(x):
    lst = x.tolist()
    return lst, x.sum().tolist(), len(lst), x[:0].tolist()


@pytest.mark.parametrize("dtype", ALL)
def test_tolist(dtype):
    f = check(tolists, np.arange(5).astype(dtype))
    f = check(f, np.zeros(0, dtype))
    f = check(f, np.ones(1, dtype))
    got = f(np.arange(3).astype(dtype))[0]
    want = np.arange(3).astype(dtype).tolist()
    assert [type(v) for v in got] == [type(v) for v in want]  # Python numbers, as numpy's


def test_tolist_nested_refused():
    def f(x):
        return x.tolist()
    with pytest.raises(pyonnx.ConversionError, match="nested lists"):
        pyonnx.compile(f)(np.ones((2, 2)))


def test_view_and_to_device_are_aliases():
    def f(x):
        v = x.view()
        w = x.to_device("cpu")
        u = x.view(x.dtype)
        v[0] = 5.0
        w[1] = 6.0
        u[2] = 7.0
        x[3] = 8.0
        return v + w + u
    check(f, np.arange(5.0))

    def g(x):
        return x.view(np.int64)
    with pytest.raises(pyonnx.ConversionError, match="reinterprets"):
        pyonnx.compile(g)(np.arange(5.0))

"""``sum(lst)`` of a list built at run time (lower/seq_sum.py): Python's sum, item by item in
list order, with Python's result type (a numpy scalar of the items' dtype, a Python number for
Python numbers, ``start`` where the list is empty). Refused before."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def positives_doubled(x):
    out = []
    for v in x:
        if v > 0:
            out.append(v * 2)
    return sum(out) + 1.0


def python_floats(x):
    out = []
    for v in x:
        if v > 0:
            out.append(float(v))
    return sum(out, 0.5), sum(out, start=-1.0)


def python_ints(x):
    out = []
    for v in x:
        if v > 0:
            out.append(int(v))
    return sum(out)


def flags(x):
    out = []
    for v in x:
        out.append(v > 1)
    return sum(out)


def numpy_floats_returned(x):
    out = []
    for v in x:
        if v > 0:
            out.append(v)
    return sum(out)


def complex_items(x):
    out = []
    for v in x:
        if v > 0:
            out.append(v * (1 - 2j))
    return sum(out, 0j), sum(out, 0.5j)


def python_complex_items(x):
    out = []
    for v in x:
        if v > 0:
            out.append(complex(v, 1))
    return sum(out, 0j)


def complex_without_start(x):
    out = []
    for v in x:
        if v > 0:
            out.append(v * 1j)
    return sum(out)


def arrays(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i:i + 2])
    return sum(out)


INPUTS = [[], [-1.0, -2.0], [3.25], [1.0, -2.0, 3.25, 1e16, 1.0, -1e16]]


@pytest.mark.parametrize("x", INPUTS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("fn", [positives_doubled, python_floats, python_ints, flags])
def test_sum_of_a_run_time_list(fn, dtype, x):
    x = np.array(x).astype(dtype)
    if fn is positives_doubled and dtype == np.float32 and not np.any(x > 0):
        # numpy: the int 0 + 1.0 is a Python float (float64), the model's sum a float32 one
        with pytest.raises(pyonnx.ExecutionError, match="result type here depends on the path"):
            pyonnx.compile(fn)(x)
        return
    check(fn, x)


def every_item(x):
    out = []
    for v in x:
        out.append(v)
    return sum(out)


def test_the_order_is_pythons():
    # ((1e16 + 1.0) + 1.0) - 1e16 is 0.0 in float64, left to right; pairs first give 2.0
    compiled = check(every_item, np.array([1e16, 1.0, 1.0, -1e16]))
    assert compiled(np.array([1e16, 1.0, 1.0, -1e16])) == 0.0


@pytest.mark.parametrize("x", INPUTS[2:])
def test_numpy_floats_returned(x):
    check(numpy_floats_returned, np.array(x))


def test_empty_sum_of_numpy_floats_is_the_python_int_0():
    # numpy code gets the int 0 back, which a float64 output cannot be: the call fails there
    compiled = pyonnx.compile(numpy_floats_returned)
    with pytest.raises(pyonnx.ExecutionError, match="Python int"):
        compiled(np.array([-1.0]))


@pytest.mark.parametrize("x", INPUTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", [complex_items, python_complex_items])
def test_complex_sum(fn, dtype, x):
    check(fn, np.array(x, dtype))


def test_complex_sum_of_an_empty_list_needs_a_complex_start():
    compiled = check(complex_without_start, np.array([1.0, 2.0]))
    with pytest.raises(pyonnx.ExecutionError, match=r"sum\(lst, 0j\)"):
        compiled(np.array([-1.0]))


def test_sum_of_a_list_of_arrays_is_refused():
    with pytest.raises(pyonnx.ConversionError, match="np.sum\\(np.stack\\(lst\\), axis=0\\)"):
        pyonnx.compile(arrays)(np.ones(3))


# Seed 42000456 (wrong dtype, compile campaign 42000000, as generated): the Python int 0 of
# sum() of an empty list lost its mark through the 'if' of an assert (the code after it runs
# in that If's branch), and came back as np.float32(0.0). The same held for sum() over an empty
# generator (path_types._mark_foreign).
def seed_42000456(a0):
    t2 = a0[1:1, -1]
    L3 = []
    for i4 in range(t2.shape[0]):
        L3.append(t2[i4] * 2)
    t5 = sum(L3)
    assert a0.max() >= 2.0
    for i16 in range(t2.shape[0]):
        pass
    return (t5,)


def generator_sum_then_assert(a0):
    m = int(a0[0] > 5) * a0.shape[0]
    t5 = sum(a0[i] for i in range(m))
    assert a0.max() >= 2.0
    for i16 in range(a0.shape[0]):
        pass
    return t5


@pytest.mark.parametrize("fn, x", [
    (seed_42000456, np.array([[-1.0, 2.75, 3.5], [2.75, -1.25, -2.5]], np.float32)),
    (generator_sum_then_assert, np.array([1.0, 2.0], np.float32))])
def test_python_int_of_an_empty_sum_survives_an_assert(fn, x):
    with pytest.raises(pyonnx.ExecutionError, match="returns a Python int on some paths"):
        pyonnx.compile(fn)(x)


def test_generator_sum_then_assert_where_it_is_not_empty():
    check(generator_sum_then_assert, np.array([6.0, 2.0], np.float32))


# Seed 44000024 (wrong dtype, compile 44000000, as generated): np.sinh of a value that is a
# Python float on some paths (sum(L, 0.5) of an empty list) came back as a Python float: an
# explicit ufunc call gives a numpy scalar on every path (the operators' derived mark was kept).
def seed_44000024(a0, a1):
    L29 = []
    for i30 in range(a0.shape[0]):
        if a0[i30] > a0[0]:
            L29.append(a0[i30])
    t31 = sum(L29, 0.5)
    t6 = np.sinh(t31)
    return t6


def loop_start_then_ufunc(a0):
    s = 0.5
    for i in range(a0.shape[0]):
        s = s + a0[i]
    return np.sinh(s), s + 1


@pytest.mark.parametrize("a0", [[4, 2], [6], []])
def test_ufunc_of_a_python_number_on_some_paths(a0):
    a0 = np.array(a0, np.uint32)
    check(seed_44000024, a0, np.complex128(0.5 - 2.5j))
    check(loop_start_then_ufunc, a0)

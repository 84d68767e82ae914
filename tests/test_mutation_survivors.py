"""Differential tests for the behaviours that mutants of the compiler survived
(``tools/mutants.py``, issue 17). Each test names the mutant it kills; the check is numpy's
behaviour, not the mutant's: a test that only passes on the unmutated code for the right reason.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

SHADOW = 3.0
TABLE = np.array([10.0, 20.0, 30.0, 40.0])


# comprehensions.py `_loop_form`: all() starts True and any() starts False (kind == "all").
def all_any_run_time(x):
    return all(v > 0 for v in x), any(v > 5 for v in x)


@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 7.0]), np.array([1.0, -2.0]),
                               np.array([], np.float64), np.array([6.0])])
def test_all_any_over_a_run_time_generator(x):
    check(all_any_run_time, x)


# env.py `assigned_names`: a name the body assigns is local everywhere in it, so reading it
# first is Python's UnboundLocalError, never the module global of that name.
def read_before_assign(x):
    y = x * SHADOW
    SHADOW = 2.0  # noqa: F841
    return y


def test_local_read_before_assignment_is_refused():
    with pytest.raises(UnboundLocalError):
        read_before_assign(np.ones(2))
    with pytest.raises(pyonnx.ConversionError, match="'SHADOW' is used before it is assigned"):
        pyonnx.compile(read_before_assign)(np.ones(2))


# expr.py: only a tuple/list base takes a 0-d run-time index statically; a module-level
# ndarray indexed by a run-time scalar is a Gather.
def global_table_at_run_time_index(x):
    return TABLE[np.argmax(x)]


@pytest.mark.parametrize("x", [np.array([0.0, 5.0, 1.0]), np.array([3.0, 1.0, 9.0, 2.0])])
def test_module_array_indexed_by_run_time_scalar(x):
    check(global_table_at_run_time_index, x)


# function.py: sum(generator, start) with its start argument is the accumulating loop too.
def sum_with_start(x):
    return sum((v * v for v in x), 10.0)


@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 3.0]), np.array([], np.float64)])
def test_sum_of_generator_with_start(x):
    check(sum_with_start, x)


# loops.py `_ran`: a run-time loop of exactly one trip rebinds a view (count > 0, not > 1).
def rebind_view_in_loop(x, n):
    v = x[:2]
    for _ in range(n):
        v = x[1:3]
    v[0] = 100.0
    return x


@pytest.mark.parametrize("n", [0, 1, 2])
def test_view_rebound_in_run_time_loop(n):
    check(rebind_view_in_loop, np.arange(5.0), n)


# choices.py `_write_back`: a view chosen at run time through three view steps writes back
# through every one of them.
def write_through_chained_view(x, c):
    if c > 0:
        v = x[1:][::2][:2]
    else:
        v = x[:3]
    v[0] = -1.0
    v[1] = -2.0
    return x


@pytest.mark.parametrize("c", [0, 1])
def test_write_through_view_chosen_at_run_time(c):
    check(write_through_chained_view, np.arange(8.0), c)


# iteration.py: the rows of a 2-D array are views (x.ndim > 1): a write through one is a
# write into x, in an unrolled loop and in a run-time one.
def write_through_rows(x):
    for row in x:
        row[0] = -1.0
    return x


@pytest.mark.parametrize("shape", [(3, 2), (70, 2)])  # unrolled, and past the unroll limit
def test_write_through_loop_rows(shape):
    check(write_through_rows, np.arange(float(np.prod(shape))).reshape(shape))


# local_functions.py: a nested def reads the enclosing values it captures.
def nested_closure(x):
    k = 2.0

    def scale(v):
        return v * k

    return scale(x) + 1.0


def test_nested_function_captures_enclosing_value():
    check(nested_closure, np.arange(3.0))


# setitem_basic.py: a value of lower rank than the selection is broadcast from the right
# (unsqueezed by len(sel) - v.ndim leading axes).
def set_columns_from_row(x, v):
    x[:, 1:3] = v
    return x


def set_columns_with_newaxis(x, v):
    x[:, None, 1:3] = v
    return x


@pytest.mark.parametrize("fn", [set_columns_from_row, set_columns_with_newaxis])
def test_setitem_broadcasts_lower_rank_value(fn):
    check(fn, np.zeros((3, 4)), np.array([5.0, 6.0]))


# setitem_basic.py `_refuse`: a value that cannot broadcast into the selection is refused
# with numpy's message and numpy's shape notation ("(3,)" for one axis).
def set_slice_wrong_length(k):
    x = np.zeros(5) * k  # static shapes: the mismatch is known at conversion
    x[1:3] = np.ones(3)
    return x


def test_setitem_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"from shape \(3,\) into shape \(2,\)"):
        set_slice_wrong_length(2.0)
    with pytest.raises(pyonnx.ConversionError,
                       match=r"could not broadcast input array from shape \(3,\) into shape "
                             r"\(2,\) \(numpy raises ValueError\)"):
        pyonnx.compile(set_slice_wrong_length)(2.0)

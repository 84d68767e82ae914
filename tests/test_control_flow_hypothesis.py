"""Property tests: data-dependent loops and branches equal Python on random data, one compiled
model per function (lengths 0..12, both signs, ties with the threshold)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import pyonnx
from tests import control_flow_kernels as k
from tests.oracle import assert_same

values = st.lists(st.integers(-5, 5).map(float), min_size=0, max_size=12).map(np.array)
nonempty = st.lists(st.integers(-5, 5).map(float), min_size=1, max_size=12).map(np.array)
thresholds = st.integers(-6, 6).map(float)

COMPILED = {f: pyonnx.compile(f) for f in (
    k.first_index_where, k.for_else_search, k.skip_negatives, k.break_and_continue,
    k.python_number_accumulates, k.return_inside_loop, k.collect_scalars_array,
    k.nested_break_inner, k.while_else)}


def same(fn, *args, python_kinds=True):
    with np.errstate(all="ignore"):
        want = fn(*args)
    assert_same(COMPILED[fn](*args), want, python_kinds=python_kinds)


@settings(max_examples=40, deadline=None)
@given(values, thresholds)
def test_searches(x, t):
    x = x.astype(np.float64).reshape(-1)
    same(k.first_index_where, x, t)
    same(k.for_else_search, x, t)
    same(k.break_and_continue, x)
    same(k.python_number_accumulates, x)


@settings(max_examples=40, deadline=None)
@given(nonempty, thresholds)
def test_nonempty(x, t):
    same(k.skip_negatives, x)
    same(k.return_inside_loop, x, t)
    if (x > t).any():
        same(k.collect_scalars_array, x, t)
    same(k.nested_break_inner, x.reshape(1, -1).astype(np.int64))
    same(k.while_else, x, np.int64(len(x)))


def test_each_function_converted_once():
    """One model per function serves every length and threshold (run on its own: fresh
    compiled functions, each called on several inputs of one signature)."""
    inputs = [np.array([1.0, -2.0, 3.0]), np.array([4.0]), np.array([-1.0, 0.0, 2.0, 5.0, -3.0])]
    for f in COMPILED:
        c = pyonnx.compile(f)
        for x in inputs:
            args = {k.nested_break_inner: (x.reshape(1, -1).astype(np.int64),),
                    k.while_else: (x, np.int64(len(x)))}.get(f)
            if args is None:
                params = f.__code__.co_argcount
                args = (x,) if params == 1 else (x, 1.0)
            with np.errstate(all="ignore"):
                want = f(*args)
            assert_same(c(*args), want)
        assert c.conversions == 1, f"{f.__name__}: {c.conversions} conversions"

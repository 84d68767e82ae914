"""Property tests of loop vectorization: range arithmetic with run-time bounds of any order and
either step sign (empty, partial, full ranges), against the Python loop; one model each."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import pyonnx
from tests import vectorize_kernels as K
from tests.oracle import LOOPS, assert_same, op_types

COMPILED = {f: pyonnx.compile(f) for f in (K.step_up, K.step_down)}


@st.composite
def cases(draw):
    n = draw(st.integers(0, 12))
    x = np.array(draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n)), np.int64)
    a = draw(st.integers(-1, n))
    b = draw(st.integers(-1, n))
    return x, a, b


@settings(max_examples=60, deadline=None)
@given(cases())
def test_run_time_ranges(case):
    x, a, b = case
    up = (max(a, 0), min(b, len(x)))            # indices a..b-1 inside x
    down = (min(a, len(x) - 1), max(b, -1))      # indices a..b+1 inside x
    for fn, (lo, hi) in ((K.step_up, up), (K.step_down, down)):
        args = (x, np.int64(lo), np.int64(hi))
        assert_same(COMPILED[fn](*args), fn(*args))
    assert not LOOPS & op_types(COMPILED[K.step_up], *args)

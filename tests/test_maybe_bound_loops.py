"""Names first assigned in an inner loop that may run 0 times, carried by an outer loop
(control_flow/loops.py with maybe_bound.flag_key, fuzz seeds 20001030, 20001033, 20001171: 73
of 20,000 programs were refused with "'_j' is first assigned inside the loop ... and may be
unbound after it"). The outer loop carries the value and whether it is bound; a read after the
loops is checked at run time: numpy's value where some inner iteration ran, an ExecutionError
at the read's line where none did (Python raises UnboundLocalError there)."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check
from tests.test_fuzz_regressions import check_calls


def pairs_in_outer_loop(a, n):
    for i in range(n):
        pairs = []
        for k in range(a.shape[0]):
            if a[k] > i:
                pairs.append((k, a[k]))
        for _j, _w in pairs:
            pass
    return _j, _w


def inner_range_depends_on_outer(a, n):
    for i in range(n):
        for k in range(i, a.shape[0]):
            last = a[k] * 2.0
    return last


def while_around_for(a, n):
    s = 0
    while s < n:
        s += 1
        for k in range(a.shape[0] - s):
            last = a[k] + s
    return last, s


def read_in_branch_after(a, n):
    for i in range(n):
        for k in range(a.shape[0] - i):
            last = a[k]
    if a.sum() > 0:
        return last * 3
    return a.sum()


def three_levels(a, n):
    for i in range(n):
        for j in range(a.shape[0]):
            for k in range(j, i):
                last = a[j] - k
    return last


def read_in_the_outer_body(a, n):
    out = 0.0
    for i in range(n):
        for k in range(i, a.shape[0]):
            last = a[k]
        if i > 1:
            out = out + last   # bound here: an earlier iteration's inner loop ran
    return out


def bound_on_one_path_of_outer_body(a, n):
    for i in range(n):
        if a[i % max(a.shape[0], 1):].sum() > 0:
            for k in range(a.shape[0]):
                last = a[k] * i
    return last


def inner_loop_skipped_on_some_iterations(a, n):
    for i in range(n):
        for k in range(i % 2, a.shape[0] * (i % 2)):
            last = a[k] + i     # kept from an earlier outer iteration where the inner is empty
    return last


CASES = [
    (inner_loop_skipped_on_some_iterations, 4),
    (pairs_in_outer_loop, 8),
    (inner_range_depends_on_outer, 4),
    (while_around_for, 6),
    (read_in_branch_after, 5),
    (three_levels, 5),
    (bound_on_one_path_of_outer_body, 5),
]


def _arg_sets():
    a = np.array([3.0, -1.0, 2.5, 0.5])
    return [(a, np.int64(n)) for n in (0, 1, 2, 3, 5)] + [
        (a[:1].copy(), np.int64(n)) for n in (1, 3)] + [(-a, np.int64(3))] + [
        (np.zeros(0), np.int64(n)) for n in (0, 2)]


@pytest.mark.parametrize("fn, line", CASES, ids=[c[0].__name__ for c in CASES])
def test_nested_maybe_bound_matches_numpy(fn, line):
    compiled = pyonnx.compile(fn)
    for args in _arg_sets():
        try:
            with np.errstate(all="ignore"):
                want = fn(*[np.copy(x) for x in args])
        except UnboundLocalError:
            with pytest.raises(pyonnx.ExecutionError, match="unbound") as e:
                compiled(*[np.copy(x) for x in args])
            assert f":{fn.__code__.co_firstlineno + line}:" in str(e.value)
            continue
        check_calls(fn, args)
        check(fn, *args)
        del want


def test_read_in_the_outer_body_where_an_earlier_iteration_bound_it():
    a = np.array([3.0, -1.0, 2.5, 0.5])
    for n in (0, 1, 2, 3, 6):
        check(read_in_the_outer_body, a.copy(), np.int64(n))

"""Conditional expressions whose sides write memory (control_flow/select.py, branches.py):
``x.fill(3) if c else None`` as a statement or an assignment, in a run-time loop too. Both sides
give the same static value (``None``), and the join returned it before merging the buffers the
sides wrote: the write was lost inside a loop (silently wrong, found by the cplx helper)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check


def statement_in_a_loop(x, n):
    for i in range(n):
        x.fill(3) if i > 5 else None
    return x


def assignment_in_a_loop(x, n):
    for i in range(n):
        y = x.fill(3) if i > 5 else None
    return x


def copyto_on_data(x, n):
    z = x.copy()
    for i in range(n):
        np.copyto(z, 3.0) if z.sum() > -1 else None
    return z, x


def complex_fill_in_a_loop(x, n):
    z = x.astype(np.complex128)
    for i in range(n):
        z.fill(3) if i > 5 else None
    return z


def both_sides_write(x, k):
    y = x.copy()
    v = y.fill(3) if k > 5 else y.fill(4)
    return y, v


@pytest.mark.parametrize("fn", [statement_in_a_loop, assignment_in_a_loop, copyto_on_data,
                                complex_fill_in_a_loop])
@pytest.mark.parametrize("n", [0, 1, 7, 9])
def test_a_write_in_a_conditional_expression_in_a_loop_is_kept(fn, n):
    check(fn, np.zeros(2), n)


@pytest.mark.parametrize("k", [3, 9])
def test_both_sides_of_a_conditional_expression_write(k):
    check(both_sides_write, np.arange(3.0), k)

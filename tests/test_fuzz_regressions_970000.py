"""Regressions from the 20,000-program compile campaign on main (fuzzer seeds 970000..989999).

Each program is the minimized one (or a family written from it): numpy is the oracle (values,
dtypes, Python vs numpy scalars, the arguments after the call), or the construct is refused at
the user's line where numpy's answer depends on what pyonnx cannot follow.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.test_fuzz_regressions import check_calls


# ---------------------------------------------------------------------------------------------
# Seed 970942: ``a[a > 1] = a[0]``. numpy's boolean-mask assignment copies each run of true
# mask elements in turn, reading the value as it is then, so an element written by one run is
# read by a later one (``a[1, 0]`` gets the new ``a[0, 1]``); the model read the whole value
# first. Refused for every view of the target but a one-element one.
def mask_assign_row_of_itself(a):
    a[a > 1] = a[0]
    return a


def mask_assign_row_through_a_name(a):
    v = a[0]
    a[a > 1] = v
    return a


def mask_assign_one_element(a):
    a[a > 1] = a[..., 0, 1]      # a 0-d view of the target
    return a, a[0, 1]


def mask_assign_copied_row(a):
    a[a > 1] = a[0].copy()
    return a


def test_mask_assignment_from_a_row_of_the_target_is_refused_at_the_line():
    a = np.array([[0.75, 1.25, 0.25, 0.25], [3.5, 1.75, -2.0, 1.75]])
    for f in (mask_assign_row_of_itself, mask_assign_row_through_a_name):
        with pytest.raises(pyonnx.ConversionError, match="boolean-mask assignment") as info:
            pyonnx.compile(f)(a.copy())
        assert "a[a > 1] = " in str(info.value)
    check_calls(mask_assign_one_element, (a,), (np.array([[2.0, 3.0]]),))
    check_calls(mask_assign_copied_row, (a,), (np.array([[2.0, 0.5, 0.5, 4.0], [0.5, 3.0, 5.0, 0.5]]),))


# ---------------------------------------------------------------------------------------------
# Seed 971704: ``a0 = np.positive(a0)`` on a complex argument returned the argument itself, so
# a later ``a0 -= ...`` changed the caller's array (numpy: np.positive and unary + make a new
# array).
def complex_positive_then_write(z):
    z = np.positive(z)
    z -= 0.0625
    return z


def complex_unary_plus_then_write(z):
    w = +z
    w *= 2
    return w, z


def test_complex_positive_is_a_new_array():
    for dt in (np.complex64, np.complex128):
        z = np.array([-1.25 - 3j, 0.5 + 1j], dt)
        check_calls(complex_positive_then_write, (z,), (np.array(-1.25 - 3j, dt),))
        check_calls(complex_unary_plus_then_write, (z,), (np.zeros(0, dt),))

"""A numpy ufunc of Python complex numbers gives a numpy scalar (fuzz seed 20018749:
``np.minimum(n * 1j, 0.75)`` came back as a Python complex); the operators on them give a
Python complex, as in Python."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check


def ufuncs_of_python_complex(n):
    t = n * 1j
    return np.minimum(t, 0.75), np.maximum(t, 0.75), np.add(t, 1), np.sqrt(t), t + 1


@pytest.mark.parametrize("n", [0, 3, -2])
def test_ufunc_results_are_numpy_scalars(n):
    out = check(ufuncs_of_python_complex, n)(n)
    assert [type(v) for v in out] == [np.complex128] * 4 + [complex]

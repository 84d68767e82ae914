"""Run-time checks whose message formats a complex value (fuzz seeds 19000327, 19000451,
19000832: ``assert a0.max() >= -2.0, f"a0 is {a0.max()}"`` on a complex argument was refused
as "can format scalars only"): its real and imaginary parts travel as two values and the call
formats the complex number as Python does (pyonnx.check_protocol)."""

from __future__ import annotations

import numpy as np
import pytest

from tests import checks_complex_kernels as k
from tests.oracle import check


Z = np.array([1 + 2j, -3.5 - 0.25j, 0.5j])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shift", [0.0, -5.0])
def test_assert_formats_a_complex_scalar(dtype, shift):
    check(k.assert_complex_max, (Z + shift).astype(dtype))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("scale", [1.0, 10.0])
def test_conversions_and_specs_of_complex_fields(dtype, scale):
    check(k.raise_with_conversions, (Z * scale).astype(dtype), 1.5 - 2j)


@pytest.mark.parametrize("z", [Z, Z * 1j, Z[:1], np.array([2j, 2j, -1j])])
def test_first_failing_iteration_formats_its_sum(z):
    check(k.raise_in_loop, z)

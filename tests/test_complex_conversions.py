"""``np.array/asarray/asanyarray/ascontiguousarray(x, dtype=complex)`` of real values: the real
array made complex (refused before: "dtype complex128 is not supported"), a new array whose
writes never reach ``x``. Oracle: tests/oracle.check."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check


def conversions(x):
    return (np.asarray(x, dtype=np.complex64), np.array(x, dtype=np.complex128),
            np.array([x[0], x[1]], complex), np.ascontiguousarray(x, np.complex64),
            np.asanyarray(x, dtype=np.complex128))


def written_after(x):
    y = np.asarray(x, dtype=complex)
    y[0] = 1j
    return x, y


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.bool_])
def test_real_to_complex_conversions(dtype):
    x = (np.arange(4) - 1.5).astype(dtype)
    check(conversions, x)
    check(written_after, x)

"""Kernels of tests/test_checks_complex.py (a module pytest does not rewrite: its asserts are
plain Python asserts, as in user code)."""

import numpy as np


def assert_complex_max(z):
    assert z.max().real >= -2.0, f"z is {z.max()}"
    return z * 2


def raise_with_conversions(z, w):
    if np.abs(z).sum() > 10.0:
        raise ValueError(f"first {z[0]!r}, as text {z[-1]!s}, fixed {z[1]:.2f}, python {w}")
    return np.abs(z)


def raise_in_loop(z):
    s = z[0] * 0
    for i in range(z.shape[0]):
        s = s + z[i]
        if s.imag > 3.0:
            raise OverflowError(f"partial sum {s} at {i}")
    return s

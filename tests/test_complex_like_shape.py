"""np.zeros/ones/empty/full_like of or into complex arrays with ``shape=`` and ``dtype=``.

Before: ``np.ones_like(z, shape=(2, 3))`` of a complex ``z`` returned ``z``'s shape (silently
wrong), and ``np.zeros_like(z, dtype=np.float16)`` was refused (fuzz seed 19000703)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check


def likes_with_shape(z):
    return (np.ones_like(z, shape=(2, 3)), np.full_like(z, 1 + 1j, shape=(3,)),
            np.zeros_like(z, shape=(2, 1)), np.empty_like(z, shape=(0, 2)).shape)


def real_template_complex_dtype(x):
    return (np.zeros_like(x, dtype=np.complex64, shape=(2, 2)),
            np.full_like(x, 2 - 1j, dtype=np.complex128, shape=(1, 3)),
            np.ones_like(x, dtype=complex))


def zeros_like_other_dtypes(z):
    return (np.zeros_like(z, dtype=np.float16), np.zeros_like(z, dtype=np.complex64),
            np.zeros_like(z, dtype=bool, shape=(4,)), np.zeros_like(z, dtype=np.int32),
            np.zeros_like(z))


Z = [np.array([1 + 2j, 3j]), np.zeros((0, 2), np.complex64), np.complex128(1j),
     np.array([[1 - 1j], [2j]], np.complex64)]


@pytest.mark.parametrize("z", Z)
def test_likes_take_the_given_shape(z):
    check(likes_with_shape, z)


@pytest.mark.parametrize("x", [np.ones(3), np.zeros((2, 0), np.float32), np.arange(4)])
def test_real_template_with_a_complex_dtype(x):
    check(real_template_complex_dtype, x)


@pytest.mark.parametrize("z", Z)
def test_zeros_like_with_a_dtype(z):
    check(zeros_like_other_dtypes, z)

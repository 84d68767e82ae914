"""A loop variable used against an array in a vectorized loop (fuzz seed 19000242).

The vectorizer lays the variable out as a column (``i[:, None]``) to broadcast it against an
array of rank 1; the variable is a Python int in the loop, so its vectorized form is a "weak"
array, and subscripting it was refused as "a Python scalar is not subscriptable"."""

import numpy as np
import pytest

from tests.oracle import LOOPS, check, op_types


def last_quotient(a0, a1):
    t8 = a1 * 0.0
    for i7 in range(a1.shape[0]):
        t8 = (i7 / a1)
    return t8


def last_scaled_f32(x):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        y = i * x  # i is a Python int: float32 stays float32 (NEP 50)
    return y


@pytest.mark.parametrize("n", [0, 1, 4])
def test_index_against_an_array(n):
    a1 = np.arange(1, n + 1, dtype=np.int64) * (-1) ** np.arange(n)
    check(last_quotient, 1.75, a1)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_index_keeps_python_int_weakness(n):
    x = np.linspace(-2, 2, n).astype(np.float32)
    c = check(last_scaled_f32, x)
    assert c(x).dtype == np.float32


def rows_scaled(x, m):
    out = np.zeros((m, x.shape[0]), x.dtype)
    for i in range(m):
        out[i, :] = i * x + i / 2
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("m", [0, 1, 3])
def test_rows_of_index_times_array_are_vectorized(dtype, m):
    x = (np.arange(4) - 1.5).astype(dtype)
    c = check(rows_scaled, x, np.int64(m))
    assert not LOOPS & op_types(c, x, np.int64(m))


def test_a_dead_temporary_is_vectorized_away():
    a1 = np.array([1, -4, -3])
    c = check(dead_quotient, 1.75, a1)
    assert not LOOPS & op_types(c, 1.75, a1)


def dead_quotient(a0, a1):
    for i7 in range(a1.shape[0]):
        t8 = (i7 / a1)
    return a1

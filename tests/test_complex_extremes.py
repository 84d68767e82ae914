"""Extremes and truth values of complex values (issues 11 and 13), against numpy: Python's
max/min builtins over complex scalars and 1-d arrays, np.max/min/nanmax/nanmin and the
maximum/minimum/fmax/fmin reductions with initial=/where=, the logical ufuncs (and their
reduce/accumulate) of complex values; both complex dtypes, NaN/inf/±0 in either part, ties,
empty arrays."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

C64, C128 = np.complex64, np.complex128
NAN, INF = np.nan, np.inf

SPECIAL = [1 + 2j, 1 + 3j, 3 - 1j, complex(3, NAN), complex(NAN, 1), -1j, 3 - 1j,
           complex(NAN, NAN), complex(INF, -1), complex(-INF, 5), complex(NAN, -2),
           complex(2, NAN), complex(INF, INF), 0j, complex(-0.0, 0.0), complex(0.0, -0.0)]
ROWS = [
    [1 + 2j, 1 + 3j, 3 - 1j, -1j, 3 - 1j],
    [complex(NAN, 1), 2 + 0j, complex(1, NAN)],
    [2 + 0j, complex(1, NAN), complex(NAN, 0), 5j],
    [complex(-0.0, -0.0), 0j, complex(0.0, -0.0)],
    [complex(INF, -1), complex(INF, 1), complex(-INF, 5)],
    [2j],
    SPECIAL,
    # numpy's scalar comparison: a NaN imaginary part does not stop a larger real part
    [2 + 0j, complex(3, NAN), 1j, complex(3, 5)],
    [complex(3, NAN), 3 + 1j, -1 + 0j],
    [3 + 1j, complex(3, NAN), 3 + 2j, complex(-INF, NAN)],
    [complex(1, NAN), complex(-0.0, NAN), complex(NAN, -1)],
]


def builtin_items(z):
    return max(z), min(z)


def builtin_running(z):
    m = z[0]
    n = z[0]
    for i in range(z.shape[0]):
        m = max(m, z[i])
        n = min(z[i], n)
    return m, n


def builtin_three(z):
    return max(z[0], z[-1], z[1]), min([z[1], z[0]])


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("values", ROWS)
def test_builtins(dtype, values):
    z = np.array(values, dtype=dtype)
    check(builtin_items, z)
    if len(values) >= 2:
        check(builtin_three, z)  # (items read by index: numpy scalars, compared as scalars)
    if not np.isnan(z.imag).any():
        check(builtin_running, z)


def builtin_running_from_an_array(z):
    m = np.asarray(z[0])
    for i in range(z.shape[0]):
        m = max(m, z[i])
    return m[()]


def test_builtin_running_compares_scalars_as_numpy_scalars():
    # 'm' is carried by the loop as a numpy scalar on every iteration (z[0], then max of
    # scalars: graph/complex_kinds), so numpy's scalar code compares it: 3+nanj > 2
    z = np.array([2 + 0j, complex(3, NAN), 1j], C128)
    check(builtin_running, z)


def test_builtin_running_refuses_where_scalar_and_array_comparisons_differ():
    # 'm' enters the loop as a 0-d array and leaves an iteration as a numpy scalar: pyonnx
    # does not know which one numpy compares (a scalar by numpy's scalar code: 3+nanj > 2, a
    # 0-d array by the ufunc: False); where the two differ at run time the call fails rather
    # than guess
    z = np.array([2 + 0j, complex(3, NAN), 1j], C128)
    f = pyonnx.compile(builtin_running_from_an_array)
    with pytest.raises(pyonnx.ExecutionError, match="refused"):
        f(z)
    check(f, np.array([2 + 0j, 3 + 1j, 1j], C128))


def test_builtin_empty_raises_at_run_time():
    check(builtin_items, np.array([1j, 2], C128))
    f = pyonnx.compile(builtin_items)
    f(np.array([1j, 2], C128))
    with pytest.raises(ValueError, match="empty"):
        f(np.zeros(0, C128))


def test_builtin_refusals():
    def mixed(z):
        return max(z[0], np.complex64(1))

    def rows(z):
        return max(z)

    with pytest.raises(pyonnx.ConversionError, match="different types"):
        pyonnx.compile(mixed)(np.array([1j], C128))
    with pytest.raises(pyonnx.ConversionError, match="truth test"):
        pyonnx.compile(rows)(np.ones((2, 2), C128))


def initial_where(z):
    return (np.max(z, initial=0), np.min(z, axis=0, initial=1 + 1j),
            np.max(z, axis=1, where=z.real > 0, initial=-5),
            np.min(z, axis=-1, where=z.imag < 1, initial=2j, keepdims=True),
            np.nanmax(z, axis=0, initial=1), np.nanmin(z, initial=-1j, where=z.real != 3),
            np.maximum.reduce(z, axis=1, initial=0), np.fmin.reduce(z, axis=0, initial=3),
            np.fmax.reduce(z, axis=None, initial=-2, where=z.imag >= 0))


def initial_only(z):
    return np.max(z, initial=complex(NAN, 0)), np.nanmax(z, initial=complex(NAN, 0)), \
        np.min(z, initial=-0.0), np.nanmin(z, axis=0, initial=INF)


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("shape", [(4, 4), (0, 3), (3, 0)])
def test_initial_where(dtype, shape):
    rng = np.random.default_rng(3)
    flat = np.array(SPECIAL, dtype=dtype)
    n = int(np.prod(shape))
    z = rng.choice(flat, size=n).reshape(shape) if n else np.zeros(shape, dtype)
    check(initial_where, z)
    check(initial_only, z)


def test_where_without_initial_is_refused():
    def f(z):
        return np.max(z, where=z.real > 0)

    with pytest.raises(pyonnx.ConversionError, match="identity"):
        pyonnx.compile(f)(np.ones(3, C128))


def logical(z, w):
    return (np.logical_not(z), np.logical_and(z, w), np.logical_or(z, 0.5),
            np.logical_xor(z, w), np.logical_or.reduce(z, axis=-1),
            np.logical_and.reduce(z, axis=0), np.logical_or.accumulate(z, axis=0),
            np.logical_xor.reduce(z, axis=None))


def logical_item(a):
    return np.logical_not(a[0]), np.logical_and(a[1], True), np.logical_or(a[0], 2j)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_logical(dtype):
    z = np.array([[0j, 1j, complex(-0.0, 0.0)], [complex(NAN, 0), complex(0, -0.0), 2 + 0j]],
                 dtype=dtype)
    w = np.array([[1, 0j, complex(0, INF)], [0j, 0j, 1]], dtype=dtype)
    check(logical, z, w)
    check(logical, np.zeros((0, 3), dtype), np.zeros((0, 3), dtype))
    check(logical_item, np.array([0j, 1], dtype))


def flat_reads(z):
    t = z.flat[0]
    u = z.flat[::2]
    u[0] = 7j  # a copy: z is unchanged
    return t, u, z.flat[-1:], z.flat[np.array([1, 0, 1])], z.flat[np.ravel(z.real) > 0], z


@pytest.mark.parametrize("dtype", [C64, C128])
def test_flat_reads(dtype):
    z = np.array([[1 - 2j, complex(NAN, -0.0)], [complex(-0.0, INF), 3j]], dtype=dtype)
    check(flat_reads, z)
    check(flat_reads, z[:1])


def means(z):
    return (np.mean(z, axis=0, where=z.real > 0), np.mean(z, where=z.imag != 1),
            np.mean(z, axis=-1, where=np.array([True, False, True]), keepdims=True),
            np.mean(z, dtype=np.complex128), np.mean(z, axis=1, dtype=np.complex64),
            z.mean(axis=0, where=z.real < 2))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_mean_where_dtype(dtype):
    z = np.array([[1 - 2j, complex(NAN, -0.0), 2], [complex(-0.0, INF), 3j, -1 - 1j],
                  [0.5 + 0.5j, complex(3, -0.0), complex(-INF, 1)]], dtype=dtype)
    with np.errstate(all="ignore"):
        check(means, z)
        check(means, np.zeros((0, 3), dtype))


def accumulates(z):
    return (np.maximum.accumulate(z, axis=0), np.minimum.accumulate(z, axis=1),
            np.maximum.accumulate(z, axis=-1), np.minimum.accumulate(z))


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("shape", [(5, 7), (1, 16), (9, 1), (0, 3), (3, 0)])
def test_accumulate(dtype, shape):
    rng = np.random.default_rng(5)
    flat = np.array(SPECIAL + [1 + 2j] * 4, dtype=dtype)
    n = int(np.prod(shape))
    z = rng.choice(flat, size=n).reshape(shape) if n else np.zeros(shape, dtype)
    check(accumulates, z)
    check(accumulates, np.array([[1, 1j, complex(-0.0, 1), complex(0, 1)]], dtype))

"""More numpy functions of complex arrays (issue 11), against numpy: round/around/z.round,
delete, resize, nan_to_num, sum with dtype=/initial=/where= (a real initial adds to the real
part only), flatnonzero/argwhere, ptp, average; both complex dtypes, inf/NaN/±0 in either
part, empty arrays."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check

C64, C128 = np.complex64, np.complex128
NAN, INF = np.nan, np.inf


def rounds(z):
    return np.round(z, 1), np.around(z), z.round(2), np.round(z, -1)


def moves(z):
    return np.delete(z, 0), np.delete(z, [0, 2], axis=1), np.resize(z, (3, 5)), np.resize(z, 2)


def sums(z):
    return (np.sum(z, initial=1), z.sum(axis=0, initial=2.5), np.sum(z, initial=1 - 2j),
            np.sum(z, dtype=np.complex128), z.sum(axis=1, where=z.real > 0),
            np.sum(z, axis=0, initial=0.5 - 1j, where=z.imag != 0), z.sum())


def misc(z):
    return (np.nan_to_num(z), np.nan_to_num(z, nan=1.5, posinf=2.0, neginf=-3.0),
            np.flatnonzero(z), np.argwhere(z), np.average(z), np.average(z, axis=0),
            np.ptp(z, axis=1))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_more(dtype):
    z = np.array([[1.26 - 2.55j, complex(-0.0, 0.0), complex(3.5, -0.5), 4 + 1j],
                  [complex(INF, 1), 2, complex(1, NAN), 0.5 - 0.5j],
                  [2.25 + 2j, complex(0, -0.0), -1j, complex(-INF, 7)]], dtype=dtype)
    for f in (rounds, moves, sums, misc):
        check(f, z)
        if f in (rounds, sums):
            check(f, z[:, :0])
    check(misc, z[:1])


def closeness(z, w, x):
    return (np.isclose(z, w), np.isclose(z, w, equal_nan=True), np.isclose(z, x, rtol=0.1),
            np.isclose(x, z, atol=0.5), np.allclose(z, z), np.allclose(z, w, equal_nan=True),
            np.isclose(z[0, 0], 1.26 - 2.5j, atol=0.1), np.isclose(z, 2))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_isclose(dtype):
    z = np.array([[1.26 - 2.55j, complex(-0.0, 0.0), complex(3.5, -0.5), 4 + 1j],
                  [complex(INF, 1), 2, complex(1, NAN), 0.5 - 0.5j]], dtype=dtype)
    w = z + np.array([1e-7, 0.2, 1e-9j, 0], dtype)
    x = np.array([1.2, 0.0, 3.4, 4.0])
    check(closeness, z, w, x)
    check(closeness, z, z.copy(), x)


def inserts(z, x):
    return (np.append(z, 1j), np.append(z, x), np.append(x, z[0], axis=None),
            np.append(z, z, axis=0), np.insert(z, 1, 2 - 1j), np.insert(z, 2, x[1]),
            np.pad(z, 1), np.pad(z, (1, 2), constant_values=1 - 1j),
            np.pad(z, 1, mode="edge"), np.pad(z, 2, mode="reflect"), np.pad(z, 1, mode="wrap"))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_append_insert_pad(dtype):
    z = np.array([1.25 - 2.5j, complex(-0.0, 0.0), complex(INF, NAN), 4 + 1j], dtype=dtype)
    check(inserts, z, np.array([1.5, -0.0, 3.0]))


def rint_of_complex(z):
    return np.rint(z), np.rint(z[0]), np.rint(z[::-1])


def complex_sliding_windows(z):
    w = np.lib.stride_tricks.sliding_window_view(z, 2)
    v = np.lib.stride_tricks.sliding_window_view(z.reshape(1, -1), (1, 2))
    return w, w.sum(axis=-1), v[0, -1], w.real


@pytest.mark.parametrize("dtype", [C64, C128])
def test_rint_rounds_each_part_half_to_even(dtype):
    z = np.array([0.5 + 1.5j, -0.5 - 2.5j, 2.49 + 0.51j, -1.5 + 0j], dtype)
    check(rint_of_complex, z)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_sliding_window_view_of_complex(dtype):
    z = np.array([1 + 2j, -3 + 0.5j, 2.5 - 1j, 4j], dtype)
    check(complex_sliding_windows, z)
    check(complex_sliding_windows, z[:2])

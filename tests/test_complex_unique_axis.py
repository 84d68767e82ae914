"""np.unique(z, axis=k) of complex arrays (issue 11), against numpy: rows and columns, the
index/inverse/counts outputs, NaN rows never merged, ±0 rows merged, both complex dtypes, 3-d
arrays and empty axes."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check

C64, C128 = np.complex64, np.complex128
NAN, INF = np.nan, np.inf

ROWS = [[1 + 1j, 2], [complex(NAN, 0), 1], [1 + 1j, 2], [complex(NAN, 0), 1], [3j, 5],
        [complex(0, 3), 5], [1 + 1j, complex(2, NAN)], [complex(INF, -1), 0],
        [1 + 1j, complex(2, -0.0)], [complex(1, NAN), 7]]


def rows(z):
    return np.unique(z, axis=0), np.unique(z, axis=0, return_index=True, return_inverse=True,
                                           return_counts=True)


def cols(z):
    return np.unique(z.T, axis=1), np.unique(z.T, axis=-1, return_counts=True)


def cube(z):
    return np.unique(z, axis=1, return_inverse=True)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_unique_axis(dtype):
    z = np.array(ROWS, dtype=dtype)
    check(rows, z)
    check(cols, z)
    check(rows, z[:1])
    check(rows, z[:0])
    check(cube, np.stack([z, z[::-1]]))

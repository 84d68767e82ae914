"""Regressions from the compile campaigns at fuzzer seeds 55,000,000 and after (issue 13:
never an internal crash).

* Seed 56000830 (crash): a complex array returned on one path and ``None`` on another, the
  function also leaving through ``raise``/``assert`` between them: the possibly-None value's
  plan (structure.plan_of of a Maybe) was a complex *number*, so the branches that carry the
  not-returned-yet value gave 0-d parts where the others gave the array's, and onnxruntime
  failed on the If's output shape.
* Seed 61000584 (wrong dtype): ``s = np.int64(1)`` before a loop whose ``s = max(s * -1, i)``
  may leave the Python int ``i`` in it: numpy returns a Python int where ``i`` won last,
  pyonnx always an np.int64. The "is a Python number" flag a loop carries for a name that
  entered as a Python number (path_types.python_state_flags) is now carried for a numpy
  scalar that an iteration may replace by a Python number too (its entry flag false).

Each kernel is checked as the fuzzer does (``check_calls``: one compiled function, several
input sets, results with their Python types, arguments after the call).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_fuzz_regressions import check_calls


def complex_or_none(a0, a1):
    if a0.shape[0] < 2.625:
        return None
    if not a1.max() >= 3.0:
        raise ValueError("out of range")
    assert a1.max() >= 3.0
    return a0


def complex_rows_or_none(z, t):
    if z.shape[0] < 2:
        return None
    if t.max() < 0:
        raise ValueError("negative")
    return z * 2


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_seed_56000830_complex_array_or_none_after_a_raise(dtype):
    check_calls(complex_or_none,
                (np.array([1.25j, -3 + 3j, -0.5 + 3.25j], dtype), np.array([1, 4], np.uint64)),
                (np.array([4 + 1j, 0.5 + 3.5j], dtype), np.array([1, 0, 4], np.uint64)))
    z = (np.arange(12).reshape(4, 3) * (1 - 2j)).astype(dtype)
    check_calls(complex_rows_or_none, (z, np.array([1.0])), (z[:1], np.array([1.0])),
                (z[:3].copy(), np.array([2.0, 5.0])))


def max_keeps_the_python_int(a0):
    s = np.int64(1)
    for i in range(16 + a0.shape[0]):
        s = max(s * -1, i)
    return s


def min_keeps_the_python_float(x, n):
    s = x.sum()
    for i in range(n):
        s = min(s * 0.5, 1.0 * i - 3.0)
    return s


def max_over_items(x, start):
    s = start
    for v in range(x.shape[0]):
        s = max(s, v - 2)
        s = s + x[v]
    return s


def test_seed_61000584_a_loop_leaves_the_python_number_max_kept():
    for n in (0, 1, 4):
        check_calls(max_keeps_the_python_int, (np.arange(n, dtype=np.int64),))
    x = np.array([4.0, -8.0, 1.5])
    for n in (0, 1, 2, 5):  # (0 trips: the np.float64 sum it entered with)
        check_calls(min_keeps_the_python_float, (x, n), (x * 10, n))
    # s + x[i] makes it numpy again in the same iteration: np.int64 whatever max kept
    check_calls(max_over_items, (np.array([1, -5, 2], np.int64), np.int64(0)),
                (np.array([], np.int64), np.int64(3)))

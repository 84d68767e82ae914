"""Benchmark-suite kernels (in-place writes inside loops, results returned through arguments)
against numpy, with loop bounds both known at conversion time and only at run time."""

from __future__ import annotations

import numpy as np
import pytest

from tests import npbench_kernels as k
from tests.oracle import check

R = np.random.default_rng(0)
M = R.random((6, 6))
SPD = M @ M.T + 6 * np.eye(6)


@pytest.mark.parametrize("fn,args", [
    (k.go_fast, (R.random((5, 5)),)),
    (k.floyd_warshall, (R.random((6, 6)) * 10,)),
    (k.cholesky, (SPD,)),
    (k.cholesky, (SPD[:1, :1],)),
    (k.histogram, (R.random(50), 10)),
    (k.histogram, (R.random(50), np.int64(7))),
    (k.prefix_sum, (R.random(9),)),
    (k.prefix_sum, (np.zeros(0),)),
    (k.jacobi_1d, (5, R.random(10), R.random(10))),
    (k.jacobi_1d, (np.int64(5), R.random(10), R.random(10))),
    (k.seidel, (3, 6, R.random((6, 6)))),
    (k.seidel, (np.int64(3), np.int64(6), R.random((6, 6)))),
], ids=lambda v: getattr(v, "__name__", None))
def test_kernel(fn, args):
    check(fn, *args)  # results and the arguments after the call

"""``np.linalg.det``, ``slogdet``, ``solve``, ``inv``, ``matrix_power`` and ``multi_dot``
(issue 16), differential against numpy: LAPACK's LU in LAPACK's order, so equal to rounding
(``rtol`` below: well-conditioned random matrices), not bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

R64 = dict(rtol=1e-10, atol=1e-12)
R32 = dict(rtol=2e-4, atol=1e-5)


def dets(a):
    sign, logdet = np.linalg.slogdet(a)
    return np.linalg.det(a), sign, logdet


def inverse(a):
    return np.linalg.inv(a)


def solve(a, b):
    return np.linalg.solve(a, b)


def powers(a):
    mp = np.linalg.matrix_power
    return mp(a, 0), mp(a, 1), mp(a, 2), mp(a, 3), mp(a, 5), mp(a, 8)


def negative_power(a):
    return np.linalg.matrix_power(a, -3)


def chains(a, b, c, d):
    md = np.linalg.multi_dot
    return md([a, b, c]), md([a, b, c, d]), md([a[0], b, c]), md([a, b, c[:, 0]]), md((a, b))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_det_inv_solve(n):
    rng = np.random.default_rng(n)
    a = rng.normal(size=(n, n)) + n * np.eye(n)
    check(dets, a, **R64)
    check(dets, rng.normal(size=(4, n, n)), **R64)
    check(dets, a.astype(np.float32), **R32)
    check(inverse, a, **R64)
    check(inverse, a.astype(np.float32), **R32)
    check(solve, a, rng.normal(size=n), **R64)
    check(solve, a, rng.normal(size=(n, 3)), **R64)
    check(solve, a.astype(np.float32), rng.normal(size=n), **R64)  # float64 result


def test_integer_bool_and_singular_matrices():
    check(dets, np.array([[1, 2], [2, 4]]))                 # singular: (0, -inf), det 0
    check(dets, np.array([[0, 1], [1, 0]]))                 # a row swap: sign -1
    check(dets, np.arange(9).reshape(3, 3) % 4, **R64)
    check(dets, np.array([[True, False], [True, True]]))
    check(inverse, np.array([[2, 1], [1, 3]], np.int32), **R64)
    check(dets, np.zeros((2, 0, 0)))
    with pytest.raises(pyonnx.ExecutionError, match=r"LinAlgError_Singular_matrix"):
        pyonnx.compile(inverse)(np.array([[1.0, 2.0], [2.0, 4.0]]))


def test_solve_broadcasts_batches():
    rng = np.random.default_rng(1)
    check(solve, rng.normal(size=(3, 2, 2)), rng.normal(size=2), **R64)
    check(solve, rng.normal(size=(2, 2)), rng.normal(size=(4, 2, 1)), **R64)
    check(solve, rng.normal(size=(1, 2, 2)), rng.normal(size=(3, 2, 2)), **R64)


def test_matrix_power_and_multi_dot():
    rng = np.random.default_rng(2)
    check(powers, rng.integers(-3, 3, size=(3, 3)))
    check(powers, rng.integers(-3, 3, size=(3, 3)).astype(np.uint8))
    check(powers, rng.normal(size=(2, 3, 3)), **R64)
    check(powers, np.eye(2, dtype=bool))
    check(negative_power, rng.normal(size=(3, 3)) + 3 * np.eye(3), **R64)
    check(chains, rng.normal(size=(2, 5)), rng.normal(size=(5, 3)), rng.normal(size=(3, 7)),
          rng.normal(size=(7, 2)), **R64)
    check(chains, rng.normal(size=(9, 1)), rng.normal(size=(1, 8)), rng.normal(size=(8, 2)),
          rng.normal(size=(2, 1)), **R64)


def half(a):
    return np.linalg.det(a)


def not_square(a):
    return np.linalg.inv(a)


def vector(a):
    return np.linalg.det(a)


@pytest.mark.parametrize("fn, arg, match", [
    (half, np.eye(2, dtype=np.float16), "float16 is unsupported in linalg"),
    (not_square, np.ones((2, 3)), "must be square"),
    (vector, np.ones(3), "at least two-dimensional"),
])
def test_refusals(fn, arg, match):
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(arg)
    assert info.value.lineno == fn.__code__.co_firstlineno + 1


def choleskys(a):
    return np.linalg.cholesky(a), np.linalg.cholesky(a, upper=True)


def tensor_forms(a, b):
    return (np.linalg.tensorinv(a.reshape(2, 3, 6)), np.linalg.tensorinv(a, ind=1),
            np.linalg.tensorsolve(a.reshape(2, 3, 6), b),
            np.linalg.tensorsolve(a.reshape(6, 2, 3), b, axes=(0,)))


@pytest.mark.parametrize("n", [0, 1, 2, 4, 7])
def test_cholesky(n):
    rng = np.random.default_rng(n)
    g = rng.normal(size=(n, n))
    a = g @ g.T + n * np.eye(n)
    check(choleskys, a, **R64)
    check(choleskys, np.stack([a, a + np.eye(n)]), **R64)
    check(choleskys, a.astype(np.float32), **R32)
    a[np.triu_indices(n, 1)] = 7.0  # only the lower triangle is read (upper=False)
    check(lambda_free_lower, a, **R64)


def lambda_free_lower(a):
    return np.linalg.cholesky(a)


def test_cholesky_integers_and_not_positive_definite():
    check(choleskys, np.array([[4, 2], [2, 3]]), **R64)
    with pytest.raises(pyonnx.ExecutionError, match=r"LinAlgError_Matrix_is_not_positive_definite"):
        pyonnx.compile(lambda_free_lower)(np.array([[1.0, 2.0], [2.0, 1.0]]))


def test_tensorinv_tensorsolve():
    rng = np.random.default_rng(3)
    check(tensor_forms, rng.normal(size=(6, 6)) + 3 * np.eye(6), rng.normal(size=(2, 3)),
          **R64)

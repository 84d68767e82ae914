"""einsum, tensordot and kron with complex operands (issue 11), against numpy: one to six
operands, complex and real operands mixed, both complex dtypes, empty contractions."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

C64, C128 = np.complex64, np.complex128
TOL = {C64: dict(rtol=2e-5, atol=2e-5), C128: dict(rtol=1e-12, atol=1e-12)}


def einsums(z, w, x):
    return (np.einsum("ij,jk->ik", z, w), np.einsum("ii->", z), np.einsum("ij->ji", z),
            np.einsum("ij,jk,kl->il", z, w, z), np.einsum("ij,jk->ik", x, w),
            np.einsum("ij,ij->i", z, np.conj(z)), np.einsum("ij,jk,kl,lm->im", z, x, w, z))


def tensordots(z, w, x):
    return (np.tensordot(z, w, axes=1), np.tensordot(z, w, axes=([0, 1], [1, 0])),
            np.tensordot(x, w, 1), np.tensordot(z, x, axes=0), np.kron(z, x), np.kron(z, w))


def five(z):
    return np.einsum("ij,jk,kl,lm,mn->in", z, z, z, z, z)


def rc(rng, shape, dtype):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_einsum_and_tensordot(dtype):
    rng = np.random.default_rng(4)
    z, w = rc(rng, (3, 3), dtype), rc(rng, (3, 3), dtype)
    x = rng.normal(size=(3, 3)).astype(np.float32 if dtype == C64 else np.float64)
    check(einsums, z, w, x, **TOL[dtype])
    check(tensordots, z, w, x, **TOL[dtype])


def test_empty_contraction():
    z = np.zeros((0, 0), C128)
    check(einsums, z, z, np.zeros((0, 0)))


def six(a, b, c, d, e, f):
    return (np.einsum("i,ij,j,jk,k,ki->", a, b, c, d, e, f),
            np.einsum("ij,jk,kl,lm,mn", b, d, f, b[:, :2], d.T),  # implicit output
            np.einsum("ii,ij,jk,k,k->j", b @ b.T, b, d, e, e))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_more_than_four_operands(dtype):
    # contracted pairwise, left to right (refused before); a real operand stays real
    rng = np.random.default_rng(5)
    check(five, rc(rng, (3, 3), dtype), **TOL[dtype])
    real = np.float32 if dtype == C64 else np.float64
    check(six, rc(rng, (3,), dtype), rc(rng, (3, 4), dtype), rng.normal(size=4).astype(real),
          rc(rng, (4, 2), dtype), rc(rng, (2,), dtype), rng.normal(size=(2, 3)).astype(real),
          **TOL[dtype])
    check(five, np.zeros((0, 0), dtype))


def test_more_than_four_operands_with_an_ellipsis_refused():
    with pytest.raises(pyonnx.ConversionError, match="'...' is not supported"):
        pyonnx.compile(five_ellipsis)(np.eye(2, dtype=C128))


def five_ellipsis(z):
    return np.einsum("...j,jk,kl,lm,mn->...n", z, z, z, z, z)

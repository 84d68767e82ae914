"""``np.poly1d`` objects and ``np.poly`` (issue 16): construction, evaluation, attributes,
derivative, integral and arithmetic, differential against numpy; what stays refused."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def poly_methods(c, x):
    p = np.poly1d(c)
    q = p.deriv()
    return (p(x), p.coeffs, p.c, q.coeffs, p.deriv(2).coef, p.integ().coeffs,
            p.integ(m=2, k=[1.0, 2.0]).coeffs, p.order, p.o, len(p), p[0], p[1], p[9],
            np.polyval(p, x), np.asarray(p))


def poly_arithmetic(c, x):
    p = np.poly1d(c)
    s = np.poly1d([1.0, -2.0])
    r = (p + s, p - s, p * s, 2 * p - 1, 3 - p, p * 0, p / 4, -p, +p, p ** 0, p ** 3, p + x,
         p * x)
    return tuple(t.coeffs for t in r) + (x[:1] * p, (p + 1)(x))


def poly_static(x):
    p = np.poly1d([0, 1, 2, 3])
    return (p(x), p.deriv()(x), p.order, p[2], np.poly1d([1.0, 2.0], r=True)(x),
            np.poly1d(p).coeffs, np.poly1d(2.5)(x), (p * p)(x), np.poly([1.0, -1.0]))


def poly_from_roots(r, x):
    return np.poly(r), np.poly1d(r, r=True)(x), np.poly1d(r, True).coeffs


def numpy_scalar_left(c):
    p = np.poly1d(c)
    return np.float64(2.0) * p, np.float32(1.5) + p, np.arange(3.0) - p


def compares(c):
    return np.poly1d(c) == np.poly1d(c)


def test_poly1d_numpy_values_on_the_left():
    # numpy's scalar and ndarray operators take p as its coefficient array
    check(numpy_scalar_left, np.array([1.0, 2.0, 3.0]))


def poly_python_scalar(c, s):
    return (s * np.poly1d(c)).coeffs, (np.poly1d(c) + s).coeffs


COEFFS = [np.array([0.0, 0.0, 1.5, -2.0, 3.0]), np.array([2.0]), np.array([0.0]),
          np.array([-0.0, 0.0]), np.array([0, 1, 2]), np.array([1, -2], np.int32),
          np.array([0.5, 0.0, 1.5], np.float32)]


@pytest.mark.parametrize("c", COEFFS, ids=lambda c: f"{c.dtype}{c.shape}")
def test_poly1d_methods(c):
    x = np.linspace(-2, 2, 4)
    check(poly_methods, c, x)
    check(poly_methods, c, x.astype(np.float32))
    check(poly_methods, c, np.float64(0.5))


@pytest.mark.parametrize("c", COEFFS, ids=lambda c: f"{c.dtype}{c.shape}")
def test_poly1d_arithmetic(c):
    check(poly_arithmetic, c, np.linspace(-1, 1, 3))
    check(poly_arithmetic, c, np.ones(1))


def test_poly1d_of_bool_and_empty_points():
    # (bool coefficients evaluate; numpy's polyder and polyint fail on them)
    c = np.array([True, False])
    check(lambda_free_call, c, np.zeros(0))
    check(lambda_free_call, np.array([1.0, 2.0]), np.zeros((2, 0)))


def lambda_free_call(c, x):
    return np.poly1d(c)(x), np.poly1d(c).coeffs


def test_poly1d_static_and_roots():
    check(poly_static, np.linspace(-1, 1, 5))
    check(poly_static, np.float32(2.0))
    for r in (np.array([1.0, 2.0, -3.0]), np.array([1, 2]), np.array([0.5], np.float32),
              np.zeros(0)):
        check(poly_from_roots, r, np.linspace(0, 1, 3).astype(r.dtype if r.dtype.kind == "f"
                                                               else np.float64))


def test_poly1d_python_scalars():
    check(poly_python_scalar, np.array([1.0, 2.0]), 2.5)
    check(poly_python_scalar, np.array([1, 2]), 3)


def returns_poly(c):
    return np.poly1d(c)


def roots(c):
    return np.poly1d(c).roots


def composed(c, x):
    return np.poly1d(c)(np.poly1d(c))(x)


def divided(c):
    return (np.poly1d(c) / np.poly1d(c))[0].coeffs


def polydivs(u, v):
    q, r = np.polydiv(u, v)
    pq, pr = np.poly1d([1.0, -3.0, 2.0]) / np.poly1d([1.0, 1.0])
    return q, r, pq.coeffs, pr.coeffs, np.polydiv(u, 2.0)[0]


@pytest.mark.parametrize("u, v", [
    (np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0])),
    (np.array([1.0, -3.0, 2.0]), np.array([1.0, -1.0])),        # exact: remainder trimmed
    (np.array([1, 2]), np.array([1, 2, 3])),                     # deg u < deg v: q = [0]
    (np.array([1.0, 2.0], np.float32), np.array([2.0], np.float32)),
    (np.array([3.0]), np.array([2.0])),
])
def test_polydiv(u, v):
    check(polydivs, u, v)


def np_roots(c):
    return np.roots(c)


def of_matrix(a):
    return np.poly(a)


@pytest.mark.parametrize("fn, args, match", [
    (returns_poly, (np.ones(2),), "returns a Poly1d"),
    (roots, (np.ones(2),), "eigenvalues"),
    (composed, (np.ones(2), np.ones(3)), "composition"),
    (divided, (np.ones(2),), "np.polydiv's loop needs"),
    (np_roots, (np.ones(2),), "eigenvalues"),
    (of_matrix, (np.eye(2),), "eigenvalues"),
    (compares, (np.ones(2),), "comparing poly1d"),
])
def test_poly1d_refusals(fn, args, match):
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(*args)
    assert info.value.lineno == fn.__code__.co_firstlineno + 1

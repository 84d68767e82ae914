"""tan/tanh, arc*/arc*h, log1p/expm1 of complex values (issue 11), against numpy: a grid of
special values (±0, ±inf, nan, huge and tiny parts, the branch points ±1 and ±i) in both complex
dtypes, values near the branch cuts, empty and 0-d arrays, and a hypothesis property."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import pyonnx
from tests.oracle import assert_same, check

C64, C128 = np.complex64, np.complex128
TOL = {C64: dict(rtol=2e-6, atol=1e-37), C128: dict(rtol=4e-15, atol=1e-300)}



def grid(dtype) -> np.ndarray:
    """Every pair of special and ordinary parts (huge: near the dtype's largest squares)."""
    big = 1e300 if dtype == C128 else 1e30
    parts = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -3.0, 1e-8, 30.0, big, -big,
             np.inf, -np.inf, np.nan]
    return np.array([complex(a, b) for a in parts for b in parts]).astype(dtype)


def tan_tanh(z):
    return np.tan(z), np.tanh(z)


def arc_trig(z):
    return np.arcsin(z), np.arccos(z), np.arctan(z)


def arc_hyp(z):
    return np.arcsinh(z), np.arccosh(z), np.arctanh(z)


def log1p_expm1(z):
    return np.log1p(z), np.expm1(z)


def chained(z, w):
    """The functions inside arithmetic, mixed with a real array."""
    return np.tanh(z) * w + np.arctan(z / 2) - np.log1p(w * 1j)


FUNCS = [tan_tanh, arc_trig, arc_hyp, log1p_expm1]


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("fn", FUNCS, ids=lambda f: f.__name__)
def test_special_values(fn, dtype):
    check(fn, grid(dtype), **TOL[dtype])


def _near_cuts(rng, n):
    """Values on and near the branch cuts and branch points (±1, ±i), of every scale."""
    base = rng.choice([-1.0, 1.0, 0.0, 2.0, -2.0], size=(n, 2))
    eps = rng.normal(size=(n, 2)) * 10.0 ** rng.uniform(-17, -1, size=(n, 2))
    z = base + eps
    mags = 10.0 ** rng.uniform(-12, 12, size=(n, 2)) * np.sign(rng.normal(size=(n, 2)))
    both = np.concatenate([z, mags])
    return both[:, 0] + 1j * both[:, 1]


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("fn", FUNCS, ids=lambda f: f.__name__)
def test_near_branch_cuts(fn, dtype):
    z = _near_cuts(np.random.default_rng(7), 300).astype(dtype)
    # log1p: numpy's formula rounds hypot(x + 1, y) near 1; the difference is one ulp of 1
    atol = 4e-16 if fn is log1p_expm1 and dtype == C128 else TOL[dtype]["atol"]
    check(fn, z, rtol=TOL[dtype]["rtol"], atol=max(atol, 1e-37 if dtype == C64 else 0))


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("shape", [(0,), (2, 0), ()])
def test_empty_and_0d(dtype, shape):
    z = (np.ones(shape) * (0.3 - 1.2j)).astype(dtype)
    for fn in FUNCS:
        check(fn, z, **TOL[dtype])


@pytest.mark.parametrize("dtype", [C64, C128])
def test_in_expressions(dtype):
    rng = np.random.default_rng(3)
    z = (rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))).astype(dtype)
    w = rng.normal(size=4).astype(np.float32 if dtype == C64 else np.float64)
    check(chained, z, w, rtol=1e-5 if dtype == C64 else 1e-13,
          atol=1e-6 if dtype == C64 else 1e-14)


_finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(_finite, _finite), min_size=1, max_size=6))
def test_property_matches_numpy(pairs):
    # One compiled function per FUNC for every example (one model: the lengths are symbolic);
    # the checker and the reference evaluator see these models in test_near_branch_cuts.
    z = np.array([complex(a, b) for a, b in pairs])
    for fn in FUNCS:
        compiled = _COMPILED.setdefault(fn, pyonnx.compile(fn))
        with np.errstate(all="ignore"):
            want = fn(z.copy())
        # (log1p: numpy's log(hypot(1 + x, y)) is exact to one ulp of 1 only, absolutely)
        assert_same(compiled(z.copy()), want, rtol=1e-13,
                    atol=4e-16 if fn is log1p_expm1 else 1e-300)


_COMPILED: dict = {}


def power_arrays(z, w):
    return z ** w, np.power(z, w), np.power(w, z)


def power_real_exponent(z, n):
    return z ** n, np.power(z, n * 0.5)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_power_run_time_exponents_special_values(dtype):
    # every pair of special bases and exponents: zero base and exponent, integer exponents
    # (numpy's repeated multiplication, with its NaNs), infinite and NaN parts (C's cpow, whose
    # products recover infinities); exponents below 1e300, where cpow is ill-conditioned
    parts = [0.0, -0.0, 0.5, -1.0, 2.0, 3.0, -2.0, 7.0, np.inf, -np.inf, np.nan]
    g = np.array([complex(a, b) for a in parts for b in parts]).astype(dtype)
    z, w = np.repeat(g, len(g)), np.tile(g, len(g))
    # exp(w log z) magnifies log's rounding by |w| (up to 7 here), and a part that nearly
    # cancels is off by the rounding of the modulus (up to 5e5 here): atol of the modulus
    check(power_arrays, z, w, rtol=1e-4 if dtype == C64 else 1e-13,
          atol=1e-1 if dtype == C64 else 2e-9)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_power_real_integer_exponents(dtype):
    rng = np.random.default_rng(5)
    z = (rng.normal(size=40) + 1j * rng.normal(size=40)).astype(dtype)
    n = np.array([0, 1, 2, 3, -1, -2, -3, 5, 17, 99, -99, 100, 127, -64, 2.5, -0.5] * 2 +
                 [1e3, 0.25, 4, -7, 64, 63, 33, 8], np.float64)
    rt = 1e-3 if dtype == C64 else 1e-12  # (n = 100, 127, 1e3: cpow, whose error grows with n)
    check(power_real_exponent, z, n.astype(np.float32 if dtype == C64 else np.float64),
          rtol=rt, atol=1e-30)


def sinc_of(z):
    return np.sinc(z), np.sinc(z[..., :1] * 2)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("z", [
    [0j, -0.0 + 0j, 0 - 0.0j, 1 + 1j, -0.5 + 2j, 3 + 0j, 1e-30j, 2.5 - 40j],
    [complex(np.inf, 0), complex(0, np.inf), complex(np.nan, 1), complex(1, np.nan),
     complex(-np.inf, np.inf), 1e30 + 1j],
    [[0.25 + 0.5j, -1j], [7 + 1e-3j, -2 - 2j]],
    np.zeros((0, 2)),
])
def test_sinc(dtype, z):
    # numpy's own code: pi * z, where(x, x, 1e-20), sin(y) / y (nan where numpy has nan)
    check(sinc_of, np.asarray(z, dtype))

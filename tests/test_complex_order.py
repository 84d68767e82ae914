"""Ordering complex values (issue 11), against numpy: max/min/argmax/argmin and their methods,
maximum/minimum/fmax/fmin, sort/argsort/sort_complex, in numpy's lexicographic order with NaNs
(max/min/argmax/argmin: the first NaN; sort: NaNs last in numpy's four classes), both complex
dtypes, special values, ties, axes, keepdims, empty arrays."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import pyonnx
from tests.oracle import assert_same, check

C64, C128 = np.complex64, np.complex128
NAN = np.nan


def reductions(z):
    return np.max(z), np.min(z), np.argmax(z), np.argmin(z), z.max(), z.min(), z.argmax(), \
        z.argmin()


def reductions_axis(z):
    return np.max(z, axis=0), np.min(z, axis=1), np.argmax(z, axis=-1), \
        np.argmin(z, axis=0), np.amax(z, axis=1, keepdims=True), \
        np.argmax(z, axis=0, keepdims=True), np.max(z, keepdims=True), z.argmin(axis=1)


def elementwise(z, w):
    return np.maximum(z, w), np.minimum(z, w), np.fmax(z, w), np.fmin(z, w)


def with_real(z, x):
    return np.maximum(z, x), np.minimum(x, z), np.fmax(x, z), np.maximum(z, 0.5)


def sorts(z):
    return np.sort(z), np.argsort(z), np.sort_complex(z), z.argsort()


def sorts_axis(z):
    return np.sort(z, axis=0), np.argsort(z, axis=0), np.sort(z, axis=None), \
        np.argsort(z, axis=None), np.sort(z, axis=-1)


def empty_max(z):
    return np.max(z)


def rc(rng, shape, dtype):
    return (rng.integers(-2, 3, size=shape) + 1j * rng.integers(-2, 3, size=shape)).astype(dtype)


# numbers, ties in the real part, NaNs in either part, infinities; each appears several
# times (the first NaN or the first extreme is numpy's answer)
SPECIAL = np.array([1 + 2j, 1 + 3j, 3 - 1j, complex(3, NAN), complex(NAN, 1), -1j, 3 - 1j,
                    complex(NAN, NAN), complex(np.inf, -1), complex(-np.inf, 5),
                    complex(NAN, -2), complex(2, NAN), complex(np.inf, np.inf), 0j])


@pytest.mark.parametrize("dtype", [C64, C128])
def test_reductions_with_nans_in_either_part(dtype):
    z = SPECIAL.astype(dtype)
    check(reductions, z)
    for i in range(len(z)):  # every prefix's first NaN (or none)
        check(reductions, z[: i + 1].copy())
    finite = np.array([v for v in SPECIAL if not np.isnan(v)]).astype(dtype)
    check(reductions, finite)
    check(reductions, finite[::-1].copy())


@pytest.mark.parametrize("dtype", [C64, C128])
def test_reductions_over_axes(dtype):
    rng = np.random.default_rng(1)
    check(reductions_axis, rc(rng, (4, 5), dtype))
    z = rc(rng, (4, 5), dtype)
    z[1, 2] = complex(NAN, 0)
    z[3, 0] = complex(1, NAN)
    check(reductions_axis, z)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_zero_d_and_empty(dtype):
    check(reductions, np.array(1 - 2j, dtype)[()])
    # numpy raises ValueError; pyonnx at conversion time for a static empty shape, else at
    # run time (ArgMax of an empty axis fails, as for real arrays)
    with pytest.raises(pyonnx.ConversionError, match="zero-size array"):
        pyonnx.compile(empty_max, static_shapes=True)(np.zeros((0,), dtype))
    with pytest.raises(pyonnx.errors.ExecutionError,
                       match=r"zero-size array to reduction operation (maximum|minimum) which has no identity"):
        pyonnx.compile(empty_max)(np.zeros((0,), dtype))
    check(sorts, np.zeros((0,), dtype))
    check(sorts_axis, np.zeros((0, 3), dtype))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_elementwise(dtype):
    z = SPECIAL.astype(dtype)
    w = np.roll(SPECIAL, 3).astype(dtype)
    check(elementwise, z, w)
    check(elementwise, w, z)
    x = np.array([0.5, NAN, 3.0, -np.inf, 1.0, 2.0, 0.0, 3.0, 1.0, NAN, -1.0, 2.0, np.inf,
                  -0.0])
    check(with_real, z, x.astype(np.float32 if dtype == C64 else np.float64))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_sort_nans_last_in_numpy_classes(dtype):
    # no ±0 ties here: numpy's quicksort may put 0j and -0j either way (ours is stable)
    z = np.array([complex(NAN, 2), 3 + 1j, complex(1, NAN), complex(NAN, NAN), 1 + 5j,
                  complex(NAN, -1), complex(-2, NAN), -np.inf + 0j, 1 - 5j, complex(NAN, 2),
                  complex(np.inf, -np.inf), 3 + 1j]).astype(dtype)
    check(sorts, z)
    rng = np.random.default_rng(2)
    check(sorts_axis, rc(rng, (5, 4), dtype) + 0.25 * rng.normal(size=(5, 4)))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([-1.0, 0.5, 2.0, np.inf, -np.inf, NAN]),
                          st.sampled_from([-3.0, 1.0, 2.0, np.inf, NAN])),
                min_size=1, max_size=8))
def test_property_order_matches_numpy(pairs):
    # One compiled function per function for every example (the lengths are symbolic); the
    # checker and the reference evaluator see these models in the example-based tests.
    z = np.array([complex(a, b) for a, b in pairs])
    for fn, args in ((reductions, (z,)), (elementwise, (z, z[::-1].copy())), (sorts, (z,))):
        compiled = _COMPILED.setdefault(fn, pyonnx.compile(fn))
        with np.errstate(all="ignore"):
            want = fn(*[a.copy() for a in args])
        assert_same(compiled(*[a.copy() for a in args]), want)


_COMPILED: dict = {}

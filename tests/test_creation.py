"""Array creation against numpy with shapes and values known only at run time: zeros/ones/full
(and their _like forms), arange and linspace (bit for bit), eye/identity/tri/tril/triu, and
np.array/np.asarray of nested lists holding arrays; numpy's errors at the user's line."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ConversionError, ExecutionError
from tests.oracle import check, check_refused

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "float16", "float32", "float64"]


def exact(fn, *args, **kw):
    """check() demanding bit-for-bit equal floats."""
    return check(fn, *args, rtol=0, atol=0, **kw)


# ------------------------------------------------------------------- zeros / ones / full
def from_shape(x):
    return (np.zeros((x.shape[0], 3)), np.ones(x.shape, dtype=np.int8), np.zeros(x.shape[1]),
            np.full((2, x.shape[1]), 7), np.full(x.shape, 1.5, dtype=np.float32),
            np.ones([x.shape[1], 1, x.shape[0]], np.uint64), np.full(x.shape, True),
            np.zeros(np.array(x.shape), dtype=np.int16), np.zeros_like(np.empty(x.shape)),
            np.empty((x.shape[0],), dtype=np.int32) * 0)


def full_with_arrays(x):
    return (np.full((x.shape[0], 2), x[0, 0]), np.full(x.shape, x[0]),
            np.full((3, x.shape[1]), x[0], dtype=np.float16), np.full(x.shape[0], x.shape[1]),
            np.full((x.shape[0], 4), 300, dtype=np.int16), np.full(x.shape, 255, dtype=np.uint8))


@pytest.mark.parametrize("dtype", ["bool", "int32", "uint64", "float16", "float64"])
def test_zeros_ones_full_from_dynamic_shapes(dtype):
    f = g = None
    for shape in [(3, 4), (0, 2), (2, 0), (1, 1)]:
        x = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
        f = exact(f or from_shape, x)
        if x.size:
            g = exact(g or full_with_arrays, x)
    assert f.conversions == 1


def likes(x):
    return (np.zeros_like(x), np.ones_like(x), np.full_like(x, 3), np.full_like(x, 2.7),
            np.zeros_like(x, dtype=np.float32), np.ones_like(x, shape=(2,) + x.shape[:1]),
            np.full_like(x, x[..., :1] if x.ndim else x, dtype=np.int64),
            np.empty_like(x, dtype=np.int8) * 0, np.zeros_like(np.empty_like(x)),
            np.full_like(x, 1, shape=x.shape[-1:] if x.ndim else 4))


@pytest.mark.parametrize("dtype", ALL)
def test_like(dtype):
    f = None
    for shape in [(3, 4), (0, 5), (2, 1)]:
        f = exact(f or likes, (np.arange(np.prod(shape)).reshape(shape) % 3).astype(dtype))
    exact(likes, np.array(2, dtype))


def like_of_scalar(n):
    return np.zeros_like(n), np.ones_like(n, dtype=np.float32), np.full_like(n, 7)


def test_like_of_python_scalar():
    exact(like_of_scalar, 5)
    exact(like_of_scalar, 2.5)


# -------------------------------------------------------------------------------- arange
def aranges(n):
    return (np.arange(n), np.arange(1, n, 2), np.arange(n, 0, -3), np.arange(0.5, n, 0.25),
            np.arange(n, dtype=np.float32), np.arange(np.float32(0.1), n, 0.3),
            np.arange(n, dtype=np.float16), np.arange(-n, n, 0.7, dtype=np.float32),
            np.arange(n, 2 * n, dtype=np.int8), np.arange(0, n, 0.5, dtype=np.int64),
            np.arange(n, 0), np.arange(n, dtype=np.uint64))


def test_arange_python_int_bound():
    f = None
    for n in [7, 1, 0, 2, 3, 100, -2]:
        f = exact(f or aranges, n)
    assert f.conversions == 1


def aranges_float(a, b, s):
    return np.arange(a, b, s), np.arange(b), np.arange(a, b), np.arange(a, b, s, dtype=np.float32)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "float16"])
def test_arange_array_bounds(dtype):
    v = lambda x: np.array(x, dtype)  # noqa: E731
    f = exact(aranges_float, v(1), v(9), v(2))
    for a, b, s in [(0.1, 2.3, 0.2), (5, 1, 1), (3, 3, 1), (0.5, 7.25, 0.75)]:
        if dtype.startswith("float") or float(a).is_integer() and float(s).is_integer():
            exact(f, v(a), v(b), v(s))


def arange_of_shape(x):
    return np.arange(x.shape[0]), np.arange(x.shape[1] * 2, dtype=np.float64), \
        np.arange(x.size)


def test_arange_from_shape():
    f = exact(arange_of_shape, np.ones((3, 4)))
    exact(f, np.ones((0, 2)))


def arange_step(a, s):
    return np.arange(a, 10, s)


def test_arange_zero_step_fails_at_run_time():
    f = exact(arange_step, 0.5, 2.0)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        arange_step(0.5, 0.0)
    with pytest.raises(ExecutionError, match="arange"):
        f(0.5, 0.0)


# ------------------------------------------------------------------------------ linspace
def linspaces(n):
    return (np.linspace(0, 1, n), np.linspace(0, n, 7), np.linspace(-2.5, n, n, endpoint=False),
            np.linspace(2, n, 5, dtype=np.int64), np.linspace(0, 1, n, retstep=True)[1],
            np.linspace(np.float32(0), 1, n), np.linspace(0, 1.5e-323, n),
            np.linspace(n, 0, n, retstep=True)[0])


def test_linspace_dynamic_num():
    f = None
    for n in [5, 0, 1, 2, 50, 3]:
        f = exact(f or linspaces, n)


def linspace_arrays(a, b):
    return (np.linspace(a, b), np.linspace(a, b, 4, endpoint=False), np.linspace(a, b, 3, axis=1),
            np.linspace(a, b, 6, axis=-1, retstep=True)[0], np.linspace(a[0], b[0], 9),
            np.linspace(a, b, 5, dtype=np.int32), np.linspace(a[0], b, 3, retstep=True)[1])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64"])
def test_linspace_array_bounds(dtype):
    a = np.array([0.0, 1.0, -3.0]).astype(dtype)
    f = exact(linspace_arrays, a, np.array([1.0, 1.0, 10.0]).astype(dtype))
    exact(f, np.array([0.3, 2.0]).astype(dtype), np.array([7.1, -5.0]).astype(dtype))


def linspace_num(n):
    return np.linspace(0.0, 1.0, n)


def test_linspace_negative_num_fails_at_run_time():
    f = exact(linspace_num, 4)
    with pytest.raises(ValueError, match="must be non-negative"):
        linspace_num(-1)
    with pytest.raises(ExecutionError, match="linspace"):
        f(-1)


# ----------------------------------------------------------------- eye / identity / tri
def eyes(n, k):
    return (np.eye(n), np.eye(n, 3, k=1, dtype=int), np.identity(n, dtype=bool),
            np.tri(n, n + 1, -1), np.eye(n, k=k), np.tri(n, k=k, dtype=np.float32),
            np.eye(3, n, dtype=np.uint8), np.identity(n))


def test_eye_identity_tri():
    f = None
    for n, k in [(4, 0), (0, 1), (1, -1), (5, 2), (3, -5)]:
        f = exact(f or eyes, n, k)
    assert f.conversions == 1


def trilus(x, k):
    return np.tril(x), np.triu(x, 1), np.tril(x, k), np.triu(x, k=-k)


def trilus_1d(v, k):
    # numpy broadcasts a 1-D input against the (n, n) mask.
    return np.tril(v), np.triu(v, k)


@pytest.mark.parametrize("dtype", ALL)
def test_tril_triu(dtype):
    rng = np.random.default_rng(0)
    compiled = {}   # one model per rank
    for shape, k in [((3, 4), 0), ((4, 3), 1), ((2, 3, 3), -1), ((1, 5), 7), ((0, 2), 1)]:
        x = (rng.random(shape) * 100).astype(dtype)
        if dtype == "uint64":
            x = x + np.uint64(2**63)
        compiled[x.ndim] = exact(compiled.get(x.ndim, trilus), x, k)
    g = exact(trilus_1d, np.arange(5).astype(dtype), 1)
    exact(g, np.arange(0).astype(dtype), -1)


# ---------------------------------------------------------------------- array / asarray
def arrays(x, n):
    return (np.array([x[0], x[1]]), np.array([[x[0, 0], 2], [3, n]]),
            np.array([x[0, 0], 1.5]), np.array([x[0], x[1]], dtype=np.int8),
            np.asarray(x, dtype=np.float32), np.array(x, ndmin=4), np.array(x.shape),
            np.asarray([n, n + 1, 2]), np.array((x[0, 0],), dtype=np.float16),
            np.ascontiguousarray(x[0, 0]), np.array([[x[0], x[1]], [x[1], x[0]]]),
            np.asanyarray([x.shape[0], 3]), np.array(n), np.array([True, x[0, 0] > 2]))


@pytest.mark.parametrize("dtype", ["int64", "float32", "uint8", "float16"])
def test_array_from_nested_lists(dtype):
    x = np.arange(8).reshape(2, 4).astype(dtype)
    f = exact(arrays, x, 3)
    exact(f, np.arange(15).reshape(3, 5).astype(dtype), -1)


def array_dtype_direct(x):
    # Each element converts straight to int64 (no float64 detour that would round 2**60 + 1).
    return np.array([x[0], 1.5], dtype=np.int64)


def array_copies(x):
    return np.asarray(x, copy=None), np.array(x, copy=False), np.asarray(x, dtype=x.dtype), \
        np.array(x, dtype=np.float64)


def copy_false_needs_copy(x):
    return np.array(x, dtype=np.int8, copy=False)


def test_array_copy_keyword():
    exact(array_copies, np.arange(6.0).reshape(2, 3))
    x = np.ones((2, 3))
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        copy_false_needs_copy(x)
    with pytest.raises(ConversionError, match="copy=False") as info:
        pyonnx.compile(copy_false_needs_copy)(x)
    assert info.value.lineno == copy_false_needs_copy.__code__.co_firstlineno + 1


def test_array_dtype_converts_each_element():
    exact(array_dtype_direct, np.array([2**60 + 1, 3], dtype=np.int64))


# -------------------------------------------------------------------------------- errors
def negative_dim(x):
    return np.zeros((x.shape[0], -1))


def float_dim(x):
    return np.ones((x.shape[0], 2.5))


def float_array_dim(x):
    return np.zeros((x[0], 2))


def bad_fill(x):
    return np.full((x.shape[0], 3), [1, 2])


def tril_scalar(x):
    return np.tril(x[0, 0])


def inhomogeneous(x):
    return np.array([x[0], x])


def overflowing_fill(x):
    return np.full(x.shape, 300, dtype=np.int8)


def negative_num(x):
    return np.linspace(x[0, 0], 1, -2)


@pytest.mark.parametrize("fn, match, numpy_match", [
    (negative_dim, "negative dimensions", None),
    (float_dim, "cannot be interpreted as an integer", None),
    (float_array_dim, "integer scalar", None),
    (bad_fill, "could not broadcast", None),
    (tril_scalar, "at least 1 dimension", "missing 1 required positional|at least"),
    (inhomogeneous, "inhomogeneous", None),
    (overflowing_fill, "out of bounds", None),
    (negative_num, "non-negative", None),
])  # (np.arange(dtype=bool) up to length 2: tests/test_refusals_fixed.py)
def test_errors_at_the_users_line(fn, match, numpy_match):
    check_refused(fn, np.ones((2, 3)), match=match, numpy_match=numpy_match)

"""``np.argmax``/``np.argmin`` of bool arrays (ArgMax over float32 0/1 values) and the
first-index search loops the vectorizer lowers through them: numpy's and Python's first index,
every axis and keepdims, all-False and all-True, empty arrays raising as numpy."""

import numpy as np
import pytest

import pyonnx
from tests.oracle import check


def bool_args(m):
    return (np.argmax(m), np.argmin(m), np.argmax(m, axis=0), np.argmin(m, axis=-1),
            np.argmax(m, axis=1, keepdims=True))


@pytest.mark.parametrize("shape", [(1, 1), (3, 4), (17, 300)])
def test_masks(shape):
    rng = np.random.default_rng(sum(shape))
    for m in (rng.random(shape) < 0.1, np.zeros(shape, bool), np.ones(shape, bool)):
        check(bool_args, m)


def test_empty_raises():
    def f(m):
        return np.argmax(m)
    with pytest.raises(ValueError):
        f(np.zeros(0, bool))
    with pytest.raises((ValueError, pyonnx.errors.PyonnxError)):
        pyonnx.compile(f)(np.zeros(0, bool))


def first_above(x, t):
    hit = -1
    for i in range(len(x)):
        if x[i] > t:
            hit = i
            break
    return hit


def last_below(x, t):
    hit = -1
    for i in range(len(x) - 1, -1, -1):
        if x[i] < t:
            hit = i
            break
    return hit


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("fn", [first_above, last_below])
def test_search_loops(fn, dtype):
    c = pyonnx.compile(fn)
    rng = np.random.default_rng(0)
    for n in (0, 1, 2, 1000):
        x = (rng.random(n) * 100).astype(dtype)
        for t in (-1, 50, 1000):
            check(c, x, dtype(t))
    if np.dtype(dtype).kind == "f":
        x = (rng.random(100) * 100).astype(dtype)
        x[[0, 99]] = np.nan  # a NaN compares False: never a hit
        check(c, x, dtype(50))

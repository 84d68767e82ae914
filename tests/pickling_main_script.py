"""Run as ``__main__`` by tests/test_pickling.py: functions defined in the main script (pickled
by value) through multiprocessing spawn and fork pools and a ProcessPoolExecutor."""

import concurrent.futures
import multiprocessing
import pickle
import sys

import numpy as np

import pyonnx

SCALE = 3.0


def helper(x):
    return np.tanh(x) * SCALE


@pyonnx.compile
def kernel(x, y):
    return helper(x) + y.sum(axis=0)


def loss(w):
    return np.sum(helper(w) ** 2)


def main(method: str) -> None:
    chunks = [np.linspace(0, 1, 12).reshape(4, 3) + i for i in range(4)]
    ys = [np.ones((2, 3)) * i for i in range(4)]
    want = [helper(x) + y.sum(axis=0) for x, y in zip(chunks, ys)]
    g = pyonnx.grad(loss)
    if method == "executor":
        with concurrent.futures.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context(
                "spawn")) as ex:
            got = list(ex.map(kernel, chunks, ys))
            grads = list(ex.map(g, chunks))
    else:
        with multiprocessing.get_context(method).Pool(2) as pool:
            got = pool.starmap(kernel, zip(chunks, ys))
            grads = pool.map(g, chunks)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-12)
    for w, gw in zip(chunks, grads):
        np.testing.assert_allclose(gw, g(w), rtol=1e-12)
        np.testing.assert_allclose(gw, 2 * helper(w) * (1 - np.tanh(w) ** 2) * SCALE, rtol=1e-9)
    assert b"kernel" in pickle.dumps(kernel)  # by value: main's functions are not importable
    print("ok", method)


if __name__ == "__main__":
    main(sys.argv[1])

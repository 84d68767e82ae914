"""Module-level compiled functions for tests/test_pickling.py (pickled by reference)."""

import numpy as np

import pyonnx

OFFSET = 0.5


def _shift(x):
    return x - OFFSET


@pyonnx.compile
def standardize(x):
    return _shift(x - x.mean(axis=0)) / (x.std(axis=0) + 1.0)


def loss(w, x):
    return np.sum((x @ w - 1.0) ** 2)


grad_loss = pyonnx.grad(loss)
value_and_grad_loss = pyonnx.value_and_grad(loss)


def make_scaled(c):
    """A nested function (not importable: pickled by value) with a closure value."""

    def scaled(x, k=2):
        y = x * c
        y[0] = k
        return _shift(y).sum(), y

    return pyonnx.compile(scaled)


def bump(a):
    """Writes into its argument."""
    a += 1.0
    return a.sum()

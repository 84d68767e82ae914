"""Run-time asserts lowered without If nodes (control_flow/guards.py), for
test_checks_cheap.py."""

import numpy as np


def assert_then_math(x):
    assert np.all(x >= 0), "negative"
    return np.sqrt(x).sum()


def assert_per_iteration(x):
    s = 0.0
    for i in range(x.shape[0]):
        assert x[i] >= 0, "negative"
        s += x[i]
    return s


def assert_shapes_then_add(x, y):
    assert x.shape[0] == y.shape[0], "lengths differ"
    return x + y


def assert_index_then_read(x, k):
    assert k < x.shape[0], "k out of range"
    return x[k]


def assert_then_integer_division(a, b):
    assert b != 0, "division by zero"
    return a // b


def assert_after_early_return(x):
    if x.sum() > 10:
        return x * 0.0
    assert np.all(x > 0), "not positive"
    return np.log(x)


def assert_then_write(x):
    assert x.max() < 100, "too large"
    x[0] = -1.0
    return x.sum()


def raise_then_later_assert(x):
    if x.sum() < 0:
        raise ValueError("negative sum")
    y = x * 2.0
    assert y.max() < 10, "too large"
    return y.min()


def assert_in_while(x):
    i = 0
    t = 0.0
    while i < x.shape[0]:
        assert x[i] != 0, "zero"
        t += 1.0 / x[i]
        i += 1
    return t

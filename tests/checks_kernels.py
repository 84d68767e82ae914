"""Functions that raise on values only known at run time (issue 15): ``raise`` under a
condition on array values, ``assert`` on them, in branches, loops and helpers."""

import numpy as np


class BadInput(ValueError):
    """A user's exception class (module level: the compiled function re-creates it)."""


def raise_in_branch(x):
    if x.sum() > 10:
        raise ValueError(f"too big: {x.sum()} over {x.shape[0]} items")
    return x * 2


def assert_formats(x, k):
    assert x.min() >= 0, f"negative {x.min():.3f} ({x.min()!r}) k={k} n={len(x)}"
    assert k < 5, "k too large"
    return x + k


def assert_no_message(x):
    assert x.max() < 3
    return x.sum()


def assert_in_loop(x, n):
    s = 0.0
    for i in range(n):
        assert x[i] < 5, f"x[{i}] = {x[i]}"
        s += x[i]
    return s


def raise_in_while(x, limit):
    i = 0
    total = x[0] * 0
    while total < limit:
        if i >= x.shape[0]:
            raise IndexError(f"ran out after {i} items, total {total}")
        total = total + x[i]
        i += 1
    return total, i


def raise_in_nested_branch(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[i] = np.sqrt(x[i])
        else:
            if x[i] < -1:
                raise BadInput(f"item {i} is {x[i]:+.2f}")
            out[i] = 0
    return out


def _validate(v, i):
    if v < 0:
        raise ValueError(f"negative at {i}")
    return v * 2


def helper_raises_in_loop(x):
    acc = x[0] * 0
    for i in range(x.shape[0]):
        acc = acc + _validate(x[i], i)
    assert acc < 100, "sum too large"
    return acc


def static_assert_folds(x):
    assert x.ndim == 1, "1-D only"
    assert isinstance(x, np.ndarray)
    return x * 3


def raise_class_only(x):
    if np.any(np.isnan(x)):
        raise FloatingPointError
    return x.mean()


def assert_writes_argument(x):
    x[0] = 1.0
    assert x.sum() < 100, "too large"
    x[1] = 2.0


def two_sites_first_wins(x):
    y = x.copy()
    for i in range(x.shape[0]):
        if y[i] < 0:
            raise ValueError(f"first site at {i}")
        y[i] = y[i] - 2
    if y.min() < -1:
        raise RuntimeError("second site")
    return y


def assert_message_array(x):
    assert x.sum() > 0, f"bad {x}"
    return x


def _make_local_raiser():
    class Local(Exception):
        pass

    def local_exception(x):
        if x.sum() > 0:
            raise Local("no")
        return x
    return local_exception


local_exception = _make_local_raiser()


def assert_in_conditional_helper(x, flag):
    def check_positive(v):
        assert v.min() > 0, f"min is {v.min()}"
        return v
    return check_positive(x) if flag > 0 else -x


def int_scalars_in_message(x, i):
    if x[i] > 2:
        raise ValueError(f"x[{i}]={x[i]} dtype int, {np.int32(7)}")
    return x[i]


def index_at(x, i):
    return x[i] * 2


def index_in_loop(x, n):
    s = x[0, 0] * 0
    for i in range(n):
        s = s * 0.5 + x[i, 1]
        if s > 100:
            break
    return s


def _positive(v):
    if v < 0:
        raise ValueError(f"negative {v}")
    return v * 2


def check_in_comprehension(x):
    return np.array([_positive(v) for v in x])


def check_in_generator_sum(x):
    return sum(_positive(v) for v in x)


def assert_before_row_write(x, n):
    y = np.zeros(n)
    for i in range(n):
        assert x[i] > 0, f"bad {i}"
        y[i] = x[i] * 2
    return y


def assert_in_while_true(x):
    i = 0
    while True:
        assert i < 10, "too many"
        if x[i] > 2:
            return i
        i += 1


def asserts_in_both_branches(x):
    if x.sum() > 0:
        assert x[0] > 0, "first"
        y = x * 2
    else:
        assert x[1] > 0, "second"
        y = x * 3
    return y


def raise_in_nested_loops(x):
    total = 0.0
    for row in x:
        for v in row:
            if v > 5:
                raise ValueError(f"big {v:.1f}")
            total += v
    return total

"""Functions that use None as a "not found yet" sentinel (issue 15), for
test_python_sentinel.py: the line numbers of the refusals are asserted, keep them stable."""

import numpy as np


def running_max(x):
    best = None
    for v in x:
        if best is None or v > best:
            best = v
    return best


def argmax_loop(x):
    best = None
    idx = -1
    for i in range(x.shape[0]):
        if best is None or x[i] > best:
            best = x[i]
            idx = i
    return idx


def first_above(x, t):
    found = None
    for i in range(x.shape[0]):
        if found is None and x[i] > t:
            found = i
    if found is None:
        return -1
    return found


def best_or_default(x):
    best = None
    for v in x:
        if v > 0 and (best is None or v < best):
            best = v
    return 0.0 if best is None else best * 2.0


def closest_pair_gap(x):
    gap = None
    for i in range(1, x.shape[0]):
        d = abs(x[i] - x[i - 1])
        if gap is not None and d >= gap:
            continue
        gap = d
    if gap is not None:
        return gap
    return x.dtype.type(-1.0)


def while_sentinel(x):
    last = None
    i = 0
    while i < x.shape[0]:
        if x[i] < 0:
            last = x[i]
        i += 1
    return last is None, last if last is not None else x.dtype.type(0)


def sentinel_read_unguarded(x):
    best = None
    for v in x:
        if v > 0:
            best = v
    return best + 1.0


def sentinel_array_refused(x):
    acc = None
    for i in range(x.shape[0]):
        acc = x[i:] if acc is None else acc
    return acc


def last_or_default(x):
    last = None
    for v in x:
        last = v
    return last if last is not None else np.uint64(0)


def best_positive_and_index(x):
    best = None
    idx = -1
    for i in range(x.shape[0]):
        if x[i] > 0 and (best is None or x[i] > best):
            best = x[i]
            idx = i
    return best, idx


def first_above_or_none(x, t):
    best = None
    for v in x:
        if v > t:
            best = v
            break
    if best is None:
        return None
    return best

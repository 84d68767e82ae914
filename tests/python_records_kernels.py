"""Tuples appended to a list built at run time (issue 15), for test_python_records.py: the
line numbers of the refusals are asserted, keep them stable."""

import numpy as np


def scored(x):
    out = []
    for i in range(x.shape[0]):
        score = x[i] * 2.0
        out.append((i, score))
    return out


def filtered_then_read(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 1:
            out.append((i, x[i]))
    total = x.dtype.type(0)
    for i, s in out:
        total += s * i
    return len(out), total


def last_record(x):
    pairs = []
    for i in range(x.shape[0]):
        pairs.append((i, x[i], x[:i + 1].sum()))
    if pairs:
        return pairs[-1][2]
    return x.dtype.type(0)


def windows(x):
    found = []
    i = 0
    while i + 1 < x.shape[0]:
        if x[i] < x[i + 1]:
            found.append((x[i:i + 2], i))
        i += 1
    return found, len(found)


def records_in_branch(x):
    out = [(0, x[0])]
    if x.sum() > 3:
        out.append((1, x[1]))
    return out


def wrong_arity(x):
    out = []
    for i in range(x.shape[0]):
        out.append((i, x[i]))
        out.append((i, x[i], x[i]))
    return out


def as_array_refused(x):
    pairs = []
    for i in range(x.shape[0]):
        pairs.append((i, x[i]))
    return np.array(pairs)


def appended_non_tuple(x):
    pairs = []
    for i in range(x.shape[0]):
        pairs.append((i, x[i]))
        if x[i] > 2:
            pairs.append(x[i])
    return len(pairs)


def non_tuple_after_loop(x):
    pairs = []
    for i in range(x.shape[0]):
        pairs.append((i, x[i]))
    pairs.append(x[0])
    return pairs

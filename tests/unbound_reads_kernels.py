"""Kernels of tests/test_unbound_reads.py: reads of names no path has assigned yet."""

import numpy as np


def read_in_other_branch(x):
    if x.sum() > 0:
        last = x[0]
        for j in range(x.shape[0]):
            last = x[j]
        t = last * 2
    else:
        t = last * 3  # noqa: F821 - unbound on this path, as the user wrote it
    return t


def aug_read_in_branch(x, flag):
    if flag > 0:
        acc += x  # noqa: F821
    return x * 2


def guarded_by_conditional_expression(x):
    if x.sum() > 0:
        y = x
    t = x if x.sum() > -100 else y  # y only read when the test fails: left as it is
    return t


def top_level_read(x):
    y = z + x  # noqa: F821 - always unbound: refused at conversion
    z = x
    return y


def validate_then_use(x, limit):
    if x.max() <= limit:
        scaled = x / limit
    elif limit <= 0:
        raise ValueError(f"limit must be positive, got {limit}")
    else:
        raise ValueError("values above the limit")
    return scaled.sum()


def helper_validates(x):
    def checked(v):
        if v.min() >= 0:
            r = np.sqrt(v)
        else:
            raise ValueError("negative input")
        return r
    return checked(x) + 1

"""Kernels of tests/test_static_tuple_joins.py."""

import numpy as np


def flag_and_scale(x):
    if x.sum() > 0:
        r = (False, 1.5)
    else:
        r = (True, 2.5)
    return r


def int_or_float_item(x):
    if x.sum() > 0:
        r = (False, 1.5)
    else:
        r = (True, 2)
    return r


def item_in_arithmetic(x):
    if x.sum() > 0:
        r = (False, 1.5)
    else:
        r = (True, 2)
    return r[1] * x.astype(np.float32), r[0]


def list_in_loop(x):
    r = [0, 1.5]
    for v in x:
        if v > 0:
            r = [1, 2.5]
    return r


def different_strings(x):
    if x.sum() > 0:
        r = ("a", 1)
    else:
        r = ("b", 1)
    return r

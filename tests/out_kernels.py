"""numpy functions writing into out= (issue 15): ufuncs, reductions, where=, views, aliases."""

import numpy as np


def exp_out(a, b):
    np.exp(a, out=b)
    return b


def add_into_first(a, b):
    r = np.add(a, b, out=a)
    r[0] = -1.0  # r is a: numpy returns out itself
    return r


def out_tuple(a, b):
    np.multiply(a, 2, out=(b,))


def out_where(a, b):
    np.add(a, 1, out=b, where=a > 0)
    return b


def sum_out(x, r):
    np.sum(x, axis=0, out=r)
    return r


def sum_into_int8(x):
    r = np.zeros(x.shape[1], np.int8)
    np.sum(x, axis=0, out=r)
    return r


def out_view(u):
    inner = u[1:-1]
    np.sqrt(u[2:], out=inner)
    return u


def out_in_loop(x, n):
    buf = np.zeros_like(x)
    for i in range(n):
        np.add(buf, x * i, out=buf)
    return buf


def out_in_branch(x, y):
    if x.sum() > 0:
        np.negative(x, out=y)
    return y


def int_into_float(a, b):
    np.add(a, 1, out=b)
    return b


def max_keepdims_out(x):
    r = np.empty((1, x.shape[1]))
    np.max(x, axis=0, keepdims=True, out=r)
    return r


def float_into_int(a, b):
    np.add(a, 1.5, out=b)
    return b


def where_without_out(a):
    return np.add(a, 1, where=a > 0)


def sum_rank_mismatch(x, r):
    np.sum(x, axis=0, out=r)
    return r

"""Kernels of tests/test_loops_speed_*.py: recurrences that stay run-time loops (lowered as
``Scan`` where they run their full trip count), prefix extrema, searches."""

import numpy as np


# ----------------------------------------------------------------- recurrences (stay loops)
def ewma(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def linear_recurrence(x, a):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * a + x[i]
    return y


def second_order(x):
    y = x.copy()
    for i in range(2, len(x)):
        y[i] = y[i - 2] + y[i - 1] * 0.5 + x[i]
    return y


def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a, b


def shifted_reads(x, n):
    acc = x[0] * 0
    for i in range(n):
        acc = acc * 0.5 + x[i + 2] - x[i]
    return acc


def uses_index(x, n):
    acc = x[0] * 0
    for i in range(n):
        acc = acc * 0.75 + i
    return acc


def flag_toggle(x):
    f = False
    for i in range(len(x)):
        f = f != (x[i] > 0)
    return f


def growing(x, n):
    y = x[:0]
    for i in range(n):
        y = np.concatenate((y, x[i:i + 1] * 2))
    return y


def broadcast_state(m):
    acc = np.zeros(1)
    for i in range(m.shape[0]):
        acc = acc * 0.5 + m[i]
    return acc


def nested(m):
    total = 0.0
    for i in range(m.shape[0]):
        acc = 0.0
        for j in range(m.shape[1]):
            acc = acc * 0.5 + m[i, j]
        total = total * 0.25 + acc
    return total


def while_halving(x):
    v = x[0]
    k = 0
    while v > 1.0:
        v = v * 0.5
        k += 1
    return v, k


def rows_written(n):
    y = np.ones((n, 3))
    for i in range(1, n):
        y[i] = y[i - 1] * 0.5 + i
    return y


# ----------------------------------------------------------------- prefix extrema
def max_accumulate(x):
    return np.maximum.accumulate(x)


def min_accumulate(x):
    return np.minimum.accumulate(x)


def max_accumulate_axis1(x):
    return np.maximum.accumulate(x, axis=1)


def prefix_max(x):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = max(y[i - 1], x[i])
    return y


def prefix_np_min(x):
    y = x.copy()
    for i in range(1, len(x)):
        y[i] = np.minimum(y[i - 1], x[i])
    return y


def prefix_sum_from(x, y0):
    y = np.empty(len(x) + 1, dtype=x.dtype)
    y[0] = y0
    for i in range(len(x)):
        y[i + 1] = y[i] + x[i]
    return y


def suffix_sum(x):
    y = x.copy()
    for i in range(len(x) - 2, -1, -1):
        y[i] = y[i + 1] + x[i]
    return y


# ----------------------------------------------------------------- searches
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


# ----------------------------------------------------------------- true dependences
def write_through_view(x):
    y = np.zeros(len(x) + 1)
    v = y[1:]
    for i in range(len(x)):
        v[i] = y[i] + x[i]
    return y


def two_back(x):
    y = x.copy()
    for i in range(2, len(x)):
        y[i] = y[i - 2] + x[i]
    return y

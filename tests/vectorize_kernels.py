"""Loops for tests/test_vectorize.py: each form the vectorizer rewrites, and loops it must keep."""

import numpy as np


# ------------------------------------------------------------------------------- maps
def affine_map(x, n):
    y = np.zeros(n, x.dtype)
    for i in range(n):
        y[i] = x[i] * 2 + 1
    return y


def map_with_index(x):
    y = np.empty_like(x)
    for i in range(x.shape[0]):
        y[i] = x[i] + i
    return y


def stencil_1d(x):
    n = len(x)
    y = np.zeros_like(x)
    for i in range(1, n - 1):
        y[i] = x[i - 1] - 2 * x[i] + x[i + 1]
    return y


def reversed_map(x, n):
    y = np.zeros_like(x)
    for i in range(n - 1, -1, -1):
        y[i] = x[i] * 3
    return y


def strided_map(x, n):
    y = np.zeros_like(x)
    for i in range(1, n, 2):
        y[i] = x[i] - x[i - 1]
    return y


def row_map(a, w, b):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        out[i, :] = a[i] * w + b[i]
    return out


def masked_map(x):
    y = np.empty_like(x)
    for i in range(len(x)):
        if x[i] > 0:
            y[i] = x[i] * 2
        else:
            y[i] = -x[i]
    return y


def clamp_map(x, lo):
    y = np.zeros_like(x)
    for i in range(len(x)):
        t = max(x[i], lo)
        y[i] = abs(t) if t < 3 else 3
    return y


def element_map_2d(a, b, c):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * b[j] + c[i] + i - j
    return out


def stencil_2d(u):
    v = np.zeros_like(u)
    for i in range(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            v[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j]
    return v


def in_place_scale(x, n):
    for i in range(n):
        x[i] = x[i] * 2
    return x


# ------------------------------------------------------------------------- reductions
def sum_squares(x, n):
    acc = 0.0
    for i in range(n):
        acc += x[i] * x[i]
    return acc


def distance_sum(x, y):
    acc = 0.0
    for i in range(len(x)):
        d = x[i] - y[i]
        acc += d * d
    return acc


def int_sum(x):
    acc = 0
    for i in range(len(x)):
        acc += x[i]
    return acc


def product(x):
    p = 1.0
    for i in range(len(x)):
        p *= x[i]
    return p


def count_between(x, lo, hi):
    n = 0
    for i in range(len(x)):
        if lo <= x[i] < hi:
            n += 1
    return n


def any_negative(x):
    found = False
    for i in range(len(x)):
        if x[i] < 0:
            found = True
    return found


def all_positive(x):
    ok = True
    for i in range(len(x)):
        ok = ok & (x[i] > 0)
    return ok


def py_max(x, start):
    m = start
    for i in range(len(x)):
        m = max(m, x[i])
    return m


def np_min(x):
    m = np.inf
    for i in range(len(x)):
        m = np.minimum(m, x[i] * 2)
    return m


def masked_sum(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            s = s + x[i]
    return s


def arg_max(x):
    best = -np.inf
    k = -1
    for i in range(len(x)):
        if x[i] > best:
            best = x[i]
            k = i
    return best, k


def arg_min_reversed(x):
    best = x[0]
    k = 0
    for i in range(len(x) - 1, -1, -1):
        if x[i] < best:
            best = x[i]
            k = i
    return best, k


def nested_sum(a):
    acc = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            acc += a[i, j] * (i + j)
    return acc


def bounds_from_a_call(x):
    lst = []
    y = np.zeros_like(x)
    for i in range(grow(lst)):
        y[i] = y[i - 1] * 2 + x[i]  # not vectorized: the bounds must not run twice
    return y, len(lst)


def grow(lst):
    lst.append(1)
    return 2


def last_index(x, n):
    i = -5
    for i in range(n):
        x[i] = x[i] + 1
    return x, i


def flag_in_empty_inner(a, t):
    hit = False
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, 0] > t:  # varies with i only: an empty inner range must leave hit alone
                hit = True
    return hit


def read_other_written_ahead(x):
    a = np.zeros_like(x)
    b = np.zeros_like(x)
    for i in range(len(x) - 1):
        a[i] = x[i]
        b[i] = a[i + 1]  # a[i + 1] is still the old value here
    return a, b


# ---------------------------------------------------------------------------- prefix
def prefix_sum(x):
    y = np.zeros_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = y[i - 1] + x[i]
    return y


def prefix_product(x):
    y = np.ones_like(x)
    for i in range(1, len(x)):
        y[i] = x[i] * y[i - 1]
    return y


def suffix_sum(x):
    y = np.zeros_like(x)
    y[-1] = x[-1]
    for i in range(len(x) - 2, -1, -1):
        y[i] = y[i + 1] + x[i]
    return y


def running_max(x):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = max(y[i - 1], x[i])
    return y


def running_min_reversed(x):
    y = np.empty_like(x)
    y[-1] = x[-1]
    for i in range(len(x) - 2, -1, -1):
        y[i] = np.minimum(x[i], y[i + 1])
    return y


# ---------------------------------------------------------------------------- search
def first_above(x, t):
    hit = -1
    for i in range(len(x)):
        if x[i] > t:
            hit = i
            break
    return hit


def last_above(x, t):
    hit = -1
    found = False
    for i in range(len(x) - 1, -1, -1):
        v = x[i] * 2
        if v > t:
            hit = i * 10
            found = True
            break
    return hit, found


# ------------------------------------------------------- loops that must stay Loops
def affine_recurrence(x, a):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * a + x[i]
    return y


def write_through_view(x):
    v = x[1:]
    for i in range(len(x) - 1):
        v[i] = x[i] + 1
    return x


def read_after_write(x):
    y = x.copy()
    for i in range(1, len(x)):
        y[i] = y[i - 1] - y[i]
    return y


def running_scalar(x):
    acc = 0.0
    y = np.zeros_like(x)
    for i in range(len(x)):
        acc += x[i]
        y[i] = acc
    return y


def temp_live_after(x):
    t = 0.0
    y = np.zeros_like(x)
    for i in range(len(x)):
        t = x[i] * 2
        y[i] = t
    return y, t


def wraps_negative(x):
    y = np.zeros_like(x)
    for i in range(len(x)):
        y[i] = x[i - 1]
    return y


def reads_past_end(x, n):
    y = np.zeros(n)
    for i in range(n):
        y[i] = x[i + 1]
    return y


def reads_one_past_len(x):
    y = np.zeros_like(x)
    for i in range(len(x) - 1):
        y[i] = x[i + 2]  # one past the end on the last iteration
    return y


# ------------------------------------------------ ranges with run-time bounds (hypothesis)
def step_up(x, a, b):
    y = np.zeros_like(x)
    acc = 0
    for i in range(a, b, 3):
        y[i] = x[i] * 2 + i
        acc += x[i] * i
    return y, acc


def step_down(x, a, b):
    y = np.zeros_like(x)
    hit = -1
    for i in range(a, b, -2):
        y[i] = x[i] - i
        if x[i] > 2:
            hit = i
            break
    return y, hit


def view_sees_writes(x):
    y = np.zeros_like(x)
    tail = y[1:]  # a view: the writes must reach it
    for i in range(len(x)):
        y[i] = x[i] + 1
    return tail


def cast_on_write(x):
    y = np.zeros(len(x), np.int32)
    for i in range(len(x)):
        y[i] = x[i] * 1.5
    return y


def constant_write(x, n):
    y = x.copy()
    for i in range(2, n):
        y[i] = 7
    return y


# ----------------------------------------------------------- loops over array elements
def count_in_range(x, lo, hi):
    n = 0
    for v in x:
        if lo <= v < hi:
            n += 1
    return n


def enumerate_argmax(x):
    best = -np.inf
    k = -1
    for i, v in enumerate(x):
        if v > best:
            best = v
            k = i
    return best, k


def rows_norms(m):
    out = np.zeros(m.shape[0])
    for i, row in enumerate(m):
        out[i] = np.sqrt(row[0] * row[0] + row[1] * row[1])
    return out


def element_live_after(x):
    v = 0.0
    for v in x:
        pass
    return v

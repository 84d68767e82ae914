"""Functions from gradient bug reports (issue 19 items 1, 2 and 6) and hand-written adversarial
cases, differentiated by tests/test_grad_regressions.py (module level: pyonnx reads their
source). Most end with arithmetic after their loop or branch so that ``value_and_grad`` applies
too (a value returned straight out of control flow is issue 19 item 3, fixed elsewhere)."""

import numpy as np


# ---------------------------------------------------------------- item 1: composites in bodies
def cosh_in_loop(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sum(np.cosh(w))
    return s * 1.5


def hypot_over_rows(x, w):
    s = 0.0
    for r in x:
        s = s + np.sum(np.hypot(w, r))
    return s * 1.5


def hypot_in_branch(x, w):
    t = np.sum(w)
    a = np.abs(t)
    if np.sum(x) < 100:
        r = np.hypot(t, 0.5)
    else:
        r = t
    return r + a


def composites_in_loop(x, w, n):
    s = 0.0
    for i in range(n):
        s = s + np.sum(np.cbrt(w) + np.log2(w) + np.log10(w) + np.arctan2(w, x[0]))
    return s * 1.5


def composites_in_branch(x, w):
    if np.sum(x) > 0:
        r = np.sum(np.cosh(w) * np.cbrt(w) + np.log10(w))
    else:
        r = np.sum(np.log2(w) + np.hypot(w, 0.3))
    return r * 2.0


# ---------------------------------------------------------------- item 2: item-assigned zeros
def arctan2_item_assigned(x, w):
    y = w.copy()
    y[0] = 0.0
    return np.sum(np.arctan2(y, x))


def arctan2_item_assigned_in_loop(x, w, n):
    s = 0.0
    for i in range(n):
        y = w * (1.0 + i)
        y[i] = 0.0
        s = s + np.sum(np.arctan2(y, x) + np.hypot(x, y))
    return s * 1.5


def arctan2_zero_denominator(x, w):
    y = w.copy()
    y[1] = 0.0
    return np.sum(np.arctan2(x, y) * x)


# ---------------------------------------------------------------- item 6: loops in branches
def array_loop_in_branch(x, w, n):
    if np.sum(x) > 0:
        acc = w[0]
        for i in range(n):
            acc = acc * x[i]
        r = np.sum(acc)
    else:
        r = np.sum(w)
    return r * 1.5


def square_loop_in_branch(x, w, n):
    if np.sum(x) > 0:
        acc = w[0]
        for i in range(n):
            acc = acc * x[i] + acc * acc * 0.25
        r = np.sum(acc)
    else:
        r = np.sum(w)
    return r * 1.5


def growing_loop_in_branch(x, w, n):
    if np.sum(w) > 0:
        acc = w[0]
        for i in range(n):
            acc = np.concatenate([acc, acc[-1:] * x[i, :1]])
        r = np.sum(acc * acc)
    else:
        r = np.sum(x)
    return r * 1.5


def array_loop_in_branch_in_loop(x, w, n):
    s = 0.0
    for j in range(n):
        if np.sum(x[j]) > 0:
            acc = w[0]
            for i in range(n):
                acc = np.sin(acc * x[i]) + w[1]
            s = s + np.sum(acc)
        else:
            s = s - np.sum(w[j] * w[j])
    return s * 1.5


# ---------------------------------------------------------------- adversarial
def _first_large_row(x, w):
    for i in range(x.shape[0]):
        if np.sum(x[i] * w) > 1.0:
            return np.sum(np.cosh(x[i] * w)) * 2.0
    return np.sum(w * w) * 3.0


def early_return_in_loop(x, w):
    return _first_large_row(x, w) * 1.5


def item_assignment_in_loop(x, w):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        y[i] = np.tanh(x[i] * w) + y[i - 1] * 0.5
    return np.sum(y * y)


def while_data_dependent(x, w):
    s = np.sum(x * x)
    k = 0
    while s < 20.0 and k < 50:
        s = s * np.cosh(np.sum(w)) + np.sum(np.hypot(w, x))
        k = k + 1
    return s * 1.5


def while_in_branch_in_for(x, w, n):
    s = 0.0
    for j in range(n):
        if np.sum(x[j]) > 0:
            t = np.sum(w * w)
            k = 0
            while t < 4.0 and k < 20:
                t = t * 1.5 + np.sum(np.hypot(w, x[j]))
                k = k + 1
            s = s + t
        else:
            s = s + np.sum(np.cbrt(w + 2.0))
    return s * 1.5


def break_with_composites(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sum(np.arctan2(x[i], w) * np.cosh(w))
        if s > 2.0:
            break
    return s * 1.5


def continue_in_loop(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        if np.sum(x[i]) < 0:
            continue
        s = s + np.sum(np.log10(w * w + 1.0) * x[i])
    return s * 1.5


def triangular_nested(x, w, n):
    s = 0.0
    for i in range(n):
        for j in range(i):
            s = s + np.sum(np.hypot(x[i], w) * x[j])
    return s * 1.5


def setitem_composite_in_branch_in_loop(x, w):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        if np.sum(x[i]) > 0:
            y[i] = np.arctan2(x[i], w)
        else:
            y[i] = np.cosh(x[i]) * w
    return np.sum(y * y)


def scalar_argument_in_loop(x, a, n):
    s = 0.0
    for i in range(n):
        s = s + np.sum(np.log2(x * a + 2.0)) * a
    return s * 1.5


def two_states_swapped(x, w, n):
    a = x * 1.0
    b = w * 1.0
    for i in range(n):
        a, b = np.tanh(b) + a * 0.5, np.hypot(a, 0.3)
    return np.sum(a * b)


def vector_out_of_loop(x, w, n):
    y = x * 1.0
    for i in range(n):
        y = np.hypot(y, w) * 0.5 + np.cosh(y) * 0.1
    return y * 2.0


def scalar_composite_loop(a, n):
    s = a * 1.0
    for i in range(n):
        s = np.cbrt(s * s + 1.0) + np.log10(s * s + 2.0)
    return s * 1.5

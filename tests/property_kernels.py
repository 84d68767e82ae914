"""Functions for the property tests (tests/test_properties.py): pyonnx reads their source."""

import numpy as np


def range_trace(a, b, s):
    """Every value range(a, b, s) yields, in order, folded into one int64 (a polynomial hash:
    a lost, repeated or reordered iteration changes it), and the trip count."""
    h = np.int64(7)
    count = 0
    for i in range(a, b, s):
        h = h * 1000003 + (i + 11)
        count = count + 1
    return h, count


def range_trace_stop(b):
    """range with one argument (start 0, step 1)."""
    h = np.int64(7)
    for i in range(b):
        h = h * 1000003 + (i + 11)
    return h


def loop_state_array(x, n):
    """An array of x's dtype carried through n trips (numpy's dtype and rounding each trip)."""
    acc = x.copy()
    for i in range(n):
        acc = acc * x[i % x.shape[0]] + x
    return acc


def loop_state_scalar(x, n):
    """A numpy scalar of x's dtype carried through n trips of a while loop."""
    acc = x[0]
    i = 0
    while i < n:
        acc = acc + x[i % x.shape[0]]
        i = i + 1
    return acc, i


def loop_state_bool(x, n):
    """bool state: numpy's + and * on bools are or and and."""
    acc = x.copy()
    for i in range(n):
        acc = acc * x[i % x.shape[0]] + ~x
    return acc


def jumps(x, t, brk, cont, ret):
    """A loop over x with a break, a continue and an early return each placed (by the static
    brk / cont / ret) before, between or after the two updates, or nowhere (-1)."""
    acc = 0.0
    count = 0
    for i in range(x.shape[0]):
        if brk == 0 and x[i] > t:
            break
        if cont == 0 and x[i] < -t:
            continue
        if ret == 0 and x[i] == t:
            return acc, -1
        acc = acc + x[i]
        if brk == 1 and x[i] > t:
            break
        if cont == 1 and x[i] < -t:
            continue
        if ret == 1 and x[i] == t:
            return acc, -2
        count = count + 1
        if brk == 2 and x[i] > t:
            break
        if ret == 2 and x[i] == t:
            return acc, -3
    return acc, count


def jumps_while(x, t, brk, cont):
    """The same placements in a while loop (the counter update must survive a continue)."""
    acc = 0.0
    i = 0
    while i < x.shape[0]:
        v = x[i]
        i = i + 1
        if brk == 0 and v > t:
            break
        if cont == 0 and v < -t:
            continue
        acc = acc * 0.5 + v
        if brk == 1 and v > t:
            break
        if cont == 1 and v < -t:
            continue
        acc = acc + 1.0
    return acc, i


def write_index(x, idx, v):
    x[idx] = v
    return x


def add_at_index(x, idx, v):
    x[idx] += v
    return x


def write_argument_in_loop(x, n, v):
    """Writes into the caller's array (and a view of it) in a loop of n trips."""
    y = x[1:]
    for i in range(n):
        x[i % x.shape[0]] += v
        y[0] = y[0] * 0.5
    return y


def augment_argument_in_loop(x, n, v):
    """An in-place operator on the caller's array in a loop: numpy changes the caller's array."""
    for i in range(n):
        x += v
        x *= 0.5
    return x.sum()

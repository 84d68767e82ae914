"""Functions differentiated through run-time control flow by tests/test_grad_control_flow.py.

Module level because pyonnx reads their source. Each one's gradient is checked against
central finite differences in float64 (inputs chosen away from branch switches).
"""

import numpy as np


# ---------------------------------------------------------------- if / elif / ifexp / and-or
def branch(x):
    s = np.sum(x)
    if s > 0:
        y = np.sin(x) * s
    else:
        y = x ** 3 - s
    return np.sum(y * y)


def elif_chain(x, w):
    s = np.sum(x * w)
    if s > 1.0:
        r = np.tanh(x) * w
    elif s > -1.0:
        r = x * s
    else:
        r = np.exp(w) * 2.0
    return np.sum(r * r)


def one_sided_if(x, w):
    y = x * w
    if np.max(x) > 0.5:
        y = np.exp(y) * w
    return np.sum(y)


def conditional_expression(x):
    m = np.max(x)
    y = np.exp(x - m) if m > 0.0 else x * x * m
    return np.sum(y)


def and_or(x, y):
    if np.sum(x) > 0 and np.sum(y) < 0 or np.max(x) > 2.0:
        z = np.sin(x * y)
    else:
        z = x + y * y
    return np.sum(z * z)


# ---------------------------------------------------------------- for with run-time bounds
def power_loop(x, n):
    acc = x
    for i in range(n):
        acc = np.sin(acc) * x + i
    return np.sum(acc)


def range_start_stop(x, a, b):
    s = 0.0
    for i in range(a, b):
        s = s + np.sum(x ** 2) * i + np.prod(x)
    return s


def scalar_state(x, n):
    s = x[0]
    for _ in range(n):
        s = s * x[1] + np.sin(s)
    return s


# ---------------------------------------------------------------- while
def grow_until(x):
    while np.sum(x * x) < 10.0:
        x = x * 1.5 + 0.1
    return np.sum(np.sin(x))


def newton_sqrt(a):
    x = a
    while np.max(np.abs(x * x - a)) > 1e-10:
        x = 0.5 * (x + a / x)
    return np.sum(x * a)


# ---------------------------------------------------------------- nested loops
def nested(x, n):
    acc = x
    for i in range(n):
        for j in range(i + 1):
            acc = np.tanh(acc * x + j)
    return np.sum(acc)


def nested_while_in_for(x, w):
    total = 0.0
    for row in x:
        v = row
        while np.sum(v * v) < 4.0:
            v = v * 1.25 + w
        total = total + np.sum(v * w)
    return total


# ---------------------------------------------------------------- break / continue / return
def cumulative_until(x, limit):
    acc = 0.0
    for row in x:
        acc = acc + np.sum(row ** 2)
        if acc > limit:
            break
    return acc * 2.0


def first_big(x, w):
    for i in range(x.shape[0]):
        v = np.sum(x[i] * w)
        if v > 0.5:
            return v * v
    return np.sum(w * w)


def skip_negative(x, w):
    total = 0.0
    for row in x:
        s = np.sum(row * w)
        if s < 0:
            continue
        total = total + s ** 2
    return total


# ---------------------------------------------------------------- array state, rows, captures
def rnn(x, h0, W, u):
    h = h0
    for t in range(x.shape[0]):
        h = np.tanh(W @ h + u * x[t])
    return np.sum(h * h)


def rows_weighted(x, w):
    s = 0.0
    for row in x:
        s = s + np.sum(np.tanh(row * w))
    return s


def enumerate_zip(x, y, w):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        s = s + i * np.sum(a * b * w)
    return s


# ---------------------------------------------------------------- mixed nesting
def if_in_loop(x, n):
    acc = x
    for i in range(n):
        if np.sum(acc) > 0:
            acc = acc * np.cos(acc)
        else:
            acc = acc * 2.0 + x
    return np.sum(acc ** 2)


def loop_in_if(x, n):
    y = x * 1.0
    if np.sum(x) > 0:
        for _ in range(n):
            y = np.sin(y) * x
    else:
        y = y * y
    return np.sum(y)


# ---------------------------------------------------------------- item assignment
def write_rows(x, w):
    y = np.zeros((x.shape[0], w.shape[0]))
    for i in range(x.shape[0]):
        y[i] = np.tanh(x[i] * w)
    return np.sum(y * y)


def write_recurrence(x, w):
    y = np.zeros(x.shape[0])
    y[0] = x[0]
    for i in range(1, x.shape[0]):
        y[i] = y[i - 1] * w + x[i]
    return np.sum(y ** 2)


def write_elements(x, w):
    y = x * w
    y[0] = np.sum(w ** 2)
    y[y > 1.0] = 0.5 * y[y > 1.0]
    return np.sum(y ** 3)


# ---------------------------------------------------------------- errors
def loop_with_list(x, n):
    out = []
    for i in range(n):
        out.append(x * i)
    return np.sum(np.stack(out))


def loop_with_unused_list(x, n):
    seen = []
    acc = x
    for i in range(n):
        seen.append(i)
        acc = np.sin(acc) * x
    return np.sum(acc) + len(seen)


def loop_reading_its_list(x, n):
    out = [x]
    for i in range(n):
        out.append(out[-1] * x)
    return np.sum(out[-1])


def rnn_no_input_bias(x, h0, W):
    h = h0
    for t in range(x.shape[0]):
        h = np.tanh(W @ h) * x[t]
    return np.sum(h * h)


def growing_state(x, n):
    y = x * 1.0
    for _ in range(n):
        y = np.concatenate([y, np.sin(y[-1:]) * x[:1]])
    return np.sum(y ** 2)


def write_scalars(x, w):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = np.sin(x[i]) * w
    return np.sum(y * y)

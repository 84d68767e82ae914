"""Functions with run-time control flow, for tests/test_control_flow.py (pyonnx reads their
source, so they live in a file)."""

import numpy as np


# ------------------------------------------------------------------ if / expressions
def if_elif_else(x):
    s = x.sum()
    if s > 10:
        y = x * 2
        note = 1
    elif s > 0:
        y = x - 1
        note = 2
    else:
        y = -x
        note = 3
    return y, note


def if_assigns_different_names(x):
    a = x + 1
    b = x * 0
    if x[0] > 0:
        a = a * 3
    else:
        b = b + 7
    return a + b


def if_without_else_changes_shape(x):
    y = x
    if x.sum() > 0:
        y = np.concatenate([x, x])
    return y


def nested_ifs(x, t):
    if x.max() > t:
        if x.min() < -t:
            r = x * 0
        else:
            r = x - t
    else:
        r = x + t
    return r


def conditional_expression(x):
    return x * 2 if x.mean() > 0 else x / 2


def conditional_expression_python_number(x):
    scale = 2 if x.mean() > 0 else 0.5
    return x * scale


def and_guards_index(x, i):
    # Python's short circuit: x[i] is never read when i is out of range.
    if i < x.shape[0] and x[i] > 0:
        return x[i]
    return x[0] * 0


def or_value(x, y):
    return (x.sum() > 0) or (y.sum() > 0)


def not_and_or(x):
    a = x.sum() > 0
    b = x.max() < 5
    return (not a) or (b and a)


def chained_comparison(x):
    return 0 < x.sum() < 10


def chained_comparison_three(x, lo, hi):
    return lo <= x.mean() <= hi <= 100


def size_one_condition(x):
    if x[:1] > 0:
        return x + 1
    return x - 1


def array_as_condition(x):
    if x:
        return x + 1
    return x - 1


def condition_on_python_scalar_argument(x, n):
    # n is a Python int argument: its value is needed, so it becomes static (folded).
    if n > 2:
        return x * n
    return x


def early_return_both_ways(x):
    if x.sum() > 0:
        return x * 2
    y = x + 1
    return y * 3


def tuple_returned_from_branches(x):
    if x.sum() > 0:
        return x.max(), x.argmax()
    return x.min(), x.argmin()


# ---------------------------------------------------------------------- for loops
def sum_range(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + x[i]
    return acc


def range_start_stop_step(x, a, b, s):
    acc = x[0] * 0
    count = 0
    for i in range(a, b, s):
        acc = acc + x[i]
        count = count + 1
    return acc, count


def range_negative_static_step(x, n):
    out = x * 0
    for i in range(n - 1, -1, -2):
        out = out + x[i] * i
    return out


def loop_over_rows(m):
    total = m[0] * 0
    for row in m:
        total = total + row * row
    return total


def enumerate_rows(m):
    acc = 0.0
    for i, row in enumerate(m):
        acc = acc + i * row.sum()
    return acc


def enumerate_start(m):
    acc = 0
    for i, row in enumerate(m, 5):
        acc = acc + i
    return acc


def zip_rows(a, b):
    acc = a[0] * 0
    for u, v in zip(a, b):
        acc = acc + u * v
    return acc


def reversed_range(x, n):
    out = x[:0]
    for i in reversed(range(n)):
        out = np.concatenate([out, x[i:i + 1]])
    return out


def ndindex_loop(m):
    acc = 0.0
    for i, j in np.ndindex(m.shape):
        acc = acc + m[i, j] * (i - j)
    return acc


def static_range_of(x, n):
    acc = x * 0
    for i in range(n):
        acc = acc * 0.5 + x * (i + 1)
    return acc


def sum_rows_of_static_array(m):
    acc = m[0] * 0
    for row in m:
        acc = acc * 0.5 + row
    return acc


def long_static_range(x):
    acc = x * 0
    for i in range(200):
        acc = acc * 0.5 + x
    return acc


def nested_loops(n, m):
    acc = 0
    for i in range(n):
        for j in range(m):
            acc = acc + i * j
    return acc


def concatenate_grows(x, n):
    out = x[:1]
    for i in range(n):
        out = np.concatenate([out, out])
    return out


def dtype_promoted_on_entry(x):
    s = np.int32(0)
    for v in x:
        s = s + v
    return s


def python_number_accumulates(x):
    count = 0
    total = 0.0
    for v in x:
        if v > 0:
            count += 1
            total += 1.5
    return count, total


def loop_var_after_loop(x, n):
    i = -1
    for i in range(n):
        x = x + i
    return x, i


# ----------------------------------------------------------------------- while
def halve_until_small(x):
    n = 0
    while x.sum() > 1:
        x = x / 2
        n = n + 1
    return x, n


def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def while_true_break(x, tol):
    steps = 0
    while True:
        x = x * 0.5
        steps = steps + 1
        if np.abs(x).max() < tol:
            break
    return x, steps


def while_static_then_dynamic(x):
    i = 0
    while i < 3 or x.sum() > 1:
        x = x * 0.9
        i = i + 1
    return x, i


def while_else(x, limit):
    i = 0
    found = -1
    while i < limit:
        if x[i] < 0:
            found = i
            break
        i = i + 1
    else:
        found = -2
    return found


# -------------------------------------------------------------- break / continue
def first_index_where(x, t):
    idx = -1
    for i in range(x.shape[0]):
        if x[i] > t:
            idx = i
            break
    return idx


def for_else_search(x, t):
    idx = 0
    for i in range(x.shape[0]):
        if x[i] > t:
            idx = i
            break
    else:
        idx = -1
    return idx


def skip_negatives(x):
    total = x[0] * 0
    for v in x:
        if v < 0:
            continue
        total = total + v
    return total


def break_and_continue(x):
    acc = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        if acc > 10:
            break
        acc = acc + x[i]
    return acc


def nested_break_inner(m):
    count = 0
    for row in m:
        for v in row:
            if v < 0:
                break
            count = count + 1
    return count


def return_inside_loop(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return x[i] * 10
    return x[0] * 0 - 1


def return_in_loop_in_if(x, flag_values):
    if flag_values.sum() > 0:
        for i in range(x.shape[0]):
            if x[i] < 0:
                return i
    return -1


def static_loop_dynamic_break(x):
    acc = x[0] * 0
    for i in range(4):
        if x[i] > 2:
            break
        acc = acc + x[i]
    return acc


def newton_sqrt(a, tol):
    x = a.copy()
    it = 0
    while np.abs(x * x - a).max() > tol and it < 100:
        x = 0.5 * (x + a / x)
        it += 1
    return x, it


# ----------------------------------------------------------------------- lists
def collect_rows_stack(m):
    out = []
    for row in m:
        out.append(row * 2)
    return np.stack(out)


def collect_scalars_array(x, t):
    picked = []
    for v in x:
        if v > t:
            picked.append(v)
    return np.array(picked), len(picked)


def collect_concatenate_and_last(x, n):
    parts = [x[:1]]
    for i in range(n):
        parts.append(x[: i + 1] * i)
    return np.concatenate(parts), parts[-1], len(parts)


def static_list_append(x):
    out = []
    for i in range(3):
        out.append(x * i)
    return np.stack(out), len(out)


def list_appended_in_branch(x):
    vals = [x.min()]
    if x.sum() > 0:
        vals.append(x.max())
    total = 0.0
    for v in vals:
        total = total + v
    return total, len(vals)


def list_aliased_in_loop(x):
    out = []
    alias = out
    for v in x:
        out.append(v)
    return np.array(alias)


def tuple_state(x, n):
    pair = (x[0] * 0, x[0] * 0 + 1)
    for i in range(n):
        pair = (pair[1], pair[0] + pair[1])
    return pair


def fibonacci_unpacking(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def helper_with_early_return(v, t):
    if v > t:
        return v - t
    return t - v


def calls_helper_in_loop(x, t):
    total = 0.0
    for v in x:
        total = total + helper_with_early_return(v, t)
    return total


def counter_unchanged_static(x):
    k = 2
    acc = x[0] * 0
    for v in x:
        acc = acc + v * k
    return acc, k


def join_number_and_scalar(x, c, y):
    if c > 0:
        acc = x[0]
    else:
        acc = 3
    return acc * y

"""Functions using everyday Python on arrays and lists (issue 15): tuple-target swaps, row
unpacking, ``del``, static type checks, standard-library helpers, writes through helpers,
reductions of lists built at run time."""

import numpy as np


# ------------------------------------------------------------------ everyday Python
def swap_rows_tuple(A):
    A = A.copy()
    A[0], A[1] = A[1], A[0]  # rows are views: numpy copies row 1 into both
    return A


def swap_elements_tuple(a):
    a = a * 1
    a[0], a[2] = a[2], a[0]  # elements are copies: a real swap
    return a


def swap_names(a, b):
    a, b = b, a
    return a - b


def loop_over_edges(x, edges):
    s = 0.0
    for a, b in edges:
        s = s + x[a] * x[b]
    return s


def unpack_row(p, i):
    xi, yi = p[i]
    return xi * yi


def enumerate_zip_unpack(x, y):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        s = s + i * a * b
    return s


def del_name(x):
    y = x * 2
    z = y + 1
    del y
    return z


def del_then_read(x):
    y = x * 2
    del y
    return y


def type_checks(x, k):
    out = x
    if isinstance(k, int) and type(x) is np.ndarray:
        out = x * k
    s = x.sum()
    if type(s) is np.float64 and not isinstance(s, np.ndarray):
        out = out + s
    return out


def stdlib_helpers(x):
    import functools
    import itertools
    import operator
    pairs = [x[i] * x[j] for i, j in itertools.combinations(range(3), 2)]
    grid = sum(x[i] - x[j] for i, j in itertools.product(range(2), repeat=2))
    total = functools.reduce(operator.add, pairs)
    prod = functools.reduce(lambda a, b: a * b, [x[0], x[1], x[2]], 1.0)
    sq = list(map(lambda v: v * v, [x[0], x[1]]))
    keep = list(filter(lambda i: i % 2 == 0, range(4)))
    acc = list(itertools.accumulate([x[0], x[1], x[2]]))
    lo, hi = min(3, 1, 2), max(abs(-2), round(2.6))
    q, r = divmod(17, 5)
    return (total, prod, sq[1], x[keep[1]], acc[2], grid, operator.mul(x, 2.0),
            lo + hi + q + r + sum(sorted([3, 1])))


def map_over_run_time(x, n):
    return list(map(lambda i: x[i], range(n)))


# ------------------------------------------------------------------ writes through helpers
def _bump(out, k):
    for j in range(k):
        out[j % 3] += 1.0


def helper_writes_caller_local_in_loop(x, n):
    out = np.zeros_like(x)  # the same name as the helper's parameter
    _bump(out, n)
    _bump(out, 2)
    return out


def closure_writes_in_loop(x, n):
    out = np.zeros_like(x)

    def bump(k):
        for j in range(k):
            out[j % 3] += 1.0
    bump(n)
    bump(2)
    return out


def lambda_rebound_in_loop(x, n):
    acc = x * 0
    for i in range(n):
        f = lambda v: v * i  # noqa: E731
        acc = acc + f(x)
    return acc


def comprehension_in_lambda(x, n):
    g = lambda m: sum(x[i] for i in range(m))  # noqa: E731
    return g(n) + g(2)


def max_min_over_run_time(x, n):
    return max(x[i] for i in range(n)), min([x[i] * 2 for i in range(n)])


def tuple_of_run_time(x, n):
    return tuple(x[i] for i in range(n))


def row_sum_with_start(A, n):
    return sum((A[i] for i in range(n)), np.zeros(A.shape[1]))


def _bump_at(out, i):
    out[i] += 1.0
    return i


def comprehension_with_writes(x):
    out = np.zeros(3)
    # item 0's filter is static, item 1's is not: the items are not written twice
    got = [_bump_at(out, i) for i in range(3) if i == 0 or x[i] > 0]
    static = [_bump_at(out, i) for i in range(3)]
    return out, len(got) + len(static)


def _twice(items):
    return sum(items) + sum(items)


def generator_to_helper(x):
    return _twice(v * 2 for v in (x[0], x[1]))


def generator_bound_to_name(x):
    g = (v * 2 for v in (x[0], x[1]))
    return sum(g)


def generator_call_arguments(x, n):
    return (np.array(list(x[i] for i in range(3))), tuple(v + 1 for v in (x[0], x[1])),
            sorted(v for v in (3, 1, 2)), np.stack(list(x * i for i in range(n))))

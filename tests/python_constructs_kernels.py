"""Functions using everyday Python constructs (issue 15): lambdas, nested functions, closures,
comprehensions, imports in the body, no-op contexts, ``*args``/``**kwargs``."""

import numpy as np


# ------------------------------------------------------------------ lambdas and nested defs
def lambda_named(x, y):
    sq = lambda v: v * v  # noqa: E731
    add = lambda a, b=2.0: a + b  # noqa: E731
    return sq(x) + add(y) + add(x, b=y)


def lambda_inline_sorted(x):
    keys = sorted([3, 1, 2], key=lambda i: -i)
    return x[keys[0]] + x[keys[2]]


def closure_in_runtime_loop(x, n):
    w = 3.0

    def scale(v, k=2):
        return v * w * k
    acc = x * 0
    for i in range(n):
        acc = acc + scale(x)
        w = w + 1.0
    return acc, scale(x, 1)


def nested_closure(x):
    def inner(v):
        def deeper(u):
            return u + x
        return deeper(v) * 2
    return inner(x[0])


def closure_writes_enclosing_array(x):
    out = np.zeros_like(x)

    def put(i, v):
        out[i] = v
    put(0, x[1])
    put(1, x[0])
    return out


def def_in_branch(x):
    if x.ndim == 1:
        def f(v):
            return v + 1
    else:
        def f(v):
            return v - 1
    return f(x)


def def_called_in_runtime_branch(x):
    g = lambda v: v * 2  # noqa: E731
    if x.sum() > 0:
        y = g(x)
    else:
        y = g(-x)
    return y


def def_in_static_loop(x):
    fs = []
    for k in range(3):
        fs.append(lambda v, k=k: v + k)
    return fs[0](x) + fs[1](x) * fs[2](x)


def helper_with_varargs(x, y):
    def total(*vs, scale=1.0, **named):
        s = vs[0]
        for v in vs[1:]:
            s = s + v
        return s * scale + named["bias"]
    return total(x, y, x, scale=2.0, bias=1.0)


def lambda_default_reads_enclosing(x):
    c = x.mean()
    f = lambda v, m=c: v - m  # noqa: E731
    c = c * 0
    return f(x) + c


def stale_closure(x):
    w = 1.0
    g = lambda v: v * w  # noqa: E731
    h = [g][0]
    w = 2.0
    return h(x)


def nested_recursion(x):
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    return x * fact(3)


def def_in_runtime_branch(x):
    if x.sum() > 0:
        f = lambda v: v + 1  # noqa: E731
    else:
        f = lambda v: v - 1  # noqa: E731
    return f(x)


# ------------------------------------------------------------------ imports and contexts
def imports_in_body(x):
    import numpy as npx
    from math import sqrt, pi as PI
    import numpy.linalg
    return npx.sqrt(x * x) * sqrt(4.0) + PI + numpy.linalg.norm(x)


def import_in_helper_and_loop(x, n):
    def h(v):
        from numpy import exp
        return exp(v)
    acc = x * 0
    for i in range(n):
        import math
        acc = acc + h(x) * math.e
    return acc


def errstate_block(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x)
        z = x / (x - x)
    return y, z


def warnings_block(x, n):
    import warnings
    acc = x * 0
    for i in range(n):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            acc = acc + np.sqrt(x)
    return acc


def import_other_module(x):
    import os
    return x


def with_open(x):
    with open("f"):
        pass
    return x


def with_as_record(x):
    import warnings
    with warnings.catch_warnings(record=True) as w:
        y = x + 1
    return y


# ------------------------------------------------------------------ comprehensions
def comp_static(x, arrays, weights):
    rows = [x[i] for i in range(3)]
    scaled = [a * w for a, w in zip(arrays, weights)]
    return np.stack(rows), sum(scaled), tuple(v * 2 for v in rows)


def comp_runtime(x, n):
    sq = [x[i] ** 2 for i in range(n)]
    pos = [x[i] for i in range(n) if x[i] > 0]
    return len(sq), len(pos)


def comp_runtime_array(x, n):
    return np.array([x[i] ** 2 for i in range(n)]), np.stack([x * i for i in range(n)])


def comp_runtime_stack(x):
    return np.stack([r * 2 for r in x if r.sum() > 0])


def gen_reductions(x, n):
    s = sum(x[i] * x[i] for i in range(n))
    s2 = sum((x[i] for i in range(n) if x[i] > 0), 1.0)
    a = any(x[i] > 2 for i in range(n))
    b = all(x[i] > -3 for i in range(n))
    return s, s2, a, b


def gen_static_reductions(x):
    s = sum(x[i] for i in range(3))
    m = max(x[i] for i in range(3))
    lo = min(abs(x[i]) for i in range(3))
    a = any(x[i] > 2 for i in range(3))
    return s, m, lo, a, len([i for i in range(5) if i % 2])


def comp_does_not_leak(x):
    i = 10
    ys = [x[i] for i in range(2)]
    zs = [x[j] * 2 for j in range(x.shape[0])]
    return ys[1] + i, len(zs)


def dict_comp(x, y):
    d = {name: v * 2 for name, v in zip(("a", "b"), (x, y))}
    return d["a"] + d["b"]


def comp_in_loop_and_branch(x, n):
    acc = 0.0
    for k in range(n):
        if x[k % x.shape[0]] > 0:
            acc = acc + sum(x[j] for j in range(k))
    return acc


def nested_comp(x):
    return np.array([[x[i] * x[j] for j in range(3)] for i in range(2)])


def dict_comp_runtime(x, n):
    d = {i: x[i] for i in range(n)}
    return x


# ------------------------------------------------------------------ loops known to run
def power_iteration(A):
    v = np.ones(A.shape[0])
    for it in range(500):
        w = A @ v
        lam = np.linalg.norm(w)
        v_new = w / lam
        if np.abs(v_new - v).max() < 1e-10:
            break
        v = v_new
    return lam, v, it


def bound_in_long_static_loop(x):
    for i in range(100):
        y = x * i
    return y, i


def conditionally_bound_in_static_loop(x):
    for i in range(100):
        if x[i % 3] > 0:
            last = i
    return last


def bound_in_run_time_loop(x, n):
    for i in range(n):
        y = x * i
    return y


def while_true_returns(x, limit):
    k = 0
    while True:
        k += 1
        if x.sum() * k > limit:
            return x * k
        if k > 100:
            return x


def while_true_break_then_use(x):
    k = 0
    while True:
        y = x * k
        k += 1
        if y.sum() > 20:
            break
    return y, k


# ------------------------------------------------------------------ *args and **kwargs
def varargs_sum(x, *rest, scale=1.0):
    total = x
    for r in rest:
        total = total + r
    return total * scale, len(rest)


def kwargs_options(x, **opts):
    y = x * opts.get("alpha", 1.0)
    if "beta" in opts:
        y = y + opts["beta"]
    return y


def unused_kwargs(x, **kwargs):
    return x + 1


def _weighted(a, b, c=0.0, *, w=1.0):
    return (a + b + c) * w


def helper_star_calls(x, y):
    arrays = (x, y)
    opts = {"w": 2.0}
    rows = np.stack([x, y])
    return _weighted(*arrays, **opts), _weighted(*rows), _weighted(x, *[y], **{"c": 1.0})


def star_of_run_time_list(x, n):
    items = []
    for i in range(n):
        items.append(x[i])
    return _weighted(*items)


def late_binding_in_comprehension(x):
    fs = [lambda v: v * i for i in range(3)]  # noqa: E731
    return fs[0](x)


def early_binding_in_comprehension(x):
    fs = [lambda v, i=i: v * i for i in range(3)]  # noqa: E731
    return fs[0](x) + fs[2](x)


def assigned_after_break(A):
    v = np.ones(A.shape[0])
    for it in range(500):
        w = A @ v
        if np.abs(w - v).max() < 1e-10:
            break
        lam = np.linalg.norm(w)
        v = w / lam
    return lam

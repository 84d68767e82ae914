"""Element loops compiled by pyonnx: vectorized (pyonnx/frontend/vectorize) and as an ONNX
``Loop`` (``PYONNX_VECTORIZE=0``, the lowering before vectorization), against the same Python
loop run by CPython and the numpy a user would write by hand.

Run: ``python benchmarks/vectorized_loops.py [--quick]`` (``benchmarks/run.py`` runs it in its
``loops`` section). n is the element count (2-d kernels: a square grid of about n cells). The
goal (issue 14): vectorized ≥ 10× faster than the Python loop and within 2× of numpy.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import pyonnx  # noqa: E402


# ------------------------------------------------------------------ the loops
def affine(x):
    y = np.empty_like(x)
    for i in range(len(x)):
        y[i] = x[i] * 2.0 + 1.0
    return y


def affine_np(x):
    return x * 2.0 + 1.0


def sum_squares(x):
    acc = 0.0
    for i in range(len(x)):
        acc += x[i] * x[i]
    return acc


def sum_squares_np(x):
    return np.sum(x * x)


def prefix_sum(x):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = y[i - 1] + x[i]
    return y


def prefix_sum_np(x):
    return np.cumsum(x)


def stencil5(u):
    v = np.zeros_like(u)
    for i in range(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            v[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
    return v


def stencil5_np(u):
    v = np.zeros_like(u)
    v[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
    return v


def masked(x):
    y = np.empty_like(x)
    for i in range(len(x)):
        if x[i] > 0.0:
            y[i] = x[i] * 2.0
        else:
            y[i] = -x[i]
    return y


def masked_np(x):
    return np.where(x > 0.0, x * 2.0, -x)


def running_max(x):
    m = -np.inf
    for i in range(len(x)):
        m = max(m, x[i])
    return m


def running_max_np(x):
    return max(-np.inf, np.max(x))


def prefix_max(x):
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = max(y[i - 1], x[i])
    return y


def prefix_max_np(x):
    return np.maximum.accumulate(x)


def first_above(x, t):
    hit = -1
    for i in range(len(x)):
        if x[i] > t:
            hit = i
            break
    return hit


def first_above_np(x, t):
    m = x > t
    return int(np.argmax(m)) if m.any() else -1


def blur3(u):
    v = np.zeros_like(u)
    for i in range(1, u.shape[0] - 1):
        for j in range(1, u.shape[1] - 1):
            v[i, j] = (u[i - 1, j - 1] + u[i - 1, j] + u[i - 1, j + 1] + u[i, j - 1] + u[i, j]
                       + u[i, j + 1] + u[i + 1, j - 1] + u[i + 1, j] + u[i + 1, j + 1]) / 9.0
    return v


def blur3_np(u):
    v = np.zeros_like(u)
    v[1:-1, 1:-1] = (u[:-2, :-2] + u[:-2, 1:-1] + u[:-2, 2:] + u[1:-1, :-2] + u[1:-1, 1:-1]
                     + u[1:-1, 2:] + u[2:, :-2] + u[2:, 1:-1] + u[2:, 2:]) / 9.0
    return v


def ewma(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def float_recurrence(x, a):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * a + x[i]
    return y


def _ewma_case(n):
    return np.random.default_rng(n).normal(size=n), 0.1


def _float_recurrence_case(n):
    return np.random.default_rng(n).normal(size=n), -0.8


def int_recurrence(x, a):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * a + x[i]
    return y


def _vector(n):
    return (np.random.default_rng(n).normal(size=n),)


def _grid(n):
    side = int(round(n ** 0.5))
    return (np.random.default_rng(n).normal(size=(side, side)),)


def _search(n):
    x = np.random.default_rng(n).uniform(size=n)
    x[-n // 10] = 2.0  # the first hit 90% of the way in
    return x, 1.5


CASES = [
    ("y[i] = x[i]*2+1", affine, affine_np, _vector),
    ("acc += x[i]*x[i]", sum_squares, sum_squares_np, _vector),
    ("y[i] = y[i-1] + x[i]", prefix_sum, prefix_sum_np, _vector),
    ("5-point stencil, nested", stencil5, stencil5_np, _grid),
    ("masked map (if/else)", masked, masked_np, _vector),
    ("running max m = max(m, x[i])", running_max, running_max_np, _vector),
    ("y[i] = max(y[i-1], x[i])", prefix_max, prefix_max_np, _vector),
    ("first i with x[i] > t (break)", first_above, first_above_np, _search),
    ("3x3 blur (2-d stencil), nested", blur3, blur3_np, _grid),
    # linear recurrences (vectorize/linear.py): no numpy one-liner computes them ("-")
    ("EWMA out[i] = a*x[i] + (1-a)*out[i-1]", ewma, None, _ewma_case),
    ("y[i] = y[i-1]*a + x[i] (float)", float_recurrence, None, _float_recurrence_case),
]


def _time(fn, args, budget: float) -> float:
    """Median seconds per call: at least 3 calls, more while under ``budget`` seconds."""
    fn(*args)
    times = []
    spent = 0.0
    while len(times) < 3 or (spent < budget and len(times) < 50):
        start = time.perf_counter()
        fn(*args)
        t = time.perf_counter() - start
        times.append(t)
        spent += t
    times.sort()
    return times[len(times) // 2]


def _compiled(fn, vectorize: bool):
    """``fn`` compiled with or without vectorization (conversion happens on the first call,
    which runs under the chosen setting)."""
    c = pyonnx.compile(fn)

    def run(*args):
        return c(*args)

    def first(*args):
        old = os.environ.get("PYONNX_VECTORIZE")
        os.environ["PYONNX_VECTORIZE"] = "1" if vectorize else "0"
        try:
            return c(*args)
        finally:
            if old is None:
                del os.environ["PYONNX_VECTORIZE"]
            else:
                os.environ["PYONNX_VECTORIZE"] = old
    return first, run


# Recurrences as Loops (each value needs the previous one): a Loop, run as a Scan by
# LoopToScanPass (PYONNX_SCAN=0 keeps the Loop). Issue 14's target: <= 1 us/iteration. The float
# EWMA vectorizes now (vectorize/linear.py, in CASES): measured here with PYONNX_VECTORIZE=0.
RECURRENCES = [
    ("EWMA out[i] = a*x[i] + (1-a)*out[i-1]", ewma,
     lambda n: (np.random.default_rng(n).normal(size=n), 0.1)),
    ("int64 y[i] = y[i-1]*a + x[i]", int_recurrence,
     lambda n: (np.arange(n, dtype=np.int64) % 7, np.int64(-1))),
]


def _with_env(name: str, value: str, fn, *args):
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        return fn(*args)
    finally:
        if old is None:
            del os.environ[name]
        else:
            os.environ[name] = old


def recurrences(quick: bool = False) -> None:
    """(with PYONNX_VECTORIZE=0: the Loop lowering; see _recurrences)"""
    _with_env("PYONNX_VECTORIZE", "0", _recurrences, quick)


def _recurrences(quick: bool = False) -> None:
    """µs per iteration of the recurrences: the slope between n1 and n2 iterations. Both below
    about 1.5 ms a call: on a loaded machine a longer call loses its time slice and its median
    jumps (measured: 1.07 µs/iteration up to n = 1500, 5 from n = 2000, same model)."""
    n1, n2 = 100, 600
    repeat = 0.05 if quick else 0.3
    print(f"recurrences that stay loops: us per iteration (slope between {n1} and {n2})")
    print(f"{'loop':40} {'python':>8} {'Loop':>8} {'Scan':>8} {'Loop/Scan':>9}")
    for label, fn, make in RECURRENCES:
        loop_c = pyonnx.compile(fn)
        scan_c = pyonnx.compile(fn)
        for n in (n1, n2):  # convert under each setting, and check the results
            want = fn(*make(n))
            np.testing.assert_allclose(_with_env("PYONNX_SCAN", "0", loop_c, *make(n)), want)
            np.testing.assert_allclose(scan_c(*make(n)), want)
        row = []
        for f in (fn, loop_c, scan_c):
            t1, t2 = _time(f, make(n1), repeat), _time(f, make(n2), repeat)
            row.append((t2 - t1) / (n2 - n1) * 1e6)
        print(f"{label:40} {row[0]:8.3f} {row[1]:8.3f} {row[2]:8.3f} {row[1] / row[2]:9.2f}")


def main(quick: bool = False) -> None:
    sizes = (1000, 10000) if quick else (1000, 10000, 100000)
    budget = 0.05 if quick else 0.3
    print("element loops: ms per call (median); Loop = pyonnx before vectorization "
          "(PYONNX_VECTORIZE=0)")
    head = (f"{'loop':32} {'n':>7} {'python':>9} {'numpy':>8} {'Loop':>9} {'pyonnx':>8} "
            f"{'py/pyonnx':>9} {'pyonnx/np':>9}")
    print(head)
    for label, loop, hand, make in CASES:
        loop_c = _compiled(loop, False)
        vec_c = _compiled(loop, True)
        for n in sizes:
            args = make(n)
            want = loop(*args)
            for first, _ in (loop_c, vec_c):
                got = first(*args)  # converts under the setting, and checks the result
                # (the blocked linear scans differ from the loop by rounding: linear.py)
                np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * max(
                    1.0, float(np.max(np.abs(want), initial=0.0))))
            py = _time(loop, args, budget)
            npy = _time(hand, args, budget) if hand is not None else float("nan")
            before = _time(loop_c[1], args, budget if n < 100000 else 0.0)
            after = _time(vec_c[1], args, budget)
            print(f"{label:32} {n:>7} {py * 1e3:9.3f} {npy * 1e3:8.3f} {before * 1e3:9.2f} "
                  f"{after * 1e3:8.3f} {py / after:9.1f} {after / npy:9.2f}")
    print()
    recurrences(quick)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)

"""Per-iteration cost of compiled loops (ONNX ``Loop`` in onnxruntime) against the same Python
loop run by CPython and numpy.

Run: ``python benchmarks/loops.py [--quick]`` (``benchmarks/run.py`` runs it as its ``loops``
section). Vectorization is off here (``PYONNX_VECTORIZE=0``): these loops would vectorize.
The per-iteration cost is the slope between two trip counts, so the fixed cost of a call drops
out. FACTS.md measured 1.3–2.4 µs per iteration for a scalar ``acc += x`` Loop and
0.03–0.05 µs for a plain Python loop on Python floats; with numpy scalars (``x[i]`` of an
array) Python pays more per iteration.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import pyonnx  # noqa: E402


def for_sum(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + x[i]
    return acc


def while_count(x, n):
    i = 0
    acc = 0.0
    while i < n:
        acc = acc + x[i] * 0.5
        i = i + 1
    return acc


def for_rows_break(m, t):
    hit = -1
    for i in range(m.shape[0]):
        if m[i].sum() > t:
            hit = i
            break
    return hit


def _median_us(fn, *args, repeat: int) -> float:
    fn(*args)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def per_iteration(fn, make_args, n1: int, n2: int, repeat: int) -> float:
    """µs per iteration: the slope of the median call time between trip counts n1 and n2."""
    t1 = _median_us(fn, *make_args(n1), repeat=repeat)
    t2 = _median_us(fn, *make_args(n2), repeat=repeat)
    return (t2 - t1) / (n2 - n1)


def main(quick: bool = False) -> None:
    # These loops vectorize now (benchmarks/vectorized_loops.py); this table measures the Loop.
    old = os.environ.get("PYONNX_VECTORIZE")
    os.environ["PYONNX_VECTORIZE"] = "0"
    try:
        _main(quick)
    finally:
        if old is None:
            del os.environ["PYONNX_VECTORIZE"]
        else:
            os.environ["PYONNX_VECTORIZE"] = old


def _main(quick: bool) -> None:
    repeat = 5 if quick else 21
    n1, n2 = (100, 2100) if quick else (1000, 11000)
    x = np.random.default_rng(0).normal(size=n2 + 1)
    m = np.abs(np.random.default_rng(1).normal(size=(n2 + 1, 4)))
    cases = [
        ("for i in range(n): acc += x[i]", for_sum, lambda n: (x, np.int64(n))),
        ("while i < n: acc += x[i]*0.5; i += 1", while_count, lambda n: (x, np.int64(n))),
        ("for i ...: if m[i].sum() > t: break", for_rows_break,
         lambda n: (m[:n + 1], float(m[:n].sum(axis=1).max() + m[n].sum()) - 1e-9)),
    ]
    print(f"µs per iteration (slope between {n1} and {n2} iterations, median of {repeat})")
    rows = []
    for name, fn, make in cases:
        compiled = pyonnx.compile(fn)
        py = per_iteration(fn, make, n1, n2, repeat)
        ort = per_iteration(compiled, make, n1, n2, repeat)
        rows.append((name, py, ort, ort / py))
    width = max(len(r[0]) for r in rows)
    print(f"{'loop'.ljust(width)}  {'python':>8}  {'pyonnx':>8}  {'pyonnx/python':>13}")
    for name, py, ort, ratio in rows:
        print(f"{name.ljust(width)}  {py:8.3f}  {ort:8.3f}  {ratio:13.1f}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)

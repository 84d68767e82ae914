"""Medium-size numpy kernels as people write them: compiled time against numpy's.

Run: ``python benchmarks/kernels.py [--quick] [--wall] [--only NAME ...]`` (or ``benchmarks/run.py --only
kernels``). It uses whichever ``pyonnx`` is importable (``PYTHONPATH``), so the same file
measures two checkouts ("before"/"after") alike: compare the ratios of two runs made back to
back.

The table: 20 kernels (stencils, pairwise distances, normalizations, cumulative sums, grids,
slice writes, haversine, softmax, log-sum-exp, diffusion, counting...) at sizes where numpy
takes 1-50 ms. Every kernel's compiled result is first checked against numpy's (dtype, shape,
values within ``rtol``); a mismatch is printed and that kernel is not timed. Each timing is the
minimum over ``repeats`` rounds of the process's CPU time per call (numpy and pyonnx alternate
round by round; CPU time, not wall time: on a shared machine wall time mostly measures waiting
for a core, which penalizes the longer contender; both run one thread); the figure of merit is the ratio numpy time / pyonnx time (> 1: pyonnx faster),
with its median over the table.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import pyonnx


# ---------------------------------------------------------------- kernels
def softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def log_sum_exp(x):
    m = np.max(x, axis=1, keepdims=True)
    return np.log(np.sum(np.exp(x - m), axis=1)) + m[:, 0]


def standardize(x):
    return (x - x.mean(axis=0)) / x.std(axis=0)


def minmax_scale(x):
    lo = x.min(axis=0)
    hi = x.max(axis=0)
    return (x - lo) / (hi - lo)


def l2_normalize_rows(x):
    norms = np.sqrt(np.sum(x * x, axis=1, keepdims=True))
    return x / norms


def row_norms(x):
    return np.sqrt(np.sum(x ** 2, axis=1))


def pairwise_distances(a, b):
    return np.sqrt(np.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1))


def cosine_similarity(a, b):
    an = a / np.linalg.norm(a, axis=1, keepdims=True)
    bn = b / np.linalg.norm(b, axis=1, keepdims=True)
    return an @ bn.T


def haversine(lat1, lon1, lat2, lon2):
    dlat = np.radians(lat2 - lat1)
    dlon = np.radians(lon2 - lon1)
    a = (np.sin(dlat / 2) ** 2 +
         np.cos(np.radians(lat1)) * np.cos(np.radians(lat2)) * np.sin(dlon / 2) ** 2)
    return 6367.0 * 2.0 * np.arcsin(np.sqrt(a))


def reversed_cumsum(x):
    return np.cumsum(x[::-1])[::-1]


def moving_average(x, w):
    c = np.cumsum(x)
    return (c[w:] - c[:-w]) / w


def laplacian(u):
    return (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])


def diffusion_step(u, mu):
    v = u.copy()
    v[1:-1, 1:-1] = u[1:-1, 1:-1] + mu * (u[2:, 1:-1] - 2.0 * u[1:-1, 1:-1] + u[:-2, 1:-1] +
                                          u[1:-1, 2:] - 2.0 * u[1:-1, 1:-1] + u[1:-1, :-2])
    return v


def create_grid(x):
    n = x.shape[0]
    z = np.empty((n, n, 3))
    z[:, :, 0] = x.reshape(-1, 1)
    z[:, :, 1] = x
    fx = np.sin(z[:, :, 0]) * np.cos(z[:, :, 1])
    z[:, :, 2] = fx
    return z


def repeat_into_slice(x):
    n = x.shape[0]
    y = np.zeros(3 * n)
    y[n:] = np.repeat(x, 2)
    return y


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)


def count_in_bins(x, bins):
    idx = np.clip((x * bins).astype(np.int64), 0, bins - 1)
    return np.bincount(idx, minlength=bins)


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def wave_energy(u):
    gx = u[1:, :] - u[:-1, :]
    gy = u[:, 1:] - u[:, :-1]
    return 0.5 * (np.sum(gx ** 2) + np.sum(gy ** 2))


def cross_entropy(logits, labels):
    m = np.max(logits, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(logits - m), axis=1)) + m[:, 0]
    picked = logits[np.arange(logits.shape[0]), labels]
    return np.mean(lse - picked)


def _cases(rng: np.random.Generator):
    """(name, function, arguments, rtol): sizes where numpy takes 1-50 ms."""
    f32 = np.float32
    lat = lambda n: rng.uniform(-80, 80, n)  # noqa: E731
    lon = lambda n: rng.uniform(-170, 170, n)  # noqa: E731
    return [
        ("softmax f32", softmax, (rng.normal(size=(2000, 500)).astype(f32),), 1e-5),
        ("log_sum_exp f64", log_sum_exp, (rng.normal(size=(2000, 500)),), 1e-12),
        ("standardize f64", standardize, (rng.normal(size=(20000, 32)),), 1e-10),
        ("minmax_scale f32", minmax_scale, (rng.normal(size=(50000, 32)).astype(f32),), 1e-5),
        ("l2_normalize_rows f32", l2_normalize_rows,
         (rng.normal(size=(40000, 64)).astype(f32),), 1e-5),
        ("row_norms f64", row_norms, (rng.normal(size=(40000, 64)),), 1e-12),
        ("pairwise_distances f64", pairwise_distances,
         (rng.normal(size=(300, 3)), rng.normal(size=(400, 3))), 1e-10),
        ("cosine_similarity f32", cosine_similarity,
         (rng.normal(size=(1500, 128)).astype(f32), rng.normal(size=(1000, 128)).astype(f32)),
         1e-4),
        ("haversine f64", haversine, (lat(200_000), lon(200_000), lat(200_000), lon(200_000)),
         1e-12),
        ("reversed_cumsum f64", reversed_cumsum, (rng.normal(size=1_000_000),), 1e-9),
        ("moving_average f64", moving_average, (rng.normal(size=1_000_000), 50), 1e-9),
        ("laplacian f64", laplacian, (rng.normal(size=(1000, 1000)),), 1e-12),
        ("diffusion_step f64", diffusion_step, (rng.normal(size=(800, 800)), 0.1), 1e-12),
        ("create_grid f64", create_grid, (np.linspace(0, 6, 400),), 1e-12),
        ("repeat_into_slice f64", repeat_into_slice, (rng.normal(size=1_000_000),), 0.0),
        ("rosenbrock f64", rosenbrock, (rng.normal(size=1_000_000),), 1e-10),
        ("count_in_bins", count_in_bins, (rng.uniform(size=1_000_000), 100), 0.0),
        ("gelu f32", gelu, (rng.normal(size=(1000, 1000)).astype(f32),), 1e-5),
        ("wave_energy f64", wave_energy, (rng.normal(size=(1000, 1000)),), 1e-10),
        ("cross_entropy f32", cross_entropy,
         (rng.normal(size=(5000, 200)).astype(f32), rng.integers(0, 200, 5000)), 1e-4),
    ]


# ---------------------------------------------------------------- timing
_CLOCK = [time.process_time]


def _best(fn, args, calls: int) -> float:
    """ms per call: the process's CPU time (on a loaded machine wall time mostly measures how
    long the process waited for a core, which penalizes the longer contender), or wall time
    with ``--wall`` (the only measure of ``PYONNX_NUM_THREADS`` > 1: CPU time adds up threads)."""
    clock = _CLOCK[0]
    start = clock()
    for _ in range(calls):
        fn(*args)
    return (clock() - start) / calls * 1e3


def _agrees(got, want, rtol: float) -> str | None:
    """None when ``got`` is numpy's ``want`` (dtype, shape, values within rtol), else why not."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"{got.dtype}{got.shape} vs numpy {want.dtype}{want.shape}"
    if rtol == 0.0:
        return None if np.array_equal(got, want) else "values differ"
    scale = max(float(np.max(np.abs(want))), 1e-300) if want.size else 1.0
    err = float(np.max(np.abs(got - want))) / scale if want.size else 0.0
    return None if err <= rtol else f"max relative difference {err:.1e} > {rtol:.0e}"


def measure(quick: bool = False, only: list[str] | None = None) -> list[tuple[str, float, float]]:
    """Prints the table; returns (name, numpy ms, pyonnx ms) of every timed kernel."""
    rng = np.random.default_rng(0)
    repeats = 3 if quick else 7
    rows: list[tuple[str, float, float]] = []
    print(f"{'kernel':26s} {'numpy ms':>9s} {'pyonnx ms':>9s} {'speedup':>8s}")
    for name, fn, args, rtol in _cases(rng):
        if only and not any(o in name for o in only):
            continue
        try:
            compiled = pyonnx.compile(fn)
            got = compiled(*args)
        except pyonnx.PyonnxError as e:
            print(f"{name:26s} not converted: {str(e).splitlines()[0]}")
            continue
        wrong = _agrees(got, fn(*args), rtol)
        if wrong is not None:
            print(f"{name:26s} WRONG RESULT: {wrong}")
            continue
        once = _best(fn, args, 1)
        calls = max(1, min(20, int(20.0 / max(once, 1e-3))))
        t_np, t_ox = [], []
        for _ in range(repeats):
            t_np.append(_best(fn, args, calls))
            t_ox.append(_best(compiled, args, calls))
        rows.append((name, min(t_np), min(t_ox)))
        print(f"{name:26s} {min(t_np):9.2f} {min(t_ox):9.2f} {min(t_np) / min(t_ox):7.2f}x",
              flush=True)
    if rows:
        ratios = [n / o for _, n, o in rows]
        print(f"median speedup (numpy/pyonnx) over {len(rows)} kernels: "
              f"{statistics.median(ratios):.2f}x, lowest {min(ratios):.2f}x")
    return rows


if __name__ == "__main__":
    argv = sys.argv[1:]
    quick = "--quick" in argv
    if "--wall" in argv:
        _CLOCK[0] = time.perf_counter
    names = argv[argv.index("--only") + 1:] if "--only" in argv else None
    measure(quick=quick, only=names)

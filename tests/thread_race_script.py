"""The concurrent-first-call trials of tests/test_thread_race.py, run in a fresh interpreter.

Usage: ``python thread_race_script.py THREADS TRIALS``; prints ``failed N of TRIALS``.

The numpy registry loads its families on the first conversion of the process, so its race
happens once per process: each trial is a forked child of this interpreter, which imported
everything the first conversion needs except the registry's families (a fork costs
milliseconds; a new interpreter ~1 s). In each trial the threads start at one barrier and make
the first calls of fresh compiled functions: the same signature, different signatures, a
function writing its argument, and a Python scalar that becomes static (NeedStatic).
"""

import os
import sys
import threading
import time

import numpy as np
import onnxruntime  # noqa: F401  (imported before forking: each trial pays only the race)

import pyonnx
import pyonnx.frontend.convert  # noqa: F401
import pyonnx.passes.pipeline  # noqa: F401
from pyonnx.frontend import numpy_calls


def center(x):
    m = x.mean(axis=0)
    return (x - m) / (np.std(x, axis=0) + 1.0)


def bump(a, k):
    a[1:] += a[:-1] * k
    a[0] = np.sum(a)
    return a.max()


def total(x, axis):
    return np.sum(x * 2.0, axis=axis)


def trial(threads: int) -> list[str]:
    """One trial; returns what went wrong (nothing when all is right)."""
    f, g, h = pyonnx.compile(center), pyonnx.compile(bump), pyonnx.compile(total)
    rng = np.random.default_rng(0)
    x64 = rng.random((7, 3))
    x32 = x64.astype(np.float32)
    x3 = rng.random((2, 3, 4))
    # Threads 0-7: one signature; 8-11: two more; 12-13: write their argument; 14-15: axis
    # 0 and 1 of `total` (its first conversion finds axis must be static, then one each).
    inputs = [x64] * 8 + [x32, x32, x3, x3]
    barrier = threading.Barrier(threads)
    errors: list[str] = []

    def work(i: int) -> None:
        barrier.wait()
        try:
            for rep in range(3):
                if i < len(inputs):
                    x = inputs[i]
                    got, want = f(x), center(x)
                    assert got.dtype == want.dtype and got.shape == want.shape
                    np.testing.assert_allclose(got, want, rtol=1e-6)
                elif i % 4 < 2:
                    a = np.arange(5.0) + i + rep
                    b = a.copy()
                    got, want = g(a, 0.5), bump(b, 0.5)
                    assert got == want and type(got) is type(want), (got, want)
                    np.testing.assert_array_equal(a, b)  # the write into the argument
                else:
                    got, want = h(x64, i % 2), total(x64, i % 2)
                    assert got.shape == want.shape and got.dtype == want.dtype
                    np.testing.assert_allclose(got, want, rtol=1e-12)
        except BaseException as e:  # reported by the parent; the other threads still finish
            errors.append(f"thread {i}: {type(e).__name__}: {e}")

    pool = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    # One conversion per signature (the other callers waited for it).
    want = (3, 1, 2) if threads == 16 else None
    got = (f.conversions, g.conversions, h.conversions)
    if want is not None and got != want:
        errors.append(f"conversions (center, bump, total): {got}, want {want}")
    return errors


def main() -> None:
    threads, trials = int(sys.argv[1]), int(sys.argv[2])
    assert not numpy_calls._loaded, "the registry must load inside the trials"
    start = time.perf_counter()
    failed = 0
    running: set[int] = set()

    def reap() -> int:
        pid, status = os.wait()
        running.discard(pid)
        return os.waitstatus_to_exitcode(status) != 0

    # Two trials at a time (the machines have 2 cores): each is a process of its own.
    for n in range(trials):
        if len(running) == 2:
            failed += reap()
        pid = os.fork()
        if pid == 0:
            try:
                errors = trial(threads)
            except BaseException as e:
                errors = [repr(e)]
            for e in errors[:3]:
                print(f"trial {n}: {e}", flush=True)
            os._exit(1 if errors else 0)
        running.add(pid)
    while running:
        failed += reap()
    print(f"failed {failed} of {trials} in {time.perf_counter() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main()

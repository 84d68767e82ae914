"""Concurrent first calls: one conversion per signature, correct results in every thread.

Issue 12: eight threads making the first call of one compiled function at once raised a
spurious "'.mean' is not supported" (the numpy registry marked itself loaded before its
families had registered). The registry's load happens once per process, so the trials run in
a fresh interpreter, each in a forked child (tests/thread_race_script.py).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "thread_race_script.py")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the trials fork (POSIX only)")
def test_concurrent_first_calls_16_threads_50_trials():
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, SCRIPT, "16", "50"], env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "failed 0 of 50" in out.stdout, out.stdout + out.stderr


def refused(x):
    return x.tobytes()


def test_concurrent_first_calls_share_a_conversion_error():
    import threading

    import numpy as np

    import pyonnx

    f = pyonnx.compile(refused)
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def work():
        barrier.wait()
        try:
            f(np.ones(3))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 8 and all(isinstance(e, pyonnx.ConversionError) for e in errors)
    assert {e.lineno for e in errors} == {refused.__code__.co_firstlineno + 1}
    assert len({id(e) for e in errors}) == 8  # each thread raises its own copy

"""The disk cache (pyonnx/cache.py): hits, misses, stale and corrupt entries, what the key holds,
concurrent writers, and a new process served without importing the converter."""

from __future__ import annotations

import importlib.util
import logging
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from click.testing import CliRunner

import pyonnx
from pyonnx import cache
from pyonnx.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNEL = """
import numpy as np

SCALE = {scale}

def helper(x):
    return x * SCALE{helper_extra}

def kernel(x, n):
    k = {closure}
    return helper(x).sum(axis=0) + n * k
"""


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    path = tmp_path / "cache"
    monkeypatch.setenv("PYONNX_CACHE_DIR", str(path))
    return path


def load_kernel(tmp_path, name="kmod", scale=2.0, helper_extra="", closure=3):
    """Imports KERNEL from a file (a new module object, as a new process would)."""
    path = tmp_path / f"{name}.py"
    path.write_text(KERNEL.format(scale=scale, helper_extra=helper_extra, closure=closure))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entries(cache_dir):
    return sorted(p for p in os.listdir(cache_dir) if p.endswith(".pyonnx")) \
        if cache_dir.exists() else []


def run(module, x, n=1):
    f = pyonnx.compile(module.kernel, cache=True)
    got, want = f(x, n), module.kernel(x, n)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)
    return f


def test_hit_miss_and_signatures(tmp_path, cache_dir):
    m = load_kernel(tmp_path)
    x = np.arange(6.0).reshape(3, 2)
    f = run(m, x)
    assert (f.conversions, f.disk_hits) == (1, 0) and len(entries(cache_dir)) == 1
    g = run(m, x + 1)  # a new compiled function: its memory cache is empty
    assert (g.conversions, g.disk_hits) == (1 - 1, 1)
    h = run(m, x.astype(np.float32))  # another signature: another entry
    assert (h.conversions, h.disk_hits) == (1, 0) and len(entries(cache_dir)) == 2
    r = CliRunner().invoke(main, ["cache", "info"])
    assert r.exit_code == 0 and f"{cache_dir}: 2 entries" in r.output
    r = CliRunner().invoke(main, ["cache", "clear"])
    assert r.exit_code == 0 and "removed 2 entries" in r.output and entries(cache_dir) == []


@pytest.mark.parametrize("change", [dict(scale=2.5), dict(closure=4),
                                    dict(helper_extra=" + 0.0 * x")])
def test_a_stale_entry_is_ignored_and_rewritten(tmp_path, cache_dir, change):
    """A global constant, a closure-like constant or a helper's source changed: same file name
    (function and signature), another key."""
    x = np.arange(6.0).reshape(3, 2)
    run(load_kernel(tmp_path), x)
    [entry] = entries(cache_dir)
    before = (cache_dir / entry).read_bytes()
    new = load_kernel(tmp_path, **change)
    f = run(new, x)  # values checked against the new source
    assert (f.conversions, f.disk_hits) == (1, 0)
    assert entries(cache_dir) == [entry] and (cache_dir / entry).read_bytes() != before
    assert run(new, x).disk_hits == 1


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty"])
def test_a_corrupt_entry_is_ignored_and_rewritten(tmp_path, cache_dir, damage, caplog):
    m = load_kernel(tmp_path)
    x = np.arange(6.0).reshape(3, 2)
    run(m, x)
    [entry] = entries(cache_dir)
    path = cache_dir / entry
    data = path.read_bytes()
    damaged = {"truncate": data[:-7], "flip": data[:-5] + bytes([data[-5] ^ 1]) + data[-4:],
               "garbage": os.urandom(len(data)), "empty": b""}[damage]
    path.write_bytes(damaged)
    with caplog.at_level(logging.WARNING, logger="pyonnx.cache"):
        f = run(m, x)
    assert (f.conversions, f.disk_hits) == (1, 0)
    assert damage == "empty" or "corrupt entry" in caplog.text
    assert path.read_bytes()[:8] == data[:8]  # rewritten whole (only the timing differs)
    assert run(m, x).disk_hits == 1


class Opaque:
    factor = 2.0


OPAQUE = Opaque()


def reads_an_object(x):
    return x * OPAQUE.factor


def test_what_the_key_cannot_hold_is_not_cached(cache_dir):
    f = pyonnx.compile(reads_an_object, cache=True)
    np.testing.assert_array_equal(f(np.ones(3)), np.full(3, 2.0))
    assert entries(cache_dir) == [] and f.conversions == 1


def test_key_covers_static_values_options_and_transforms(tmp_path, cache_dir):
    m = load_kernel(tmp_path)
    params = pyonnx.compile(m.kernel)._params_for((np.ones(3), 1), symbolic=True)
    keys = {cache.entry_for(pyonnx.compile(m.kernel, **o), params).key
            for o in ({}, {"opset": 20}, {"static_shapes": True})}
    keys.add(cache.entry_for(pyonnx.grad(pyonnx.compile(m.kernel)), params).key)
    static = pyonnx.compile(m.kernel, static_argnames="n")
    for n in (1, 2):
        keys.add(cache.entry_for(static, static._params_for((np.ones(3), n), True)).key)
    assert len(keys) == 6


def total(x, axis):
    return np.sum(x, axis=axis) * 2.0


def test_arguments_that_must_be_static_are_recorded(cache_dir):
    """The first conversion finds 'axis' must be static: the entry of the non-static signature
    says so, so a new process goes straight to the static signature's entry."""
    x = np.arange(6.0).reshape(3, 2)
    f = pyonnx.compile(total, cache=True)
    np.testing.assert_array_equal(f(x, 1), total(x, 1))
    assert f.static_argnames == {"axis"} and len(entries(cache_dir)) == 2
    g = pyonnx.compile(total, cache=True)
    np.testing.assert_array_equal(g(x, 1), total(x, 1))
    assert (g.conversions, g.disk_hits, g.static_argnames) == (0, 1, {"axis"})
    np.testing.assert_array_equal(g(x, 0), total(x, 0))  # another static value: converted
    assert (g.conversions, g.disk_hits) == (1, 1)


def test_concurrent_writers_leave_a_whole_entry(tmp_path, cache_dir):
    m = load_kernel(tmp_path)
    x = np.arange(6.0).reshape(3, 2)
    f = run(m, x)
    params = f._params_for((x, 1), symbolic=True)
    entry = cache.entry_for(f, params)
    stored = entry.load()
    assert stored is not None
    barrier = threading.Barrier(8)

    def write():
        barrier.wait()
        for _ in range(20):
            entry.store(*stored)

    threads = [threading.Thread(target=write) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert entry.load() is not None and len(entries(cache_dir)) == 1
    assert not [p for p in os.listdir(cache_dir) if p.startswith(".tmp-")]


PROBE = textwrap.dedent("""
    import sys
    import numpy as np
    import pyonnx
    sys.path.insert(0, sys.argv[1])
    import kmod
    f = pyonnx.compile(kmod.kernel, cache=True)
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(f(x, 2), kmod.kernel(x, 2))
    print(f.conversions, f.disk_hits, "onnx_ir" in sys.modules, "onnx" in sys.modules)
""")


def test_new_processes_converting_at_once_then_one_served_from_disk(tmp_path, cache_dir):
    load_kernel(tmp_path)
    env = dict(os.environ, PYTHONPATH=ROOT)
    procs = [subprocess.Popen([sys.executable, "-c", PROBE, str(tmp_path)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    assert len(entries(cache_dir)) == 1
    out = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    # served from disk without importing the converter (onnx-ir, sympy) or onnx
    assert out.stdout.split() == ["0", "1", "False", "False"]

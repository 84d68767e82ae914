"""Conversion caches do not keep functions alive: a process that converts functions made on the
fly (a notebook redefining them, a generator of programs) frees each one's models and
onnxruntime sessions when the function goes."""

from __future__ import annotations

import gc
import importlib.util
import weakref

import numpy as np

import pyonnx
from pyonnx.frontend import source
from pyonnx.frontend.lower.function import _prepared as prepared
from pyonnx.transforms import vjp_function


def _fresh_function(tmp_path, i: int):
    path = tmp_path / f"made_{i}.py"
    path.write_text(f"import numpy as np\n\ndef f(x):\n    return np.sum(np.sin(x * {i}.5))\n")
    spec = importlib.util.spec_from_file_location(f"made_{i}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


def test_vjp_cache_lets_the_function_go(tmp_path, monkeypatch):
    monkeypatch.setattr(source, "_CACHE", {})  # (holds the function until 1024 more come)
    f = _fresh_function(tmp_path, 1)
    x = np.array([0.25, -1.0, 2.0])
    value, vjp_fn = pyonnx.vjp(f, x)
    (ct,) = vjp_fn(np.float64(1.0))
    np.testing.assert_allclose(value, np.sum(np.sin(x * 1.5)))
    np.testing.assert_allclose(ct, 1.5 * np.cos(x * 1.5))
    assert vjp_function._VJP_CACHE in f.__dict__
    ref = weakref.ref(f)
    del f, vjp_fn
    source._CACHE.clear()
    prepared.cache_clear()  # (bounded too: 1024 functions)
    gc.collect()
    assert ref() is None


def test_source_cache_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(source, "_CACHE_SIZE", 3)
    monkeypatch.setattr(source, "_CACHE", {})
    functions = [_fresh_function(tmp_path, i) for i in range(5)]
    for f in functions:
        source.parse_function(f)
    assert len(source._CACHE) == 3
    # the newest three are kept, the oldest went first
    assert [s.fn for s in source._CACHE.values()] == functions[2:]

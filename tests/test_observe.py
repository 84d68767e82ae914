"""PYONNX_LOG_COMPILES, f.stats() and the recompile warning naming the changing argument."""

from __future__ import annotations

import numpy as np

import pyonnx


def moments(x, axis):
    return x.mean(axis=axis), x.std(axis=axis)


def test_log_compiles_and_stats(monkeypatch, caplog):
    monkeypatch.setenv("PYONNX_LOG_COMPILES", "1")
    f = pyonnx.compile(moments)
    x = np.ones((2, 3))
    with caplog.at_level("WARNING", logger="pyonnx.compiles"):
        f(x, 0)
        f(x, 0)
        f(x.astype(np.float32), 1)
    lines = [r.message for r in caplog.records if r.name == "pyonnx.compiles"]
    assert len(lines) == 2
    assert "converted moments for (x: float64[x_0,x_1], axis=0) in" in lines[0]
    assert "x: float32[x_0,x_1], axis=1" in lines[1]
    stats = f.stats()
    assert stats["signatures"] == 2 and stats["conversions"] == 2 and stats["misses"] == 2
    assert stats["disk_cache_hits"] == 0 and stats["seconds_converting"] > 0


def test_recompile_warning_names_the_changing_argument(caplog):
    f = pyonnx.compile(moments, cache_size=4)
    x = np.ones((2, 3, 4, 5))
    with caplog.at_level("WARNING", logger="pyonnx.api"):
        for axis in [0, 1, 2, 3, (0, 1), (1, 2), (2, 3), (0, 2), (0, 3), (1, 3), (0, 1, 2),
                     (1, 2, 3), (0, 1, 3), (0, 2, 3), (0, 1, 2, 3), None]:
            got, want = f(x, axis), moments(x, axis)
            np.testing.assert_allclose(got[0], want[0])
    [message] = [r.message for r in caplog.records if "converted 16 times" in r.message]
    assert "argument 'axis' took 16 different signatures" in message

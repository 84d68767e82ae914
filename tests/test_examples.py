"""The examples run and equal numpy (they are also what the README's first command converts)."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

from tests.oracle import check

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"examples_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("n", [1, 7, 1000])
def test_feature_scaling(n):
    m = load("feature_scaling")
    rng = np.random.default_rng(n)
    x = (rng.normal(size=(n, 4)) * 10).astype(np.float32)
    check(m.scale_features, x, rng.integers(0, 100, size=n), rtol=2e-5, atol=2e-5)


def test_softmax():
    m = load("softmax")
    logits = (np.random.default_rng(1).normal(size=(5, 10)) * 30).astype(np.float32)
    check(m.softmax, logits, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("lag", [1, 2, 5])
def test_lagged_series(lag):
    m = load("lagged_series")
    x = np.cumsum(np.random.default_rng(lag).normal(size=40))
    f = check(m.lagged_features, x, lag)
    assert f.conversions == 1


@pytest.mark.parametrize("starts", [[1], [27], list(range(1, 40)), []])
def test_collatz(starts):
    m = load("collatz")
    starts = np.array(starts, dtype=np.int64)
    for s in starts[:5]:
        check(m.collatz_steps, s)
    if len(starts):
        check(m.collatz_table, starts)


@pytest.mark.parametrize("a", [[2.0, 9.0, 0.25], [1.0], [1e6, 1e-6]])
def test_newton(a):
    m = load("root_finding")
    f = check(m.newton_sqrt, np.array(a), 1e-9)
    check(f, np.array(a) * 3, 1e-3)
    assert f.conversions == 1


@pytest.mark.parametrize("c,lo,hi", [(10.0, 0.0, 3.0), (2.0, 0.0, 1.0), (0.0, -1.0, 1.0)])
def test_bisection(c, lo, hi):
    m = load("root_finding")
    check(m.bisect_cubic, np.float64(c), np.float64(lo), np.float64(hi), np.float64(1e-10))


@pytest.mark.parametrize("t", [-10.0, 0.5, 2.0, 10.0])
def test_first_index(t):
    m = load("first_index")
    x = np.random.default_rng(3).normal(size=50).astype(np.float32)
    check(m.first_above, x, np.float32(t))
    check(m.first_above, x[:0], np.float32(t))
    series = np.cumsum(np.random.default_rng(4).normal(size=(4, 30)), axis=1)
    check(m.first_crossings, series, t)
    check(m.first_crossings, series[:, :1], t)


@pytest.mark.parametrize("name", ["feature_scaling", "softmax", "lagged_series", "collatz",
                                  "root_finding", "first_index"])
def test_example_main_runs(name, capsys):
    load(name).main()
    assert name.split("_")[0] in capsys.readouterr().out

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


@pytest.mark.parametrize("name", ["feature_scaling", "softmax", "lagged_series"])
def test_example_main_runs(name, capsys):
    load(name).main()
    assert name.split("_")[0] in capsys.readouterr().out

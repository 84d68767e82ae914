"""The kernels of benchmarks/kernels.py (the ``kernels`` table of benchmarks/run.py) keep
numpy's results: each at small sizes (0, 1 and a few rows) through the differential oracle, so
a rewrite that makes the table faster cannot make it wrong unnoticed."""

from __future__ import annotations

import importlib.util
import os
import warnings

import numpy as np
import pytest

from tests.oracle import check

_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                     "benchmarks", "kernels.py")
_spec = importlib.util.spec_from_file_location("benchmark_kernels", _PATH)
K = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(K)


def _small(n: int, rng: np.random.Generator):
    """(function, arguments, rtol) per kernel, with n rows (n elements for 1-D kernels)."""
    f32 = np.float32
    m = max(n, 1)
    lat, lon = rng.uniform(-80, 80, n), rng.uniform(-170, 170, n)
    return [
        (K.softmax, (rng.normal(size=(m, 5)).astype(f32),), None),
        (K.log_sum_exp, (rng.normal(size=(m, 6)),), None),
        (K.standardize, (rng.normal(size=(n + 2, 3)),), None),
        (K.minmax_scale, (rng.normal(size=(n + 2, 3)).astype(f32),), None),
        (K.l2_normalize_rows, (rng.normal(size=(n, 4)).astype(f32),), None),
        (K.row_norms, (rng.normal(size=(n, 4)),), None),
        (K.pairwise_distances, (rng.normal(size=(n, 3)), rng.normal(size=(m + 1, 3))), None),
        (K.cosine_similarity, (rng.normal(size=(n, 4)).astype(f32),
                               rng.normal(size=(m, 4)).astype(f32)), 1e-5),
        (K.haversine, (lat, lon, rng.permutation(lat), rng.permutation(lon)), None),
        (K.reversed_cumsum, (rng.normal(size=n),), None),
        (K.moving_average, (rng.normal(size=n + 3), 2), None),
        (K.laplacian, (rng.normal(size=(n + 2, n + 3)),), None),
        (K.diffusion_step, (rng.normal(size=(n + 2, n + 3)), 0.1), None),
        (K.create_grid, (np.linspace(0, 6, n),), None),
        (K.repeat_into_slice, (rng.normal(size=n),), None),
        (K.rosenbrock, (rng.normal(size=n + 1),), None),
        (K.count_in_bins, (rng.uniform(size=n), 7), None),
        (K.gelu, (rng.normal(size=(n, 3)).astype(f32),), None),
        (K.wave_energy, (rng.normal(size=(n + 1, 4)),), None),
        (K.cross_entropy, (rng.normal(size=(m, 5)).astype(f32), rng.integers(0, 5, m)), 1e-5),
    ]


def test_every_kernel_of_the_table_is_tested():
    assert {fn.__name__ for fn, *_ in _small(2, np.random.default_rng(0))} == \
        {case[1].__name__ for case in K._cases(np.random.default_rng(0))}


@pytest.mark.parametrize("n", [0, 1, 6])
def test_kernels_keep_numpys_results(n):
    rng = np.random.default_rng(n)
    for fn, args, rtol in _small(n, rng):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            check(fn, *args, rtol=rtol)

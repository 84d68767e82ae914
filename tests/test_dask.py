"""A compiled function on a Dask cluster (``pyonnx[dask]``): shipped to 2 worker processes by
reference (importable) and by value (nested), through ``client.map`` and ``map_blocks``."""

from __future__ import annotations

import numpy as np

import pyonnx
from tests import pickling_kernels as k


def test_client_map_and_map_blocks_on_a_local_cluster():
    import dask.array as da
    from dask.distributed import Client, LocalCluster

    rng = np.random.default_rng(0)
    chunks = [rng.random((6, 3)) for _ in range(4)]

    def softplus_shift(x, c=0.25):  # nested: travels by value (source + closure values)
        return np.log1p(np.exp(x)) - c * k.OFFSET

    shifted = pyonnx.compile(softplus_shift)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        got = client.gather(client.map(k.standardize, chunks))
        for x, y in zip(chunks, got):
            want = k.standardize.fn(x)
            assert y.dtype == want.dtype and y.shape == want.shape
            np.testing.assert_allclose(y, want, rtol=1e-12)
        # two distinct worker processes ran it
        pids = set(client.run(lambda: __import__("os").getpid()).values())
        assert len(pids) == 2
        arr = da.from_array(np.concatenate(chunks), chunks=(6, 3))
        out = arr.map_blocks(shifted, dtype=np.float64).compute()
        np.testing.assert_allclose(out, softplus_shift(np.concatenate(chunks)), rtol=1e-12)

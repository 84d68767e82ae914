"""Feature scaling as a model would ship it: standardize, clip outliers, log-compress counts.

Convert it from the command line (input shapes come from the annotations)::

    pyonnx convert examples/feature_scaling.py:scale_features -o scale_features.onnx

or run this file to compare the compiled function with numpy.
"""

import numpy as np

import pyonnx

CLIP = 3.0


def scale_features(x: "float32[N,4]", counts: "int64[N]"):
    """Standardized, clipped features with a log-compressed count column appended."""
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    z = (x - mean) / np.maximum(std, 1e-6)
    z = np.clip(z, -CLIP, CLIP)
    logc = np.log1p(counts.astype(np.float32))
    return np.concatenate([z, logc[:, None]], axis=1)


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1000, 4)).astype(np.float32) * 10
    counts = rng.integers(0, 100, size=1000)
    compiled = pyonnx.compile(scale_features)
    got, want = compiled(x, counts), scale_features(x, counts)
    print(f"scale_features: max |onnx - numpy| = {np.abs(got - want).max():.2e}, "
          f"dtype {got.dtype}, shape {got.shape}, providers {compiled.providers}")


if __name__ == "__main__":
    main()

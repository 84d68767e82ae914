"""Lagged features of a time series: differences, momentum and a rolling mean by slicing.

    pyonnx convert examples/lagged_series.py:lagged_features -o lagged.onnx
"""

import numpy as np

import pyonnx


def lagged_features(x: "float64[T]", lag: "int64[]" = 2):
    """Lag differences x[t] - x[t-lag], their sign, and a 3-point moving average."""
    diff = x[lag:] - x[:-lag]
    direction = np.sign(diff)
    window = (x[2:] + x[1:-1] + x[:-2]) / 3.0
    return diff, direction, window


def main() -> None:
    x = np.cumsum(np.random.default_rng(0).normal(size=50))
    compiled = pyonnx.compile(lagged_features)
    for lag in (1, 2, 5):
        got, want = compiled(x, lag), lagged_features(x, lag)
        assert all(np.allclose(g, w) for g, w in zip(got, want))
    print(f"lagged_features: equal to numpy for lags 1, 2, 5 with one model "
          f"({compiled.conversions} conversion)")


if __name__ == "__main__":
    main()

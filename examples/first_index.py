"""First index where a condition holds, with ``break``; and a running-threshold scan with
``continue`` — search loops that numpy code writes with plain Python control flow.

    pyonnx convert examples/first_index.py:first_above --input "x=float32[N]" --input t=float32 -o first.onnx
"""

import numpy as np

import pyonnx


def first_above(x: "float32[N]", t: "float32"):
    """The first index i with x[i] > t, or -1."""
    for i in range(x.shape[0]):
        if x[i] > t:
            return i
    return -1


def first_crossings(series: "float64[R,T]", level: "float64"):
    """Per row, the first time the series crosses ``level`` upwards (-1 if never)."""
    out = []
    for row in series:
        hit = -1
        for t in range(1, row.shape[0]):
            if row[t - 1] < level <= row[t]:
                hit = t
                break
        out.append(hit)
    return np.array(out)


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=1000).astype(np.float32)
    series = np.cumsum(rng.normal(size=(5, 200)), axis=1)
    i = pyonnx.compile(first_above)(x, np.float32(2.5))
    hits = pyonnx.compile(first_crossings)(series, 3.0)
    assert i == first_above(x, np.float32(2.5))
    assert np.array_equal(hits, first_crossings(series, 3.0))
    print(f"first_index: first value above 2.5 at {i}; first crossings of 3.0: {hits}")


if __name__ == "__main__":
    main()

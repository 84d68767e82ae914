"""Collatz step counts: a data-dependent ``while`` loop, one ONNX Loop per call.

    pyonnx convert examples/collatz.py:collatz_steps --input n=int64 -o collatz.onnx
"""

import numpy as np

import pyonnx


def collatz_steps(n: "int64"):
    """How many Collatz steps take ``n`` to 1 (n ≥ 1)."""
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def collatz_table(starts: "int64[N]"):
    """Step counts for every start value, and the start with the longest trajectory."""
    counts = []
    for s in starts:
        counts.append(collatz_steps(s))
    counts = np.array(counts)
    return counts, starts[np.argmax(counts)]


def main() -> None:
    compiled = pyonnx.compile(collatz_table)
    starts = np.arange(1, 31, dtype=np.int64)
    (counts, best), (counts0, best0) = compiled(starts), collatz_table(starts)
    assert np.array_equal(counts, counts0) and best == best0
    print(f"collatz: longest trajectory below 31 starts at {best} ({counts.max()} steps), "
          f"one model on {compiled.providers[0]}")


if __name__ == "__main__":
    main()

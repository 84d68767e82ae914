"""Per-iteration cost of a ``Loop`` writing ``x[i] = f(i)``, before and after the loop rewrite of
:mod:`pyonnx.passes.lower_setitem`.

Run: ``python benchmarks/setitem_loops.py [--quick]``. The models are ONNX text (a ``Loop`` whose
body computes ``f(i) = 0.5 * i + 1`` as a row of 4 float64 and writes it with
``pyonnx.SetItem(kind="row")`` at the iteration number, always or in one branch of an If), so
the frontend is not involved. Both
go through the pass pipeline: "before" lowers the write in place with
``LowerSetItemPass(scan_outputs=False)`` (a ``ScatterND`` per iteration, which copies the whole
array: O(n²) for n rows), "after" with the default pass (the row becomes a scan output, one
write after the loop: O(n)). The cost per iteration is the median call time divided by n
(the fixed per-call cost, ~10 µs, is below 0.01 µs per iteration at these n). FACTS.md: 7–15 µs
growing with n before, 3–4 µs flat after (issue 4's target: flat in n).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import onnx_ir as ir  # noqa: E402
import onnxruntime as ort  # noqa: E402

from pyonnx.passes import pipeline  # noqa: E402
from pyonnx.passes.lower_setitem import LowerSetItemPass  # noqa: E402

MODEL = """<ir_version: 10, opset_import: ["" : 21, "pyonnx" : 1]>
write_rows (int64 n, double[N, 4] x) => (double[N, 4] y) <double half = {0.5}, double one = {1},
                                                          int64[1] four = {4}> {
  go = Constant <value = bool {1}> ()
  y = Loop (n, go, x) <body = body (int64 i, bool c, double[N, 4] x_in) => (bool c_out,
                                                                           double[N, 4] x_out) {
    c_out = Identity (c)
    fi = Cast <to = 11> (i)
    scaled = Mul (fi, half)
    fx = Add (scaled, one)
    row = Expand (fx, four)
    x_out = pyonnx.SetItem <kind = "row"> (x_in, i, row)
  }>
}"""

# The same write under "if i % 3 != 0:" (an If in the body: the frontend's form of a
# conditional write and of the rest of a body after a break).
CONDITIONAL = MODEL.replace("int64[1] four = {4}>", "int64[1] four = {4}, int64 three = {3}>") \
    .replace("""    x_out = pyonnx.SetItem <kind = "row"> (x_in, i, row)""",
             """    r = Mod (i, three)
    skip = Equal (r, zero_i)
    x_out = If (skip) <then_branch = keep () => (double[N, 4] kept) { kept = Identity (x_in) },
                       else_branch = write () => (double[N, 4] written) {
      written = pyonnx.SetItem <kind = "row"> (x_in, i, row) }>""") \
    .replace("int64 three = {3}>", "int64 three = {3}, int64 zero_i = {0}>")

SIZES = (1_000, 10_000, 30_000)


def build(text: str, scan_outputs: bool) -> bytes:
    model = ir.from_onnx_text(text)
    LowerSetItemPass(scan_outputs=scan_outputs)(model)
    return pipeline.to_bytes(pipeline.optimize(model))


def session(data: bytes) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1  # as pyonnx's runtime does
    so.inter_op_num_threads = 1
    return ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])


def per_iteration_us(sess: ort.InferenceSession, n: int, repeat: int, conditional: bool) -> float:
    feeds = {"n": np.array(n, np.int64), "x": np.zeros((n, 4))}
    want = np.repeat((0.5 * np.arange(n) + 1.0)[:, None], 4, axis=1)
    if conditional:
        want[::3] = 0
    np.testing.assert_array_equal(sess.run(None, feeds)[0], want)  # and warm up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        sess.run(None, feeds)
        times.append(time.perf_counter() - start)
    return statistics.median(times) / n * 1e6


def main(quick: bool = False) -> None:
    repeat = 3 if quick else 7
    print(f"Loop writing row i of x (n×4 float64) on iteration i: µs per iteration, median of "
          f"{repeat}; before: ScatterND in the body, after: the loop rewrite")
    print(f"{'loop':<32}  {'n':>6}  {'before':>7}  {'after':>7}  {'before/after':>12}")
    for name, text in (("x[i] = f(i)", MODEL), ("if i % 3: x[i] = f(i)", CONDITIONAL)):
        before, after = session(build(text, False)), session(build(text, True))
        conditional = text is CONDITIONAL
        for n in SIZES:
            b = per_iteration_us(before, n, max(1, repeat // 2) if n > 10_000 else repeat,
                                 conditional)
            a = per_iteration_us(after, n, repeat, conditional)
            print(f"{name:<32}  {n:>6}  {b:7.2f}  {a:7.2f}  {b / a:12.1f}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)

"""pyonnx benchmarks: ratio tables, not timed tests.

Run: ``python benchmarks/run.py [--quick] [--only NAME ...]``. Sections, in order:

1. ``per-call``: the cost of calling a compiled 1-node function against onnxruntime's raw
   ``InferenceSession._sess.run(output_names, feeds, None)`` on the same model, the public
   ``sess.run``, onnxruntime's floor (``run_with_ortvaluevector`` with inputs wrapped
   beforehand) and numpy, on tiny arrays. The issue's target: compiled / raw <= 1.2.
2. ``kernels``: 20 medium-size numpy kernels as people write them (``benchmarks/kernels.py``:
   stencils, distances, normalizations, cumulative sums, grids, slice writes, haversine,
   softmax...; numpy takes 1-50 ms), numpy time / pyonnx time per kernel and the median; then a
   few realistic small kernels (softmax, feature scaling, an elementwise chain) at two sizes.
3. ``conversion``: ``pyonnx.api._build_model`` for a 15-line function (the target is 2 ms),
   session creation, and the first call end to end. ``benchmarks/conversion.py`` has the
   stage-by-stage breakdown.
4. ``import``: ``import pyonnx`` in a fresh interpreter, and whether it imported onnx_ir or
   onnxscript (it should not: the converter loads on first use). ``cold``: a new process's
   import and first call without and with the disk cache (``compile(cache=True)``).
5. ``loops``: the per-iteration cost of a compiled ``for`` and ``while`` loop (an ONNX
   ``Loop``, vectorization off) against the same Python loop (``benchmarks/loops.py``), then
   element loops (maps, a reduction, a prefix sum, stencils, a masked map, a running max, a
   search) at n = 1,000 .. 100,000: Python, hand-vectorized numpy, pyonnx's ``Loop`` and
   pyonnx vectorized (``benchmarks/vectorized_loops.py``); ``setitem-loops``: a
   loop writing ``x[i]`` at n = 1,000 .. 30,000 before and after the scan-output rewrite.
6. ``prepost``: 20 pre/post-processing functions as people write them, the ratio compiled/numpy
   per function and the median; then single slice writes, a crop and per-call costs
   (``benchmarks/prepost.py``, which also runs alone against any checkout). ``complex``:
   complex elementwise chains, a complex matmul and FFT convolutions against numpy, both
   complex dtypes (``benchmarks/complex.py``).
7. ``training``: one step (loss and gradients) of examples/train_mlp.py's network by
   ``pyonnx.value_and_grad`` against the same step with a hand-written numpy backward pass;
   then 10 epochs: numpy, a Python loop calling the step, and the whole loop compiled as one
   model (``train_in_one_model``, the step's gradient model inlined in its body); then a
   gradient through a 100-step loop against its forward pass.

Timings are medians of short interleaved rounds (every contender runs once per round), so
machine load drifts hit them alike; absolute times still swing up to 2x between runs on shared
machines: compare ratios within one run. The whole script takes well under a minute (``--quick``: a few
seconds).

Adding a section: write ``def my_section(cfg: Config) -> None`` printing its table and decorate
it with ``@section("name")``; sections run in definition order.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # run from a checkout without installing

import pyonnx  # noqa: E402
from pyonnx.api import _build_model  # noqa: E402


# ---------------------------------------------------------------- framework
@dataclasses.dataclass
class Config:
    """What a section may read: ``quick`` asks for fewer repeats."""

    quick: bool = False

    def rounds(self, full: int) -> int:
        return max(3, full // 5) if self.quick else full


SECTIONS: list[tuple[str, Callable[[Config], None]]] = []


def section(name: str):
    """Registers a section function (run in definition order, selectable with ``--only``)."""

    def register(fn: Callable[[Config], None]):
        SECTIONS.append((name, fn))
        return fn

    return register


def interleaved(contenders: dict[str, Callable[[], object]], calls: int,
                rounds: int) -> dict[str, float]:
    """Median µs per call of each contender, over ``rounds`` rounds of ``calls`` calls each;
    every round runs every contender, so load changes affect them alike."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for fn in contenders.values():  # warm up
        for _ in range(min(calls, 100)):
            fn()
    for _ in range(rounds):
        for name, fn in contenders.items():
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            samples[name].append((time.perf_counter() - start) / calls * 1e6)
    return {name: statistics.median(v) for name, v in samples.items()}


def table(header: list[str], rows: list[list[object]]) -> None:
    cells = [[c if isinstance(c, str) else _fmt(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) if i == 0 else h.rjust(w)
                    for i, (h, w) in enumerate(zip(header, widths))))
    for r in cells:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths))))


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.2f}" if abs(v) < 100 else f"{v:.0f}"
    return str(v)


def _not_converted(name: str, e: Exception) -> None:
    print(f"{name}: not converted yet ({str(e).splitlines()[0]})")


# ------------------------------------------------------- 1. per-call overhead
def add(a, b):
    return a + b


def axpy(a, x, y):
    return a * x + y


def total(x):
    return np.sum(x)


@section("per-call")
def per_call(cfg: Config) -> None:
    """Compiled 1-node functions vs onnxruntime's entry points and numpy, tiny arrays."""
    from onnxruntime.capi import _pybind_state as C

    print("median µs per call; raw = InferenceSession._sess.run(names, feeds, None) on the same "
          "model; floor = run_with_ortvaluevector, inputs wrapped beforehand")
    x = np.arange(4, dtype=np.float32)
    y = np.ones(4, dtype=np.float32)
    cases = [
        ("add(x, y)", add, (x, y), lambda: x + y),
        ("axpy(2.5, x, y) Python float", axpy, (2.5, x, y), lambda: 2.5 * x + y),
        ("np.sum(x) -> numpy scalar", total, (x,), lambda: np.sum(x)),
    ]
    rows = []
    for label, fn, args, numpy_fn in cases:
        f = pyonnx.compile(fn)
        try:
            f(*args)
        except pyonnx.ConversionError as e:
            _not_converted(label, e)
            continue
        compiled = f._last
        session = compiled.session
        names, raw = session.output_names, session._sess._sess.run
        public = session._sess.run
        plan = compiled.feed_plan

        def feeds(args=args, plan=plan):
            return {n: (args[i] if dt is None else np.asarray(args[i], dt)) for n, i, dt in plan}

        fixed = feeds()
        in_names = list(fixed)
        # The raw call builds its feed dict per call, as any caller with fresh arrays must.
        raw_call = _raw_caller(raw, names, in_names, args, plan)
        dev = C.OrtDevice(C.OrtDevice.cpu(), C.OrtDevice.default_memory(), 0)
        ins = C.OrtValueVector()
        for v in fixed.values():
            ins.push_back(C.OrtValue.ortvalue_from_numpy(v, dev))
        run_vec, ro, devs = session._sess._sess.run_with_ortvaluevector, C.RunOptions(), [dev]

        def floor():
            run_vec(ro, in_names, ins, names, C.OrtValueVector(), devs)

        t = interleaved({
            "compiled": _direct_caller(f, args),
            "raw": raw_call,
            "public": lambda: public(None, feeds()),
            "floor": floor,
            "numpy": numpy_fn,
        }, calls=200, rounds=cfg.rounds(150))
        rows.append([label, t["compiled"], t["raw"], t["public"], t["floor"], t["numpy"],
                     t["compiled"] / t["raw"]])
    table(["function", "compiled", "raw", "public", "floor", "numpy", "compiled/raw"], rows)
    print("target: compiled/raw <= 1.2")


def _direct_caller(f, args):
    """``f(args[0], args[1], ...)`` spelled out, as user code calls it (no ``*args``)."""
    env = {"f": f, "args": args}
    exec(f"def call():\n    return f({', '.join(f'args[{i}]' for i in range(len(args)))})\n",
         env)
    return env["call"]


def _raw_caller(raw, out_names, in_names, args, plan):
    """``raw(out_names, {name: arg ...}, None)`` with a dict literal, like hand-written code."""
    env = {"raw": raw, "out_names": out_names, "args": args, "asarray": np.asarray}
    items = []
    for k, (name, i, dt) in enumerate(plan):
        env[f"dt{k}"] = dt
        items.append(f"{name!r}: args[{i}]" if dt is None else
                     f"{name!r}: asarray(args[{i}], dt{k})")
    exec(f"def call():\n    return raw(out_names, {{{', '.join(items)}}}, None)\n", env)
    return env["call"]


# ------------------------------------------------------------- 2. small kernels
def softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def standardize(x, lo, hi):
    mean = np.mean(x, axis=0)
    std = np.std(x, axis=0)
    z = (x - mean) / (std + 1e-6)
    return np.clip(z, lo, hi)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


@section("kernels")
def kernels(cfg: Config) -> None:
    """20 medium-size kernels (``benchmarks/kernels.py``: numpy 1-50 ms, speedup = numpy /
    pyonnx, CPU time), then realistic small kernels, pyonnx vs numpy, at two sizes."""
    sys.path.insert(0, HERE)
    import kernels as medium

    medium.measure(quick=cfg.quick)
    print()
    rng = np.random.default_rng(0)
    cases = [
        ("softmax", softmax, lambda n: (rng.normal(size=(n, 10)).astype(np.float32),)),
        ("standardize+clip", standardize,
         lambda n: (rng.normal(size=(n, 8)).astype(np.float32), -3.0, 3.0)),
        ("gelu (tanh form)", gelu_tanh, lambda n: (rng.normal(size=(n, 16)).astype(np.float32),)),
    ]
    rows = []
    for label, fn, make in cases:
        f = pyonnx.compile(fn)
        for n in (8, 10_000):
            args = make(n)
            try:
                got = f(*args)
            except pyonnx.ConversionError as e:
                _not_converted(label, e)
                break
            want = fn(*args)
            err = float(np.max(np.abs(got.astype(np.float64) - want))) if want.size else 0.0
            calls = 500 if n < 100 else 20
            t = interleaved({"numpy": lambda: fn(*args), "pyonnx": lambda: f(*args)},
                            calls=calls, rounds=cfg.rounds(15))
            rows.append([f"{label} [{n}x{args[0].shape[1]}]", t["numpy"], t["pyonnx"],
                         t["pyonnx"] / t["numpy"], f"{err:.1e}",
                         "ok" if got.dtype == want.dtype and got.shape == want.shape else
                         f"MISMATCH {got.dtype}{got.shape} vs {want.dtype}{want.shape}"])
    table(["kernel [shape]", "numpy µs", "pyonnx µs", "pyonnx/numpy", "max |diff|",
           "dtype/shape"], rows)


# ---------------------------------------------------------------- 3. conversion
def _fifteen_line_candidates():
    """benchmarks/conversion.py's functions (one definition of "15 lines")."""
    sys.path.insert(0, HERE)
    import conversion

    return [conversion.features, conversion.features_basic]


@section("conversion")
def conversion_time(cfg: Config) -> None:
    """Conversion of a 15-line function, session creation, first call."""
    import onnxruntime as ort

    from pyonnx import api
    from pyonnx.frontend.lower import function as function_mod
    from pyonnx.runtime import SessionCache
    from pyonnx.runtime.session import _session_options

    rng = np.random.default_rng(0)
    args = (rng.random((5, 4)), rng.random(4), -2.0, 2.0)
    for fn in _fifteen_line_candidates():
        compiled = pyonnx.compile(fn)
        try:
            params = compiled._params_for(args, symbolic=True)
            model, _, _ = _build_model(fn, params, compiled.opset)
            break
        except pyonnx.ConversionError as e:
            _not_converted(fn.__name__, e)
    else:
        return
    repeat = cfg.rounds(60)
    cache_clear = getattr(getattr(function_mod, "_prepared", None), "cache_clear", lambda: None)

    def cold():
        cache_clear()  # the source is read and parsed again
        _build_model(fn, params, compiled.opset)

    def session():
        ort.InferenceSession(model, _session_options(()), providers=["CPUExecutionProvider"])

    def first_call():
        # A new function object, its source unread, no session cached: everything but imports.
        cache_clear()
        api._SESSIONS._cache = SessionCache()
        pyonnx.compile(fn)(*args)

    t = {name: statistics.median(_times(f, repeat)) * 1e6 for name, f in
         [("cold", cold), ("warm", lambda: _build_model(fn, params, compiled.opset)),
          ("session", session), ("first", first_call)]}
    print(f"function: {fn.__name__} ({_source_lines(fn)} lines)")
    table(["step", "median µs"], [
        ["_build_model, cold (read + parse + convert + passes + serialize)", t["cold"]],
        ["_build_model, warm (source already parsed: a new signature)", t["warm"]],
        ["InferenceSession from the bytes (CPU, pyonnx's options)", t["session"]],
        ["first call of a new function: cold build + session + run", t["first"]],
    ])
    print("target: conversion <= 2000 µs (session creation excluded)")


def _times(fn, repeat: int) -> list[float]:
    fn()
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def _source_lines(fn) -> int:
    import inspect

    return len(inspect.getsourcelines(fn)[0])


# -------------------------------------------------------------------- 4. import
_IMPORT_PROBE = """
import sys, time
start = time.perf_counter()
import pyonnx
elapsed = time.perf_counter() - start
print(elapsed * 1e3)
print(",".join(m for m in ("numpy", "onnx", "onnxruntime", "onnx_ir", "onnxscript", "sympy")
               if m in sys.modules))
"""


@section("import")
def import_time(cfg: Config) -> None:
    """``import pyonnx`` in fresh interpreters."""
    repeat = 1 if cfg.quick else 5
    runs = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", _IMPORT_PROBE], capture_output=True,
                             text=True, check=True, cwd=os.path.dirname(HERE)).stdout.split("\n")
        runs.append((float(out[0]), out[1]))
    ms = statistics.median(r[0] for r in runs)
    loaded = [m for m in runs[-1][1].split(",") if m]
    print(f"import pyonnx: {ms:.0f} ms (median of {repeat}); also imported: "
          f"{', '.join(loaded) or 'nothing heavy'}")
    for name in ("onnx_ir", "onnxscript"):
        status = ("IMPORTED (regression: it should load on first conversion)"
                  if name in loaded else "not imported")
        print(f"  {name}: {status}")


_COLD_PROBE = r"""
import sys, time
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import pyonnx
t2 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
from feature_scaling import scale_features
f = pyonnx.compile(scale_features.fn if hasattr(scale_features, "fn") else scale_features,
                   cache=sys.argv[2] == "1")
x = np.random.rand(100, 4).astype(np.float32)
t3 = time.perf_counter()
f(x, np.arange(100))
t4 = time.perf_counter()
print((t2 - t1) * 1e3, (t4 - t3) * 1e3, (t1 - t0) * 1e3, f.disk_hits,
      "onnx_ir" in sys.modules, "onnx" in sys.modules)
"""


@section("cold")
def cold_start(cfg: Config) -> None:
    """A new process: ``import pyonnx`` and the first call of examples/feature_scaling.py's
    function, without the disk cache, then with it (the first run fills it; medians of the
    runs that hit it)."""
    import tempfile

    repeat = 1 if cfg.quick else 5
    examples = os.path.join(os.path.dirname(HERE), "examples")
    with tempfile.TemporaryDirectory() as cache_dir:
        env = dict(os.environ, PYONNX_CACHE_DIR=cache_dir,
                   PYTHONPATH=os.path.dirname(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        rows = {}
        for label, use in (("no disk cache", "0"), ("disk cache, first run", "1"),
                           ("disk cache, warm", "1")):
            runs = []
            for _ in range(1 if label == "disk cache, first run" else repeat):
                out = subprocess.run([sys.executable, "-c", _COLD_PROBE, examples, use],
                                     capture_output=True, text=True, check=True, env=env)
                runs.append(out.stdout.split())
            rows[label] = runs
    print(f"{'':24} {'numpy':>8} {'import pyonnx':>14} {'first call':>11} {'total':>8}  "
          "onnx-ir/onnx imported")
    for label, runs in rows.items():
        imp = statistics.median(float(r[0]) for r in runs)
        call = statistics.median(float(r[1]) for r in runs)
        npy = statistics.median(float(r[2]) for r in runs)
        print(f"{label:24} {npy:6.0f}ms {imp:12.0f}ms {call:9.0f}ms {imp + call:6.0f}ms  "
              f"{runs[-1][4]}/{runs[-1][5]} (hits: {runs[-1][3]})")
    print("  (total: import pyonnx + first call, after numpy; the issue's target with a warm "
          "cache: <= 150 ms)")


# ------------------------------------------------------------------- 5. loops
@section("loops")
def loops(cfg: Config) -> None:
    """Per-iteration cost of compiled for/while loops against Python (benchmarks/loops.py)."""
    sys.path.insert(0, HERE)
    import loops as loop_bench
    import vectorized_loops

    loop_bench.main(quick=cfg.quick)
    print()
    vectorized_loops.main(quick=cfg.quick)


@section("setitem-loops")
def setitem_loops(cfg: Config) -> None:
    """A loop writing x[i] for n = 1,000 .. 30,000, before and after LowerSetItemPass's loop
    rewrite (benchmarks/setitem_loops.py)."""
    sys.path.insert(0, HERE)
    import setitem_loops as bench

    bench.main(quick=cfg.quick)


@section("complex")
def complex_numbers(cfg: Config) -> None:
    """Complex arrays (elementwise, matmul, FFT convolutions) against numpy
    (benchmarks/complex.py)."""
    sys.path.insert(0, HERE)
    import complex as bench

    bench.main(quick=cfg.quick)


# ----------------------------------------------------------------------- main
# ---------------------------------------------------------------- 6. training
@section("prepost")
def prepost(cfg: Config) -> None:
    """ML pre/post-processing (box converters, letterbox, IoU, top-k, framing...) and single
    slice writes, compiled against numpy (benchmarks/prepost.py)."""
    sys.path.insert(0, HERE)
    import prepost as bench

    bench.main(quick=cfg.quick)


@section("training")
def training(cfg: Config) -> None:
    """One SGD step of the 1-64-1 ReLU MLP (batch 32): pyonnx.value_and_grad vs numpy."""
    import onnxruntime as ort

    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))
    import train_mlp as m

    params, x, y = m.init(0)
    args = (*params, x[:32], y[:32])
    step = pyonnx.value_and_grad(m.loss, argnums=(0, 1, 2, 3))
    # One model per input shape (jax.jit's specialization): shape arithmetic folds away.
    step_static = pyonnx.value_and_grad(pyonnx.compile(m.loss, static_shapes=True),
                                        argnums=(0, 1, 2, 3))
    step_static(*args)
    forward = pyonnx.compile(m.loss)
    value, grads = step(*args)
    want_value, want = m.numpy_value_and_grad(*args)
    err = max(float(np.max(np.abs(g - w))) for g, w in zip(grads, want))
    # The same model converted for these exact shapes (to_onnx with fixed-size specs): shape
    # arithmetic, empty-operand guards and broadcast checks fold away. Run on a raw session.
    fixed = step.to_onnx(*[pyonnx.spec(a.dtype, a.shape) for a in args])
    so = ort.SessionOptions()
    so.intra_op_num_threads = so.inter_op_num_threads = 1
    sess = ort.InferenceSession(fixed.SerializeToString(), so,
                                providers=["CPUExecutionProvider"])
    feeds = dict(zip([i.name for i in fixed.graph.input], args))
    outs = [o.name for o in fixed.graph.output]
    t = interleaved({"numpy": lambda: m.numpy_value_and_grad(*args),
                     "numpy loss": lambda: m.loss(*args),
                     "pyonnx": lambda: step(*args),
                     "static": lambda: step_static(*args),
                     "fixed": lambda: sess._sess.run(outs, feeds, None),
                     "forward": lambda: forward(*args)},
                    calls=500, rounds=cfg.rounds(15))
    nodes = len(step.to_onnx(*args).graph.node)
    table(["step", "numpy µs", "pyonnx µs", "pyonnx/numpy", "max |diff|", "nodes"],
          [["loss + 4 gradients (value_and_grad)", t["numpy"], t["pyonnx"],
            t["pyonnx"] / t["numpy"], f"{err:.1e}", nodes],
           ["  same, compile(static_shapes=True)", t["numpy"], t["static"],
            t["static"] / t["numpy"], "", len(step_static.to_onnx(*args).graph.node)],
           ["  same, fixed shapes (raw session)", t["numpy"], t["fixed"],
            t["fixed"] / t["numpy"], "", len(fixed.graph.node)],
           ["loss only (compile)", t["numpy loss"], t["forward"],
            t["forward"] / t["numpy loss"], f"{abs(float(value) - float(want_value)):.1e}",
            len(forward.to_onnx(*args).graph.node)]])

    # The whole training loop: 10 epochs of 8 steps, same batches, three ways.
    epochs = 10
    loop_args = (*params, x, y, m.shuffles(epochs, len(x)), 0.05)
    whole = pyonnx.compile(m.train_in_one_model)
    got = whole(*loop_args)
    want = m.numpy_train(*loop_args)
    err = max(float(np.max(np.abs(g - w))) for g, w in zip(got, want))
    t = interleaved({"numpy": lambda: m.numpy_train(*loop_args),
                     "steps": lambda: m.train_in_one_model(*loop_args),
                     "one model": lambda: whole(*loop_args)},
                    calls=3, rounds=cfg.rounds(10))
    print()
    table(["10 epochs x 8 SGD steps", "numpy ms", "pyonnx ms", "pyonnx/numpy", "max |diff|"],
          [["Python loop calling value_and_grad", t["numpy"] / 1e3, t["steps"] / 1e3,
            t["steps"] / t["numpy"], ""],
           ["whole loop in one compiled model", t["numpy"] / 1e3, t["one model"] / 1e3,
            t["one model"] / t["numpy"], f"{err:.1e}"]])

    # A gradient through a loop: the recurrence of the training example's hidden size, 100
    # steps, forward pass vs loss and gradient (the reverse loop replays the recorded steps).
    rng = np.random.default_rng(0)
    rnn_args = (rng.uniform(0.5, 1.0, 100), rng.uniform(-1, 1, 64),
                rng.uniform(-1, 1, (64, 64)).astype(np.float64) / 8)
    forward_rnn = pyonnx.compile(recurrence)
    grad_rnn = pyonnx.value_and_grad(recurrence, argnums=(1, 2))
    t = interleaved({"numpy": lambda: recurrence(*rnn_args),
                     "forward": lambda: forward_rnn(*rnn_args),
                     "grad": lambda: grad_rnn(*rnn_args)},
                    calls=5, rounds=cfg.rounds(10))
    print()
    table(["h = tanh(W @ h) * x[t], 100 steps, 64", "numpy ms", "pyonnx ms", "pyonnx/numpy",
           "vs forward"],
          [["forward (compile)", t["numpy"] / 1e3, t["forward"] / 1e3, t["forward"] / t["numpy"],
            ""],
           ["value and gradient (value_and_grad)", t["numpy"] / 1e3, t["grad"] / 1e3,
            t["grad"] / t["numpy"], t["grad"] / t["forward"]]])


def recurrence(x, h0, W):
    """A loop to differentiate (module level: pyonnx reads its source)."""
    h = h0
    for t in range(x.shape[0]):
        h = np.tanh(W @ h) * x[t]
    return np.sum(h * h)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a few seconds)")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help=f"sections to run: {', '.join(n for n, _ in SECTIONS)}")
    opts = parser.parse_args(argv)
    unknown = set(opts.only or ()) - {n for n, _ in SECTIONS}
    if unknown:
        parser.error(f"unknown section(s) {sorted(unknown)}")
    cfg = Config(quick=opts.quick)
    import onnxruntime

    print(f"pyonnx {pyonnx.__version__}, numpy {np.__version__}, onnxruntime "
          f"{onnxruntime.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    start = time.perf_counter()
    for name, fn in SECTIONS:
        if opts.only and name not in opts.only:
            continue
        print(f"\n== {name}: {(fn.__doc__ or '').strip().splitlines()[0]}")
        fn(cfg)
    print(f"\n({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()

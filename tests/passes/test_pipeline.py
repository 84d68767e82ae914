"""The pass pipeline: deterministic bytes (in one process and across hash seeds), unique names
after sibling subgraphs reuse them, leaner models that still compute the same results."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx

import pyonnx
from pyonnx import api
from pyonnx.passes import pipeline
from tests.oracle import check
from tests.passes.helpers import checked, model, ops, same_results

ROOT = Path(__file__).resolve().parents[2]


def scale(x, w, lo):
    n = x.shape[0]
    m = x.shape[1]
    mean = (x * 0.5 + w) / 3.0
    d = x - mean
    z = d / (d * d / (n - 1) + 1e-8)
    y = z * w + (1.0 - w) * mean
    y = np.add(y, n * m) - np.multiply(y, 0.5)
    t = np.negative(y) + (x > mean) * 1.0
    return t * (n + 1) - (m - 1) - lo, z


def _bytes(fn=scale, args=None) -> bytes:
    args = args if args is not None else (np.ones((3, 4)), np.ones(4), 1.0)
    params = pyonnx.compile(fn)._params_for(args, symbolic=True)
    return api._build_model(fn, params, api.DEFAULT_OPSET)[0]


def digest() -> str:
    """sha256 of the model bytes for ``scale`` (run in subprocesses by the test below)."""
    return hashlib.sha256(_bytes()).hexdigest()


def test_same_source_and_signature_give_identical_bytes():
    assert _bytes() == _bytes()
    f32 = (np.ones((3, 4), np.float32), np.ones(4, np.float32), 1.0)
    assert _bytes(args=f32) == _bytes(args=f32)


def test_bytes_do_not_depend_on_the_hash_seed():
    digests = set()
    for seed in ("1", "2", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run(
            [sys.executable, "-c", "from tests.passes.test_pipeline import digest; "
             "print(digest())"], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert digests == {digest()}


def test_pipeline_output_passes_the_full_checker_and_matches_numpy():
    proto = onnx.load_from_string(_bytes())
    onnx.checker.check_model(proto, full_check=True)
    check(scale, np.arange(12.0).reshape(3, 4) - 5, np.linspace(-1, 1, 4), 0.25)


SHADOWING = """
g (bool c, float[2] x) => (float[2] y, float[2] z) {
  v = Exp(x)
  y = If (c) <
    then_branch = t () => (float[2] ty) { v = Neg(x)  ty = Abs(v) },
    else_branch = e () => (float[2] ey) { v = Abs(x)  ey = Neg(v) }>
  z = Neg(v)
}"""


def test_subgraph_names_shadowing_outer_names_are_renamed():
    # ONNX forbids a subgraph from redefining a name of an enclosing scope (the frontend may
    # name values alike in different scopes); the same model written validly is the reference.
    valid = SHADOWING.replace("{ v = Neg(x)  ty = Abs(v) }", "{ tv = Neg(x)  ty = Abs(tv) }")
    valid = valid.replace("{ v = Abs(x)  ey = Neg(v) }", "{ ev = Abs(x)  ey = Neg(ev) }")
    m = model(SHADOWING)
    pipeline.optimize(m)
    proto = checked(m)
    outer = {o for n in proto.graph.node for o in n.output} | {"x", "c"}
    for branch in proto.graph.node[1].attribute:
        inner = [o for n in branch.g.node for o in n.output]
        assert not outer & set(inner), (outer, inner)
    same_results(checked(model(valid)), proto)


def test_pipeline_folds_shares_and_removes():
    m = model("""
<ir_version: 10, opset_import: ["" : 21, "unused" : 1]>
g (float[2, 3] x) => (float[2, 3] y) <int64[2] shp = {2, 3}, float one = {1}> {
  s = Shape(x)
  r = Reshape(x, s)
  c = Cast <to = 1> (r)
  a = Add(c, one)
  b = Add(r, one)
  d = Mul(a, b)
  e = Identity(d)
  dead = Exp(e)
  y = Identity(e)
}""")
    before = checked(m)
    pipeline.optimize(m)
    assert ops(m) == ["Add", "Mul"]
    assert list(m.graph.opset_imports) == [""]
    assert [o.name for o in m.graph.outputs] == ["y"]
    same_results(before, checked(m))


def _modules_after(statement: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", f"{statement}; import sys; "
                          "print(' '.join(sorted(sys.modules)))"], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_passes_never_import_the_frontend():
    modules = _modules_after("import pyonnx.passes.pipeline")
    assert not {m for m in modules if m.startswith("pyonnx.frontend")}
    assert "onnxscript" not in modules


def test_import_pyonnx_loads_no_converter_or_runtime():
    modules = _modules_after("import pyonnx")
    assert not modules & {"onnx_ir", "onnxscript", "onnxruntime", "sympy"}

"""The fast serializer (pyonnx/passes/serialize.py) gives onnx-ir serde's bytes: on lowered
models (subgraphs and tensor attributes included) and on parsed ONNX text with the fields the
fast path hands back to serde (metadata, quantization annotations, functions, value infos)."""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

import pyonnx
from pyonnx.frontend.convert import convert
from pyonnx.passes import pipeline
from pyonnx.passes.serialize import serialize_model
from tests.passes.helpers import model


def features(x, w, lo, hi):
    n, m = x.shape
    mean = np.mean(x, axis=0)
    z = np.clip((x - mean) / (np.std(x, axis=0) + 1e-8), lo, hi)
    return (z * w + (1.0 - w) * mean + n * m).astype(np.float32)


def with_subgraphs(a, b, k):
    return np.gcd(a, b) + a ** k, np.cumsum(a), np.sort(b)[::-1], np.zeros_like(a) + k


def _same(m: ir.Model) -> None:
    fast = serialize_model(m).SerializeToString(deterministic=True)
    assert fast == ir.serde.serialize_model(m).SerializeToString(deterministic=True)


def _lowered(fn, *args) -> ir.Model:
    params = pyonnx.compile(fn)._params_for(args, symbolic=True)
    m = convert(fn, params, 21).model
    _same(m)                       # before the passes: unnamed-free, duplicate-rich
    return pipeline.optimize(m)


def test_lowered_models_serialize_as_serde():
    _same(_lowered(features, np.ones((3, 4)), np.ones(4), -1.0, 1.0))
    m = _lowered(with_subgraphs, np.arange(6, dtype=np.int64), np.arange(6, 0, -1), 3)
    assert any(n.op_type in ("Loop", "If", "Scan") for n in ir.traversal.RecursiveGraphIterator(m.graph)), \
        "the test lost its subgraph"
    _same(m)


def test_fields_handed_back_to_serde():
    m = model("""
        <ir_version: 10, opset_import: ["" : 21, "custom" : 1], producer_name: "p",
         doc_string: "d", metadata_props: ["b": "2", "a": "1"]>
        g (float[N, 3] x, float y) => (float[N, 3] out, int64 k) <float[3] w = {1.0, 2.0, 3.0}>
        {
            t = Mul <alpha: float = 0.5, s: string = "z", ks: ints = [1, 2], fs: floats = [1.5]> (x, w)
            u = custom.Foo (t, , y)
            a, b = Split <axis: int = 1> (u)
            out = Add (t, a)
            k = Constant <value = int64 {7}> ()
        }
        <domain: "custom", opset_import: ["" : 21]>
        Foo (p, q, r) => (o) { o = Identity (p) }
    """)
    _same(m)
    nodes = list(m.graph)
    nodes[0].metadata_props["note"] = "kept"
    nodes[0].outputs[0].shape = ir.Shape([None, 3])
    nodes[0].outputs[0].type = ir.TensorType(ir.DataType.FLOAT)
    nodes[0].outputs[0].meta["quant_parameter_tensor_names"] = {"scale": "s"}
    nodes[1].outputs[0].doc_string = "documented"
    m.graph.metadata_props["g"] = "1"
    _same(m)
    m.functions.clear()
    _same(m)

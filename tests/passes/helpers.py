"""Shared helpers for IR-pass tests: ONNX-text fixtures, op listings and a differential run.

``model(text)`` parses a graph written in ONNX text (the ``<ir_version, opset_import>`` header
is added); ``ops(m)`` lists op types over all graphs; ``checked(m)`` runs the full ONNX checker;
``same_results(before, after)`` runs both models with onnxruntime on random inputs and asserts
equal outputs, dtypes and shapes (bit for bit: folding must not change a value).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnx_ir as ir

__all__ = ["model", "ops", "checked", "same_results", "random_feeds"]

HEADER = '<ir_version: 10, opset_import: ["" : 21]>\n'


def model(text: str) -> ir.Model:
    """An ``ir.Model`` from ONNX text (a graph, optionally preceded by its own header)."""
    text = text.strip()
    return ir.from_onnx_text(text if text.startswith("<") else HEADER + text)


def ops(m: ir.Model) -> list[str]:
    """Op types of every node, subgraphs included, in traversal order."""
    return [n.op_type for n in ir.traversal.RecursiveGraphIterator(m.graph)]


def checked(m: ir.Model) -> onnx.ModelProto:
    """The model as a proto after ``onnx.checker.check_model(full_check=True)``."""
    proto = ir.to_proto(m)
    onnx.checker.check_model(proto, full_check=True)
    return proto


def random_feeds(proto: onnx.ModelProto, seed: int = 0, dims: int = 3) -> dict[str, np.ndarray]:
    """Random inputs for every graph input (symbolic dims become ``dims``; ints include
    negatives; bools both values)."""
    rng = np.random.default_rng(seed)
    feeds = {}
    initializers = {t.name for t in proto.graph.initializer}
    for vi in proto.graph.input:
        if vi.name in initializers:
            continue
        t = vi.type.tensor_type
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        shape = [d.dim_value if d.HasField("dim_value") else dims for d in t.shape.dim]
        if dtype == np.bool_:
            arr = rng.random(shape) < 0.5
        elif dtype.kind in "iu":
            lo = 0 if dtype.kind == "u" else -50
            arr = rng.integers(lo, 50, size=shape).astype(dtype)
        else:
            arr = (rng.standard_normal(shape) * 10).astype(dtype)
        feeds[vi.name] = np.asarray(arr)
    return feeds


def _run(proto: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    import onnxruntime as ort

    so = ort.SessionOptions()
    # No onnxruntime graph optimizations: the unfolded model must compute every node itself.
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(proto.SerializeToString(), so,
                                providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def same_results(before: onnx.ModelProto, after: onnx.ModelProto, seeds=(0, 1, 2)) -> None:
    """Asserts both models give identical outputs (value, dtype, shape) on random inputs."""
    assert [o.name for o in before.graph.output] == [o.name for o in after.graph.output]
    for seed in seeds:
        feeds = random_feeds(before, seed)
        want = _run(before, feeds)
        got = _run(after, feeds)
        for name, w, g in zip([o.name for o in before.graph.output], want, got):
            assert g.dtype == w.dtype, f"{name}: dtype {g.dtype} != {w.dtype}"
            assert g.shape == w.shape, f"{name}: shape {g.shape} != {w.shape}"
            np.testing.assert_array_equal(g, w, err_msg=name)

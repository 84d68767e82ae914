"""Issue 16's shape items: ``np.squeeze(x)`` without axis exported with named dimensions
(``to_onnx`` with ``N``: kept, checked at run time) and output dimension names carried through
(``pyonnx convert examples/feature_scaling.py:scale_features`` prints ``[N,5]``)."""

from __future__ import annotations

import os

import numpy as np
import onnx
import onnxruntime
import pytest
from onnxruntime.capi.onnxruntime_pybind11_state import InvalidArgument

import pyonnx
from tests.test_cli import run_cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def squeeze_scaled(x):
    return np.squeeze(x) * 2


def squeeze_mask(x):
    return np.squeeze(x) > 0


def _dims(model, k=0):
    return [d.dim_param or d.dim_value for d in model.graph.output[k].type.tensor_type.shape.dim]


def _session(model):
    onnx.checker.check_model(model, full_check=True)
    return onnxruntime.InferenceSession(model.SerializeToString(),
                                        providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_squeeze_without_axis_exports_named_dims(dtype):
    f = pyonnx.compile(squeeze_scaled)
    model = f.to_onnx(pyonnx.spec(dtype, ("N", 1, 3)))
    assert _dims(model) == ["N", 3]
    sess = _session(model)
    for n in (2, 5, 0):
        x = np.arange(n * 3, dtype=dtype).reshape(n, 1, 3)
        (got,) = sess.run(None, {"x": x})
        want = squeeze_scaled(x)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    # N == 1: numpy's result has rank 1, the model's rank 2: the run fails, never a wrong shape
    with pytest.raises(InvalidArgument, match=r"squeeze_assumed_no_dimension_is_1"):
        sess.run(None, {"x": np.ones((1, 1, 3), dtype)})
    assert not f.static_shapes  # the call path keeps converting per shape, exactly
    x1 = np.ones((1, 1, 3), dtype)
    assert f(x1).shape == squeeze_scaled(x1).shape == (3,)


def test_squeeze_without_axis_bool_result_checked():
    model = pyonnx.compile(squeeze_mask).to_onnx(pyonnx.spec(np.float64, (1, "N")))
    sess = _session(model)
    x = np.array([[-1.0, 2.0, 0.0]])
    (got,) = sess.run(None, {"x": x})
    np.testing.assert_array_equal(got, squeeze_mask(x))
    with pytest.raises(InvalidArgument, match=r"squeeze_assumed_no_dimension_is_1"):
        sess.run(None, {"x": np.ones((1, 1))})


def test_squeeze_of_example_arrays_still_per_shape():
    # Example arrays can be made static: the model then has the example's shapes (exact).
    model = pyonnx.compile(squeeze_scaled).to_onnx(np.ones((1, 4, 1)))
    assert _dims(model) == [4]


def scale_features(x, counts):
    mean = x.mean(axis=0)
    z = (x - mean) / np.maximum(x.std(axis=0), 1e-6)
    return np.concatenate([np.clip(z, -3, 3), np.log1p(counts.astype(np.float32))[:, None]],
                          axis=1), z.sum(axis=1), counts[::2]


def test_output_dims_named_through_reductions_and_concat():
    model = pyonnx.compile(scale_features).to_onnx(pyonnx.spec(np.float32, ("N", 4)),
                                                   pyonnx.spec(np.int64, ("N",)))
    assert _dims(model, 0) == ["N", 5]
    assert _dims(model, 1) == ["N"]
    assert _dims(model, 2) == [0]  # counts[::2]: ceil(N / 2) is no input name: left unknown
    _session(model)


def test_cli_prints_named_output_dims(tmp_path):
    out = tmp_path / "fs.onnx"
    r = run_cli("convert", os.path.join(ROOT, "examples", "feature_scaling.py") +
                ":scale_features", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert "outputs concatenate: float32[N,5]" in r.output, r.output
    model = onnx.load(out)
    assert _dims(model) == ["N", 5]

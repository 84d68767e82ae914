"""The differential oracle of the scikit-learn tests: scikit-learn's method against onnxruntime.

``check_step(est, X)`` converts the fitted ``est`` with ``pyonnx.sklearn.to_onnx`` (the model
must pass ``check_model(full_check=True)``), runs it with onnxruntime on the first row of ``X``
and on all of it (one model), and compares each output with scikit-learn's own method on the
same rows: shape, dtype (unless ``dtype=False``) and values.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort

import pyonnx.sklearn

__all__ = ["check_step", "run"]


def run(model, X):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {sess.get_inputs()[0].name: X})


def _tolerance(dtype):
    return (2e-4, 2e-4) if dtype == np.float32 else (1e-9, 1e-9)


def check_step(est, X, methods=("transform",), dtype=True, rtol=None, atol=None, **options):
    """Asserts onnxruntime's outputs equal ``est.<method>(rows)`` for 1 row and all rows."""
    model = pyonnx.sklearn.to_onnx(est, X[:1], **options)
    onnx.checker.check_model(model, full_check=True)
    default_rtol, default_atol = _tolerance(X.dtype)
    for rows in (X[:1], X):
        outs = run(model, rows)
        assert len(outs) == len(methods), (len(outs), methods)
        for got, method in zip(outs, methods):
            want = np.asarray(getattr(est, method)(rows))
            if dtype:
                assert got.dtype == want.dtype, (method, got.dtype, want.dtype)
            if got.shape != want.shape and got.size == want.size:
                got = got.reshape(want.shape)  # skl2onnx's regressors return (N, 1)
            assert got.shape == want.shape, (method, got.shape, want.shape)
            np.testing.assert_allclose(got, want, rtol=rtol or default_rtol,
                                       atol=atol or default_atol, err_msg=method)
    return model

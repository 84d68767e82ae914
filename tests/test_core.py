"""End-to-end checks of the core pipeline: promotion, signatures, static arguments, outputs."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from tests.oracle import check


def scale_shift(x, y):
    """Scaled sum."""
    z = x * 2.0 + y
    z += 1
    return z, x.shape[0] * 3


def test_straight_line_and_tuple_outputs():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    f = check(scale_shift, x, np.ones(3, np.float32))
    # Same signature, other sizes: one model, no new conversion.
    check(f, np.ones((5, 3), np.float32), np.ones(3, np.float32))
    assert f.conversions == 1


def test_docstring_and_names():
    x = np.ones((2, 3), np.float32)
    m = pyonnx.compile(scale_shift).to_onnx(x, pyonnx.spec("float32", (3,)))
    assert m.doc_string == "Scaled sum."
    assert [i.name for i in m.graph.input] == ["x", "y"]
    assert m.graph.output[0].name == "z"
    assert all("_L" in n.name for n in m.graph.node)


def weak_promotion(a, s):
    return a * s, a * 1.5, a / 2


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8", "float16", "float32", "float64"])
def test_nep50_weak_scalars(dtype):
    a = np.arange(5).astype(dtype)
    check(weak_promotion, a, 3)


def uses_axis(x, k):
    return x.shape[0] * k + x


def test_python_scalar_argument_stays_dynamic():
    f = check(uses_axis, np.ones(3), 2)
    check(f, np.ones(3), 5)
    assert f.conversions == 1


def static_flag(x, flag):
    if flag:
        return x + 1
    return x - 1


def test_python_flag_becomes_static_automatically():
    f = pyonnx.compile(static_flag)
    check(f, np.ones(3), True)
    check(f, np.ones(3), False)
    assert "flag" in f.static_argnames
    assert f.conversions == 2


def test_deterministic_bytes():
    x = np.ones((2, 3), np.float32)
    a = pyonnx.compile(scale_shift).to_onnx(x, x[0]).SerializeToString(deterministic=True)
    b = pyonnx.compile(scale_shift).to_onnx(x, x[0]).SerializeToString(deterministic=True)
    assert a == b


def test_checker_full():
    m = pyonnx.compile(scale_shift).to_onnx(pyonnx.spec("float64", ("N", 3)), pyonnx.spec("float64", (3,)))
    onnx.checker.check_model(m, full_check=True)

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


def static_axis(x, axis):
    return x.shape[axis] * x


def test_cache_is_bounded_and_storm_logged(caplog):
    f = pyonnx.compile(static_axis, static_argnames="axis", cache_size=2)
    x = np.ones((2, 3, 4))
    with caplog.at_level("WARNING", logger="pyonnx.api"):
        for _ in range(6):  # 3 distinct signatures, 16 conversions would warn
            for axis in (0, 1, 2):
                check(f, x, axis)
    assert len(f._cache) <= 2
    assert f.conversions >= 16
    assert any("converted 16 times" in r.message for r in caplog.records)


def test_import_is_light():
    import subprocess
    import sys

    code = ("import sys, pyonnx; "
            "print(sorted(m for m in ('onnx_ir', 'onnxscript', 'sympy', 'onnxruntime') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def returns_inputs(x, y):
    return y, x, x


def test_outputs_that_are_inputs_get_their_own_names():
    x, y = np.ones(2), np.zeros(3, np.int32)
    f = check(returns_inputs, x, y)
    names = [o.name for o in f.to_onnx(x, y).graph.output]
    assert len(set(names)) == 3 and not {"x", "y"} & set(names)


def add_python_bool(x, flag):
    return x + True, x - flag, x * False


@pytest.mark.parametrize("dtype", ["int8", "uint8", "float32"])
def test_python_bool_promotes_as_numpy(dtype):
    check(add_python_bool, np.arange(4).astype(dtype), True)


def matmul_star(a, b):
    return a * b


def test_ndarray_subclasses_refused():
    m = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(pyonnx.ConversionError, match="matrix"):
        pyonnx.compile(matmul_star)(m, m)


def index_with(x, idx):
    return x[idx]


def test_unhashable_static_arguments_are_keyed_by_value():
    f = pyonnx.compile(index_with, static_argnames="idx")
    x = np.arange(10.0)
    check(f, x, (slice(1, None), ))
    check(f, x, [1, 2])
    check(f, x, [3, 4])  # an equal-length list with other values: a new signature
    assert f.conversions == 3


def _lse(v):
    return np.log(np.sum(np.exp(v)))


def named_outputs(x):
    v1 = x + 1
    return v1, _lse(x), x.mean(), x.T


def test_output_names_follow_the_source():
    x = np.ones((2, 3))
    f = check(named_outputs, x)
    names = [o.name for o in f.to_onnx(x).graph.output]
    assert names == ["v1_out", "_lse", "mean", "T"]


def reduce_along(x, axis, scale):
    return x.sum(axis=axis) * scale


def test_python_int_axis_becomes_static_but_scale_does_not():
    f = pyonnx.compile(reduce_along)
    x = np.arange(6.0).reshape(2, 3)
    for axis in (0, 1, -1):
        for scale in (2.0, 3.5):
            check(f, x, axis, scale)
    assert f.static_argnames == {"axis"}
    assert f.conversions == 3  # one per axis value; scale stays a run-time input


def shape_heavy(x, w):
    n = x.shape[0]
    return (x @ w).sum(axis=0) / n


def test_static_shapes_one_model_per_shape_and_fewer_nodes():
    x, w = np.ones((4, 3)), np.arange(6.0).reshape(3, 2)
    c = check(pyonnx.compile(shape_heavy, static_shapes=True), x, w)
    check(c, x, w + 1)
    assert c.conversions == 1
    check(c, np.ones((5, 3)), w)
    assert c.conversions == 2
    fixed = c.to_onnx(x, w)
    assert [d.dim_value for d in fixed.graph.input[0].type.tensor_type.shape.dim] == [4, 3]
    assert len(fixed.graph.node) < len(pyonnx.compile(shape_heavy).to_onnx(x, w).graph.node)
    g = pyonnx.grad(pyonnx.compile(sum_of_products, static_shapes=True), argnums=1)
    assert g.static_shapes
    np.testing.assert_allclose(g(x, w), x.sum(axis=0)[:, None] * np.ones((1, 2)))


def sum_of_products(x, w):
    return (x @ w).sum()

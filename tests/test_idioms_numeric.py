"""The numeric idiom rewrites (pyonnx/passes/idiom_numeric.py): softmax → Softmax, x ** 2 →
x * x; each fires on the form people write, keeps numpy's results (differential, through
tests/oracle.py), and stays away from look-alikes whose results would differ."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pyonnx
from pyonnx.passes.remove_unused import RemoveUnusedPass
from pyonnx.passes.rewrite_idioms import RewriteIdiomsPass
from tests.oracle import check, op_types
from tests.passes.helpers import checked, model, ops


# ---------------------------------------------------------------- softmax
def softmax(x):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def softmax_axis0(x):
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def softmax_middle(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def softmax_also_returns_e(x):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=-1, keepdims=True), e


def nan_columns_max(x):
    # Looks like softmax, but the max is NaN in every row of a column holding a NaN.
    m = np.where(np.isnan(x).any(axis=0, keepdims=True), np.nan,
                 x.max(axis=1, keepdims=True))
    e = np.exp(x - m)
    return e / np.sum(e, axis=1, keepdims=True)


def other_axes(x):
    e = np.exp(x - np.max(x, axis=0, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


def _special_rows(rng, shape):
    x = rng.normal(size=shape).astype(np.float32) * 5
    x[1, 0] = np.nan          # a NaN row
    x[2, -1] = np.inf         # a +inf row
    x[3] = -np.inf            # an all -inf row
    x[4, 0] = -np.inf         # one -inf among finite values
    return x


@pytest.mark.parametrize("fn", [softmax, softmax_axis0])
@pytest.mark.parametrize("shape", [(6, 5), (5, 1), (6, 300)])
def test_softmax_keeps_numpys_results(fn, shape):
    rng = np.random.default_rng(sum(shape))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(fn, _special_rows(rng, shape))
        check(fn, rng.normal(size=shape).astype(np.float32) * 30)
    assert "Softmax" in op_types(pyonnx.compile(fn), rng.normal(size=shape).astype(np.float32))


def test_softmax_on_a_middle_axis_and_3d():
    x = np.random.default_rng(1).normal(size=(3, 4, 5)).astype(np.float32)
    check(softmax_middle, x)
    check(softmax, x)
    assert "Softmax" in op_types(pyonnx.compile(softmax_middle), x)


def test_softmax_empty_arrays_raise_or_return_as_numpy():
    # Empty along another axis than the softmax's: an empty result, as numpy's.
    check(softmax, np.zeros((0, 3), np.float32))
    check(softmax_axis0, np.zeros((3, 0), np.float32))
    # Empty along the softmax axis: numpy's max raises, so must the rewritten model (the
    # Softmax alone would return an empty array), at the np.max line as without the rewrite.
    for fn, x in ((softmax, np.zeros((3, 0), np.float32)), (softmax, np.zeros((0, 0), np.float32)),
                  (softmax_axis0, np.zeros((0, 3), np.float32))):
        with pytest.raises(ValueError, match="zero-size array"):
            fn(x)
        f = pyonnx.compile(fn)
        with pytest.raises(pyonnx.errors.ExecutionError, match="empty set") as info:
            f(x)
        assert "max(" in str(info.value)
        assert "Softmax" in op_types(f, x)


def test_softmax_only_float32():
    x = np.random.default_rng(2).normal(size=(4, 6))
    check(softmax, x)  # float64: onnxruntime's Softmax is slower than the composed graph
    assert "Softmax" not in op_types(pyonnx.compile(softmax), x)
    check(softmax, x.astype(np.float16))


def test_softmax_look_alikes_are_left_alone():
    rng = np.random.default_rng(3)
    x = _special_rows(rng, (6, 4))
    x[0, 2] = np.nan  # a NaN in column 2: every row of nan_columns_max is NaN there
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for fn in (nan_columns_max, other_axes, softmax_also_returns_e):
            check(fn, x)
            assert "Softmax" not in op_types(pyonnx.compile(fn), x), fn.__name__


def test_softmax_pattern_on_onnx_text():
    text = """g (float[N,M] x) => (float[N,M] y)
    <int64[1] ax = {1}>{
        m = ReduceMax <keepdims = 1> (x, ax)
        d = Sub (x, m)
        e = Exp (d)
        s = ReduceSum <keepdims = 1> (e, ax)
        y = Div (e, s)
    }"""
    m = model(text)
    before = checked(m)
    assert RewriteIdiomsPass()(m).modified
    RemoveUnusedPass()(m)
    checked(m)
    assert ops(m) == ["Softmax"]
    import onnxruntime as ort

    x = np.random.default_rng(4).normal(size=(7, 9)).astype(np.float32) * 10
    want = ort.InferenceSession(before.SerializeToString()).run(None, {"x": x})[0]
    got = ort.InferenceSession(ir_bytes(m)).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=8 * np.finfo(np.float32).eps,
                               atol=8 * np.finfo(np.float32).eps)


def test_softmax_pattern_needs_a_float64_widening():
    # Cast to int32 before the sum truncates: not a softmax.
    text = """g (float[N,M] x) => (float[N,M] y)
    <int64[1] ax = {1}>{
        m = ReduceMax <keepdims = 1> (x, ax)
        d = Sub (x, m)
        e = Exp (d)
        w = Cast <to = 6> (e)
        s = ReduceSum <keepdims = 1> (w, ax)
        n = Cast <to = 1> (s)
        y = Div (e, n)
    }"""
    m = model(text)
    assert not RewriteIdiomsPass()(m).modified
    m = model(text.replace("<to = 6>", "<to = 11>"))
    assert RewriteIdiomsPass()(m).modified


def ir_bytes(m) -> bytes:
    import onnx_ir as ir

    return ir.to_proto(m).SerializeToString()


# ---------------------------------------------------------------- x ** 2
def square_float(x):
    return x ** 2.0


def square_power_call(x):
    return np.power(x, 2) + np.sum(x ** 2.0)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("n", [0, 1, 9])
def test_square_power_is_numpys_square(dtype, n):
    rng = np.random.default_rng(n)
    x = (rng.normal(size=n) * 100).astype(dtype)
    if n:
        x[0] = np.inf if n > 1 else -0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(square_float, x, rtol=0, atol=0)
        check(square_power_call, x)
        check(rosenbrock, x)
    assert "Pow" not in op_types(pyonnx.compile(square_float), x)
    # the squared values come out of Slice/Sub (intermediates without a declared type: the
    # element type is followed through them)
    assert "Pow" not in op_types(pyonnx.compile(rosenbrock), x)


def int_powers(x, e):
    return (x[1:] - x[:-1]) ** 2 + x[1:] ** e


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_powers_keep_numpys_results(dtype):
    x = np.array([3, -4, 2**20, 7], dtype)
    check(int_powers, x, dtype(2))
    check(int_powers, x[:0], dtype(3))


def test_square_power_of_a_0d_value_by_a_1d_exponent_keeps_its_shape():
    text = """g (float x) => (float[1] y)
    <float[1] two = {2}>{
        y = Pow (x, two)
    }"""
    m = model(text)
    checked(m)
    assert not RewriteIdiomsPass()(m).modified
    text = """g (float[N] x) => (float[N] y)
    <float[1] two = {2}, float three = {3}>{
        y = Pow (x, two)
        z = Pow (x, three)
    }"""
    m = model(text)
    assert RewriteIdiomsPass()(m).modified
    RemoveUnusedPass()(m)
    assert ops(m) == ["Mul"]

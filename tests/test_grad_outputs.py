"""grad, value_and_grad, vjp and jacobian of functions whose result comes out of run-time control
flow: straight out of an ``if`` or a loop, a Python float on the paths that run a loop 0 times
and a numpy float on the others (a "pyleaf" result), and a possibly-None result (a "maybe"),
which every transform refuses at the return line. The oracle is central finite differences of
the plain function run by numpy (tests/test_grad.py ``numeric_grad``)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from tests.test_grad import numeric_grad


def returned_by_if(x, w):
    if np.sum(x) > 1.0:
        return np.sum(np.sin(w) * x)
    return np.sum(x * w * w)


def accumulated(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + w[i] * w[i] * x[i]
    return s


def accumulated_times_one(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s = s + np.cosh(w[i])
    return s * 1.0


def array_by_if(x, w):
    if np.sum(x) > 1.0:
        return w * x
    return np.tanh(w)


def best_or_none(x, w):
    best = None
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            best = np.sum(w) * x[i]
    return best


def none_or_sum(x, w):
    if np.sum(x) > 1.0:
        return None
    return np.sum(w * x)


def pair_with_maybe(x, w):
    best = None
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            best = np.sum(w)
    return np.sum(x * w), best


BIG = (np.array([0.6, 0.2, 0.9]), np.array([0.1, -0.2, 0.3]))
SMALL = (np.array([0.3, -0.4]), np.array([0.5, 0.7]))
EMPTY = (np.zeros(0), np.zeros(0))


def _fd(fn, args, k):
    return numeric_grad(fn, [a.copy() for a in args], k)


@pytest.mark.parametrize("fn", [returned_by_if, accumulated, accumulated_times_one])
@pytest.mark.parametrize("args", [BIG, SMALL, EMPTY], ids=["big", "small", "empty"])
def test_scalar_result_out_of_control_flow(fn, args):
    want = fn(*args)
    vg = pyonnx.value_and_grad(fn, 1)
    value, gw = vg(*args)
    assert float(value) == pytest.approx(float(want), rel=1e-12, abs=1e-15)
    assert isinstance(value, np.float64)  # a transformed function returns numpy values
    np.testing.assert_allclose(gw, _fd(fn, args, 1), rtol=1e-6, atol=1e-8)
    gx, gw2 = pyonnx.grad(fn, (0, 1))(*args)
    np.testing.assert_allclose(gx, _fd(fn, args, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw2, gw, rtol=1e-12)
    value2, (gx2, gw3) = pyonnx.value_and_grad(fn, (0, 1))(*args)
    assert float(value2) == pytest.approx(float(want), rel=1e-12, abs=1e-15)
    np.testing.assert_allclose(gx2, gx, rtol=1e-12)
    out, back = pyonnx.vjp(fn, *args)
    assert float(out) == pytest.approx(float(want), rel=1e-12, abs=1e-15)
    cx, cw = back(np.float64(2.0))
    np.testing.assert_allclose(cx, 2.0 * gx, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(cw, 2.0 * gw, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(pyonnx.jacobian(fn, 1)(*args), gw, rtol=1e-12, atol=1e-15)
    model = onnx.load_from_string(vg._last.model)
    onnx.checker.check_model(model, full_check=True)


def test_python_float_result_of_a_loop_that_ran_0_times():
    """numpy returns the Python float 0.0 when the loop runs 0 times, a numpy float after it
    ran: the model's flag output says which, and the transforms drop it."""
    assert type(accumulated(*EMPTY)) is float and type(accumulated(*BIG)) is np.float64
    assert type(pyonnx.compile(accumulated)(*EMPTY)) is float
    value, g = pyonnx.value_and_grad(accumulated, 1)(*EMPTY)
    assert value == 0.0 and g.shape == (0,) and g.dtype == np.float64
    vg = pyonnx.value_and_grad(accumulated, 1)
    vg(*EMPTY)
    model = onnx.load_from_string(vg._last.model)
    assert len(model.graph.output) == 2  # the value and the gradient, no flag


def test_hessian_through_a_loop_with_a_python_float_start():
    x, w = BIG
    got = pyonnx.jacobian(pyonnx.grad(accumulated, 1), 1)(x, w)
    np.testing.assert_allclose(got, np.diag(2.0 * x), rtol=1e-12)
    got = pyonnx.jacobian(pyonnx.grad(accumulated, 1), 1)(*EMPTY)
    assert got.shape == (0, 0)


@pytest.mark.parametrize("args", [BIG, SMALL], ids=["if", "else"])
def test_array_result_out_of_an_if(args):
    x, w = args
    jac = pyonnx.jacobian(array_by_if, 1)(x, w)
    want = np.stack([_fd(lambda x, w, i=i: array_by_if(x, w)[i], args, 1) for i in range(x.size)])
    np.testing.assert_allclose(jac, want, rtol=1e-6, atol=1e-8)
    out, back = pyonnx.vjp(array_by_if, x, w)
    np.testing.assert_allclose(out, array_by_if(x, w), rtol=1e-12)
    ct = np.linspace(-1.0, 1.0, x.size)
    np.testing.assert_allclose(back(ct)[1], ct @ want, rtol=1e-6, atol=1e-8)


def _return_line(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, ln in enumerate(lines) if ln.strip().startswith(text))


@pytest.mark.parametrize("fn, line", [(best_or_none, "return best"),
                                      (none_or_sum, "return np.sum(w * x)"),
                                      (pair_with_maybe, "return np.sum(x * w), best")])
@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "vjp", "jacobian", "hessian"])
def test_possibly_none_result_is_refused_at_the_return_line(fn, line, transform):
    x, w = BIG
    calls = {
        "grad": lambda: pyonnx.grad(fn, 1)(x, w),
        "value_and_grad": lambda: pyonnx.value_and_grad(fn, 1)(x, w),
        "vjp": lambda: pyonnx.vjp(fn, x, w)[1](np.float64(1.0)),
        "jacobian": lambda: pyonnx.jacobian(fn, 1)(x, w),
        "hessian": lambda: pyonnx.jacobian(pyonnx.grad(fn, 1), 1)(x, w),
    }
    if fn is pair_with_maybe and transform == "vjp":
        calls["vjp"] = lambda: pyonnx.vjp(fn, x, w)[1]((np.float64(1.0), np.float64(1.0)))
    with pytest.raises(pyonnx.ConversionError) as info:
        calls[transform]()
    err = info.value
    if fn is none_or_sum:  # compile refuses it already (None or a 0-d array at the join)
        assert "None" in str(err)
    elif fn is pair_with_maybe and transform != "vjp":  # the tuple refusal comes first
        assert "may return None" in str(err) or "returns a tuple" in str(err) or \
            "not a tuple" in str(err)
    else:
        assert "may return None" in str(err) and "return a number on every path" in str(err)
    assert err.filename == __file__
    assert err.lineno == _return_line(fn, line)
    assert "^" in str(err)


def vector(x):
    return x * 2.0


def pair(x):
    return np.sum(x), x


def test_output_refusals_of_transforms_point_at_the_return():
    x = np.array([0.5, 1.0])
    cases = [(lambda: pyonnx.grad(vector)(x), vector, "return x * 2.0", "scalar output"),
             (lambda: pyonnx.grad(pair)(x), pair, "return np.sum(x), x", "returns a tuple"),
             (lambda: pyonnx.jacobian(pair)(x), pair, "return np.sum(x), x", "not a tuple"),
             (lambda: pyonnx.grad(pyonnx.grad(accumulated, 1), 1)(*BIG), accumulated,
              "return s", "scalar output")]
    for call, fn, line, words in cases:
        with pytest.raises(pyonnx.ConversionError, match=words) as info:
            call()
        assert info.value.lineno == _return_line(fn, line), str(info.value)

"""Gradient regressions (issue 19 items 1, 2, 6) and hand-written adversarial cases: grad,
value_and_grad, vjp, jacobian and Hessians (jacobian of grad) against central finite
differences, run-time loops of 0, 1 and more iterations, branches taken both ways.

The kernels live in tests/grad_regression_kernels.py. Integer arguments are 0-d arrays (a
Python int whose value the conversion needs would become static and unroll the loop).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from tests import grad_regression_kernels as K
from tests.test_grad_table import finite_differences


def _floats(args, argnums):
    return [k for k in argnums if isinstance(args[k], np.ndarray) and args[k].dtype.kind == "f"]


def check(fn, argsets, argnums=(0, 1), *, hessian: bool = False, rtol=1e-6):
    """grad, value_and_grad, vjp and jacobian of the scalar function ``fn`` on each argument
    tuple (one compiled model per transform) against finite differences; with ``hessian``,
    ``jacobian(grad(fn))`` against finite differences of the gradient model too."""
    g = pyonnx.grad(fn, argnums=argnums)
    vg = pyonnx.value_and_grad(fn, argnums=argnums)
    jac = pyonnx.jacobian(fn, argnums=argnums)
    vrtol = 1e-12 if rtol < 1e-5 else rtol     # float32: values rounded to float32
    for args in argsets:
        got = g(*args)
        for k, value in zip(argnums, got):
            want, scale = finite_differences(fn, args, k)
            like = args[k] if isinstance(args[k], np.ndarray) else np.float64(args[k])
            assert value.dtype == like.dtype and value.shape == like.shape
            np.testing.assert_allclose(value, want, rtol=rtol, atol=rtol * scale,
                                       err_msg=f"{fn.__name__} d/d arg {k}")
        value, grads = vg(*args)
        np.testing.assert_allclose(value, fn(*args), rtol=vrtol)
        for a, b in zip(grads, got):
            np.testing.assert_allclose(a, b, rtol=vrtol, atol=1e-300)
        for a, b in zip(jac(*args), got):
            np.testing.assert_allclose(a, b, rtol=vrtol, atol=1e-300)
        out, vjp_fn = pyonnx.vjp(fn, *args)
        np.testing.assert_allclose(out, fn(*args), rtol=vrtol)
        cts = vjp_fn(np.float64(0.75))
        for k in _floats(args, range(len(args))):
            if k in argnums:
                np.testing.assert_allclose(cts[k], 0.75 * got[argnums.index(k)], rtol=vrtol,
                                           atol=1e-300)
        if hessian:
            for k in argnums:
                gk = pyonnx.grad(fn, argnums=k)
                h = pyonnx.jacobian(gk, argnums=k)(*args)
                rows = [finite_differences(lambda *a: gk(*a)[i], args, k)[0]
                        for i in np.ndindex(args[k].shape)]
                want = np.stack(rows) if rows else np.zeros((0, *args[k].shape))
                np.testing.assert_allclose(h.reshape(want.shape), want, rtol=1e-5,
                                           atol=1e-5 * max(1.0, np.max(np.abs(want), initial=0.0)))
    for t in (g, vg, jac):
        onnx.checker.check_model(onnx.load_from_string(t._last.model), full_check=True)


def n(k):
    return np.array(k)


X3 = np.array([0.3, 0.5, 0.4])
W3 = np.array([0.1, 0.7, -0.4])


# ---------------------------------------------------------------- item 1
def test_issue19_cosh_in_loop():
    got = pyonnx.grad(K.cosh_in_loop, argnums=1)(X3, W3)
    np.testing.assert_allclose(got, 4.5 * np.sinh(W3), rtol=1e-12)   # was [0, 0, 0]
    check(K.cosh_in_loop, [(X3, W3), (X3[:0], W3), (X3[:1], W3)], hessian=True)


def test_issue19_hypot_over_rows_and_in_branch():
    x = np.array([[0.3, -0.5, 0.4], [0.2, 0.9, -0.7]])
    check(K.hypot_over_rows, [(x, W3), (x[:1], W3), (x[:0], W3)], hessian=True)
    got = pyonnx.grad(K.hypot_in_branch, argnums=1)(X3, W3)
    np.testing.assert_allclose(got, 1.0 + 0.4 / np.hypot(0.4, 0.5), rtol=1e-12)  # was 1.0
    check(K.hypot_in_branch, [(X3, W3), (X3 + 100.0, W3)], hessian=True)


def test_issue19_composites_in_loop_and_branch():
    w = np.array([0.6, 1.3, 0.8])
    check(K.composites_in_loop, [(X3, w, n(0)), (X3, w, n(1)), (X3, w, n(3))], hessian=True)
    check(K.composites_in_branch, [(X3, w), (-X3, w)], hessian=True)


# ---------------------------------------------------------------- item 2
def test_issue19_arctan2_of_item_assigned_zero():
    x, w = np.array([.3, .5, .4, .8]), np.array([.4, .2, 0, -.6])
    gx, gw = pyonnx.grad(K.arctan2_item_assigned, argnums=(0, 1))(x, w)
    np.testing.assert_allclose(gx, [0.0, -0.2 / 0.29, 0.0, 0.6], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(gw, [0.0, 0.5 / 0.29, 2.5, 0.8], rtol=1e-12)
    check(K.arctan2_item_assigned, [(x, w)], hessian=True)
    check(K.arctan2_zero_denominator, [(x, w)], hessian=True)
    check(K.arctan2_item_assigned_in_loop, [(x, w, n(0)), (x, w, n(1)), (x, w, n(3))],
          hessian=True)


# ---------------------------------------------------------------- item 6
@pytest.mark.parametrize("kernel", [K.array_loop_in_branch, K.growing_loop_in_branch,
                                    K.array_loop_in_branch_in_loop], ids=lambda f: f.__name__)
def test_issue19_array_loop_in_branch(kernel):
    rng = np.random.default_rng(19)
    x, w = rng.uniform(0.5, 1.5, (3, 4)), rng.uniform(0.5, 1.5, (2, 4))
    argsets = [(x, w, n(0)), (x, w, n(1)), (x, w, n(3)), (-x, -w, n(2))]
    check(kernel, argsets)
    check(kernel, [(x.astype(np.float32), w.astype(np.float32), n(2))], rtol=2e-3)


def test_second_derivative_through_a_loop_of_unproven_state_shape():
    # The loop in the branch records its state in an ONNX sequence for the gradient (its shape
    # is not known to stay fixed), which has no VJP rule; a gradient that is differentiated
    # again records it stacked instead (checked at run time to keep its shape): the Hessian
    # equals second-order finite differences of numpy's function (it was refused).
    rng = np.random.default_rng(19)
    x, w = rng.uniform(0.5, 1.5, (3, 4)), rng.uniform(0.5, 1.5, (2, 4))
    h = pyonnx.jacobian(pyonnx.grad(K.square_loop_in_branch, argnums=1), argnums=1)
    got = h(x, w, n(2))
    eps, want = 1e-4, np.zeros(w.shape + w.shape)
    f = K.square_loop_in_branch
    for p in np.ndindex(w.shape):
        for q in np.ndindex(w.shape):
            acc = 0.0
            for sp, sq, sign in ((eps, eps, 1), (eps, -eps, -1), (-eps, eps, -1), (-eps, -eps, 1)):
                a = w.copy()
                a[p] += sp
                a[q] += sq
                acc += sign * f(x, a, n(2))
            want[p + q] = acc / (4 * eps * eps)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- adversarial
def test_early_return_inside_loop():
    x = np.array([[0.2, 0.1], [0.9, 0.8], [1.5, 1.2]])
    w = np.array([0.7, 0.6])
    # returns at row 1, row 2, or after the loop
    check(K.early_return_in_loop, [(x, w), (x * [[1], [0.5], [1]], w), (x * 0.2, w)],
          hessian=True)


def test_item_assignment_in_loop():
    x = np.array([[0.2, -0.1], [0.9, 0.8], [-1.5, 1.2]])
    check(K.item_assignment_in_loop, [(x, np.array([0.7, -0.6])), (x[:1], np.array([0.7, 0.6])),
                                      (x[:0], np.array([0.7, 0.6]))], hessian=True)


def test_while_with_data_dependent_trip_count():
    x = np.array([[0.2, -0.1], [0.4, 0.3]])
    # 0 trips (already >= 20), a few trips
    check(K.while_data_dependent, [(x * 4.0, np.array([0.3, 0.2])),
                                   (x, np.array([0.3, 0.2]))], hessian=True)


RNG_X = np.random.default_rng(5).uniform(-1.0, 1.0, (3, 4))
RNG_W = np.random.default_rng(6).uniform(0.3, 1.2, 4)


def test_while_in_branch_in_for():
    x, w = RNG_X, RNG_W
    check(K.while_in_branch_in_for, [(x, w, n(0)), (x, w, n(1)), (x, w, n(3)),
                                     (-np.abs(x), w, n(2))])


def test_break_and_continue_with_composites():
    x, w = RNG_X, RNG_W
    # argnums in reverse order
    check(K.break_with_composites, [(x, w), (np.abs(x) * 3.0, w), (x[:0], w)], argnums=(1, 0))
    check(K.continue_in_loop, [(x, w), (-np.abs(x), w)])


def test_triangular_nested_loops():
    check(K.triangular_nested, [(RNG_X, RNG_W, n(k)) for k in (0, 1, 2, 3)], hessian=True)


def test_item_assignment_of_composites_in_branch_in_loop():
    x, w = RNG_X, RNG_W
    check(K.setitem_composite_in_branch_in_loop, [(x, w), (x[:1], w), (x[:0], w)],
          hessian=True)


def test_python_float_argument_in_loop():
    check(K.scalar_argument_in_loop, [(np.abs(RNG_X), 0.7, n(0)), (np.abs(RNG_X), 0.7, n(2))])


def test_swapped_states():
    # (No Hessian: the states mix x's and w's symbolic sizes, so the loop's gradient records
    # them in a sequence, and second derivatives through it are refused.)
    check(K.two_states_swapped, [(RNG_X[0], RNG_W, n(k)) for k in (0, 1, 3)])


@pytest.mark.parametrize("trips", [0, 1, 3])
def test_jacobian_and_vjp_of_vector_out_of_loop(trips):
    x, w = RNG_X[0], RNG_W
    args = (x, w, n(trips))
    ja, jb = pyonnx.jacobian(K.vector_out_of_loop, argnums=(0, 1))(*args)
    for k, jac in ((0, ja), (1, jb)):
        rows = [finite_differences(lambda *a: K.vector_out_of_loop(*a)[i], args, k)[0]
                for i in range(4)]
        np.testing.assert_allclose(jac, np.stack(rows), rtol=1e-6, atol=1e-8)
    out, vjp_fn = pyonnx.vjp(K.vector_out_of_loop, *args)
    np.testing.assert_allclose(out, K.vector_out_of_loop(*args), rtol=1e-12)
    ct = np.array([0.3, -1.2, 0.7, 0.25])
    gx, gw, gn = vjp_fn(ct)
    assert gn is None
    np.testing.assert_allclose(gx, ct @ ja, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(gw, ct @ jb, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("trips", [0, 1, 3])
def test_grad_of_grad_through_composites_in_loop(trips):
    g = pyonnx.grad(K.scalar_composite_loop)
    gg = pyonnx.grad(g)
    for a in (0.7, np.float64(-0.4)):
        want, _ = finite_differences(K.scalar_composite_loop, (a, n(trips)), 0)
        np.testing.assert_allclose(g(a, n(trips)), want, rtol=1e-6)
        e = 1e-5
        want2 = (g(a + e, n(trips)) - g(a - e, n(trips))) / (2 * e)
        np.testing.assert_allclose(gg(a, n(trips)), want2, rtol=1e-5, atol=1e-8)

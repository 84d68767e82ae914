"""Gradient regressions from the fuzzer's grad mode (issue 19): each program is the minimized
one or a family written from it; gradients and Hessians (``jacobian(grad(f))``) against central
finite differences (tests/test_grad_regressions.py ``check``).
"""

from __future__ import annotations

import numpy as np

import pyonnx

from tests.test_grad_regressions import check


# ---------------------------------------------------------------------------------------------
# Seed 960032: the Hessian of a function whose loop runs behind an early return crashed (a Loop
# of the second derivative read a value of the forward branch, out of scope: ValidationError).
# The first derivative's If VJP exported the branch values its VJP reads as outputs of the
# forward If and rewired the VJP's inputs, but not the composite marks (np.arctan2, np.cosh are
# built from many nodes and marked with their inputs), which the second derivative follows.
def early_return_then_composites_in_loop(x, w):
    t2 = w[0:-1]
    t3 = np.sin(t2)
    if t2.shape[0] > 2.87:
        return np.sum(t3)
    x = np.log(x * x + 0.5)
    for i in range(x.shape[0]):
        w = np.arctan2(x, w * w + 0.5)
        w = np.cosh(0.5 * w)
    return np.sum(w) + np.sum(x)


def branch_then_composite_in_loop(x, w):
    if np.sum(x) > 2.0:
        return np.sum(w * w)
    x = np.log(x)
    for i in range(x.shape[0]):
        w = np.arctan2(x, w)
        w = np.cosh(w)
    return np.sum(w)


def test_hessian_of_composites_in_a_loop_behind_an_early_return():
    x3, w3 = np.array([0.1, 0.07, -0.43]), np.array([-0.85, 0.31, 0.14])
    x4, w4 = np.array([0.42, 0.04, 0.24, -0.73]), np.array([0.91, 0.13, 0.86, -0.48])
    check(early_return_then_composites_in_loop, [(x3, w3), (x4, w4)], hessian=True)
    x, w = np.array([0.3, 0.5, 0.4]), np.array([-0.85, 0.31, 0.14])
    check(branch_then_composite_in_loop, [(x, w), (x + 1.0, w)], hessian=True)


# ---------------------------------------------------------------------------------------------
# Seed 42000176: the Hessian of a MatMul inside a loop behind a run-time check was refused ("the
# gradient of MatMul needs the rank of its operand"). The first derivative's Loop records the
# shape of the MatMul's result per iteration (Squeeze's VJP reshapes back to it), but the record
# had no length (Shape's result untyped), and the If around the loop merged it with an empty
# (0, 0) placeholder: the Reshape to the gathered shape lost its rank for the second pass.
def matmul_in_a_loop_after_a_check(x, w):
    n = x.shape[-1] - 1
    assert n >= 0, f"n is {n}"
    k = 0
    while k < 3:
        k += 1
        t = x @ x
        if w.max() < 0.84:
            return np.sum(x) + np.sum(t) * np.sum(w * w)
    return np.sum(w) + np.sum(x)


def test_hessian_of_a_matmul_in_a_loop_behind_a_check():
    x, w = np.array([-0.51, 0.86]), np.array([-0.01, -0.07])
    check(matmul_in_a_loop_after_a_check, [(x, w), (x, w + 1.0), (x[:1], w[:1])], hessian=True)
    # d2/dx2 of sum(x) + (x @ x) * sum(w * w) = 2 * sum(w * w) * I
    h = pyonnx.jacobian(pyonnx.grad(matmul_in_a_loop_after_a_check))(x, w)
    np.testing.assert_allclose(h, 2 * np.sum(w * w) * np.eye(2), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# Grad seed 29008207: the Hessian was twice the true one (a wrong second derivative, silently).
# The loop's state starts as the argument itself and the body also reads the argument (a slice
# of it, not hoisted). Differentiated again, the first derivative records such a state after
# each iteration and reads iteration 0's from the initial value; the backward walk went on
# through that read into the captured argument, so iteration 0's cotangent reached it twice
# (carried to the initial value, and as a capture).
def seed_29008207(x, w):
    t12 = x[:]
    for i14 in range(x.shape[0]):
        t12 = np.cbrt(t12 * t12 + 0.5)
        t12[1:3] = x.reshape(-1)[np.argmax(x)]
    return np.sum(x) + np.sum(t12)


def state_from_the_argument_and_a_slice_of_it(x, w):
    t = x * 1.0
    for i in range(x.shape[0] - 1):
        t = t * t * t + x[1:2] * w[0]
    return np.sum(t)


def slice_of_the_state_plus_the_argument(x, w):
    t = x
    for i in range(x.shape[0] - 1):
        t = np.cbrt(t)
        t = t[:1] + x[1:] * w[1:]
    return np.sum(t) + np.sum(w * x)


def test_hessian_of_a_loop_whose_state_starts_as_a_captured_argument():
    x = np.array([-0.44931177843481973, 0.18925701119920557])
    w = np.array([-0.7238962199599508, -0.6572748802296569])
    x3 = np.array([-0.6382960088412082, 0.621763013726981, -0.4614313996642614])
    w3 = np.array([-0.7115511314802181, 0.7965119460558281, 0.7183934999945223])
    check(seed_29008207, [(x, w), (x3, w3)], argnums=(0,), hessian=True)
    check(state_from_the_argument_and_a_slice_of_it, [(x, w), (x3, w3), (x[:1], w[:1])],
          hessian=True)
    check(slice_of_the_state_plus_the_argument, [(x + 1.0, w), (x3 + 1.0, w3)], hessian=True)


# ---------------------------------------------------------------------------------------------
# Grad seed 29116957 (crash: onnxruntime refused the jacobian model, "Node input 'v6' is not a
# graph input"): np.maximum of a value broadcast by an item assignment; BroadcastMapsPass
# re-expanded inside the branches of np.maximum's signed-zero If, a form onnxruntime's constant
# folding breaks. Those branches are left as they are now.
def seed_29116957(x, w):
    t1 = (x / (w * w + 1.0))
    t1[None, :] = 1.5
    t2 = np.maximum(t1, t1 * 0.5)
    return np.sum(t1) + np.sum(t2)


def maximum_of_a_broadcast_row(x, w):
    t = x * w
    t[:] = x[0] * 0.5
    return np.sum(np.maximum(t, t * 0.5)) + np.sum(np.minimum(t * 2.0, t))


def test_jacobian_of_maximum_of_a_broadcast_value():
    x = np.array([[-0.2, -0.39], [0.42, 0.31], [-0.47, 0.51]])
    w = np.array([[-0.54, 0.83], [-0.33, -0.66], [-0.05, -0.1]])
    check(seed_29116957, [(x, w), (x[:1], w[:1])], hessian=True)
    check(maximum_of_a_broadcast_row, [(x + 1.0, w), (x[:2] + 1.0, w[:2])], hessian=True)

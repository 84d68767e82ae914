"""Gradients through run-time control flow: ONNX ``If`` and ``Loop`` as the frontend emits them.

Every case is checked against central finite differences in float64 (numpy running the plain
function), with inputs away from branch switches; the path each input takes is asserted, so
"both branches" and "0, 1, many iterations" are really exercised, by one compiled model per
signature. Every gradient model passes ``onnx.checker.check_model(full_check=True)``.
The kernels live in tests/grad_control_flow_kernels.py.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from tests import grad_control_flow_kernels as K
from tests.oracle import loop_nodes, loop_states
from tests.test_grad import numeric_grad

RNG = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _seeded(request):
    """Each test draws the same inputs however the suite is selected or ordered."""
    global RNG
    RNG = np.random.default_rng(list(request.node.nodeid.encode()))


def u(*shape, lo=-1.0, hi=1.0, dtype=np.float64):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def check(fn, argsets, argnums=0, paths=None, rtol=1e-6, atol=1e-8):
    """``pyonnx.grad(fn)`` on each argument tuple (one compiled model for one signature)
    against finite differences; ``paths(*args)`` names the path an input takes, and all the
    argument tuples must cover as many distinct paths as given."""
    g = pyonnx.grad(fn, argnums=argnums)
    nums = (argnums,) if isinstance(argnums, int) else argnums
    models = set()
    for args in argsets:
        got = g(*args)
        got = (got,) if isinstance(argnums, int) else got
        for k, value in zip(nums, got):
            arg = args[k]
            want = numeric_grad(fn, args, k)
            if isinstance(arg, np.ndarray):
                assert value.dtype == arg.dtype and np.shape(value) == arg.shape
            np.testing.assert_allclose(np.asarray(value, np.float64), want, rtol=rtol,
                                       atol=atol, err_msg=f"{fn.__name__} d/d arg {k}")
        models.add(g._last.model)
    for model in models:
        onnx.checker.check_model(onnx.load_from_string(model), full_check=True)
    if paths is not None:
        taken = {paths(*args) for args in argsets}
        assert len(taken) == len(argsets), taken
    return models


def _one_model_per_signature(models, argsets):
    signatures = {tuple((a.dtype, a.ndim) if isinstance(a, np.ndarray) else type(a)
                        for a in args) for args in argsets}
    assert len(models) == len(signatures)


# ---------------------------------------------------------------- if
def test_if_both_branches():
    argsets = [(u(3, lo=0.2),), (u(3, hi=-0.2),)]
    models = check(K.branch, argsets, paths=lambda x: bool(np.sum(x) > 0))
    _one_model_per_signature(models, argsets)


def test_elif_chain_three_paths():
    argsets = [(u(3, lo=0.5), u(3, lo=0.5)), (u(3, lo=0.1, hi=0.3), u(3, lo=0.1, hi=0.3)),
               (u(3, lo=0.5), -u(3, lo=0.5))]
    models = check(K.elif_chain, argsets, argnums=(0, 1),
                   paths=lambda x, w: int(np.sum(x * w) > 1) + int(np.sum(x * w) > -1))
    _one_model_per_signature(models, argsets)


def test_if_without_else_and_conditional_expression():
    check(K.one_sided_if, [(u(3, lo=0.6), u(3)), (u(3, hi=0.4), u(3))], argnums=(0, 1),
          paths=lambda x, w: bool(np.max(x) > 0.5))
    check(K.conditional_expression, [(u(3, lo=0.2),), (-u(3, lo=0.2),)],
          paths=lambda x: bool(np.max(x) > 0))


def test_and_or_conditions():
    argsets = [(u(3, lo=0.2), -u(3, lo=0.2)), (u(3, lo=0.2), u(3, lo=0.2)),
               (np.array([3.0, -1.0, -1.0]), u(3, lo=0.2))]
    check(K.and_or, argsets, argnums=(0, 1),
          paths=lambda x, y: (bool(np.sum(x) > 0 and np.sum(y) < 0), bool(np.max(x) > 2)))


# ---------------------------------------------------------------- for with run-time bounds
def test_for_with_array_bounds_0_1_many_iterations():
    x = u(3)
    argsets = [(x, np.array(0)), (x, np.array(1)), (u(3), np.array(5))]
    models = check(K.power_loop, argsets, paths=lambda x, n: int(n))
    _one_model_per_signature(models, argsets)
    check(K.range_start_stop, [(u(3), np.array(2), np.array(2)), (u(3), np.array(1), np.array(4)),
                               (u(3), np.array(-2), np.array(-1))],
          paths=lambda x, a, b: (int(a), int(b)))


def test_scalar_loop_state():
    check(K.scalar_state, [(u(2), np.array(0)), (u(2), np.array(3))])


def test_float32_loop_gradient_is_float32():
    x = u(3, dtype=np.float32)
    g = pyonnx.grad(K.power_loop)(x, np.array(4))
    assert g.dtype == np.float32 and g.shape == (3,)
    np.testing.assert_allclose(g, numeric_grad(K.power_loop, (x, np.array(4)), 0), rtol=1e-4,
                               atol=1e-5)


# ---------------------------------------------------------------- while
def test_while_with_data_dependent_exit():
    argsets = [(u(3, lo=0.1),), (u(3, lo=2.0, hi=3.0),)]
    models = check(K.grow_until, argsets, paths=lambda x: bool(np.sum(x * x) < 10))
    _one_model_per_signature(models, argsets)
    check(K.newton_sqrt, [(u(3, lo=0.5, hi=4.0),)])


# ---------------------------------------------------------------- nested loops
def test_nested_loops():
    check(K.nested, [(u(3), np.array(0)), (u(3), np.array(3))], paths=lambda x, n: int(n))
    check(K.nested_while_in_for, [(u(3, 2, lo=0.1), u(2, lo=0.1, hi=0.3))], argnums=(0, 1))


def test_if_in_loop_and_loop_in_if():
    check(K.if_in_loop, [(u(3), np.array(4)), (-u(3, lo=0.2), np.array(3))])
    check(K.loop_in_if, [(u(3, lo=0.2), np.array(3)), (-u(3, lo=0.2), np.array(3))],
          paths=lambda x, n: bool(np.sum(x) > 0))


# ---------------------------------------------------------------- break / continue / return
def test_break():
    x = u(5, 2)
    # Breaks in the middle, never, and at the first iteration: one model.
    argsets = [(x, 1.3), (x, 100.0), (u(5, 2, lo=0.9), 0.5)]

    def stop(x, limit):
        acc = 0.0
        for i, row in enumerate(x):
            acc += np.sum(row ** 2)
            if acc > limit:
                return i
        return len(x)

    models = check(K.cumulative_until, argsets, paths=stop)
    _one_model_per_signature(models, argsets)


def test_early_return_in_loop():
    def where(x, w):
        hits = np.nonzero(x @ w > 0.5)[0]
        return int(hits[0]) if hits.size else -1

    middle = u(4, 3, lo=-1.0, hi=-0.5)
    middle[2] = u(3, lo=0.5)
    # Returns at row 2, at row 0, and never.
    argsets = [(middle, u(3, lo=0.5)), (u(4, 3, lo=0.5), u(3, lo=0.5)),
               (u(4, 3, lo=-1.0, hi=-0.5), u(3, lo=0.5))]
    check(K.first_big, argsets, argnums=(0, 1), paths=where)


def test_continue():
    check(K.skip_negative, [(u(6, 3), u(3))], argnums=(0, 1))


# ---------------------------------------------------------------- states and captured values
def test_loop_carried_array_state():
    check(K.rnn, [(u(4), u(3), u(3, 3), u(3)), (u(0), u(3), u(3, 3), u(3))],
          argnums=(0, 1, 2, 3))


def test_rows_of_an_array_captured_values_summed():
    # w is captured by the body: its cotangent is the sum over the rows; 0 rows give 0.
    check(K.rows_weighted, [(u(4, 2), u(2)), (u(0, 2), u(2))], argnums=(0, 1),
          paths=lambda x, w: len(x))
    check(K.enumerate_zip, [(u(4, 2), u(4, 2), u(2))], argnums=(0, 1, 2))


# ---------------------------------------------------------------- jacobian, vjp, second order
def test_jacobian_and_vjp_through_a_loop():
    x, n = u(3), np.array(3)
    jac = pyonnx.jacobian(K.power_loop)(x, n)
    np.testing.assert_allclose(jac, numeric_grad(K.power_loop, (x, n), 0), rtol=1e-6, atol=1e-8)
    _, vjp_fn = pyonnx.vjp(K.power_loop, x, n)
    (gx, gn) = vjp_fn(np.float64(2.0))
    assert gn is None
    np.testing.assert_allclose(gx, 2 * jac, rtol=1e-12)


@pytest.mark.parametrize("fn,args", [(K.scalar_state, (np.array([0.3, 0.7]), np.array(3))),
                                     (K.branch, (np.array([0.4, -0.1, 0.3]),)),
                                     (K.branch, (np.array([-0.4, -0.1, 0.3]),))],
                         ids=["loop", "if-then", "if-else"])
def test_second_derivatives(fn, args):
    hess = pyonnx.jacobian(pyonnx.grad(fn))(*args)
    g = pyonnx.grad(fn)
    x = args[0]
    eps = 1e-5
    want = np.stack([(g(x + eps * e, *args[1:]) - g(x - eps * e, *args[1:])) / (2 * eps)
                     for e in np.eye(len(x))], axis=1)
    np.testing.assert_allclose(hess, want, rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------- the models
def _loops(graph):
    return loop_nodes(graph)


def test_forward_loop_records_only_what_the_backward_reads():
    g = pyonnx.grad(K.power_loop)
    g(u(3), np.array(2))
    model = onnx.load_from_string(g._last.model)
    forward, backward = _loops(model.graph)
    # acc = np.sin(acc) * x + i: the forward Loop also records acc and sin(acc) per
    # iteration (i is the iteration number, the reverse index gives it back); the backward
    # Loop carries acc's cotangent and sums x's. It reads sin(acc) from the record instead of
    # recomputing the float64 sine (dozens of nodes): a short body.
    assert len(forward.output) == 3
    assert len(backward.output) == 2
    body = next(a.g for a in backward.attribute if a.name == "body")
    assert len(body.node) < 25 and "Round" not in {n.op_type for n in body.node}


def _ops(model) -> set[str]:
    return {n.op_type for n in model.graph.node}


def test_state_whose_shape_settles_after_one_iteration():
    # h = tanh(W @ h) * x[t]: h has W's rows from iteration 1 on, whatever h0's size; the
    # forward Loop records the states after each iteration (iteration 0 reads h0) and the
    # values the VJP reads (no recomputation of the float64 tanh). A non-square W with one
    # iteration changes h's size: still right.
    argsets = [(u(5, lo=0.5), u(3), u(3, 3)), (u(1, lo=0.5), u(3), u(2, 3)),
               (u(0), u(3), u(2, 3))]
    models = check(K.rnn_no_input_bias, argsets, argnums=(0, 1, 2))
    model = onnx.load_from_string(models.pop())
    forward, backward = _loops(model.graph)
    bodies = [next(a.g for a in n.attribute if a.name == "body") for n in (forward, backward)]
    assert "SequenceInsert" not in {n.op_type for n in bodies[0].node}
    assert len(bodies[1].node) < len(bodies[0].node) / 2


def test_growing_state_recorded_in_a_sequence():
    # y grows every iteration: its states cannot be stacked, a sequence records them.
    models = check(K.growing_state, [(u(3), np.array(0)), (u(3), np.array(1)),
                                     (u(3), np.array(3))], paths=lambda x, n: int(n))
    assert "SequenceEmpty" in _ops(onnx.load_from_string(models.pop()))


# ---------------------------------------------------------------- errors
def test_error_list_built_in_a_loop_names_op_and_line():
    import inspect

    with pytest.raises(pyonnx.ConversionError, match="ConcatFromSequence.*ONNX sequences") as e:
        pyonnx.grad(K.loop_with_list)(u(3), np.array(2))
    lines, start = inspect.getsourcelines(K.loop_with_list)
    assert e.value.lineno == start + 4 and e.value.filename == K.__file__


def test_list_beside_the_gradient_path_is_fine():
    # The list is loop state the recomputation does not need: not recorded, no error.
    check(K.loop_with_unused_list, [(u(3), np.array(0)), (u(3), np.array(3))])


def test_error_list_on_the_gradient_path():
    with pytest.raises(pyonnx.ConversionError, match="SequenceAt.*ONNX sequences"):
        pyonnx.grad(K.loop_reading_its_list)(u(3), np.array(2))


# ---------------------------------------------------------------- item assignment
def test_item_assignment_in_a_loop(monkeypatch):
    monkeypatch.setenv("PYONNX_VECTORIZE", "0")  # the gradient of the Loop (and its scan output)
    # y[i] = f(x[i], w): the gradient flows through the written rows (a scan output after
    # LowerSetItemPass) to x and w.
    check(K.write_rows, [(u(4, 2), u(2)), (u(0, 2), u(2))], argnums=(0, 1))
    # Written on iteration i only: LowerSetItemPass makes the rows a scan output of the Loop
    # and writes them after it; their cotangents enter the reverse loop row by row.
    forward = pyonnx.compile(K.write_scalars).to_onnx(u(3), 0.5)
    (loop,) = _loops(forward.graph)
    assert loop_states(loop) == 0     # no state: the rows are a scan output
    check(K.write_scalars, [(u(4), 0.7), (u(0), 0.7)], argnums=(0, 1))


def test_item_assignment_reading_earlier_writes():
    # y[i] = y[i - 1] * w + x[i]: each write reads the previous one (ScatterND in the body).
    check(K.write_recurrence, [(u(5), 0.7), (u(1), 0.7)], argnums=(0, 1))


def test_item_assignment_outside_loops():
    # y[0] = ... (row) and y[mask] = ... (flat, boolean mask) on an array computed from x.
    check(K.write_elements, [(u(4, lo=0.6, hi=2.0), u(4, lo=0.7, hi=1.2))], argnums=(0, 1))

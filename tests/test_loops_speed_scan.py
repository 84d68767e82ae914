"""LoopToScanPass (pyonnx/passes/loop_to_scan.py): a Loop that runs its full trip count runs as
``If(M > 0, Scan)``. Differential against numpy at 0, 1, 2 and many iterations, in the dtypes
the loops carry; loops it must leave alone (a growing or broadcast state, a ``while``) stay
``Loop`` nodes and right; an index past the end is numpy's IndexError as before."""

import numpy as np
import pytest

import pyonnx
from tests import loops_speed_kernels as K
from tests.oracle import LOOPS, check, loop_nodes, op_types


def scans(c, *args):
    return [n for n in loop_nodes(c.to_onnx(*args).graph) if n.op_type == "Scan"]


def body_ops(node):
    return [n.op_type for n in next(a.g for a in node.attribute if a.name == "body").node]


@pytest.fixture
def as_loops(monkeypatch):
    monkeypatch.setenv("PYONNX_VECTORIZE", "0")  # the Loop lowering, which the pass rewrites


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 2, 3, 50])
def test_ewma_runs_as_a_scan(n, dtype, as_loops):
    # (vectorized, the EWMA is a blocked scan: tests/test_vectorize_linear.py)
    x = np.random.default_rng(n).normal(size=n).astype(dtype)
    c = check(K.ewma, x, 0.3)
    (scan,) = scans(c, x, 0.3)
    # x[i] is a scan input and out[i - 1] a state: no Gather, no Unsqueeze per iteration;
    # alpha * x[i] is computed on the whole input before the Scan (HoistScanMapsPass).
    assert sorted(body_ops(scan)) == ["Add", "Identity", "Mul"]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
@pytest.mark.parametrize("n", [0, 1, 2, 40])
def test_linear_recurrence_on_integers_stays_a_loop(n, dtype):
    # y[i] = y[i-1] * a + x[i]: a true cross-iteration dependence, never vectorized; int32
    # wraps as numpy's does.
    x = (np.arange(n) * 7919 % 1000).astype(dtype)
    a = dtype(3)
    c = check(K.linear_recurrence, x, a)
    assert LOOPS & op_types(c, x, a)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 30])
def test_second_order_recurrence(n):
    x = np.linspace(-1, 1, n)
    c = check(K.second_order, x)
    if n > 2:
        assert LOOPS & op_types(c, x)


@pytest.mark.parametrize("n", [0, 1, 2, 10, 60])
def test_states_passed_through_swap_buffers(n):
    # a, b = b, a + b: a state output that is a state input (its own Identity in the Scan)
    c = check(K.fibonacci, np.int64(n))
    assert scans(c, np.int64(n))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_reads_at_offsets_become_scan_inputs(n, as_loops):
    x = np.linspace(0, 2, 8)
    c = check(K.shifted_reads, x, np.int64(n))
    (scan,) = scans(c, x, np.int64(n))
    assert "Gather" not in body_ops(scan)


def test_read_past_the_end_is_numpys_index_error(as_loops):
    x = np.linspace(0, 2, 8)
    with pytest.raises(IndexError, match="index 8 is out of bounds for axis 0 with size 8"):
        K.shifted_reads(x, np.int64(7))
    c = pyonnx.compile(K.shifted_reads)
    assert c(x, np.int64(6)) == K.shifted_reads(x, np.int64(6))
    with pytest.raises(IndexError, match="index 8 is out of bounds for axis 0 with size 8"):
        c(x, np.int64(7))


@pytest.mark.parametrize("n", [0, 1, 7])
def test_iteration_number_is_a_scan_input(n, as_loops):
    # (an int64 acc turned float by the loop is refused after 0 trips: float entries here)
    for x in (np.ones(2), np.ones(2, np.float32)):
        c = check(K.uses_index, x, np.int64(n))
        assert scans(c, x, np.int64(n))


@pytest.mark.parametrize("n", [0, 1, 6])
def test_bool_state(n, as_loops):
    x = np.random.default_rng(n).normal(size=n)
    check(K.flag_toggle, x)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_growing_state_stays_a_loop(n, as_loops):
    # onnxruntime's Scan preallocates each state: a state that grows must stay a Loop.
    x = np.arange(6.0)
    c = check(K.growing, x, np.int64(n), reference=n > 0)
    assert not scans(c, x, np.int64(n)) and LOOPS & op_types(c, x, np.int64(n))


@pytest.mark.parametrize("rows", [0, 1, 3])
def test_state_broadcast_by_the_first_iteration_stays_a_loop(rows, as_loops):
    m = np.arange(rows * 4.0).reshape(rows, 4)
    c = check(K.broadcast_state, m)
    assert not scans(c, m)


@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (3, 0), (4, 5)])
def test_nested_loops(shape, as_loops):
    m = np.random.default_rng(1).normal(size=shape)
    check(K.nested, m)


@pytest.mark.parametrize("v", [0.5, 1.0, 3.0, 1000.0])
def test_while_loop_stays_a_loop(v):
    c = check(K.while_halving, np.array([v]))
    assert not scans(c, np.array([v]))


@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_rows_written_with_their_previous_row(n, as_loops):
    check(K.rows_written, np.int64(n), reference=n > 0)


def test_scan_body_is_the_loops_body_less_the_condition(as_loops):
    x = np.linspace(0, 2, 8)
    model = pyonnx.compile(K.uses_index).to_onnx(x, np.int64(3))
    guard = next(n for n in model.graph.node if n.op_type == "If")
    then = next(a.g for a in guard.attribute if a.name == "then_branch")
    (scan,) = loop_nodes(model.graph)  # (the Scan as written, behind UnrollScansPass's If)
    body = next(a.g for a in scan.attribute if a.name == "body")
    # The iteration (int64 arange(M)), or its Cast computed on the whole arange before the
    # Scan (HoistScanMapsPass): then the Scan's last input is that hoisted node's output.
    if body.input[-1].type.tensor_type.elem_type != 7:
        hoisted = next(n for n in then.node if scan.input[-1] in n.output)
        assert hoisted.op_type == "Cast" and hoisted.name.endswith("_hoisted")
    assert len(body.output) == len(scan.output)

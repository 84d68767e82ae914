"""Loops whose body reads the row the previous iteration wrote (``y[i] = f(y[i - 1])``): the
previous row is carried as loop state and the rows leave as a scan output
(passes/setitem_loops.py ``carry_previous_row``). Differential against numpy: 0, 1 and many
iterations, row arrays, integer and float dtypes, the first read wrapping to ``y[-1]``."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.errors import ExecutionError
from tests.oracle import check, loop_nodes


def ewma(x, alpha):
    out = np.empty_like(x)
    out[0] = x[0]
    for i in range(1, x.shape[0]):
        out[i] = alpha * x[i] + (1 - alpha) * out[i - 1]
    return out


def wrap_first(y, x):
    for i in range(x.shape[0]):
        y[i] = y[i - 1] * 2 + x[i]  # i = 0 reads y[-1]
    return y


def rows(y):
    for i in range(2, y.shape[0]):
        y[i] = y[i - 1] - y[i - 1] // 3 + i
    return y


def two_reads(y, x):
    for i in range(1, x.shape[0]):
        y[i] = y[i - 1] * y[i - 1] + x[i] - y[i - 1]
    return y


@pytest.mark.parametrize("n", [1, 2, 3, 9])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_ewma(n, dtype):
    check(ewma, np.linspace(-1, 1, n).astype(dtype), 0.25)


@pytest.mark.parametrize("n", [0, 1, 4])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64])
def test_first_iteration_reads_the_last_row(n, dtype):
    check(wrap_first, np.arange(5).astype(dtype) + 1, np.arange(n).astype(dtype))


@pytest.mark.parametrize("shape", [(2, 3), (3, 3), (7, 2), (7, 0)])
@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_row_arrays(shape, dtype):
    check(rows, np.arange(np.prod(shape)).reshape(shape).astype(dtype))


@pytest.mark.parametrize("n", [1, 2, 6])
def test_several_reads(n):
    check(two_reads, np.full(6, 0.5), np.linspace(0, 1, n))


def test_empty_input_still_fails():
    f = pyonnx.compile(ewma)
    with pytest.raises(IndexError,
                       match=r"index 0 is out of bounds for axis 0 with size 0") as want:
        ewma(np.zeros(0), 0.5)
    with pytest.raises(IndexError,
                       match=r"index 0 is out of bounds for axis 0 with size 0") as got:  # numpy's error (the ExecutionError is its cause)
        f(np.zeros(0), 0.5)
    assert str(got.value) == str(want.value)
    assert isinstance(got.value.__cause__, ExecutionError)


def test_writing_past_the_end_still_fails():
    f = pyonnx.compile(wrap_first)
    with pytest.raises(IndexError, match=r"index 3 is out of bounds for axis 0 with size 3"):
        wrap_first(np.ones(3), np.ones(4))
    # numpy's IndexError from the model too (index and axis: onnxruntime's ScatterND message
    # has no size), caused by the ExecutionError that names the line
    with pytest.raises(IndexError, match=r"^index 3 is out of bounds for axis 0") as raised:
        f(np.ones(3), np.ones(4))
    assert isinstance(raised.value.__cause__, ExecutionError)


def test_the_loop_body_no_longer_scatters(monkeypatch):
    monkeypatch.setenv("PYONNX_VECTORIZE", "0")  # the Loop lowering (the EWMA vectorizes)
    m = pyonnx.compile(ewma).to_onnx(np.zeros(5), 0.5)
    loops = loop_nodes(m.graph)
    assert len(loops) == 1
    assert "ScatterND" not in [n.op_type for n in loops[0].attribute[0].g.node]

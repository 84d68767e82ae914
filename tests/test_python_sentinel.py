"""None as a "not found yet" sentinel for a number (issue 15), differential against Python:
converted with Python's meaning where the name is tested with ``is None`` before it is read,
a run-time TypeError where Python's value would be None, a refusal at the line for arrays."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pyonnx
from tests import python_sentinel_kernels as k
from tests.oracle import check

XS = [np.array([1.0, 3.0, -2.0, 5.0, 0.5]), np.array([-1.0, -3.0]), np.array([4.0]),
      np.array([2.0, 2.0, 1.0], np.float32)]


@pytest.mark.parametrize("x", XS)
def test_sentinel_converted(x):
    check(k.running_max, x)
    check(k.argmax_loop, x)
    check(k.first_above, x, 1.5)
    check(k.first_above, x, 100.0)
    check(k.best_or_default, x)
    check(k.closest_pair_gap, x)
    check(k.while_sentinel, x)


def test_sentinel_after_zero_trip_loop():
    empty = np.zeros(0)
    check(k.argmax_loop, empty)
    check(k.first_above, empty, 0.0)
    check(k.best_or_default, empty)
    check(k.closest_pair_gap, empty)
    check(k.while_sentinel, empty)


def test_sentinel_is_none_where_python_reads_it_fails_at_run_time():
    """Python raises TypeError at ``None + 1.0``; the model raises it too (a check output),
    and gives the number where Python does."""
    good = np.array([1.0, -2.0, 3.0])
    check(k.sentinel_read_unguarded, good)
    bad = np.array([-1.0, -2.0])
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'NoneType'"):
        k.sentinel_read_unguarded(bad)
    with pytest.raises(TypeError, match="'best' is None here"):
        pyonnx.compile(k.sentinel_read_unguarded)(bad)
    model = pyonnx.compile(k.sentinel_read_unguarded).to_onnx(bad)
    sites = json.loads({p.key: p.value for p in model.metadata_props}["pyonnx.checks"])["sites"]
    line = k.sentinel_read_unguarded.__code__.co_firstlineno + 5
    assert [s["where"].rsplit(":", 1)[1] for s in sites] == [str(line)]
    assert sites[0]["exception"] == "builtins.TypeError"


def test_returned_none_sentinel_is_none():
    """Python returns None after 0 iterations (or when nothing matched): so does the call (the
    model returns the flag and the number; the call gives None where the flag is False)."""
    check(k.running_max, np.zeros(0))
    check(k.running_max, np.zeros(0, np.float32))
    check(k.running_max, np.array([2.0, -1.0]))
    for x in (np.array([-1.0, 3.0, 2.0]), np.array([-1.0]), np.zeros(0)):
        check(k.best_positive_and_index, x)
    for x, t in ((np.array([1.0, 3.0]), 2.0), (np.array([1.0]), 2.0), (np.zeros(0), 0.0)):
        check(k.first_above_or_none, x, t)
    assert pyonnx.compile(k.running_max)(np.zeros(0)) is None


def test_returned_none_sentinel_in_a_saved_model(tmp_path):
    path = str(tmp_path / "best.onnx")
    pyonnx.save(k.best_positive_and_index, path, np.zeros(3))
    saved = pyonnx.load(path)
    assert saved(np.array([-1.0, -2.0, -3.0])) == (None, -1)
    assert saved(np.array([-1.0, 4.0, 2.0])) == (np.float64(4.0), 1)


def test_returned_none_sentinel_has_no_gradient():
    with pytest.raises(pyonnx.ConversionError, match="may return None"):
        pyonnx.grad(k.running_max)(np.array([1.0, 2.0]))


def test_array_sentinel_refused_at_the_loop():
    fn = k.sentinel_array_refused
    with pytest.raises(pyonnx.ConversionError, match="sentinel instead of None") as info:
        pyonnx.compile(fn)(np.arange(3.0))
    assert info.value.lineno == fn.__code__.co_firstlineno + 2


@pytest.mark.parametrize("x", [np.array([1, 2**64 - 1], np.uint64), np.zeros(0, np.uint64)])
def test_uint64_sentinel_selected_without_if(x):
    """A conditional expression on uint64 values computed on both sides: onnxruntime has no
    uint64 Where (int64 carries the bit pattern)."""
    check(k.last_or_default, x)

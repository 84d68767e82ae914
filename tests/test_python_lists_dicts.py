"""Returned dicts, np.vstack/np.hstack of run-time lists, list items written in run-time
control flow (issue 15), differential against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests import python_lists_dicts_kernels as k
from tests.oracle import check

X = np.array([1.0, 3.0, 2.0, 5.0])


def test_return_dict():
    check(k.return_dict, X)
    model = pyonnx.compile(k.return_dict).to_onnx(X)
    assert [o.name for o in model.graph.output] == ["mean", "std"]


def test_dict_in_tuple():
    check(k.dict_in_tuple, X)


def test_dict_bound_in_run_time_branches_refused():
    with pytest.raises(pyonnx.ConversionError, match="on one path") as info:
        pyonnx.compile(k.dict_from_branches)(X)
    assert info.value.lineno is not None


@pytest.mark.parametrize("n", [1, 3])
def test_vstack_hstack_of_run_time_list(n):
    check(k.stack_rows, X, n)
    check(k.stack_scalars, X, n)
    check(k.stack_matrices, X.reshape(2, 2), n)


def test_vstack_of_empty_run_time_list_fails_at_run_time():
    with pytest.raises(ValueError, match="need at least one array"):
        k.stack_rows(X, 0)
    with pytest.raises(pyonnx.ExecutionError):
        pyonnx.compile(k.stack_rows)(X, 0)


@pytest.mark.parametrize("x", [X, X[::-1].copy(), X[:1].copy()])
def test_list_item_written_in_branch(x):
    check(k.last_peak_in_branch, x)
    check(k.static_list_item_in_branch, x)


def test_list_item_at_conversion_time_keeps_aliases():
    check(k.static_list_item, X)


def test_list_item_of_aliased_list_in_branch_refused():
    with pytest.raises(pyonnx.ConversionError, match="only one name") as info:
        pyonnx.compile(k.list_item_alias_in_branch)(X)
    assert info.value.lineno is not None

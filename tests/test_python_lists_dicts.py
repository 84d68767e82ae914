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


@pytest.mark.parametrize("x", [X, -X])
def test_dict_bound_in_run_time_branches(x):
    check(k.dict_from_branches, x)
    check(k.dict_mixed_numbers_from_branches, x)
    check(k.dict_returned_from_branches, x)


@pytest.mark.parametrize("x", [X, X[:1].copy(), X[:0].copy()])
def test_dict_rebound_in_loop(x):
    check(k.dict_rebound_in_loop, x)


def test_dict_keys_differing_between_paths_refused():
    for fn in (k.dict_key_order_differs, k.dict_keys_differ):
        with pytest.raises(pyonnx.ConversionError, match="bind the same keys in the same order"
                           ) as info:
            pyonnx.compile(fn)(X)
        assert info.value.lineno == fn.__code__.co_firstlineno + 1


def test_dict_item_sees_a_write_to_the_array_it_views():
    check(k.dict_holds_view_then_write, X.copy())


@pytest.mark.parametrize("x", [X, -X])
def test_dict_of_run_time_chosen_views_then_write(x):
    # each item is a choice of memory (choices.Leaves): both paths, as numpy
    check(k.dict_of_views_from_branches_then_write, x.copy())


@pytest.mark.parametrize("n", [1, 3])
def test_vstack_hstack_of_run_time_list(n):
    check(k.stack_rows, X, n)
    check(k.stack_scalars, X, n)
    check(k.stack_matrices, X.reshape(2, 2), n)


def test_vstack_of_empty_run_time_list_fails_at_run_time():
    with pytest.raises(ValueError, match="need at least one array"):
        k.stack_rows(X, 0)
    with pytest.raises(pyonnx.ExecutionError,
                       match=r"PrepareForComputeImpl Must have 1 or more inp"):
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

"""Everyday Python constructs of issue 15, differential against plain Python/numpy."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pyonnx
from tests import python_constructs_kernels as k
from tests.oracle import check

X = np.array([1.5, -2.25, 3.0, 0.5])


def test_lambda_named_with_defaults():
    check(k.lambda_named, X, X[::-1].copy())


def test_lambda_inline_key():
    check(k.lambda_inline_sorted, X)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_closure_reads_loop_carried_value(n):
    check(k.closure_in_runtime_loop, X, n)


def test_nested_closures():
    check(k.nested_closure, X)


def test_closure_writes_enclosing_array():
    check(k.closure_writes_enclosing_array, X)


@pytest.mark.parametrize("sign", [1, -1])
def test_def_in_runtime_branch(sign):
    check(k.def_in_branch, X * sign)
    check(k.def_called_in_runtime_branch, X * sign)


def test_lambdas_made_in_a_loop_keep_their_defaults():
    check(k.def_in_static_loop, X)


def test_nested_varargs_and_kwargs():
    check(k.helper_with_varargs, X, X * 2)


def test_default_evaluated_at_definition():
    check(k.lambda_default_reads_enclosing, X)


def test_stale_closure_refused():
    with pytest.raises(pyonnx.ConversionError, match="rebound after") as info:
        pyonnx.compile(k.stale_closure)(X)
    assert info.value.lineno == k.stale_closure.__code__.co_firstlineno + 5


def test_nested_recursion_refused():
    with pytest.raises(pyonnx.ConversionError, match="recursive call to fact") as info:
        pyonnx.compile(k.nested_recursion)(X)
    assert info.value.lineno == k.nested_recursion.__code__.co_firstlineno + 2


def test_function_chosen_at_run_time_refused():
    with pytest.raises(pyonnx.ConversionError, match="put the 'if' inside it") as info:
        pyonnx.compile(k.def_in_runtime_branch)(X)
    assert info.value.lineno == k.def_in_runtime_branch.__code__.co_firstlineno + 1


def test_imports_in_body():
    check(k.imports_in_body, X)


@pytest.mark.parametrize("n", [0, 2])
def test_imports_in_helper_and_loop(n):
    check(k.import_in_helper_and_loop, X, n)


def test_errstate_block():
    check(k.errstate_block, X)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_catch_warnings_in_loop(n):
    check(k.warnings_block, np.abs(X), n)


@pytest.mark.parametrize("fn, offset, words", [
    (k.import_other_module, 1, ["'os'", "pass it in"]),
    (k.with_open, 1, ["np.errstate", "files"]),
    (k.with_as_record, 2, ["as w", "drop the 'as'"]),
])
def test_refused_imports_and_contexts(fn, offset, words):
    with pytest.raises(pyonnx.ConversionError, match=re.escape(words[0])) as info:
        pyonnx.compile(fn)(X)
    assert info.value.lineno == fn.__code__.co_firstlineno + offset, str(info.value)
    for w in words:
        assert w in info.value.message


def test_comprehensions_over_static_iterables():
    check(k.comp_static, X, (X, X * 2), (0.5, 2.0))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_comprehensions_over_run_time_iterables(n):
    check(k.comp_runtime, X, n)
    if n:  # (np.array of an empty run-time list fails at run time: see the README)
        check(k.comp_runtime_array, X, n)
    if n:
        check(k.gen_reductions, X, n)
    else:  # sum() of the empty generator is Python's int 0; the model's float64 cannot be it
        with pytest.raises(pyonnx.ExecutionError, match="returns a Python int on some paths"):
            pyonnx.compile(k.gen_reductions)(X, n)
    check(k.comp_in_loop_and_branch, X, n)


def test_comprehension_filter_over_rows():
    check(k.comp_runtime_stack, np.array([[1.0, 2.0], [-3.0, 1.0], [0.5, 0.5]]))


def test_generator_reductions_unrolled():
    check(k.gen_static_reductions, X)


def test_comprehension_variable_does_not_leak():
    check(k.comp_does_not_leak, X)


def test_dict_comprehension_and_nested():
    check(k.dict_comp, X, X + 1)
    check(k.nested_comp, X)


def test_dict_comprehension_over_run_time_refused():
    with pytest.raises(pyonnx.ConversionError, match="dict comprehension") as info:
        pyonnx.compile(k.dict_comp_runtime)(X, 3)
    assert info.value.lineno == k.dict_comp_runtime.__code__.co_firstlineno + 1


def test_power_iteration_defines_names_after_the_loop():
    check(k.power_iteration, np.array([[2.0, 1.0], [1.0, 3.0]]))
    check(k.power_iteration, np.array([[1.0, 0.0], [0.0, 1.0]]))


def test_long_static_loop_defines_names():
    check(k.bound_in_long_static_loop, X)


@pytest.mark.parametrize("fn, args, offset", [
    (k.conditionally_bound_in_static_loop, (X,), 4),
])
def test_possibly_unbound_after_loop_still_refused(fn, args, offset):
    with pytest.raises(pyonnx.ConversionError, match="unbound") as info:
        pyonnx.compile(fn)(*args)
    assert info.value.lineno == fn.__code__.co_firstlineno + offset, str(info.value)


@pytest.mark.parametrize("n", [1, 3])
def test_bound_in_run_time_loop_is_checked_at_the_read(n):
    # a name first bound in a loop that may run 0 times: numpy's value when it ran, an
    # ExecutionError at the read when it did not (Python raises UnboundLocalError there)
    fn = k.bound_in_run_time_loop
    check(fn, X, n)
    with pytest.raises(pyonnx.ExecutionError, match="the_loop_ran_0_times") as info:
        pyonnx.compile(fn)(X, 0)
    assert f":{fn.__code__.co_firstlineno + 3}:" in str(info.value)


@pytest.mark.parametrize("limit", [0.0, 5.0, 20.0, 1e9])
def test_while_true_left_by_return(limit):
    check(k.while_true_returns, X, limit)


def test_while_true_break_then_use():
    check(k.while_true_break_then_use, np.abs(X))


def test_varargs_in_signature():
    f = pyonnx.compile(k.varargs_sum)
    # (reference=False: the oracle's second runtime feeds the named parameters only)
    for extra in [(), (X,), (X, X * 2, X * 3)]:
        check(f, X, *extra, reference=False)
        check(f, X, *extra, scale=2.0, reference=False)
    assert len(f._layouts) == 3


def test_kwargs_in_signature():
    f = pyonnx.compile(k.kwargs_options)
    check(f, X, reference=False)
    check(f, X, alpha=2.0, reference=False)
    check(f, X, beta=X, alpha=np.float32(3.0), reference=False)
    check(k.unused_kwargs, X, reference=False)
    check(k.unused_kwargs, X, tag=X, reference=False)
    model = f.to_onnx(X, beta=X)
    assert [i.name for i in model.graph.input] == ["x", "opts_beta"]


def test_star_and_double_star_in_helper_calls():
    check(k.helper_star_calls, X, X + 1)


def test_star_of_run_time_list_refused():
    with pytest.raises(pyonnx.ConversionError, match="known at conversion time") as info:
        pyonnx.compile(k.star_of_run_time_list)(X, 2)
    assert info.value.lineno == k.star_of_run_time_list.__code__.co_firstlineno + 4


def test_comprehension_variable_read_late_refused():
    check(k.early_binding_in_comprehension, X)
    with pytest.raises(pyonnx.ConversionError, match="bind it as a default") as info:
        pyonnx.compile(k.late_binding_in_comprehension)(X)
    assert info.value.lineno == k.late_binding_in_comprehension.__code__.co_firstlineno + 1


def test_name_assigned_after_a_break_still_refused():
    with pytest.raises(pyonnx.ConversionError, match="first iteration may stop") as info:
        pyonnx.compile(k.assigned_after_break)(np.eye(2))
    assert info.value.lineno == k.assigned_after_break.__code__.co_firstlineno + 8

"""Canonicalization passes: the transformed function, executed by Python, equals the original
(AutoGraph's ``assertTransformedEquivalent``) and holds no construct the pass removes."""

from __future__ import annotations

import ast
import copy
import inspect
import itertools
import textwrap

import pytest

from pyonnx.frontend import canonicalize as canon
from pyonnx.frontend.canonicalize import (asserts, augassign, break_continue, early_return,
                                          imports_contexts, list_append, local_functions,
                                          setitem, unbound_reads, unpack_del)
from tests import canonical_kernels as k


class _MaterializeExtraTest(ast.NodeTransformer):
    """``pyonnx_extra_test`` on a for loop, as Python: checked before each iteration."""

    def visit_For(self, node):
        self.generic_visit(node)
        test = getattr(node, "pyonnx_extra_test", None)
        if test is not None:
            stop = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=test), body=[ast.Break()],
                          orelse=[])
            node.body = [stop, *node.body]
        return node


def _transformed(fn, passes):
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    for p in passes:
        tree = p.transform(tree)
    runnable = _MaterializeExtraTest().visit(copy.deepcopy(tree))
    module = ast.fix_missing_locations(ast.Module(body=[runnable], type_ignores=[]))
    namespace: dict = {}
    exec(compile(module, "<canonical>", "exec"), namespace)
    return tree, namespace[fn.__name__]


PASSES = (augassign, break_continue, early_return)
CASES = [
    (k.early_return_in_if, [(x,) for x in range(-3, 5)]),
    (k.return_in_loop, [(n,) for n in range(0, 8)]),
    (k.return_in_nested_loops, [(n,) for n in range(0, 6)]),
    (k.falls_off, [(-1,), (3,)]),
    (k.break_and_continue, [(n,) for n in range(0, 12)]),
    (k.for_else, [(n, kk) for n, kk in itertools.product(range(4), range(-1, 4))]),
    (k.while_true_break, [(x,) for x in range(1, 12)]),
    (k.nested_break_inner_only, [(n,) for n in range(0, 5)]),
    (k.while_else_continue, [(n,) for n in range(0, 7)]),
    (k.return_in_while_in_if, [(x, f) for x in (1, 2, 5) for f in (True, False)]),
    (k.return_in_loop_with_else, [(n, kk) for n in range(4) for kk in range(-1, 4)]),
]


@pytest.mark.parametrize("fn,inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_transformed_function_equals_original(fn, inputs):
    tree, transformed = _transformed(fn, PASSES)
    kinds = {type(n) for n in ast.walk(tree)}
    assert not kinds & {ast.Break, ast.Continue, ast.AugAssign}
    returns = [n for n in ast.walk(tree) if isinstance(n, ast.Return)]
    assert len(returns) <= 1 and (not returns or tree.body[-1] is returns[0])
    for args in inputs:
        assert transformed(*args) == fn(*args), args


def test_new_nodes_carry_the_location_of_what_they_replace():
    tree, _ = _transformed(k.break_and_continue, PASSES)
    for node in ast.walk(tree):
        if "lineno" in node._attributes:
            assert getattr(node, "lineno", None) is not None, ast.dump(node)


def test_a_single_final_return_is_left_alone():
    def f(x):
        y = x + 1
        return y
    tree = ast.parse(textwrap.dedent(inspect.getsource(f))).body[0]
    before = ast.dump(tree)
    assert ast.dump(early_return.transform(tree)) == before


def test_pipeline_order_lists_every_pass():
    assert canon.PASSES == (local_functions, imports_contexts, asserts, unbound_reads,
                            unpack_del, augassign, setitem, list_append, break_continue,
                            early_return)

"""A read of a local name no path has assigned (canonicalize/unbound_reads.py, fuzz seed
19000800): Python raises UnboundLocalError when the statement runs, so the compiled function
raises it where that path runs and converts the paths that do not."""

from __future__ import annotations

import ast
import inspect
import textwrap

import numpy as np
import pytest

import pyonnx
from pyonnx.frontend.canonicalize import unbound_reads
from tests import unbound_reads_kernels as k
from tests.oracle import check


@pytest.mark.parametrize("x", [np.array([1.0, -2.0, 4.0]), np.array([-1.0, -2.0]),
                               np.array([0.5])])
def test_read_on_a_path_that_never_assigned(x):
    check(k.read_in_other_branch, x)


@pytest.mark.parametrize("flag", [0, 1])
def test_augmented_assignment_of_an_unbound_name(flag):
    check(k.aug_read_in_branch, np.array([1.0, 2.0]), np.int64(flag))


def test_conditional_expression_branches_are_not_rewritten():
    tree = ast.parse(textwrap.dedent(inspect.getsource(k.guarded_by_conditional_expression)))
    before = ast.dump(tree)
    unbound_reads.transform(tree.body[0])
    assert ast.dump(tree) == before


def test_a_top_level_read_is_still_refused_at_its_line():
    with pytest.raises(pyonnx.ConversionError, match=r"'z' is used before it is assigned"):
        pyonnx.compile(k.top_level_read)(np.ones(2))


def test_the_rewrite_raises_what_python_raises():
    with pytest.raises(UnboundLocalError,
                       match=r"cannot access local variable 'last' where it is not associated"):
        pyonnx.compile(k.read_in_other_branch)(np.array([-1.0, -2.0]))


@pytest.mark.parametrize("x, limit", [(np.array([1.0, 2.0]), 4.0), (np.array([1.0, 5.0]), 4.0),
                                      (np.array([1.0, 5.0]), -1.0)])
def test_a_branch_that_raises_leaves_its_names_unbound(x, limit):
    """``if ok: v = ... else: raise ...`` then ``v``: the raising path reaches no later read
    (refused before as "'scaled' is assigned in the 'if' branch ... but not in the 'else'")."""
    check(k.validate_then_use, x, limit)


@pytest.mark.parametrize("x", [np.array([1.0, 4.0]), np.array([1.0, -4.0])])
def test_a_helper_that_raises_in_a_branch(x):
    check(k.helper_validates, x)

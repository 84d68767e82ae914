"""Name resolution: numpy under any alias, math, module constants, closures, inlined helpers."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from tests import names_kernels as k
from tests.oracle import check

X = np.array([0.5, -1.0, 2.0])


@pytest.mark.parametrize("fn", [
    k.alias_numpy, k.imported_function, k.module_constants, k.math_constants,
    k.helper_defaults_and_keywords, k.nested_helpers, k.closure_fn, k.static_python_arithmetic,
    k.tuple_unpacking, k.static_loop_unrolled, k.list_comprehension,
], ids=lambda f: f.__name__)
def test_names(fn):
    check(fn, X)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_static_if_folded(dtype):
    check(k.static_if_on_dtype, X.astype(dtype))
    check(k.static_if_on_dtype, np.ones((2, 2), dtype))


def test_module_array_becomes_initializer():
    model = pyonnx.compile(k.module_constants).to_onnx(X)
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    assert any(np.array_equal(v, k.WEIGHTS) for v in inits.values())


def test_static_if_emits_only_taken_branch():
    model = pyonnx.compile(k.static_if_on_dtype).to_onnx(X.astype(np.float32))
    assert [n.op_type for n in model.graph.node] == ["Add"]

"""Products with an empty inner dimension are zeros, with no guard in the model.

pyonnx emits a plain ``MatMul`` for ``(m, 0) @ (0, n)``: onnxruntime >= 1.32 fills the output
with zeros itself. These tests hold onnxruntime to that where it matters: the same session
first computes a product of the same output shape with non-zero values (its buffers are then
dirty; an unfilled output would show them), then the empty-inner one, for every dtype numpy
multiplies in and the shapes of each operand rank; and the model has no Where after the
MatMul (the guard it replaced cost a pass over the output: 0.86 ms of a 1500x1000 product).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check, op_types

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]
# (a's shape, b's shape) with inner dimension k, filled in as 2 (dirty) then 0.
SHAPES = [((3, "k"), ("k", 4)), ((3, "k"), ("k",)), (("k",), ("k", 4)), ((2, 3, "k"), ("k", 4)),
          ((2, 3, "k"), (2, "k", 1)), ((1, "k"), ("k", 1))]


def matmul(a, b):
    return a @ b


def dot(a, b):
    return np.dot(a, b)


def _shape(spec, k):
    return tuple(k if d == "k" else d for d in spec)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa, sb", SHAPES)
def test_empty_inner_after_a_dirty_call(dtype, sa, sb):
    rtol = {"rtol": 2e-3, "atol": 2e-3} if dtype == "float16" else {}
    for fn in (matmul, dot):
        compiled = pyonnx.compile(fn)
        for k in (2, 0, 3, 0):  # one session: the zeros follow non-zero products
            a = np.full(_shape(sa, k), 3).astype(dtype)
            b = np.full(_shape(sb, k), 5).astype(dtype)
            check(compiled, a, b, **rtol)
            if k == 0:
                got = compiled(a, b)
                assert np.all(np.asarray(got) == 0)


def test_no_guard_after_the_product():
    ops = op_types(pyonnx.compile(matmul), np.ones((5, 3), np.float32),
                   np.ones((3, 4), np.float32))
    assert "MatMul" in ops and "Where" not in ops

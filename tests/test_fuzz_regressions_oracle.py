"""Regressions where the oracle itself was wrong or numpy's answer is not numpy's promise.

- Writes through an integer array into a float16 array were failing the oracle's float16 check:
  ``ScatterElements`` without a reduction only moves values (onnxruntime has a float16 kernel,
  no float32 detour), like ``ScatterND``; with a reduction it computes and must not read float16.
- ``np.unpackbits(..., count=)`` beyond the bits of an empty input: numpy 2.4 returns
  uninitialized memory (its buffer is not zero-filled when there is nothing to unpack); its
  documentation promises zero padding, which pyonnx returns.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import pyonnx
from tests.oracle import assert_no_float16_compute, check


def write_rows(x, idx, v):
    x[idx] = v
    return x


def write_scalar(x, idx):
    x[idx] = 7
    return x


def add_repeated(x, idx, v):
    x[idx] += v       # repeated positions: the last write wins, as in numpy
    return x


def write_after_rounding(x, idx):
    y = (x * 3.3).astype(np.float16)
    y[idx] = 1
    return y.astype(np.float32) * 3.3


def test_integer_array_writes_into_float16():
    i2 = np.array([0, 3])
    check(write_rows, np.zeros(5, np.float16), i2, np.array([1.5, 2.5], np.float16))
    check(write_rows, np.zeros(5, np.float16), i2, np.array([1.5, 2.5]))
    check(write_rows, np.zeros((3, 4), np.float16), np.array([[0, 2]]), np.float16(3))
    check(write_scalar, np.zeros((3, 4), np.float16), np.array([0, 2]))
    check(add_repeated, np.ones(5, np.float16), np.array([0, 3, 3]),
          np.array([1.5, 2.5, 1.0], np.float16))
    x = np.random.default_rng(6).standard_normal(50).astype(np.float32)
    check(write_after_rounding, x, np.array([0, 5, 49]))


def _scatter_model(reduction: str | None) -> onnx.ModelProto:
    attrs = {} if reduction is None else {"reduction": reduction}
    node = helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=0, **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [4]),
         helper.make_tensor_value_info("i", TensorProto.INT64, [2]),
         helper.make_tensor_value_info("u", TensorProto.FLOAT16, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


@pytest.mark.parametrize("reduction", ["add", "mul", "max"])
def test_oracle_refuses_a_reducing_float16_scatter(reduction):
    assert_no_float16_compute(_scatter_model(None))
    assert_no_float16_compute(_scatter_model("none"))
    with pytest.raises(AssertionError, match=r"\(ScatterElements\) reads float16"):
        assert_no_float16_compute(_scatter_model(reduction))


def unpack_count(b):
    return np.unpackbits(b, count=5), np.unpackbits(b, axis=0, count=10, bitorder="little")


def test_unpackbits_count_beyond_an_empty_input_is_zero_padding():
    f = pyonnx.compile(unpack_count)
    for shape in [(0, 2), (0, 0)]:
        flat, rows = f(np.zeros(shape, np.uint8))
        np.testing.assert_array_equal(flat, np.zeros(5, np.uint8))
        np.testing.assert_array_equal(rows, np.zeros((10, shape[1]), np.uint8))
        assert flat.dtype == rows.dtype == np.uint8
    check(f, np.array([[5, 255], [1, 128]], np.uint8))     # non-empty: numpy is the oracle

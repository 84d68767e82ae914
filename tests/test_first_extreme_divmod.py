"""``np.argmax``/``np.argmin`` by ``TopK`` (reductions/first_extreme.py) and integer ``//``/``%``
of operands proven non-negative (elementwise/nonnegative.py), against numpy: ties (the first
index), ±0, ±inf, NaN rows, every dtype, numpy's error on an empty axis, and the wrap of casts
that do not hold their values."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check, op_types


def argmaxes(x):
    return (np.argmax(x, axis=-1), np.argmin(x, axis=0), x.argmax(axis=1, keepdims=True),
            np.argmax(x), np.argmin(x, axis=-1, keepdims=True))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "float16",
                                   "uint8", "int8", "bool"])
def test_argmax_first_index_on_ties(dtype):
    rng = np.random.default_rng(3)
    pool = {"f": [-0.0, 0.0, 1.0, -1.0, np.inf, -np.inf, 2.0]}.get(np.dtype(dtype).kind)
    for shape in [(3, 5), (4, 1), (2, 3000), (1, 7)]:
        if pool is not None:
            x = rng.choice(np.array(pool, dtype), size=shape)
        elif dtype == "bool":
            x = rng.random(shape) < 0.3
        else:
            info = np.iinfo(dtype)
            x = rng.choice(np.array([info.min, info.max, 0, 1, info.max - 1], dtype), size=shape)
        check(argmaxes, x)


def test_argmax_nan_rows_and_empty_axis():
    x = np.array([[1.0, np.nan, 3.0, np.nan], [0.0, -0.0, 0.0, 1.0], [np.nan] * 4],
                 np.float32)
    check(argmaxes, x)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        pyonnx.compile(lambda v: np.argmax(v, axis=1))(np.zeros((2, 0), np.float32))


def test_argmax_runs_as_topk():
    model = pyonnx.compile(lambda v: np.argmax(v, axis=1)).to_onnx(np.zeros((2, 5), np.float32))
    ops = [n.op_type for n in model.graph.node]  # (the NaN rule's branch keeps an ArgMax)
    assert "TopK" in ops and "ArgMax" not in ops, ops
    # one row (1-d, or flattened): onnxruntime's ArgMax is the faster one there
    flat = pyonnx.compile(lambda v: np.argmax(v)).to_onnx(np.zeros((2, 5), np.float32))
    ops = [n.op_type for n in flat.graph.node]
    assert "ArgMax" in ops and "TopK" not in ops, ops


def decode(h):
    k, rows, w = h.shape
    idx = np.argmax(h.reshape(k, -1), axis=1)
    cols = np.nonzero(h[0] > 0)[1]
    return idx % w, idx // w, np.divmod(idx, w), cols // 3, cols % 3, idx // -w, idx % -3


@pytest.mark.parametrize("shape", [(3, 4, 5), (1, 1, 1), (2, 3, 1), (4, 2, 7)])
def test_divmod_of_non_negative_indices(shape):
    h = np.random.default_rng(1).normal(size=shape).astype(np.float32)
    check(decode, h)


def test_divmod_of_non_negative_indices_has_no_sign_fixups():
    def f(h):
        idx = np.argmax(h.reshape(h.shape[0], -1), axis=1)
        return idx % h.shape[2], idx // h.shape[2]

    ops = op_types(pyonnx.compile(f), np.zeros((2, 3, 4), np.float32))
    assert not {"Xor", "Less", "Not"} & ops, ops


def casts(m, u16, u32):
    return (m.astype(np.int64) // 2, u16.astype(np.int32) % 7, u32.astype(np.int64) // 5,
            u32.astype(np.int32) // 5, u32.astype(np.int32) % 5)


def test_divmod_of_cast_values_follows_the_wrap():
    m = np.array([True, False, True])
    u16 = np.array([0, 65535, 7], np.uint16)
    u32 = np.array([0, 4294967295, 2147483648], np.uint32)
    check(casts, m, u16, u32)

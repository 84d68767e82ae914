"""fold_rules/ranges.py: bound arithmetic decided by value ranges inside FoldConstantsPass.

ONNX-text fixtures (what folds, what must stay, same results under onnxruntime for lengths
0, 1 and many), then whole functions whose trip counts and slice bounds fold (differential
against numpy, 0/1/many elements, several dtypes).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from pyonnx.passes.fold_constants import FoldConstantsPass
from tests.oracle import check
from tests.passes.helpers import _run, checked, model, ops


def fold(text: str):
    m = model(text)
    before = checked(m)
    FoldConstantsPass()(m)
    return m, before


def same_for_lengths(before: onnx.ModelProto, after: onnx.ModelProto) -> None:
    """Both models agree on x of length 0, 1 and 5 (value, dtype, shape)."""
    for n in (0, 1, 5):
        feeds = {"x": np.arange(n, dtype=np.float32)}
        for w, g in zip(_run(before, feeds), _run(after, feeds)):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)


def test_length_minus_length_and_off_by_one_comparisons_fold():
    m, before = fold("""
    agraph (float[N] x) => (int64 d, bool lt, bool ge) {
        s = Shape <start = 0, end = 1> (x)
        n = Squeeze (s)
        d = Sub (n, n)
        one = Constant <value = int64 {1}> ()
        m1 = Sub (n, one)
        lt = Less (m1, n)
        ge = GreaterOrEqual (m1, n)
    }""")
    # (the dead Sub is RemoveUnusedPass's to remove)
    assert "Less" not in ops(m) and "GreaterOrEqual" not in ops(m)
    assert ops(m).count("Identity") == 3  # d, lt, ge: constants
    same_for_lengths(before, checked(m))


def test_max_of_a_length_and_zero_is_the_length_and_whole_slice_is_the_input():
    m, before = fold("""
    agraph (float[N] x) => (float[M] y) {
        s = Shape <start = 0, end = 1> (x)
        n = Squeeze (s)
        zero = Constant <value = int64 {0}> ()
        pos = Greater (n, zero)
        k = Where (pos, n, zero)
        ax = Constant <value = int64[1] {0}> ()
        ax1 = Constant <value = int64[1] {1}> ()
        e = Reshape (k, ax1)
        y = Slice (x, ax, e, ax)
    }""")
    assert ops(m)[-1] == "Identity" and "Slice" not in ops(m)  # y is x (dead nodes stay)
    same_for_lengths(before, checked(m))


def test_data_dependent_decisions_stay():
    # max(n - 1, 0) >= n holds for n == 0 only: it must stay computed.
    m, before = fold("""
    agraph (float[N] x) => (bool b, int64 k) {
        s = Shape <start = 0, end = 1> (x)
        n = Squeeze (s)
        one = Constant <value = int64 {1}> ()
        zero = Constant <value = int64 {0}> ()
        m1 = Sub (n, one)
        pos = Greater (m1, zero)
        k = Where (pos, m1, zero)
        b = GreaterOrEqual (k, n)
    }""")
    assert "GreaterOrEqual" in ops(m) and "Where" in ops(m)
    same_for_lengths(before, checked(m))


def test_int_inputs_without_range_are_not_decided():
    # a - 1 < a is false for a = INT64_MIN (wraps): no interval, no decision.
    m, before = fold("""
    agraph (int64 a) => (bool lt, int64 d) {
        one = Constant <value = int64 {1}> ()
        m1 = Sub (a, one)
        lt = Less (m1, a)
        d = Sub (m1, a)
    }""")
    assert "Less" in ops(m)
    assert ops(m).count("Identity") == 1  # d = -1 folds (modular arithmetic)
    proto = checked(m)
    for a in (np.iinfo(np.int64).min, 0, 7):
        feeds = {"a": np.array(a, np.int64)}
        for w, g in zip(_run(before, feeds), _run(proto, feeds)):
            np.testing.assert_array_equal(g, w)


def test_concat_with_empty_slices_is_the_middle():
    m, before = fold("""
    agraph (float[N] x, float[N] z) => (float[M] y) {
        s = Shape <start = 0, end = 1> (x)
        zero = Constant <value = int64[1] {0}> ()
        big = Constant <value = int64[1] {9223372036854775807}> ()
        head = Slice (x, zero, zero, zero)
        tail = Slice (x, s, big, zero)
        y = Concat <axis = 0> (head, z, tail)
    }""")
    assert "Concat" not in ops(m)
    for n in (0, 1, 5):
        feeds = {"x": np.arange(n, dtype=np.float32), "z": np.ones(n, np.float32)}
        for w, g in zip(_run(before, feeds), _run(checked(m), feeds)):
            assert g.shape == w.shape
            np.testing.assert_array_equal(g, w)


# ------------------------------------------------------------- whole functions
def affine(x):
    y = np.empty_like(x)
    for i in range(len(x)):
        y[i] = x[i] * 2 + 1
    return y


def masked(x):
    y = np.empty_like(x)
    for i in range(len(x)):
        if x[i] > 0:
            y[i] = x[i] * 2
        else:
            y[i] = -x[i]
    return y


def tail_write(x, a):
    y = x.copy()
    y[a:] = 0
    return y


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
@pytest.mark.parametrize("n", [0, 1, 7])
def test_vectorized_loops_fold_to_their_arithmetic(dtype, n):
    x = (np.arange(n) - 3).astype(dtype)
    check(affine, x)
    check(masked, x)
    check(tail_write, x, 2)
    check(tail_write, x, -1)


def test_vectorized_map_is_two_nodes():
    from pyonnx import compile as compile_

    assert [n.op_type for n in compile_(affine).to_onnx(np.zeros(4)).graph.node] == \
        ["Mul", "Add"]


def test_shape_and_column_reads_skip_transposed_copies():
    # b[:, 0] = ...; then b[:, 1] read: the reads and lengths come from the scattered array
    # itself, not from its transposed-back copy (which dies).
    m, before = fold("""
    agraph (float[N, M] x, float[N] v) => (float[K] col, int64[1] n) {
        t = Transpose <perm = [1, 0]> (x)
        idx = Constant <value = int64[1, 1] {0}> ()
        zero1 = Constant <value = int64[1] {0}> ()
        v2 = Unsqueeze (v, zero1)
        s = ScatterND (t, idx, v2)
        back = Transpose <perm = [1, 0]> (s)
        one = Constant <value = int64 {1}> ()
        col = Gather <axis = 1> (back, one)
        n = Shape <start = 0, end = 1> (back)
    }""")
    from pyonnx.passes.remove_unused import RemoveUnusedPass

    RemoveUnusedPass()(m)
    assert ops(m).count("Transpose") == 1
    after = checked(m)
    for rows, cols in ((3, 2), (1, 2), (0, 2), (2, 3)):
        feeds = {"x": np.arange(rows * cols, dtype=np.float32).reshape(rows, cols),
                 "v": np.full(rows, 7, np.float32)}
        for w, g in zip(_run(before, feeds), _run(after, feeds)):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)


def columns(b):
    y = b.copy()
    y[:, 0] = b[:, 0] - b[:, 2] / 2
    y[:, 1] = y[:, 0] * 2
    y[:, 2] = y[:, 1] + b[:, 3]
    return y


@pytest.mark.parametrize("shape", [(5, 4), (1, 4), (0, 4), (3, 5)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_column_writes_after_folding(shape, dtype):
    check(columns, np.arange(np.prod(shape)).reshape(shape).astype(dtype))


def last_column(x, k):
    return x[..., k]


def middle(x):
    return x[:, 1]


@pytest.mark.parametrize("shape", [(5, 4), (1, 4), (0, 4), (2, 3, 4), (3, 0, 2), (4, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_, np.uint8])
def test_last_axis_column_reads_are_numpys(shape, dtype):
    x = (np.arange(np.prod(shape)).reshape(shape) % 3).astype(dtype)
    for k in (0, -1, shape[-1] - 1):
        f = check(last_column, x, k, static_argnames=("k",))
    assert "Slice" in {n.op_type for n in f.to_onnx(x, 0).graph.node}
    if len(shape) == 3 and shape[1] > 1:
        check(middle, x)  # not the last axis: a plain Gather


@pytest.mark.parametrize("k", [4, -5])
def test_last_axis_column_out_of_range_still_fails(k):
    import pyonnx

    f = pyonnx.compile(last_column, static_argnames=("k",))
    for shape in ((3, 4), (0, 4)):
        x = np.zeros(shape, np.float32)
        with pytest.raises(IndexError, match=f"index {k} is out of bounds for axis 1"):
            last_column(x, k)
        # numpy's IndexError too (the failing Gather is named with numpy's axis), caused by
        # the ExecutionError that names the line
        with pytest.raises(IndexError, match=f"^index {k} is out of bounds for axis 1 with size 4$") \
                as raised:
            f(x, k)
        assert isinstance(raised.value.__cause__, pyonnx.ExecutionError)


def test_last_axis_gather_stays_in_loop_bodies():
    from pyonnx.passes.rewrite_idioms import RewriteIdiomsPass

    m = model("""
    agraph (int64 n, float[N, M] x) => (float[N, M] y, float[J, N] cols) {
        t = Constant <value = bool {1}> ()
        y, cols = Loop (n, t, x) <body = b (int64 i, bool c, float[N, M] x_in)
                                          => (bool c_out, float[N, M] x_out, float[N] col) {
            c_out = Identity (c)
            x_out = Identity (x_in)
            k = Constant <value = int64 {0}> ()
            col = Gather <axis = 1> (x_in, k)
        }>
    }""")
    RewriteIdiomsPass()(m)
    assert "Slice" not in ops(m) and ops(m).count("Gather") == 1


def where_of_compared_values(a0):
    # Where(p >= q, q, p) is min(p, q): with 0 >= a for a bool a (a in [0, 1]) it is 0, not a
    # (fuzz seed 26004776 folded it to a)
    t1 = np.zeros_like(a0, dtype=np.int8)
    return (np.where(t1 >= a0, a0, t1), np.where(t1 > a0, a0, t1), np.where(a0 >= t1, a0, t1),
            np.where(a0 <= t1, t1, a0), np.where(t1 < a0, t1, a0), np.where(a0 < t1, a0, t1))


@pytest.mark.parametrize("x", [np.array(True), np.array(False), np.array([True, False]),
                               np.array(3, np.uint8), np.array([0, 5], np.uint8)])
def test_a_where_of_the_compared_values_folds_to_the_right_one(x):
    check(where_of_compared_values, x)

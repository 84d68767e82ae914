"""NarrowSelectsPass: each pattern on ONNX text (fires or not, keeps results), and end to end
against numpy (ties, NaN, k beyond the length, empty, one and many elements)."""

from __future__ import annotations

import numpy as np
import pytest

from pyonnx.passes.narrow_selects import NarrowSelectsPass
from pyonnx.passes.remove_unused import RemoveUnusedPass
from tests.oracle import check, op_types
from tests.passes.helpers import checked, model, ops, same_results

CONSTS = """
    <int64[1] zero = {0}, int64[1] two = {2}, int64[1] ax1 = {1}, int64[1] big = {9223372036854775807},
     int64[1] minus2 = {-2}, int64[1] k3 = {3}, int64[1] one = {1}, int64[1] ax0 = {0}>
"""


def rewritten(text: str):
    m = model(text)
    before = checked(m)
    result = NarrowSelectsPass()(m)
    RemoveUnusedPass()(m)
    after = checked(m)
    return result.modified, ops(m), before, after


def test_prefix_of_a_full_topk_is_a_smaller_topk():
    text = "g (float[N,M] x) => (int64[N,?] i, float[N,?] v)" + CONSTS + """{
        n = Shape <start = 1, end = 2> (x)
        tv, ti = TopK <axis = 1, largest = 0> (x, n)
        i = Slice (ti, zero, two, ax1)
        v = Slice (tv, zero, two, ax1)
    }"""
    modified, got, before, after = rewritten(text)
    assert modified and "Slice" not in got and got.count("TopK") == 1 and "Min" in got
    same_results(before, after)


def test_constant_k_is_folded_and_never_grows():
    text = "g (float[N,5] x) => (int64[N,?] i)" + CONSTS + """{
        tv, ti = TopK <axis = -1> (x, k3)
        i = Slice (ti, zero, big, ax1)
    }"""
    modified, got, before, after = rewritten(text)
    assert modified and got == ["Constant", "TopK"]
    same_results(before, after)


@pytest.mark.parametrize("body", [
    # another axis
    """tv, ti = TopK <axis = 0> (x, k3)
       i = Slice (ti, zero, two, ax1)""",
    # not from the start
    """tv, ti = TopK <axis = 1> (x, k3)
       i = Slice (ti, one, two, ax1)""",
    # the other output used in full
    """tv, ti = TopK <axis = 1> (x, k3)
       i = Slice (ti, zero, two, ax1)
       s = Identity (tv)""",
    # a step
    """tv, ti = TopK <axis = 1> (x, k3)
       i = Slice (ti, zero, two, ax1, two)""",
])
def test_topk_prefix_only_where_it_is_the_same_selection(body):
    text = "g (float[5,5] x) => (int64[?,?] i)" + CONSTS + "{\n" + body + "\n}"
    modified, _, before, after = rewritten(text)
    assert not modified
    same_results(before, after)


def test_slice_taking_the_last_part_of_a_concat():
    text = "g (float[N] a, float[3] b) => (float[?] y)" + CONSTS + """{
        c = Concat <axis = 0> (a, b)
        y = Slice (c, minus3, big, ax0)
    }""".replace("{\n", "{\n        minus3 = Constant <value = int64[1] {-3}> ()\n", 1)
    modified, got, before, after = rewritten(text)
    assert modified and got == ["Identity"]
    same_results(before, after)


def test_slice_taking_the_first_part_of_a_concat():
    text = "g (float[2,4] a, float[N,4] b) => (float[?,4] y)" + CONSTS + """{
        c = Concat <axis = 0> (a, b)
        d = Slice (c, zero, two, ax0)
        y = Neg (d)
    }"""
    modified, got, before, after = rewritten(text)
    assert modified and got == ["Neg"]
    same_results(before, after)


@pytest.mark.parametrize("bounds", ["minus2, big", "zero, one", "one, big", "zero, k3"])
def test_slice_of_concat_only_for_exactly_one_part(bounds):
    text = "g (float[N] a, float[3] b) => (float[?] y)" + CONSTS + """{
        c = Concat <axis = 0> (b, a)
        y = Slice (c, BOUNDS, ax0)
    }""".replace("BOUNDS", bounds)
    modified, _, before, after = rewritten(text)
    assert not modified or bounds == "zero, k3"
    same_results(before, after)


# ------------------------------------------------------------------ end to end
def top5(logits):
    return np.argsort(-logits, axis=-1, kind="stable")[:, :5]


def top5_values(p):
    idx = np.argsort(p, axis=1, kind="stable")[:, :5]
    return idx, np.take_along_axis(p, idx, axis=1)


def sorted_prefix(x):
    return np.sort(x)[:3]


def topk_part(s, k):
    idx = np.argpartition(s, -k)[-k:]
    return idx[np.argsort(-s[idx], kind="stable")]


def bottom_part(s):
    return np.sort(s[np.argpartition(s, 2)[:3]])


MANY = np.random.default_rng(3).normal(size=(6, 40)).astype(np.float32)
TIES = np.array([[1, 0, 1, 0, 1, 2, 2], [3, 3, 3, 3, 3, 3, 3]], np.float32)
NANS = np.array([[np.nan, 1, -np.inf, np.inf, 0, np.nan, 1]], np.float32)


@pytest.mark.parametrize("x", [MANY, TIES, NANS, MANY[:1], MANY[:, :3], MANY[:, :1],
                               MANY[:0], TIES.astype(np.int64)], ids=lambda x: str(x.shape))
def test_argsort_prefix_like_numpy(x):
    check(top5, x)
    check(top5_values, x)
    f = check(top5, MANY)
    assert "TopK" in op_types(f, MANY)


@pytest.mark.parametrize("x", [MANY[0], TIES[0], NANS[0], MANY[0, :1], MANY[0, :0]],
                         ids=lambda x: str(x.shape))
def test_sorted_prefix_like_numpy(x):
    check(sorted_prefix, x)


def test_argpartition_top_k_drops_the_rest():
    s = np.random.default_rng(4).permutation(200).astype(np.float32)
    f = check(topk_part, s, 7)
    assert "Compress" not in op_types(f, s, 7)
    check(topk_part, s[:7], 7)
    check(topk_part, s[:1], 1)
    check(topk_part, np.array([1.0, np.nan, 3.0, np.inf], np.float32), 2)
    check(bottom_part, s)
    check(bottom_part, np.array([5, 1, 4], np.int64))


def prefix_in_a_loop(x, n):
    order = np.argsort(x, kind="stable")
    total = 0
    for i in range(n):
        total += order[: i + 1].sum() + order[:2].sum() * i
    return total


def test_prefix_read_in_a_loop_body():
    x = np.array([3.0, 1.0, 2.0, 1.0], np.float32)
    check(prefix_in_a_loop, x, 3)
    check(prefix_in_a_loop, x, 0)

"""ShareReductionsPass: keepdims twins of one reduction computed once, leading Unsqueezes
moved below elementwise ops and broadcast away; ONNX-text fixtures (op lists, the full checker,
equal results by onnxruntime) and differential end-to-end kernels (numpy's values, dtypes and
shapes) where a mean and a std/var of the same axes meet."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from pyonnx.passes.common_subexpressions import EliminateCommonSubexpressionsPass
from pyonnx.passes.remove_unused import RemoveUnusedPass
from pyonnx.passes.share_reductions import ShareReductionsPass
from tests.oracle import check, op_types
from tests.passes.helpers import checked, model, ops, same_results


def run(text: str):
    m = model(text)
    before = checked(m)
    modified = ShareReductionsPass()(m).modified
    EliminateCommonSubexpressionsPass()(m)
    RemoveUnusedPass()(m)
    same_results(before, checked(m))
    return m, modified


MEAN_STD = """
g (double[N, 4] x) => (double[N, 4] y) <int64[1] ax = {0}> {
  s0 = ReduceSum <keepdims: int = 0> (x, ax)
  c = Constant <value: tensor = double {4.0}> ()
  m0 = Div(s0, c)
  d0 = Sub(x, m0)
  s1 = ReduceSum <keepdims: int = 1> (x, ax)
  m1 = Div(s1, c)
  d1 = Sub(x, m1)
  q = ReduceSumSquare <keepdims: int = 0> (d1, ax)
  y = Div(d0, q)
}"""


def test_mean_and_std_share_one_sum_and_one_difference():
    m, modified = run(MEAN_STD)
    assert modified
    assert ops(m).count("ReduceSum") == 1 and ops(m).count("Sub") == 1
    assert "Unsqueeze" not in ops(m)


TRAILING = """
g (double[3, N] x) => (double[3, N] y) <int64[1] ax = {-1}> {
  s0 = ReduceMax <keepdims: int = 0> (x, ax)
  s1 = ReduceMax <keepdims: int = 1> (x, ax)
  e = Neg(s0)
  d = Sub(x, s1)
  y = Mul(d, d)
  z = Identity(e)
}"""


def test_trailing_axes_share_the_reduction_and_keep_the_unsqueeze():
    m, modified = run(TRAILING.replace("=> (double[3, N] y)", "=> (double[3, N] y, double[3] z)"))
    assert modified
    assert ops(m).count("ReduceMax") == 1 and "Unsqueeze" in ops(m)


NOT_TWINS = """
g (double[3, 4] x) => (double[3, 4] y) <int64[1] a0 = {0}, int64[1] a1 = {1}> {
  s0 = ReduceSum <keepdims: int = 0> (x, a1)
  s1 = ReduceSum <keepdims: int = 1> (x, a0)
  t = Unsqueeze(s0, a1)
  u = Add(x, s1)
  y = Add(u, t)
}"""


def test_other_axes_or_ops_are_left_alone():
    m, modified = run(NOT_TWINS)
    assert not modified
    assert ops(m).count("ReduceSum") == 2


OUTPUT_TWIN = """
g (double[3, 4] x) => (double[4] a, double[1, 4] b) <int64[1] ax = {0}> {
  a = ReduceSum <keepdims: int = 0> (x, ax)
  b = ReduceSum <keepdims: int = 1> (x, ax)
}"""


def test_graph_outputs_are_not_rewritten():
    m, modified = run(OUTPUT_TWIN)
    assert not modified


LOW_RANK_OTHER = """
g (double[5, 4] x, double[4] w) => (double[1, 4] y) <int64[1] ax = {0}> {
  s0 = ReduceSum <keepdims: int = 0> (x, ax)
  s1 = ReduceSum <keepdims: int = 1> (x, ax)
  p = Mul(s1, w)
  q = Sqrt(p)
  r = Add(s0, w)
  y = Add(q, r)
}"""


def test_unsqueeze_moves_below_ops_with_smaller_operands():
    m, modified = run(LOW_RANK_OTHER)
    assert modified
    assert ops(m).count("ReduceSum") == 1
    # (the Unsqueeze went below Mul and Sqrt; the final Add of (1,4) and (4,) keeps it)


# ------------------------------------------------------------------ end to end
def standardize(x):
    return (x - x.mean(axis=0)) / x.std(axis=0)


def standardize_rows(x):
    return (x - x.mean(axis=-1, keepdims=True)) / x.std(axis=-1, keepdims=True), x.mean(axis=-1)


def centered_var(x):
    m = np.mean(x, axis=0)
    v = np.var(x, axis=0)
    return (x - m) ** 2 / (v + 1.0), m, v


def sums(x):
    return np.sum(x, axis=(0, 1)), np.sum(x, axis=(0, 1), keepdims=True) - x


def in_loop(x, n):
    acc = np.zeros(x.shape[1])
    for _ in range(n):
        acc = acc + (x - x.mean(axis=0)).sum(axis=0) / x.std(axis=0)
    return acc


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", [standardize, standardize_rows, centered_var])
def test_kernels_keep_numpys_results(fn, dtype):
    rng = np.random.default_rng(0)
    c = pyonnx.compile(fn)
    for shape in ((1, 1), (5, 3), (200, 7)):
        check(c, (rng.normal(size=shape) * 3 + 1).astype(dtype))
    assert c.conversions == 1


def test_integer_and_3d_sums():
    x = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    check(sums, x)
    check(sums, np.random.default_rng(1).normal(size=(2, 3, 4)))


def test_one_sum_in_the_standardize_model():
    x = np.random.default_rng(2).normal(size=(50, 4))
    c = check(standardize, x)
    proto = c.to_onnx(x)
    kinds = [n.op_type for n in proto.graph.node]
    assert kinds.count("ReduceSum") == 1 and kinds.count("Sub") == 1


def test_inside_a_loop():
    x = np.random.default_rng(3).normal(size=(30, 4))
    for n in (0, 1, 3):
        check(in_loop, x, n)

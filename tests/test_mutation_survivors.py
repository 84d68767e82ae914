"""Differential tests for the behaviours that mutants of the compiler survived
(``tools/mutants.py``, issue 17). Each test names the mutant it kills; the check is numpy's
behaviour, not the mutant's: a test that only passes on the unmutated code for the right reason.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

SHADOW = 3.0
TABLE = np.array([10.0, 20.0, 30.0, 40.0])


# comprehensions.py `_loop_form`: all() starts True and any() starts False (kind == "all").
def all_any_run_time(x):
    return all(v > 0 for v in x), any(v > 5 for v in x)


@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 7.0]), np.array([1.0, -2.0]),
                               np.array([], np.float64), np.array([6.0])])
def test_all_any_over_a_run_time_generator(x):
    check(all_any_run_time, x)


# env.py `assigned_names`: a name the body assigns is local everywhere in it, so reading it
# first is Python's UnboundLocalError, never the module global of that name.
def read_before_assign(x):
    y = x * SHADOW
    SHADOW = 2.0  # noqa: F841
    return y


def test_local_read_before_assignment_is_refused():
    with pytest.raises(UnboundLocalError, match="local variable 'SHADOW'"):
        read_before_assign(np.ones(2))
    with pytest.raises(pyonnx.ConversionError, match="'SHADOW' is used before it is assigned"):
        pyonnx.compile(read_before_assign)(np.ones(2))


# expr.py: only a tuple/list base takes a 0-d run-time index statically; a module-level
# ndarray indexed by a run-time scalar is a Gather.
def global_table_at_run_time_index(x):
    return TABLE[np.argmax(x)]


@pytest.mark.parametrize("x", [np.array([0.0, 5.0, 1.0]), np.array([3.0, 1.0, 9.0, 2.0])])
def test_module_array_indexed_by_run_time_scalar(x):
    check(global_table_at_run_time_index, x)


# function.py: sum(generator, start) with its start argument is the accumulating loop too.
def sum_with_start(x):
    return sum((v * v for v in x), 10.0)


@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 3.0]), np.array([], np.float64)])
def test_sum_of_generator_with_start(x):
    check(sum_with_start, x)


# loops.py `_ran`: a run-time loop of exactly one trip rebinds a view (count > 0, not > 1).
def rebind_view_in_loop(x, n):
    v = x[:2]
    for _ in range(n):
        v = x[1:3]
    v[0] = 100.0
    return x


@pytest.mark.parametrize("n", [0, 1, 2])
def test_view_rebound_in_run_time_loop(n):
    check(rebind_view_in_loop, np.arange(5.0), n)


# choices.py `_write_back`: a view chosen at run time through three view steps writes back
# through every one of them.
def write_through_chained_view(x, c):
    if c > 0:
        v = x[1:][::2][:2]
    else:
        v = x[:3]
    v[0] = -1.0
    v[1] = -2.0
    return x


@pytest.mark.parametrize("c", [0, 1])
def test_write_through_view_chosen_at_run_time(c):
    check(write_through_chained_view, np.arange(8.0), c)


# iteration.py: the rows of a 2-D array are views (x.ndim > 1): a write through one is a
# write into x, in an unrolled loop and in a run-time one.
def write_through_rows(x):
    for row in x:
        row[0] = -1.0
    return x


@pytest.mark.parametrize("shape", [(3, 2), (70, 2)])  # unrolled, and past the unroll limit
def test_write_through_loop_rows(shape):
    check(write_through_rows, np.arange(float(np.prod(shape))).reshape(shape))


# local_functions.py: a nested def reads the enclosing values it captures.
def nested_closure(x):
    k = 2.0

    def scale(v):
        return v * k

    return scale(x) + 1.0


def test_nested_function_captures_enclosing_value():
    check(nested_closure, np.arange(3.0))


# setitem_basic.py: a value of lower rank than the selection is broadcast from the right
# (unsqueezed by len(sel) - v.ndim leading axes).
def set_columns_from_row(x, v):
    x[:, 1:3] = v
    return x


def set_columns_with_newaxis(x, v):
    x[:, None, 1:3] = v
    return x


@pytest.mark.parametrize("fn", [set_columns_from_row, set_columns_with_newaxis])
def test_setitem_broadcasts_lower_rank_value(fn):
    check(fn, np.zeros((3, 4)), np.array([5.0, 6.0]))


# setitem_basic.py `_refuse`: a value that cannot broadcast into the selection is refused
# with numpy's message and numpy's shape notation ("(3,)" for one axis).
def set_slice_wrong_length(k):
    x = np.zeros(5) * k  # static shapes: the mismatch is known at conversion
    x[1:3] = np.ones(3)
    return x


def test_setitem_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"from shape \(3,\) into shape \(2,\)"):
        set_slice_wrong_length(2.0)
    with pytest.raises(pyonnx.ConversionError,
                       match=r"could not broadcast input array from shape \(3,\) into shape "
                             r"\(2,\) \(numpy raises ValueError\)"):
        pyonnx.compile(set_slice_wrong_length)(2.0)


# ---------------------------------------------------------------- pyonnx/passes (seed 6 sample)
# fold_constants.py `_evaluate`: an op without a folding rule (MatMul) whose constant inputs are
# small but whose result is over the output limit stays computed (the model does not grow by
# 10^6 elements), and one under the limit folds.
def test_reference_fallback_respects_the_output_size_limit():
    import onnx_ir as ir

    from pyonnx.passes.fold_constants import FoldConstantsPass
    from tests.passes.helpers import model, ops

    text = """
g (float[N, M] x) => (float[N, M] y) <float[{n}, 1] a = {{{ones}}}, float[1, {n}] b = {{{ones}}}> {{
  p = MatMul(a, b)
  y = Add(x, p)
}}"""
    big = model(text.format(n=1000, ones=", ".join(["1"] * 1000)))
    assert not FoldConstantsPass()(big).modified
    assert ops(big) == ["MatMul", "Add"]
    small = model(text.format(n=4, ones="1, 1, 1, 1"))
    assert FoldConstantsPass()(small).modified
    assert ops(small) == ["Add"]
    assert small.graph.node(0).inputs[1].const_value.shape == ir.Shape([4, 4])


# fold_constants.py `_evaluate`: a node ONNX shape inference rejects (constant operands of
# shapes MatMul cannot take: a branch that never runs may hold one) is left alone, not folded
# and not a crash of the pass.
def test_reference_fallback_leaves_a_node_inference_rejects():
    from pyonnx.passes.fold_constants import FoldConstantsPass
    from tests.passes.helpers import model, ops

    m = model("""
g (float[N] x) => (float[N] y) <float[2, 3] a = {1, 2, 3, 4, 5, 6}, float[2, 3] b = {1, 2, 3, 4, 5, 6}> {
  p = MatMul(a, b)
  s = ReduceSum <keepdims = 0> (p)
  y = Add(x, s)
}""")
    FoldConstantsPass()(m)
    assert ops(m) == ["MatMul", "ReduceSum", "Add"]


# fold_rules/casts.py `constant`: Constant nodes (models from other tools: skl2onnx, onnx text)
# become initializers, whichever attribute holds the value: value, value_ints, value_float.
def test_constant_nodes_of_every_attribute_fold_to_their_values():
    import onnx_ir as ir

    from pyonnx.passes.fold_constants import FoldConstantsPass
    from tests.passes.helpers import checked, model, ops, same_results

    m = model("""
g (float[3] x, int64[2] i) => (float[3] y, int64[2] j) {
  a = Constant <value = float[3] {1.5, -2, 4}> ()
  b = Constant <value_float = 0.25> ()
  k = Constant <value_ints = [7, -3]> ()
  s = Add(a, b)
  y = Mul(x, s)
  j = Add(i, k)
}""")
    before = checked(m)
    assert FoldConstantsPass()(m).modified
    assert ops(m) == ["Mul", "Add"]
    consts = [n.inputs[1].const_value.numpy() for n in m.graph]
    np.testing.assert_array_equal(consts[0], np.array([1.75, -1.75, 4.25], np.float32))
    np.testing.assert_array_equal(consts[1], np.array([7, -3], np.int64))
    assert m.graph.node(1).inputs[1].dtype == ir.DataType.INT64
    same_results(before, checked(m))


# fold_rules/range_facts.py `_add`: the upper bound of a sum is the sum of the upper bounds
# (two lengths: 0 <= n + m, unbounded above): ``n + m > 0`` and ``n + m <= 1`` depend on the
# lengths and stay computed.
def test_sum_of_two_lengths_is_not_decided():
    from pyonnx.passes.fold_constants import FoldConstantsPass
    from tests.passes.helpers import _run, checked, model, ops

    m = model("""
g (float[N] x, float[M] z) => (bool pos, bool small) {
  sx = Shape <start = 0, end = 1> (x)
  sz = Shape <start = 0, end = 1> (z)
  n = Squeeze (sx)
  k = Squeeze (sz)
  zero = Constant <value = int64 {0}> ()
  one = Constant <value = int64 {1}> ()
  s = Add (n, k)
  pos = Greater (s, zero)
  small = LessOrEqual (s, one)
}""")
    before = checked(m)
    FoldConstantsPass()(m)
    assert "Greater" in ops(m) and "LessOrEqual" in ops(m)
    after = checked(m)
    for a, b in [(0, 0), (1, 0), (0, 1), (2, 3)]:
        feeds = {"x": np.zeros(a, np.float32), "z": np.zeros(b, np.float32)}
        got, want = _run(after, feeds), _run(before, feeds)
        assert [bool(g) for g in got] == [bool(w) for w in want] == [a + b > 0, a + b <= 1]


# fold_rules/movement.py `transpose`: a chain of Transposes whose perm attributes are not
# permutations (a malformed model from another tool) is left for the checker, not a crash.
def test_malformed_transpose_chain_is_left_alone():
    from pyonnx.passes.fold_constants import FoldConstantsPass
    from tests.passes.helpers import model, ops

    m = model("""
g (float[2, 3] x) => (float[3, 2] y) {
  t = Transpose <perm = [1, 1]> (x)
  y = Transpose <perm = [0, 1]> (t)
}""")
    FoldConstantsPass()(m)
    assert ops(m) == ["Transpose", "Transpose"]


# gradient/builder.py `_sum_to_dynamic`: without ranks, a broadcast cotangent is summed over
# the axes decided at run time: leading axes x lacks and axes where x has size 1 (axis numbers
# from 0).
@pytest.mark.parametrize("g_shape, x_shape", [((2, 3, 4), (3, 1)), ((2, 3), (2, 3)),
                                              ((5, 1, 4), (1, 4)), ((3, 4), (4,))])
def test_broadcast_cotangent_summed_without_known_ranks(g_shape, x_shape):
    import onnx_ir as ir
    import onnxruntime as ort

    from pyonnx.passes.gradient.builder import Builder

    g = ir.Value(name="g", type=ir.TensorType(ir.DataType.DOUBLE))
    x = ir.Value(name="x", type=ir.TensorType(ir.DataType.DOUBLE))
    graph = ir.Graph([g, x], [], nodes=[], name="sum_to", opset_imports={"": 21})
    m = ir.Model(graph, ir_version=10)
    b = Builder(m, info={})
    r = b.sum_to(g, x, None, None)
    graph.extend(b.nodes)
    for c in b._consts.values():
        if c.const_value is not None and c.name not in graph.initializers:
            graph.register_initializer(c)
    r.type = ir.TensorType(ir.DataType.DOUBLE)
    graph.outputs.append(r)
    proto = ir.to_proto(m)
    gv = np.arange(np.prod(g_shape), dtype=np.float64).reshape(g_shape)
    xv = np.zeros(x_shape)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    got = sess.run(None, {"g": gv, "x": xv})[0]
    lead = len(g_shape) - len(x_shape)
    want = gv.sum(axis=tuple(range(lead)))
    want = want.sum(axis=tuple(i for i, n in enumerate(x_shape) if n == 1 and want.shape[i] != 1),
                    keepdims=True).reshape(x_shape)
    np.testing.assert_array_equal(got, want)


# rewrite_idioms.py `reversed_cumsum`: with the rank unknown (a graph input without a shape),
# the axes are compared as written and the rewrite still applies, results unchanged.
def test_reversed_cumsum_of_an_input_of_unknown_rank():
    import onnxruntime as ort
    import onnx_ir as ir

    from pyonnx.passes.rewrite_idioms import RewriteIdiomsPass
    from tests.passes.helpers import model, ops

    text = """g (float[N,M] x) => (float[N,M] y)
    <int64[1] big = {9223372036854775807}, int64[1] small = {-9223372036854775808},
     int64[1] ax = {1}, int64[1] minus = {-1}, int64 cax = {1}> {
        r = Slice (x, big, small, ax, minus)
        c = CumSum (r, cax)
        y = Slice (c, big, small, ax, minus)
    }"""
    before = ir.to_proto(model(text)).SerializeToString()
    m = model(text)
    for v in (m.graph.inputs[0], m.graph.outputs[0]):
        v.shape = None
    assert RewriteIdiomsPass()(m).modified
    assert "CumSum" in ops(m) and ops(m).count("Slice") < 2
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    run = [ort.InferenceSession(p, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
           for p in (before, ir.to_proto(m).SerializeToString())]
    np.testing.assert_array_equal(run[1], run[0])
    np.testing.assert_array_equal(run[0], np.cumsum(x[:, ::-1], axis=1)[:, ::-1])

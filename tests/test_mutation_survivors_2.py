"""Differential tests for mutants the seed-5 samples of ``tools/mutants.py`` left alive
(issue 17; the first file, test_mutation_survivors.py, holds the earlier samples'). Each test
names the mutant it kills and checks numpy's (or ONNX's) behaviour, not the mutant's.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import check


# fold_rules/elementwise.py `_drop_neutral`: ``x - c`` folds to ``x`` only for c = +0.0:
# x - (-0.0) is x + 0.0, which turns -0.0 into +0.0 (numpy and IEEE), so it stays computed.
def minus_negative_zero(x):
    return x - (-0.0), x - 0.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_subtracting_a_signed_zero_keeps_numpys_sign(dtype):
    check(minus_negative_zero, np.array([-0.0, 0.0, 1.5, -2.0], dtype))


# fold_rules/casts.py `_INT_BOUNDS`: a float constant cast to an int type folds when it is in
# range, up to the type's maximum itself (the bound is max + 1, exclusive); one past it is
# left to the runtime (ONNX leaves an out-of-range cast undefined).
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32])
def test_cast_of_the_largest_int_folds_exactly(dtype):
    from onnx import helper

    from pyonnx.passes.fold_constants import FoldConstantsPass
    from tests.passes.helpers import _run, checked, model, ops

    top = float(np.iinfo(dtype).max)
    to = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    m = model(f"""
g (float[2] x) => (double y, double z) {{
  a = Constant <value = double {{{top}}}> ()
  b = Constant <value = double {{{top - 1.0}}}> ()
  ca = Cast <to = {to}> (a)
  cb = Cast <to = {to}> (b)
  y = Cast <to = 11> (ca)
  z = Cast <to = 11> (cb)
}}""")
    before = checked(m)
    FoldConstantsPass()(m)
    assert "Cast" not in ops(m)
    got = _run(checked(m), {"x": np.zeros(2, np.float32)})
    assert [float(v) for v in got] == [top, top - 1.0] == [float(v) for v in _run(before, {
        "x": np.zeros(2, np.float32)})]


# frontend/lower/aliases.py `register_view`: only an identity Transpose (v.T of a 1-D array)
# is the same mapping; a 2-D x.T is a view whose writes land transposed in x (the mutant
# `!=` registered it without its Transpose step).
def write_through_transpose(x):
    t = x.T
    t[0, 1] = 5.0
    return x.sum()


def test_write_through_a_transpose_lands_transposed():
    check(write_through_transpose, np.arange(6.0).reshape(2, 3))


# frontend/lower/checks.py: `raise E` of an exception object built outside the function (one
# string argument) raises that class with that message at run time, like Python.
NEGATIVE = ValueError("the input sums to a negative number")


def raise_prebuilt_exception(x):
    if x.sum() < 0:
        raise NEGATIVE
    return x * 2.0


@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([1.0, -3.0])])
def test_raise_of_a_prebuilt_exception_object(x):
    check(raise_prebuilt_exception, x)


# passes/gradient/builder.py `op`: a VJP node carries its forward node's doc_string (the user's
# file:line:col), which run-time errors and pyonnx.show report.
def sine_loss(x):
    return np.sum(np.sin(x) * x)


def test_vjp_nodes_name_the_users_line():
    import onnx

    import pyonnx

    g = pyonnx.grad(sine_loss)
    np.testing.assert_allclose(g(np.array([0.5, -1.0])),
                               np.cos([0.5, -1.0]) * [0.5, -1.0] + np.sin([0.5, -1.0]))
    model = onnx.load_from_string(g._last.model)
    line = sine_loss.__code__.co_firstlineno + 1
    vjp = [n for n in model.graph.node if "_vjp_" in n.name]
    assert vjp and any(f"{__file__}:{line}:" in n.doc_string for n in vjp), \
        [(n.name, n.doc_string) for n in vjp]

"""Differential tests of ``x[index]`` reads: numpy versus the compiled model, every index form.

Each case runs twice: through ``tests.oracle.check`` (inputs with symbolic dimensions, so the
lengths are only known at run time) and through ``check_fixed`` (the model built for the
inputs' fixed shapes, so conversion time knows the lengths and takes its static paths).
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pyonnx
from tests.oracle import assert_same, check, run_reference

# ----------------------------------------------------------------------- index functions
# 1-D
def i_int(x): return x[1]
def i_neg(x): return x[-1]
def i_start(x): return x[1:]
def i_stop(x): return x[:-1]
def i_step2(x): return x[::2]
def i_rev(x): return x[::-1]
def i_rev_from1(x): return x[1::-1]
def i_rev_5_m100(x): return x[5:-100:-1]
def i_rev_m1_m100(x): return x[-1:-100:-1]
def i_rev_m100(x): return x[-100::-1]
def i_rev_stop_m100(x): return x[:-100:-1]
def i_rev_m2_m4(x): return x[-2:-4:-1]
def i_rev_m5_m2(x): return x[-5:-2:-1]
def i_m3_m1(x): return x[-3:-1]
def i_big_start(x): return x[100:]
def i_big_stop(x): return x[:100]
def i_m100(x): return x[-100:]
def i_empty(x): return x[2:1]
def i_1_m1_2(x): return x[1:-1:2]
def i_rev3(x): return x[::-3]
def i_m2_rev2(x): return x[-2::-2]
def i_huge(x): return x[-2**70:2**70:2**65]
def i_huge_rev(x): return x[2**70:-2**70:-2]
def i_pybool(x): return x[True:]
# n-D basic
def i_2d_a(x): return x[1:, ::-2]
def i_col(x): return x[:, 1]
def i_row(x): return x[1, :]
def i_ell_last(x): return x[..., 0]
def i_ell_first(x): return x[0, ...]
def i_ell_none(x): return x[..., None]
def i_none(x): return x[None]
def i_none_mid(x): return x[None, :, None]
def i_ell_none_slice(x): return x[..., None, 1:]
def i_none_int(x): return x[:, None, 0]
def i_int_slice_none(x): return x[1, 2:, None]
def i_newaxis(x): return x[np.newaxis, ..., np.newaxis]
def i_unit(x): return x[()]
def i_ellipsis(x): return x[...]
def i_all(x): return x[:]
def i_two_ints(x): return x[0, 1]
def i_two_neg(x): return x[-1, -2]
def i_3d_a(x): return x[0, :, 1]
def i_3d_b(x): return x[1:, 0, ::-1]
def i_3d_c(x): return x[..., 1, None]
def i_3d_d(x): return x[:, -1, -1]
def i_3d_e(x): return x[-1, ::-1, 1:3]
def i_chain(x): return x[1:][::-1][0]
def i_none_none(x): return x[None, None]
def i_ell_only_none(x): return x[..., None, None]
# advanced: integer arrays
def a_list(x): return x[[0, 2]]
def a_neg_list(x): return x[[-1, 0, -1]]
def a_2d_list(x): return x[[[0, 1], [1, 0]]]
def a_col_list(x): return x[:, [0, -1]]
def a_tuple(x): return x[(0, 1), 1]
def a_np(x): return x[np.array([[1], [0]])]
def a_empty(x): return x[[]]
def a_empty_col(x): return x[:, []]
def a_pair(x): return x[[0, 1], [1, 0]]
def a_pair_bc(x): return x[[[0], [1]], [0, 1, 0]]
def a_int_arr(x): return x[[0, 1], 1]
def a_int_arr2(x): return x[1, [0, 1]]
def a_none_arr(x): return x[None, [0, 1]]
def a_arr_none(x): return x[[0, 1], None]
def a_slice_arr(x): return x[1:, [1, 0]]
def a_3d_sep(x): return x[[0, 1], :, [1, 0]]
def a_3d_adj(x): return x[:, [0, 1], [1, 0]]
def a_3d_int_sep(x): return x[0, :, [1, 0]]
def a_3d_int_adj(x): return x[:, 0, [1, 0]]
def a_3d_none_sep(x): return x[:, [0, 1], None, [1, 0]]
def a_3d_three(x): return x[[0, 1], [0, 1], [1, 0]]
def a_3d_slice_mid(x): return x[[1, 0], ::-1, [0]]
def a_3d_ell(x): return x[..., [0, 1]]
def a_mixed(x): return x[1:, [[0], [1]], [1, 2]]
def a_empty_ellipsis(x): return x[:, 0, ..., [1]]
def a_ellipsis_after(x): return x[:, [0], 0, ...]
# advanced: masks and booleans
def m_gt(x): return x[x > 3]
def m_and(x): return x[(x > 1) & (x < 5)]
def m_not_nan(x): return x[~np.isnan(x)]
def m_list(x): return x[[True, False, True]]
def m_col_list(x): return x[:, [True, False, True]]
def m_true(x): return x[True]
def m_false(x): return x[False]
def m_true_mid(x): return x[:, True]
def m_true_arr(x): return x[True, [0, 1]]
def m_int_true(x): return x[0, True]
def m_int_sep_true(x): return x[0, :, True]
def m_arr_list(x): return x[[0, 1], [True, False, True]]
def m_mask_false(x): return x[:, [True], False]
def m_mask_empty(x): return x[[True], []]
def a_empty_oob(x): return x[[], [5]]  # nothing read: numpy checks no bounds
def a_false_oob(x): return x[[5], False]
def a_nonzero(x): return x[np.nonzero(x > 2)]


# The tables: (function, shapes to run it on).
BASIC_1D = [i_int, i_neg, i_start, i_stop, i_step2, i_rev, i_rev_from1, i_rev_5_m100,
            i_rev_m1_m100, i_rev_m100, i_rev_stop_m100, i_rev_m2_m4, i_rev_m5_m2, i_m3_m1,
            i_big_start, i_big_stop, i_m100, i_empty, i_1_m1_2, i_rev3, i_m2_rev2, i_huge,
            i_huge_rev, i_chain, i_pybool]
BASIC_ND = [(i_2d_a, [(4, 6), (0, 3), (3, 0)]), (i_col, [(4, 6), (0, 3)]),
            (i_row, [(4, 6), (2, 0)]),
            (i_ell_last, [(5,), (3, 4), (2, 3, 4)]), (i_ell_first, [(5,), (3, 4)]),
            (i_ell_none, [(), (5,), (2, 3)]), (i_none, [(), (4,), (2, 3)]),
            (i_none_mid, [(4,)]), (i_ell_none_slice, [(4,), (2, 3), (2, 3, 4)]),
            (i_none_int, [(2, 3)]), (i_int_slice_none, [(2, 3), (3, 0)]),
            (i_newaxis, [(), (2, 3)]), (i_unit, [(), (3,), (2, 3)]), (i_ellipsis, [(), (2, 3)]),
            (i_all, [(3,), (2, 3)]), (i_two_ints, [(2, 3), (2, 3, 4)]), (i_two_neg, [(2, 3)]),
            (i_3d_a, [(2, 3, 4)]), (i_3d_b, [(2, 3, 4), (3, 2, 0)]), (i_3d_c, [(2, 3, 4)]),
            (i_3d_d, [(2, 3, 4), (0, 3, 4)]), (i_3d_e, [(2, 3, 4)]),
            (i_none_none, [(), (3,)]), (i_ell_only_none, [()])]
ADVANCED = [(a_list, [(3,), (3, 2)]), (a_neg_list, [(4,), (2, 3)]), (a_2d_list, [(2,), (3, 4)]),
            (a_col_list, [(2, 3), (0, 3)]), (a_tuple, [(2, 3)]), (a_np, [(2,), (2, 3)]),
            (a_empty, [(3,), (2, 3)]), (a_empty_col, [(2, 3)]), (a_pair, [(2, 3), (2, 3, 4)]),
            (a_pair_bc, [(2, 3)]), (a_int_arr, [(2, 3)]), (a_int_arr2, [(2, 3)]),
            (a_none_arr, [(2, 3)]), (a_arr_none, [(2, 3)]), (a_slice_arr, [(3, 2)]),
            (a_3d_sep, [(2, 3, 4)]), (a_3d_adj, [(2, 3, 4)]), (a_3d_int_sep, [(2, 3, 4)]),
            (a_3d_int_adj, [(2, 3, 4)]), (a_3d_none_sep, [(2, 3, 4)]),
            (a_3d_three, [(2, 2, 2)]), (a_3d_slice_mid, [(2, 3, 4)]),
            (a_3d_ell, [(2,), (3, 2), (2, 3, 2)]), (a_mixed, [(3, 2, 4)]),
            (a_empty_ellipsis, [(2, 3, 4)]), (a_ellipsis_after, [(2, 3, 4)]),
            (m_gt, [(0,), (7,), (2, 4), (2, 3, 2)]), (m_and, [(7,), (2, 4)]), (m_not_nan, [(3,), (2, 3)]),
            (m_list, [(3,), (3, 2)]), (m_col_list, [(2, 3)]), (m_true, [(), (2,), (2, 3)]),
            (m_false, [(), (2,), (2, 3)]), (m_true_mid, [(2, 3)]), (m_true_arr, [(2, 3)]),
            (m_int_true, [(2, 3)]), (m_int_sep_true, [(2, 3, 4)]), (m_arr_list, [(2, 3)]),
            (m_mask_false, [(0, 1), (2, 1)]), (m_mask_empty, [(1, 0), (1, 3)]),
            (a_empty_oob, [(2, 3)]), (a_false_oob, [(2, 3)]),
            (a_nonzero, [(7,), (3, 4), (2, 0)])]


def _data(shape, dtype="float32"):
    n = int(np.prod(shape))
    a = (np.arange(n) % 7 - 1).reshape(shape)
    return a.astype(dtype)


def check_fixed(fn, *args, static_argnames=()):
    """Like ``check``, but with the model built for the inputs' fixed shapes."""
    compiled = pyonnx.compile(fn, static_argnames=static_argnames)
    specs = [pyonnx.spec(a.dtype, a.shape) if isinstance(a, np.ndarray) else a for a in args]
    model = compiled.to_onnx(*specs)
    onnx.checker.check_model(model, full_check=True)
    params = list(inspect.signature(fn).parameters)
    inputs = {i.name: onnx.helper.tensor_dtype_to_np_dtype(i.type.tensor_type.elem_type)
              for i in model.graph.input}
    feeds = {n: np.asarray(a, dtype=inputs[n]) for n, a in zip(params, args) if n in inputs}
    with np.errstate(all="ignore"):
        want = fn(*args)
    # The static shape pyonnx declares must be numpy's wherever it states a length.
    dims = model.graph.output[0].type.tensor_type.shape.dim
    assert len(dims) == np.ndim(want), f"declared rank {len(dims)} != numpy's {np.ndim(want)}"
    for i, d in enumerate(dims):
        if d.HasField("dim_value"):
            assert d.dim_value == np.shape(want)[i], f"declared shape {dims} != {np.shape(want)}"
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for runtime, got in (("onnxruntime", sess.run(None, feeds)[0]), ("reference", None)):
        if runtime == "reference":
            ref = run_reference(model, feeds)
            if ref is None:
                continue
            got = ref[0]
        if np.ndim(want) == 0:
            got = got[()]
        assert_same(got, want, where=f"{runtime} (fixed shapes): ")
    return model


def _ids(cases):
    return [f"{fn.__name__}-{'x'.join(map(str, s)) or 'scalar'}" for fn, shapes in cases
            for s in shapes]


def _flat(cases):
    return [(fn, s) for fn, shapes in cases for s in shapes]


@pytest.mark.parametrize("fn", BASIC_1D, ids=[f.__name__ for f in BASIC_1D])
@pytest.mark.parametrize("n", [0, 1, 5])
def test_basic_1d(fn, n):
    x = _data((n,))
    try:
        with np.errstate(all="ignore"):
            fn(x)
    except IndexError:
        return  # x[1] of a short array: covered by the error tests
    check(fn, x)
    check_fixed(fn, x)


@pytest.mark.parametrize("fn,shape", _flat(BASIC_ND), ids=_ids(BASIC_ND))
def test_basic_nd(fn, shape):
    x = _data(shape)
    check(fn, x)
    check_fixed(fn, x)


@pytest.mark.parametrize("fn,shape", _flat(ADVANCED), ids=_ids(ADVANCED))
def test_advanced(fn, shape):
    x = _data(shape)
    check(fn, x)
    check_fixed(fn, x)


DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [i_2d_a, i_two_ints, a_3d_ell, m_col_list, a_pair])
def test_dtypes(fn, dtype):
    check(fn, _data((3, 3), dtype))


def m_nan(x):
    return x[~np.isnan(x)]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_mask_from_nan(dtype):
    check(m_nan, np.array([[1.0, np.nan], [np.nan, 2.0]], dtype))


# -------------------------------------------------------------- run-time index values
def d_int(x, i): return x[i]
def d_two(x, i, j): return x[i, j]
def d_start(x, i): return x[i:]
def d_stop(x, j): return x[:j]
def d_start_stop(x, i, j): return x[i:j]
def d_full(x, i, j, k): return x[i:j:k]
def d_step(x, k): return x[::k]
def d_start_step(x, i, k): return x[i::k]
def d_stop_step(x, j, k): return x[:j:k]
def d_rev_from(x, i): return x[i::-1]
def d_rev_to(x, i, j): return x[i:j:-1]
def d_int_slice(x, i): return x[i, 1:]
def d_slice_int(x, i): return x[1:, i]
def d_list(x, i, j): return x[[i, j]]
def d_arr(x, idx): return x[idx]
def d_arr_col(x, idx): return x[:, idx]
def d_arr_pair(x, idx, jdx): return x[idx, jdx]
def d_arr_sep(x, idx, jdx): return x[idx, :, jdx]
def d_arr_int(x, idx, i): return x[i, :, idx]
def d_mask(x, m): return x[m]
def d_mask_col(x, m): return x[:, m]
def d_mask_slice(x, m): return x[m, 1:]
def d_mask_none(x, m): return x[m, :, None]
def d_mask_int(x, m): return x[0, m]
def d_mask_arr(x, m, idx): return x[m, idx]
def d_mask_ell(x, m): return x[..., m]
def d_bool(x, b): return x[b]
def d_bool_arr(x, b, idx): return x[b, idx]
def d_two_masks(x, m, n): return x[m, n]


TABLE = np.arange(12.0).reshape(3, 4)


def d_table(i, j): return TABLE[i, j:]
def d_table_arr(idx): return TABLE[idx, ::-1]


def test_constant_base():
    check(d_table, -1, 1)
    check(d_table_arr, np.array([[2, 0]]))


def test_dynamic_ints():
    x = _data((4, 5))
    for i in (0, 3, -1, -4):
        check(d_int, x, i)
        check(d_two, x, i, -2)
        check(d_int_slice, x, i)
        check(d_slice_int, x, -i - 1)
    f = check(d_int, x, 2)
    check(f, _data((7, 2)), -7)
    assert f.conversions == 1  # the Python int stayed a run-time input
    for dtype in ("int8", "uint8", "int16", "int32", "uint32", "uint64"):
        check(d_int, x, np.array(2, dtype))
        check(d_two, x, np.array(1, dtype), np.int64(-1))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_dynamic_slices(n):
    x = _data((n,))
    vals = (-7, -5, -1, 0, 2, 6)
    for i in vals:
        check(d_start, x, i)
        check(d_stop, x, i)
        check(d_rev_from, x, i)
        for j in (-6, -1, 3):
            check(d_start_stop, x, i, j)
            check(d_rev_to, x, i, j)
    check(d_rev_from, x, 2**63 - 1)  # start + len would overflow
    check(d_full, x, 2**63 - 1, -2**63, -(2**63 - 1))
    for k in (-3, -1, 1, 2):
        check(d_step, x, k)
        check(d_start_step, x, -6, k)
        check(d_stop_step, x, -6, k)
        check(d_full, x, -6, 4, k)
        check(d_full, x, 6, -9, k)


def test_dynamic_slice_bound_dtypes():
    x = _data((6,))
    for dtype in ("int8", "uint8", "int32", "uint64"):
        check(d_full, x, np.array(1, dtype), np.array(5, dtype), np.array(2, dtype))
        check(d_full, x, np.array(-2 if dtype[0] == "i" else 9, dtype), np.array(0, dtype),
              np.array(-1 if dtype[0] == "i" else 1, dtype))


def test_dynamic_slices_known_length():
    x = _data((5,))
    for i in (-7, -5, -1, 0, 6):
        check_fixed(d_rev_from, x, i)
        check_fixed(d_full, x, i, -9, -2)
        check_fixed(d_full, x, i, 3, 1)
        check_fixed(d_step, x, i if i else 1)


def test_dynamic_index_arrays():
    x = _data((4, 5))
    x3 = _data((3, 4, 5))
    for dtype in ("int8", "uint8", "int16", "int32", "int64", "uint64"):
        idx = np.array([[0, 3], [1, 2]]).astype(dtype)
        check(d_arr, x, idx)
        check(d_arr_col, x, idx)
        check(d_arr_pair, x, idx, np.array([4, 0], dtype))
        check(d_arr_sep, x3, np.array([2, 0], dtype), idx)
        check(d_arr_int, x3, idx, 1)
    neg = np.array([-1, -4, 0])
    check(d_arr, x, neg)
    check(d_arr_pair, x, neg, neg[:, None])  # broadcast (3,) with (3, 1)
    check(d_arr_pair, x, neg, np.array(2))
    check(d_arr_pair, x, np.zeros((0,), np.int64), np.zeros((0,), np.int64))
    check(d_list, x, 3, -1)
    check(d_arr, x, np.zeros((2, 0), np.int32))


def test_dynamic_masks():
    x = _data((3, 4))
    x3 = _data((3, 4, 2))
    r = np.random.default_rng(0)
    for trial in range(2):
        m3 = r.random(3) > 0.5
        m4 = r.random(4) > 0.5
        check(d_mask, x, m3)
        check(d_mask, x, r.random((3, 4)) > 0.5)
        check(d_mask, x3, r.random((3, 4)) > 0.5)
        check(d_mask_col, x, m4)
        check(d_mask_col, x3, r.random((4, 2)) > 0.5)
        check(d_mask_slice, x, m3)
        check(d_mask_none, x3, m3)
        check(d_mask_int, x, m4)
        check(d_mask_ell, x3, r.random(2) > 0.5)
        check(d_mask_ell, x3, r.random((4, 2)) > 0.5)
    check(d_mask_arr, x, np.array([True, False, True]), np.array([3, 0]))
    check(d_mask_arr, x, np.array([False, True, False]), np.array([[1], [2]]))
    check(d_two_masks, x, np.array([True, False, True]), np.array([False, True, True, False]))
    check(d_mask, _data((0, 3)), np.zeros((0, 3), bool))
    check(d_mask, _data((2, 0)), np.zeros(2, bool))
    check(d_mask, _data((2, 0, 3)), np.zeros((2, 0), bool))
    check_fixed(d_mask, x3, r.random((3, 4)) > 0.5)
    check_fixed(d_mask_col, x3, r.random((4, 2)) > 0.5)
    check_fixed(d_mask_arr, x, np.array([True, False, True]), np.array([3, 0]))


def test_dynamic_bool_scalars():
    x = _data((2, 3))
    for b in (True, False):
        check(d_bool, x, b)
        check(d_bool, x, np.array(b))
        check(d_bool_arr, x, np.array(b), np.array([[1], [0]]))
    check(d_bool, np.float32(2.5), np.array(True))


# -------------------------------------------------------------------- lean ONNX
def _ops(fn, *args):
    return [n.op_type for n in pyonnx.compile(fn).to_onnx(*args).graph.node]


def test_lean_graphs():
    x2, x3 = _data((4, 6)), _data((2, 3, 4))
    assert _ops(i_2d_a, x2) == ["Slice"]
    # A last-axis column: a strided Slice of the flat array, its index checked by a Gather on
    # Range(0, n) (onnxruntime's last-axis Gather copies element by element: 4x slower).
    assert _ops(i_col, x2) == ["Shape", "Squeeze", "Range", "Gather", "Reshape", "Unsqueeze",
                               "Slice"]
    assert _ops(i_two_ints, x2) == ["GatherND"]
    assert _ops(i_3d_b, x3) == ["Slice", "Squeeze"]
    assert _ops(i_ell_none_slice, x3) == ["Slice", "Unsqueeze"]
    assert _ops(i_unit, x2) == ["Identity"] and _ops(i_all, x2) == ["Identity"]  # output = input
    assert _ops(a_col_list, x2) == ["Gather"]
    assert _ops(d_arr, x2, np.array([1])) == ["Gather"]
    assert _ops(a_pair, x2) == ["GatherND"]
    assert _ops(a_3d_adj, x3) == ["Transpose", "GatherND", "Transpose"]
    assert _ops(m_gt, _data((5,))) == ["Greater", "Compress"]
    assert _ops(m_gt, x3) == ["Greater", "Reshape", "Reshape", "Compress"]
    # Masks computed elementwise from x need no run-time shape check.
    assert "Shape" not in _ops(m_and, x3) and "Shape" not in _ops(m_not_nan, x2)
    assert _ops(d_mask_col, x2, np.ones(6, bool)) == ["Shape", "Reshape", "Compress"]
    # The rows of np.nonzero share a shape: no run-time broadcast of the index arrays.
    assert "Expand" not in _ops(a_nonzero, x2)
    assert _ops(d_start_stop, _data((5,)), 1, 3) == ["Reshape", "Reshape", "Slice"]
    assert _ops(d_two, x3, 1, 2) == ["Gather", "Gather"]


# ------------------------------------------------------------------------- hypothesis
def s_static(x, a, b, c): return x[a:b:c]


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 6), a=st.one_of(st.none(), st.integers(-9, 9)),
       b=st.one_of(st.none(), st.integers(-9, 9)),
       c=st.one_of(st.none(), st.integers(-4, 4).filter(bool)))
def test_hypothesis_static_slices(n, a, b, c):
    x = _data((n,))
    check(pyonnx.compile(s_static, static_argnames=("a", "b", "c")), x, a, b, c)
    check_fixed(s_static, x, a, b, c, static_argnames=("a", "b", "c"))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 6), a=st.integers(-9, 9), b=st.integers(-9, 9),
       c=st.integers(-4, 4).filter(bool))
def test_hypothesis_dynamic_slices(n, a, b, c):
    x = _data((n, 2))
    check(d_full, x, a, b, c)
    check_fixed(d_full, x, a, b, c)


def s_index(x, idx): return x[idx]


@st.composite
def _subscripts(draw):
    """A random array shape and a valid subscript of it mixing every form (static values)."""
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=4)))
    ndim = len(shape)
    kinds = draw(st.lists(st.sampled_from(["int", "slice", "none", "ellipsis", "array", "mask",
                                           "bool"]), max_size=5))
    if kinds.count("ellipsis") > 1:
        first = kinds.index("ellipsis")
        kinds = [k for i, k in enumerate(kinds) if k != "ellipsis" or i == first]
    widths = [draw(st.integers(1, 2)) if k == "mask" else int(k in ("int", "slice", "array"))
              for k in kinds]
    while sum(widths) > ndim:
        i = max(i for i, w in enumerate(widths) if w)
        del kinds[i], widths[i]
    axes, axis = [], 0
    for i, (k, w) in enumerate(zip(kinds, widths)):
        if k == "ellipsis":
            axis = ndim - sum(widths[i + 1:])
        axes.append(axis)
        axis += w
    fancy = sum(k in ("array", "mask", "bool") for k in kinds)
    arr_shape = draw(st.sampled_from([(1,), (2,), (2, 1)])) if fancy <= kinds.count("array") \
        else (1,)
    out = []
    for k, w, a in zip(kinds, widths, axes):
        d = shape[a] if w else 0
        if k in ("int", "array") and d == 0:
            k = "slice"
        if k == "int":
            out.append(draw(st.integers(-d, d - 1)))
        elif k == "slice":
            part = st.one_of(st.none(), st.integers(-5, 5))
            out.append(slice(draw(part), draw(part),
                             draw(st.one_of(st.none(), st.sampled_from([-3, -2, -1, 1, 2, 3])))))
        elif k == "none":
            out.append(None)
        elif k == "ellipsis":
            out.append(Ellipsis)
        elif k == "bool":
            out.append(draw(st.booleans()))
        elif k == "array":
            vals = np.array(draw(st.lists(st.integers(-d, d - 1), min_size=int(np.prod(arr_shape)),
                                          max_size=int(np.prod(arr_shape))))).reshape(arr_shape)
            out.append(tuple(map(tuple, vals)) if vals.ndim == 2 else tuple(vals.tolist()))
        else:
            m = np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(shape[a:a + w])),
                                       max_size=int(np.prod(shape[a:a + w]))))).reshape(
                                           shape[a:a + w])
            out.append(m.tolist() if m.ndim else bool(m))
    # Lists are unhashable: static arguments are tuples (numpy reads inner tuples as arrays).
    out = [tuple(map(tuple, o)) if isinstance(o, list) and o and isinstance(o[0], list)
           else tuple(o) if isinstance(o, list) else o for o in out]
    return shape, tuple(out)


@settings(max_examples=25, deadline=None)
@given(case=_subscripts())
def test_hypothesis_subscripts(case):
    shape, idx = case
    x = _data(shape)
    try:
        x[idx]
    except IndexError:  # e.g. an empty mask's nonzero() not broadcasting with an index array
        return
    check(pyonnx.compile(s_index, static_argnames=("idx",)), x, idx)
    check_fixed(s_index, x, idx, static_argnames=("idx",))


def s_dyn1(x, a): return x[a]
def s_dyn2(x, a, b): return x[a, b]
def s_dyn3(x, a, b, c): return x[a, b, c]
def s_dyn4(x, a, b, c, d): return x[a, b, c, d]
def s_dyn5(x, a, b, c, d, e): return x[a, b, c, d, e]


@settings(max_examples=25, deadline=None)
@given(case=_subscripts())
def test_hypothesis_run_time_subscripts(case):
    """The same subscripts with index arrays, masks, ints and bools passed as run-time inputs."""
    shape, idx = case
    x = _data(shape)
    def as_array(e):
        arr = np.asarray(e)
        return arr if arr.dtype == bool else arr.astype(np.int64)
    elements = [as_array(e) if isinstance(e, tuple) else e for e in idx]
    try:
        x[tuple(elements)]
    except IndexError:
        return
    fn = [s_index, s_dyn1, s_dyn2, s_dyn3, s_dyn4, s_dyn5][len(elements)]
    if fn is s_index:
        return  # x[()]: covered above
    check(fn, x, *elements)


# ----------------------------------------------------------------------------- errors
def e_step0(x): return x[::0]
def e_too_many(x): return x[0, 0, 0]
def e_two_ellipses(x): return x[..., ...]
def e_oob(x): return x[5]
def e_oob_neg(x): return x[:, -4]
def e_float(x): return x[1.0]
def e_float_arr(x): return x[np.array([1.0])]
def e_mask_len(x): return x[[True, False]]
def e_bcast(x): return x[[0, 1], [0, 1, 0]]
def e_bool_bound(x): return x[np.True_:]
def e_arr_bound(x): return x[np.array([1]):]
def e_oob_arr(x): return x[[0, 3]]
def e_scalar(x, s): return s[0]


ERRORS = [(e_step0, "step cannot be zero"), (e_too_many, "too many indices"),
          (e_two_ellipses, "single ellipsis"), (e_oob, "out of bounds"),
          (e_oob_neg, "out of bounds"), (e_float, "valid indices"),
          (e_float_arr, "integer (or boolean)"), (e_mask_len, "did not match"),
          (e_bcast, "could not be broadcast"), (e_bool_bound, "slice indices"),
          (e_arr_bound, "scalar index"), (e_oob_arr, "out of bounds")]


@pytest.mark.parametrize("fn,text", ERRORS, ids=[f.__name__ for f, _ in ERRORS])
def test_conversion_errors(fn, text):
    x = _data((3, 3))
    with pytest.raises((IndexError, ValueError, TypeError),
                       match="ind(ex|ices)|ellipsis|broadcast|integer|step") as numpy_err:
        fn(x)
    assert type(numpy_err.value) in (IndexError, ValueError, TypeError)
    with pytest.raises(pyonnx.ConversionError, match=re.escape(text)) as err:
        pyonnx.compile(fn).to_onnx(pyonnx.spec("float32", (3, 3)))
    assert err.value.loc.lineno == fn.__code__.co_firstlineno
    assert "numpy raises" in str(err.value) or "Python raises" in str(err.value)


def test_python_scalar_not_subscriptable():
    with pytest.raises(pyonnx.ConversionError, match="not subscriptable"):
        pyonnx.compile(e_scalar, static_argnames=()).to_onnx(_data((3,)), 2.0)


def test_run_time_errors():
    """Out-of-bounds indices and mismatched masks only known at run time make the model fail."""
    x = _data((3, 4))
    for fn, args in [(d_int, (x, 5)), (d_int, (x, -4)), (d_two, (x, 0, 4)),
                     (d_arr, (x, np.array([3]))), (d_arr_pair, (x, np.array([0]), np.array([-5]))),
                     (i_two_neg, (_data((1, 1)),)), (i_3d_b, (_data((2, 0, 3)),)),
                     (i_int, (_data((1,)),)), (i_neg, (_data((0,)),)),
                     (d_mask, (x, np.ones(2, bool))), (d_mask, (x, np.ones(4, bool))),
                     (d_mask, (x, np.ones((4, 3), bool))),
                     (d_mask_col, (x, np.zeros(5, bool))),
                     (d_mask, (_data((0,)), np.ones(1, bool))),
                     (d_mask, (_data((1, 5)), np.ones((5, 1), bool))),
                     (d_mask_arr, (x, np.ones(3, bool), np.array([0, 1])))]:
        with pytest.raises(IndexError, match="out of bounds|boolean index|shape mismatch") as want:
            fn(*args)
        with pytest.raises((IndexError, pyonnx.ExecutionError),
                           match="out of bounds|out of data bounds|cannot be|must be 1 instead|"
                                 "invalid (expand shape|index found)") as got:
            pyonnx.compile(fn)(*args)
        if got.type is IndexError:  # an integer index: numpy's exception and message
            assert str(got.value) == str(want.value)
            assert isinstance(got.value.__cause__, pyonnx.ExecutionError)
        else:
            assert "onnxruntime failed" in str(got.value)


# ------------------------------------------------- np.take, take_along_axis, compress, extract
def t_take(a, idx): return np.take(a, idx)
def t_take_ax(a, idx): return np.take(a, idx, axis=1)
def t_take_neg_ax(a, idx): return np.take(a, idx, axis=-1)
def t_take_wrap(a, idx): return np.take(a, idx, axis=0, mode="wrap")
def t_take_clip(a, idx): return np.take(a, idx, mode="clip")
def t_take_method(a, idx): return a.take(idx, axis=0)
def t_take_static(a): return np.take(a, [[0, -1], [2, 1]], axis=1)
def t_take_static_wrap(a): return a.take([-7, 5], axis=0, mode="wrap")
def t_take_static_clip(a): return np.take(a, [-7, 1, 5], axis=0, mode="clip")
def t_take_scalar(a, i): return np.take(a, i)
def t_take_bool(a): return np.take(a, [True, False, True], axis=0)
def t_take_const_a(idx): return np.take(np.arange(10.0), idx)
def t_take_list(a, i, j): return np.take(a, [[i], [j]], axis=0)
def t_tal(a, idx): return np.take_along_axis(a, idx, axis=1)
def t_tal0(a, idx): return np.take_along_axis(a, idx, 0)
def t_tal_none(a, idx): return np.take_along_axis(a, idx, axis=None)
def t_tal_argsort(a): return np.take_along_axis(a, np.argsort(a, axis=1), axis=1)
def t_compress(c, a): return np.compress(c, a, axis=0)
def t_compress_ax(c, a): return np.compress(c, a, axis=-1)
def t_compress_none(c, a): return np.compress(c, a)
def t_compress_method(c, a): return a.compress(c, axis=1)
def t_compress_static(a): return np.compress([False, True], a, axis=1)
def t_extract(c, a): return np.extract(c, a)
def t_extract_mask(a): return np.extract(a > 2, a)


def test_take():
    a = _data((3, 4))
    for dtype in ("int8", "int32", "int64", "uint8", "uint64"):
        idx = np.array([[0, -1], [5, 2]], dtype if dtype[0] == "i" else "int64")
        check(t_take, a, idx)
        check(t_take_ax, a, np.array([3, -4, 0] if dtype[0] == "i" else [3, 0, 1], dtype))
        check(t_take_neg_ax, a, np.array([1], dtype))
        check(t_take_method, a, np.array([[2], [0]], dtype))
    for idx in (np.array([-7, 5, 0, 2]), np.array(-1), np.zeros(0, np.int64)):
        check(t_take_wrap, a, idx)
        check(t_take_clip, a, idx)
    for f in (t_take_static, t_take_static_wrap, t_take_static_clip, t_take_bool):
        check(f, a)
        check_fixed(f, a)
    check(t_take_scalar, a, -3)
    check(t_take_scalar, _data((0, 2)), np.zeros((2, 0), np.int64))
    check(t_take_const_a, np.array([9, -10]))
    check(t_take_list, a, -1, 2)
    check(t_take_wrap, _data((0, 2)), np.zeros(0, np.int64))
    check_fixed(t_take_ax, a, np.array([[1, 3]]))


def test_take_along_axis():
    a = _data((3, 4))
    check(t_tal, a, np.array([[0, -1], [3, 2], [1, 1]]))
    check(t_tal, a, np.array([[0, -1]], np.int32))  # broadcast along axis 0
    check(t_tal, a[:1], np.array([[0, 1], [3, 2]], np.uint8))  # arr broadcast along axis 0
    check(t_tal0, a, np.array([[0, 1, 2, -1]]))
    check(t_tal0, a, np.array([[2], [0]]))
    check(t_tal_none, a, np.array([11, -12, 3]))
    check(t_tal_argsort, _data((4, 5)) * -1)
    check(t_tal, _data((3, 0)), np.zeros((3, 2), np.int64)[:, :0])
    check_fixed(t_tal, a, np.array([[0, -1]]))
    check_fixed(t_tal, a, np.array([[0, -1], [3, 2], [1, 1]]))
    check_fixed(t_tal, a[:1], np.array([[0, 1], [3, 2]]))


def test_compress_extract():
    a = _data((3, 4))
    for c in (np.array([True, False, True]), np.array([0, 2, 0], np.int8),
              np.array([0.0, np.nan, 1.0]), np.array([True, True]),
              np.array([True, False, False, False, False]), np.zeros(0, bool)):
        check(t_compress, c, a)
        check(t_compress_ax, np.resize(c, 4), a)
        check(t_compress_none, c, a)
        check(t_compress_method, np.resize(c, 2), a)
    check(t_compress_static, a)
    for c in (a > 1, np.array([1, 0, 2]), np.zeros(20, bool)):
        check(t_extract, c, a)
    check(t_extract_mask, a)
    check(t_extract, np.array([0.0, np.nan, 1.0], np.float64), a)


def test_indexing_call_errors():
    a = pyonnx.spec("float32", (3, 4))
    cases = [(t_take_static, "out of bounds", (pyonnx.spec("float32", (3, 1)),)),
             (t_take_static_wrap, "non-empty take from an empty",
              (pyonnx.spec("float32", (0, 1)),)),
             (t_tal, "same number of dimensions", (a, np.array([1]))),
             (t_tal_none, "single dimension", (a, np.array([[1]]))),
             (t_compress, "1-d array", (np.ones((2, 2), bool), a)),
             (t_take, "according to the rule 'safe'", (a, np.array([1.0]))),
             (t_tal, "could not be broadcast", (a, pyonnx.spec("int64", (2, 2))))]
    for fn, text, args in cases:
        with pytest.raises(pyonnx.ConversionError, match=re.escape(text)) as err:
            pyonnx.compile(fn).to_onnx(*args)
        assert err.value.loc.lineno == fn.__code__.co_firstlineno
    x = _data((3, 4))
    for fn, args in [(t_take, (x, np.array([12]))), (t_take_ax, (x, np.array([-5]))),
                     (t_take_wrap, (_data((0, 4)), np.array([1]))),
                     (t_take_clip, (_data((0,)), np.array([1]))),
                     (t_compress, (np.array([False, False, False, True]), x)),
                     (t_tal, (x, np.array([[4]])))]:
        with pytest.raises(IndexError, match="out of bounds|take from an empty"):
            fn(*args)
        with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):
            pyonnx.compile(fn)(*args)

"""Item assignment and numpy's memory semantics against numpy: every write form and dtype,
broadcasting, duplicates, aliases and chained views, writes in branches and loops, arguments
written into (the caller's array afterwards equals numpy's), and the refusals."""

from __future__ import annotations


import numpy as np
import pytest

import pyonnx
from tests import setitem_kernels as k
from tests.oracle import assert_same, check, loop_nodes

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64]
I64 = np.int64


# ---------------------------------------------------------------- write forms
@pytest.mark.parametrize("dtype", DTYPES)
def test_write_int_every_dtype(dtype):
    x = np.arange(5).astype(dtype)
    c = check(k.write_int, x, I64(2), dtype(1))
    check(c, x, I64(-1), dtype(0))
    check(c, x, I64(-5), dtype(1))
    assert "pyonnx" not in {o.domain for o in c.to_onnx(x, I64(2), dtype(1)).opset_import}


def test_write_int_out_of_range_fails_like_numpy():
    x = np.arange(3.0)
    with pytest.raises(IndexError, match="index 3 is out of bounds"):
        k.write_int(x, 3, 1.0)
    # numpy's IndexError, caused by the ExecutionError that names the line
    with pytest.raises(IndexError, match="^index 3 is out of bounds for axis 0") as raised:
        pyonnx.compile(k.write_int)(x, I64(3), 1.0)
    assert isinstance(raised.value.__cause__, pyonnx.ExecutionError)


def test_python_value_is_cast_as_numpy_casts():
    check(k.write_int, np.arange(4, dtype=np.int8), I64(1), 7)
    check(k.write_int, np.arange(4, dtype=np.int32), I64(1), 2.9)  # truncates
    check(k.augmented_scalar_cast, np.arange(4, dtype=np.int64))


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.bool_])
def test_two_ints_and_columns(dtype):
    m = np.arange(12).reshape(3, 4).astype(dtype)
    check(k.write_two_ints, m, I64(1), I64(-1), dtype(0))
    check(k.write_ellipsis_column, m, I64(2), dtype(1))
    check(k.write_column, m, I64(0), np.array([1, 0, 1], dtype))
    check(k.write_row_broadcast, m, np.ones(4, dtype))


@pytest.mark.parametrize("a,b,s", [(0, 5, 1), (1, 4, 2), (4, 0, -1), (-1, -6, -2), (3, 3, 1),
                                   (-100, 100, 3), (2, 1, 1)])
def test_write_slice_run_time_bounds(a, b, s):
    x = np.arange(6.0)
    check(k.write_slice, x, I64(a), I64(b), I64(s), 9.0)
    n = len(range(*slice(a, b, s).indices(6)))
    check(k.write_slice, x, I64(a), I64(b), I64(s), np.arange(n, dtype=np.float64))


def test_static_slices_newaxis_zero_d_nested():
    check(k.write_static_slices, np.arange(7.0))
    check(k.write_newaxis, np.arange(5.0), np.array([8.0, 9.0]))
    check(k.write_zero_d, np.arange(3.0))
    check(k.nested_subscript, np.arange(12.0).reshape(3, 4))
    check(k.write_empty, np.arange(4.0))
    check(k.write_empty, np.zeros(0))


@pytest.mark.parametrize("dtype", [np.int16, np.float64, np.uint8])
def test_boolean_masks(dtype):
    x = np.array([3, 1, 4, 1, 5], dtype)
    check(k.write_mask_scalar, x, dtype(2))
    check(k.write_mask_values, x)
    check(k.write_mask_scalar, x[:0], dtype(2))


def test_index_arrays_with_duplicates_last_wins():
    x = np.arange(6.0)
    check(k.write_index_array, x, np.array([1, 3, 1, -1]), np.array([10.0, 20.0, 30.0, 40.0]))
    check(k.write_index_array, x, np.array([0, 0, 0]), 5.0)
    check(k.write_index_array, x, np.zeros(0, np.int64), 5.0)
    m = np.arange(12.0).reshape(3, 4)
    check(k.write_two_index_arrays, m, np.array([0, 2, 0]), np.array([1, 3, 1]),
          np.array([7.0, 8.0, 9.0]))


def test_augmented_assignment_every_operator():
    check(k.augmented_all, np.arange(4.0), 2.5)
    check(k.augmented_int, np.arange(1, 7, dtype=np.int32), np.int32(3))
    check(k.duplicate_indices_add, np.zeros(4), np.array([1, 1, 2]))  # no accumulation


def test_add_at_accumulates():
    check(k.add_at, np.zeros(4), np.array([1, 1, 2, 1]), 1.5)
    check(k.add_at, np.zeros((3, 2), np.int32), np.array([0, 0, 2]), np.array([1, 2], np.int32))
    check(k.subtract_at, np.zeros(3, np.int64), np.array([2, 2]))


def test_copyto_fill_putmask():
    check(k.copyto_fill_putmask, np.arange(5.0))


# ---------------------------------------------------------------- aliases and views
@pytest.mark.parametrize("fn", [k.alias_write, k.view_write, k.chained_views,
                                k.row_view_in_place, k.transpose_view, k.copies_break_the_link,
                                k.view_then_rebind, k.calls_writing_helper])
def test_aliases_and_views(fn):
    x = np.arange(12.0).reshape(3, 4) if fn in (k.row_view_in_place, k.transpose_view) \
        else np.arange(8.0)
    check(fn, x)


def test_reshape_ravel_squeeze_expand_dims_views():
    check(k.reshape_view, np.arange(6.0))
    check(k.squeeze_view_write, np.arange(3.0)[None])


# ---------------------------------------------------------------- written arguments
def test_argument_written_and_none_returned():
    c = check(k.mutate_argument, np.arange(4.0), 7.0)
    check(k.mutate_argument, np.arange(3, dtype=np.int8), 5)
    check(k.view_of_argument, np.arange(7.0))
    check(k.mutate_and_return, np.arange(5.0))
    check(k.mutate_argument_in_loop, np.arange(6.0))
    check(k.cumulative_max_inplace, np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]))
    assert c.conversions == 1


def test_argument_written_through_a_strided_view_of_the_caller():
    base = np.arange(10.0)
    want = base.copy()
    k.mutate_argument(want[::3], 99.0)
    pyonnx.compile(k.mutate_argument)(base[::3], 99.0)
    assert_same(base, want)


def test_read_only_argument_is_refused_as_numpy_refuses():
    x = np.arange(3.0)
    x.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        k.mutate_argument(x, 1.0)
    with pytest.raises(ValueError, match="read-only"):
        pyonnx.compile(k.mutate_argument)(x, 1.0)


# ---------------------------------------------------------------- control flow
def test_writes_in_branches_both_ways():
    c = check(k.write_in_branch, np.arange(4.0), 3.0)
    check(c, np.arange(4.0), 30.0)
    c = check(k.write_through_view_in_branch, np.arange(5.0), 3.0)
    check(c, np.arange(5.0), 30.0)


@pytest.mark.parametrize("n", [0, 1, 7, 100])
def test_loop_writing_rows(n, monkeypatch):
    monkeypatch.setenv("PYONNX_VECTORIZE", "0")  # the Loop lowering (vectorized: test_vectorize)
    # onnx's reference evaluator cannot stack a Loop's scan output of 0 iterations
    # (np.vstack of nothing): onnxruntime alone checks n = 0.
    c = check(k.squares_loop, I64(n), reference=n > 0)
    # LowerSetItemPass: the row written on iteration i is a scan output, not a ScatterND (a
    # copy of the whole array) per iteration.
    loop = loop_nodes(c.to_onnx(I64(n)).graph)[0]
    assert "ScatterND" not in {nd.op_type for nd in loop.attribute[0].g.node}


@pytest.mark.parametrize("n", [1, 2, 9])
def test_loop_recurrence_reads_previous_write(n):
    check(k.recurrence_loop, np.linspace(0, 1, n))


def test_views_written_in_loops():
    check(k.row_view_loop, np.arange(12.0).reshape(4, 3))
    check(k.row_view_loop, np.zeros((0, 3)))
    for n in (0, 1, 3):
        check(k.view_written_in_loop, np.arange(6.0), I64(n))


@pytest.mark.parametrize("t", [-1.0, 2.5, 100.0])
def test_write_in_while_with_break(t):
    check(k.write_in_while_with_break, np.arange(5.0), t)


# ---------------------------------------------------------------- refused
def _marked(marker):
    import inspect
    lines, first = inspect.getsourcelines(k)
    for i, line in enumerate(lines):
        if line.rstrip().endswith(f"# <- {marker}"):
            return i + 1, line
    raise AssertionError(marker)


@pytest.mark.parametrize("fn,marker,args,words", [
    (k.data_dependent_alias, "ambiguous_alias", (np.arange(3.0), np.ones(3)),
     ["run-time data", ".copy()"]),
    (k.flip_view_write, "unknown_view", (np.arange(3.0)[None],), ["view", ".copy()"]),
    (k.module_constant_write, "module_constant", (np.arange(3.0),), ["module-level", "copy"]),
    (k.scalar_write, "scalar_write", (np.arange(3.0),), ["item assignment"]),
])
def test_refused_writes_point_at_the_line(fn, marker, args, words):
    with pytest.raises(pyonnx.ConversionError, match=r"\d+:\d+: error: ") as info:
        pyonnx.compile(fn)(*args)
    line, text = _marked(marker)
    assert info.value.lineno == line, str(info.value)
    for w in words:
        assert w in info.value.message, info.value.message


@pytest.mark.parametrize("rows", [2, 70])  # unrolled, and a Loop
def test_rows_of_an_array_are_views_while_iterating(rows):
    m = np.arange(rows * 3, dtype=np.float64).reshape(rows, 3)
    check(k.write_rows_while_iterating, m)
    check(k.enumerate_rows_write, m)
    check(k.normalize_rows_in_place, m + 1)


def test_appending_an_array_then_writing_it_is_refused():
    with pytest.raises(pyonnx.ConversionError, match="append a copy") as info:
        pyonnx.compile(k.append_then_write)(np.arange(3.0), I64(3))
    assert info.value.lineno == _marked("append_written")[0]
    check(k.append_copy_then_write, np.arange(3.0), I64(3))


def test_arrays_made_at_conversion_time_can_be_written():
    check(k.write_into_static_zeros, np.arange(5.0))
    check(k.in_place_on_static_alias, np.arange(9.0).reshape(3, 3))
    check(k.in_place_on_static_alias, np.arange(210.0).reshape(70, 3))


def test_aliases_written_in_place_inside_loops():
    check(k.alias_multiplied_in_while, np.array([1.0, 2.0]))
    check(k.alias_multiplied_in_while, np.array([100.0, 2.0]))
    for n in (0, 1, 3):
        check(k.strided_view_in_place_in_loop, np.arange(5.0), I64(n))


def test_view_of_a_conversion_time_array_is_written_through():
    # (one buffer for the constant and its view: lower/const_views.py; refused before)
    check(k.static_table_view_write, np.arange(3.0))

"""Regressions of issue 13 (the never-silently-wrong fuzzer), its "Minimized reproductions"
1–13: each reproduction and variants around it (other dtypes, 2-D, views of views, loops that
run 0 and 1 times), differential against numpy: value, dtype, scalar-vs-array, shape and the
caller's arguments after the call (:func:`same`), or a ConversionError at the user's line that
names the construct (:func:`refused_at`)."""

from __future__ import annotations

import copy

import numpy as np
import onnx
import pytest

import pyonnx
from tests.oracle import assert_same, check

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]


def _kind(v):
    if isinstance(v, (tuple, list)):
        return type(v), tuple(_kind(x) for x in v)
    if isinstance(v, np.ndarray):
        return "ndarray"
    if isinstance(v, np.generic):
        return "numpy scalar"
    return type(v)


def same(fn, *args, compiled=None, array_kind=True):
    """``fn`` run by numpy and by pyonnx on copies of ``args``: equal results (value, dtype,
    shape, structure and, with ``array_kind``, numpy scalar versus array) and equal arguments
    afterwards; the model passes the full checker. Returns the compiled function."""
    compiled = compiled or pyonnx.compile(fn)
    mine, theirs = copy.deepcopy(args), copy.deepcopy(args)
    with np.errstate(all="ignore"):
        want = fn(*theirs)
    got = compiled(*mine)
    if array_kind:
        assert _kind(got) == _kind(want), f"{_kind(got)} != numpy's {_kind(want)}"
    if want is None:
        assert got is None
    else:
        _same_tree(got, want)
    for i, (a, b) in enumerate(zip(mine, theirs)):
        if isinstance(b, np.ndarray):
            assert_same(a, b, where=f"argument {i} after the call: ")
    onnx.checker.check_model(compiled.to_onnx(*copy.deepcopy(args)), full_check=True)
    return compiled


def _same_tree(got, want):
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            _same_tree(g, w)
    elif want is None or isinstance(want, int) and not isinstance(want, (bool, np.generic)):
        assert got == want and type(got) is type(want), (got, want)
    else:
        assert_same(got, want)


def refused_at(fn, *args, match: str, line: int):
    """pyonnx refuses ``fn(*args)`` with a ConversionError matching ``match`` at body line
    ``line`` (1 = the first line after ``def``) of the user's function."""
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(*copy.deepcopy(args))
    assert info.value.lineno == fn.__code__.co_firstlineno + line, str(info.value)
    assert __file__.rstrip("c") in str(info.value) or info.value.loc.filename.endswith(
        "test_regressions_issue13.py")


# ---------------------------------------------------------------- 1: an integer index is a copy
def int_index_scalar_1d(x):
    t = x[0]
    t *= 7
    return t


def int_index_scalar_2d(x):
    t = x[-1, 0]
    t //= 2
    return t


def swap_through_element(M):
    t = M[0, 1]
    M[0, 1] = M[1, 1]
    M[1, 1] = t
    return M


def int_index_of_view_of_view(x):
    v = x[1:][::-1]
    t = v[0, 1]
    t += 5
    return t, v


def int_index_with_ellipsis_is_a_view(x):
    t = x[0, ...]
    t += 1
    return t


def row_index_is_a_view(x):
    r = x[1]
    r *= 2
    return r


def gaussian_elimination_pivot(M):
    n = M.shape[0]
    for i in range(n):
        k = i + np.argmax(np.abs(M[i:, i]))
        for j in range(M.shape[1]):
            t = M[i, j]
            M[i, j] = M[k, j]
            M[k, j] = t
    return M


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_int_index_gives_a_scalar_copy(dtype):
    same(int_index_scalar_1d, np.arange(1, 5).astype(dtype))
    same(int_index_scalar_2d, np.arange(1, 7).astype(dtype).reshape(2, 3))
    same(swap_through_element, np.arange(6).astype(dtype).reshape(2, 3))
    same(int_index_of_view_of_view, np.arange(9).astype(dtype).reshape(3, 3))


def test_ellipsis_and_rows_stay_views():
    same(int_index_with_ellipsis_is_a_view, np.arange(3.0))
    same(row_index_is_a_view, np.arange(6.0).reshape(3, 2))


def test_int_index_scalar_in_pivoting_loop():
    M = np.array([[1.0, 2.0, 3.0], [7.0, 1.0, 0.5], [4.0, 9.0, 2.0]])
    c = same(gaussian_elimination_pivot, M)
    same(gaussian_elimination_pivot, M[:1, :1].copy(), compiled=c)   # loops run 1 time
    same(gaussian_elimination_pivot, np.zeros((0, 2)), compiled=c)   # 0 times


# ---------------------------------------------------------------- 3: np.asarray(v, dtype=) of 0-d
def asarray_min_bool(y):
    return np.asarray((y < 3).min(), dtype=np.float64)


def asarray_sum(a):
    return np.asarray(a.sum(), dtype=np.float64)


def asarray_element(acc):
    return np.asarray((acc / 1.5)[1], dtype=np.float64)


def asarray_same_dtype_0d(a):
    return np.asarray(a.sum(), dtype=a.dtype) + 0


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.float32, np.float64])
def test_asarray_dtype_of_0d_values(dtype):
    x = np.arange(4).astype(dtype)
    same(asarray_min_bool, x, array_kind=False)
    same(asarray_sum, x, array_kind=False)
    same(asarray_element, x, array_kind=False)
    same(asarray_same_dtype_0d, x)


# ---------------------------------------------------------------- 4: views pyonnx does not follow
def flip_then_write_base(t3):
    t9 = np.flip(t3, axis=0)
    t3[-1, -2] -= 3.0
    return t9.copy()


def flip_then_write_base_unread(t3):
    t9 = np.flip(t3, axis=0)
    s = t9.sum()
    t3[-1, -2] -= 3.0
    return s, t3


def flip_after_write(t3):
    t3[-1, -2] -= 3.0
    t9 = np.flip(t3, axis=0)
    return t9.copy()


def diagonal_then_write_in_loop(a, n):
    d = np.diagonal(a)
    for i in range(n):
        a[i, i] = 0.0
    return d + 1.0


def split_then_write_base(t3):
    t9 = np.split(t3, 1)[0]
    t3[-1, -2] -= 3.0
    return t9.copy()


def test_stale_unfollowed_view_is_refused_at_the_read():
    x = np.arange(6.0).reshape(3, 2)
    # np.flip and np.diagonal views are followed (re-derived after the write)
    same(flip_then_write_base, x)
    same(flip_then_write_base_unread, x)
    same(flip_after_write, x)
    same(diagonal_then_write_in_loop, np.ones((3, 3)), np.int64(2))
    refused_at(split_then_write_base, x, match=r"'t9' is a view made by .*line", line=3)


# ---------------------------------------------------------------- 8: np.asarray with another dtype
def asarray_other_dtype_copies(k):
    z = np.asarray(k, dtype=np.float64)
    z[1] = 0.5
    return z


def normalize_counts(counts):
    p = np.asarray(counts, dtype=np.float64)
    p /= p.sum()
    return p


def asarray_same_dtype_aliases(k):
    z = np.asarray(k, dtype=k.dtype)
    z[1] = 9
    return z


def array_other_dtype_of_view(k):
    v = k[1:]
    z = np.array(v, dtype=np.float32, copy=None)
    z[0] = 0.5
    return z


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.float32, np.bool_])
def test_asarray_with_another_dtype_copies(dtype):
    k = np.arange(3).astype(dtype)
    same(asarray_other_dtype_copies, k)
    same(asarray_same_dtype_aliases, k)
    same(array_other_dtype_of_view, np.arange(4).astype(dtype))
    same(normalize_counts, np.arange(1, 4).astype(dtype))


# ---------------------------------------------------------------- 9: calls that return views
def ascontiguous_aliases(x):
    y = np.ascontiguousarray(x)
    y[0] = -1.0
    return y.sum()


def array_copy_false_aliases(x):
    y = np.array(x, copy=False)
    y[0] = -1.0
    return y.sum()


def astype_copy_false_aliases(x):
    y = x.astype(np.float64, copy=False)
    y[0] = -1.0
    return y.sum()


def astype_copy_false_other_dtype_copies(x):
    y = x.astype(np.float32, copy=False)
    y[0] = -1.0
    return y.sum()


def ascontiguous_of_view_of_view(x):
    v = x[1:][:, ::2]
    y = np.ascontiguousarray(v)
    y[0, 0] = -1.0
    return y


def ascontiguous_of_0d(x):
    s = x[...]
    y = np.ascontiguousarray(s)
    y[0] = -1.0
    return y


@pytest.mark.parametrize("fn", [array_copy_false_aliases, astype_copy_false_aliases,
                                astype_copy_false_other_dtype_copies])
def test_view_returning_calls(fn):
    same(fn, np.arange(3.0))
    same(fn, np.arange(6.0).reshape(2, 3)[0])   # a view argument
    same(fn, np.arange(6.0)[::2])               # a strided argument


def ascontiguous_read_only(x):
    y = np.ascontiguousarray(x)
    return y.sum() + y[0]


def test_ascontiguousarray_writes_are_refused():
    # numpy's result is a view exactly when the caller's array is C-contiguous (a strided
    # argument or view is copied): pyonnx cannot tell from the signature, so writes through
    # it are refused at the line, and reads are exact.
    for fn, line in ((ascontiguous_aliases, 2), (ascontiguous_of_view_of_view, 3),
                     (ascontiguous_of_0d, 3)):
        refused_at(fn, np.arange(12.0).reshape(3, 4) if fn is ascontiguous_of_view_of_view
                   else np.array(4.0) if fn is ascontiguous_of_0d else np.arange(3.0),
                   match="memory layout pyonnx does not follow", line=line)
    same(ascontiguous_read_only, np.arange(3.0))
    same(ascontiguous_read_only, np.arange(6.0)[::2])
    a = np.arange(3.0)
    assert np.shares_memory(np.ascontiguousarray(a), a)            # why writes are refused:
    assert not np.shares_memory(np.ascontiguousarray(a[::2]), a)   # it depends on the layout


# ---------------------------------------------------------------- 11, 13: crashes
def interp_list_constants(x):
    return np.interp(x, [0.0, 2.0], [1.0, 3.0])


def write_through_reshape_minus_one(img):
    flat = img.reshape(-1, img.shape[-1])
    flat[:, 1] = 0.0
    return img


def fancy_then_write_none_index(y):
    t0 = y[np.array([0, -1])]
    t0[None, -1] -= 1.5
    return t0


def reshape_zero_size(x):
    y = x[x > 100]
    return y.reshape(-1, 1), y.reshape(0, 3)


def test_crashes_fixed():
    same(interp_list_constants, np.array([-3.5, 1.0, 2.0, 0.5]))
    same(interp_list_constants, np.array([0.25], np.float32))
    same(write_through_reshape_minus_one, np.arange(12.0).reshape(2, 2, 3))
    same(write_through_reshape_minus_one, np.zeros((0, 2, 3)))
    same(write_through_reshape_minus_one, np.arange(6.0).reshape(3, 2))
    same(fancy_then_write_none_index, np.arange(4.0))
    same(fancy_then_write_none_index, np.arange(4, dtype=np.float32))
    same(reshape_zero_size, np.arange(4.0))


# ---------------------------------------------------------------- 5: argument rebound in a loop
def rebound_in_while_then_written(x, n):
    k = 0
    while k < n and x[0] > 0:
        x = x * x
        k += 1
    x[1:-1] <<= 1
    return x


def rebound_in_nested_while_then_written(x, n):
    k = 0
    while k < n:
        while x[0] > 0:
            x = x - 1.0
            if x[0] > 3.0:
                break
        k += 1
    if x.sum() < 2:
        x[-1] += 2.0
    return x


def rebound_in_for_then_read(x, n):
    for i in range(n):
        x = x * 2
    return x + 1


def rebound_in_static_for_then_written(x):
    for i in range(2):
        x = x * 2
    x[0] = 7
    return x


def rebound_view_in_loop_then_written(x, n):
    v = x[1:]
    for i in range(n):
        v = v + 1
    v[0] = 9
    return v


@pytest.mark.parametrize("n", [0, 1, 3])
def test_loop_rebinding_an_argument_then_writing(n):
    # The write reaches the argument's memory exactly when the loop ran 0 times (a choice on
    # "the loop ran", lower/choices.py).
    compiled = pyonnx.compile(rebound_in_while_then_written)
    for x in (np.arange(1, 5), np.arange(-1, 4)):
        same(rebound_in_while_then_written, x, np.int64(n), compiled=compiled)
    same(rebound_view_in_loop_then_written, np.arange(1, 5), np.int64(n))


def test_loop_rebinding_in_nested_loops_then_writing_is_refused_at_the_write():
    # After the outer loop x is the argument, the inner loop's choice, or a new array.
    refused_at(rebound_in_nested_while_then_written, np.arange(4.0), np.int64(1),
               match="'x' may refer to different memory", line=9)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_loop_rebinding_an_argument_reads_exactly(n):
    c = same(rebound_in_for_then_read, np.arange(4, dtype=np.int32), np.int64(n))
    same(rebound_in_for_then_read, np.arange(6.0).reshape(2, 3), np.int64(n))
    assert c.conversions == 1
    same(rebound_in_static_for_then_written, np.arange(4, dtype=np.int16))


# ---------------------------------------------------------------- 6: arguments sharing memory
def read_one_write_other(a, b):
    a[0] = b[1] + 1.0
    a[1] = b[0] * 2.0


def lattice_step(f_out, f_in):
    f_out[1:] = f_in[:-1] * 0.5
    f_out[0] = f_in[-1]
    return f_out.sum()


def reads_two(a, b):
    return a.sum() + b.sum()


def test_the_same_array_twice_runs_a_model_variant_with_numpys_meaning():
    for fn, n in ((read_one_write_other, 4), (lattice_step, 5)):
        c = pyonnx.compile(fn)
        for dtype in (np.float64, np.float32):
            mine, theirs = np.arange(n, dtype=dtype), np.arange(n, dtype=dtype)
            for _ in range(2):       # the variant is converted once and reused
                got, want = c(mine, mine), fn(theirs, theirs)
                assert_same(mine, theirs, where="the array after the call: ")
                if want is not None:
                    assert_same(got, want)
            other = np.arange(n, dtype=dtype)
            same(fn, other, other[::-1].copy(), compiled=c)  # the plain model still serves
        assert len(c._alias_variants) == 1


def test_partially_overlapping_arguments_are_refused_at_the_call():
    r = np.arange(4.0)
    c = pyonnx.compile(read_one_write_other)
    for a, b in ((r, r[1:]), (r[1:], r), (r.reshape(2, 2)[0], r), (r[:3], r[1:])):
        before = r.copy()
        with pytest.raises(pyonnx.ExecutionError, match="'a' and 'b' share memory"):
            c(a, b)
        assert np.array_equal(r, before)  # nothing was written


def test_disjoint_arguments_and_readers_still_run():
    r = np.arange(8.0)
    c = same(read_one_write_other, np.arange(4.0), np.arange(4.0))
    mine, theirs = r.copy(), r.copy()
    c(mine[::2], mine[1::2])                 # interleaved but disjoint: numpy's answer
    read_one_write_other(theirs[::2], theirs[1::2])
    assert np.array_equal(mine, theirs)
    same(lattice_step, np.zeros(5), np.arange(5.0))
    same(reads_two, r, r)                    # no write: sharing is harmless


# ---------------------------------------------------------------- 10: returned structures
def nested_tuple(x):
    return x.sum(), (x.min(), x.argmax())


def shape_and_frexp(x):
    return x.shape, np.frexp(x)


def shape_of_0d(x):
    s = x.sum()
    return s.shape


def returned_list(x):
    return [x.max(), x.argmax()]


def with_none_and_numbers(x):
    return None, x.shape[0], 2.5, [x[0], (True, x)]


def ragged_list(x):
    return [x[:2], x[2:]]


def array_split_3(x):
    return np.array_split(x, 3)


def python_scalars(x, n):
    return n * 2, float(x.sum()), x.ndim, x.shape[-1] + n


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_returned_structures_as_numpy_returns_them(dtype):
    x = np.array([-3.5, 1.0, 2.0]).astype(dtype)
    for fn in (nested_tuple, shape_and_frexp, shape_of_0d, returned_list, with_none_and_numbers,
               ragged_list, array_split_3):
        if fn is shape_and_frexp and dtype is np.int32:
            continue  # np.frexp has no integer loop
        c = same(fn, x)
        same(fn, np.arange(7).astype(dtype), compiled=c)   # another size, the same model
        assert c.conversions == 1 or fn is array_split_3   # split sizes are static
    same(nested_tuple, np.arange(6).astype(dtype).reshape(2, 3))
    c = same(python_scalars, x, 3)
    same(python_scalars, np.ones((2, 4), dtype), 5, compiled=None)
    assert c(x, 4)[0] == 8 and type(c(x, 4)[0]) is int


def test_returned_list_is_new_per_call():
    c = pyonnx.compile(with_none_and_numbers)
    a, b = c(np.arange(3.0)), c(np.arange(3.0))
    assert a[3] is not b[3] and a[3][1] == (True, a[3][1][1])


# ---------------------------------------------------------------- 12: messages at the user's line
def uses_iterable(x):
    if np.iterable(x):  # (np.issubdtype, the first example, is supported now)
        return x * 2.0
    return x


def hanning_window(x):
    return x * np.hanning(4)


def hanning_run_time_length(x):
    return x * np.hanning(x.shape[0])


def flat_write(M, idx, v):
    M.flat[idx] = v
    return M


def flat_view_write(M, idx, v):
    flat = M.reshape(-1)
    flat[idx] = v
    return M


def swap_in_tuple_target(A):
    A[0], A[1] = A[1], A[0]
    return A


def swap_with_copy(A):
    t = A[0].copy()
    A[0] = A[1]
    A[1] = t
    return A


def pop_run_time_list(x):
    lst = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            lst.append(x[i])
    a = lst.pop()
    return a


def last_peak(x):
    peaks = []
    for i in range(1, x.shape[0] - 1):
        if x[i] > x[i - 1] and x[i] > x[i + 1]:
            peaks.append(i)
    if len(peaks) > 0:
        return x[peaks[-1]]
    return x[0]


def test_messages_point_at_the_users_line_and_name_the_construct():
    x = np.arange(4.0)
    # (issue 16: np.iterable, writes through .flat and run-time window lengths convert now,
    # checked in test_what_the_messages_suggest_works)
    refused_at(pop_run_time_list, x - 1, match=r"'list\.pop' on a list built at run time",
               line=5)


def test_what_the_messages_suggest_works():
    same(hanning_window, np.arange(4.0))
    same(uses_iterable, x := np.arange(4.0))
    same(flat_write, x.reshape(2, 2), np.int64(1), 2.0)
    same(hanning_run_time_length, x)
    same(hanning_window, np.ones((2, 1)))
    same(flat_view_write, np.zeros((2, 3)), np.int64(4), 1.5)
    same(swap_with_copy, np.arange(6.0).reshape(3, 2))
    # (issue 15: a tuple-target swap converts, with numpy's view semantics)
    same(swap_in_tuple_target, np.arange(6.0).reshape(3, 2))
    same(swap_in_tuple_target, np.arange(3.0))
    same(swap_with_copy, np.arange(3, dtype=np.int8))
    for x in (np.array([0, 2.0, 0, 3, 1]), np.arange(5.0), np.zeros(2)):
        same(last_peak, x)      # the branch reading peaks[-1] runs only when non-empty


# ---------------------------------------------------------------- 7: the sign bit of a NaN
def signbit(x):
    return np.signbit(x)


def copysign_from(x, s):
    return np.copysign(x, s)


def sign_of_computed_nan(x):
    y = x - x          # inf - inf: a NaN whose sign bit is the CPU's choice
    return np.signbit(y), np.copysign(1.0, y)


@pytest.mark.parametrize("dtype", FLOATS)
def test_signbit_reads_nans_and_signed_zeros(dtype):
    x = np.array([-np.nan, np.nan, -0.0, 0.0, -np.inf, np.inf, -1.5, 2.0], dtype)
    c = same(signbit, x)
    same(signbit, x.reshape(2, 4), compiled=None)
    same(signbit, x[::-1][1::2], compiled=c)           # a view of a view
    same(copysign_from, np.full(8, 3.0, dtype), x)
    same(copysign_from, x, x[::-1].copy())
    same(sign_of_computed_nan, np.array([np.inf, -np.inf, 1.0], dtype))
    assert {o.version for o in c.to_onnx(x).opset_import if o.domain == ""} == {26}
    same(signbit, np.array([-1, 0, 3], np.int32))     # integers: x < 0


# ---------------------------------------------------------------- 2: numpy scalar vs 0-d array
def scalar_minus_arange(y, n):
    t0 = n - y
    t0 -= np.arange(n)
    return t0


def scalar_true_divide(x):
    s = x.sum()
    s /= 2
    return s


def scalar_alias_is_not_written(x):
    s = x.sum()
    t = s
    t += 1
    return s, t


def element_scalar_promotes(x):
    e = x[0, 0]
    e *= 1.5
    return e


def zero_d_array_is_written_in_place(y):
    a = np.asarray(y.sum())
    b = a
    a += 1
    return b


def zero_d_argument_in_place(y):
    y += 2
    return y


def zero_d_argument_cast_in_place(y):
    y *= 1.5
    return y


def acc_scalar_in_loop(x):
    acc = np.float32(0)
    for i in range(x.shape[0]):
        acc += x[i]
    return acc


def acc_scalar_same_dtype_in_loop(x):
    acc = x[0] * 0
    for i in range(x.shape[0]):
        acc += x[i]
    return acc


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint16, np.float32])
def test_numpy_scalars_rebind_and_0d_arrays_write(dtype):
    same(scalar_minus_arange, np.array(5, dtype), 3)
    same(scalar_minus_arange, np.array(5, dtype), 1)
    same(scalar_true_divide, np.arange(4).astype(dtype))
    same(scalar_alias_is_not_written, np.arange(4).astype(dtype))
    same(element_scalar_promotes, np.arange(6).astype(dtype).reshape(2, 3))
    same(zero_d_array_is_written_in_place, np.arange(4).astype(dtype))
    same(zero_d_argument_in_place, np.array(3, dtype))
    if dtype is np.float32:
        same(zero_d_argument_cast_in_place, np.array(3, dtype))
    c = same(acc_scalar_same_dtype_in_loop, np.arange(4).astype(dtype))
    same(acc_scalar_same_dtype_in_loop, np.arange(1).astype(dtype), compiled=c)


def test_numpy_scalar_widened_in_a_loop_that_ran_0_times_is_refused_at_run_time():
    # np.float32(0) += float64 values is float64 after an iteration, float32 after none: the
    # model answers when the loop ran (numpy scalars rebind, as in numpy) and fails at the
    # loop, naming why, when it ran 0 times (it was refused at conversion before).
    c = same(acc_scalar_in_loop, np.arange(3.0))
    with pytest.raises(pyonnx.ExecutionError, match="acc_changes_type_in_the_loop"):
        c(np.zeros(0))
    same(acc_scalar_in_loop, np.arange(3, dtype=np.float32))
    same(acc_scalar_in_loop, np.zeros(0, np.float32))


# ---------------------------------------------------------------- 13: an 'if' rebinding an argument, then 'while a and b'
def if_rebinds_then_while_and(a, n):
    if a.sum() > 2:
        a = a * 2.0
    k = 0
    while k < n and a.shape[0] > 1:
        a = a[1:]
        k += 1
    return a


def if_aliases_other_argument_then_while_and(a, b):
    if b[0] > 0:
        a = b
    k = 0
    while k < a.shape[0] and a[k] > 0:
        k += 1
    return a[:k]


def if_concatenates_then_while_and(x, y):
    if x.sum() > 0:
        x = np.concatenate([x, y])
    i = 0
    while i < x.shape[0] and x[i] < 5:
        i += 1
    return i, x.shape


def test_if_rebinding_an_argument_then_while_with_and():
    c = same(if_rebinds_then_while_and, np.arange(4.0), np.int64(2))
    same(if_rebinds_then_while_and, np.zeros(3), np.int64(0), compiled=c)
    same(if_rebinds_then_while_and, np.ones(1), np.int64(5), compiled=c)
    c = same(if_aliases_other_argument_then_while_and, np.arange(4.0), np.array([1.0, 2.0, -1]))
    same(if_aliases_other_argument_then_while_and, np.arange(4.0), np.array([-1.0]), compiled=c)
    c = same(if_concatenates_then_while_and, np.arange(3.0), np.arange(4.0) + 3)
    same(if_concatenates_then_while_and, -np.arange(3.0), np.zeros(0), compiled=c)


def reshape_to_zero_rows(x, n):
    y = x[x > n]
    return y.reshape(-1, 2).sum(axis=1), y.reshape(2, -1, 1).shape, y[:0].reshape(y.shape[0], 0)


def test_reshape_with_zero_size_dimensions():
    c = same(reshape_to_zero_rows, np.arange(6.0), 10.0)    # empty: 0 rows
    same(reshape_to_zero_rows, np.arange(6.0), 1.0, compiled=c)


def where_gives_a_0d_array(x):
    w = np.where(x.sum() > 0, x[0], x[1])
    v = w
    w += 1
    return v, w


def test_where_of_0d_values_is_a_0d_array():
    same(where_gives_a_0d_array, np.arange(3.0))
    same(where_gives_a_0d_array, -np.arange(3, dtype=np.int32))


def write_into_empty_columns(x, v):
    x[:, 1:1] = v
    x[0:0] = v
    return x


def fancy_rows_of_empty(x):
    return x[[0, 0]], x[:, :0].reshape(x.shape[0], 0, 1), x[:0].reshape(0, x.shape[1])


@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (0, 0), (2, 4)])
def test_run_time_zero_dimensions_reshape_as_numpy(shape):
    x = np.zeros(shape)
    same(write_into_empty_columns, x, 1.5)
    if shape[0]:
        same(fancy_rows_of_empty, x)


def returns_none_without_writing(x):
    y = x * 2
    y[0] = 1
    return None


def falls_off_the_end(x):
    y = x + 1


def test_returning_none_without_writing_an_argument():
    same(returns_none_without_writing, np.arange(3.0))
    same(falls_off_the_end, np.arange(3, dtype=np.int8))


def view_of_a_scalar(x):
    s = x.sum()
    r = s.reshape(1)
    e = s[...]
    return s, r, e


def test_a_view_of_a_numpy_scalar_leaves_it_a_scalar():
    same(view_of_a_scalar, np.arange(3.0))
    same(view_of_a_scalar, np.arange(3, dtype=np.int16))

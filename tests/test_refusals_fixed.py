"""Valid programs the fuzzer (issue 13, "Refusals of valid code") found refused, now converted
with numpy's meaning (differential, arguments after the call included: :func:`check_args`),
and what stays refused, at the user's line (:func:`refused_at`)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import pyonnx
from tests.oracle import assert_same, check


def check_args(fn, *args, calls=None):
    """:func:`tests.oracle.check` of ``fn(*args)``, then the arguments after the call compared
    with numpy's; ``calls`` are more argument tuples run through the same compiled function."""
    compiled = pyonnx.compile(fn)
    for a in [args, *(calls or [])]:
        mine, theirs = copy.deepcopy(a), copy.deepcopy(a)
        # The reference evaluator's comparison knows no written-back arguments (extra model
        # outputs, and the call writes into ``mine``): only for models that write none.
        check(compiled, *mine, reference=False)
        if not compiled._last.structure.writeback:
            check(compiled, *copy.deepcopy(a))
        with np.errstate(all="ignore"):
            fn(*theirs)
        mine2 = copy.deepcopy(a)
        compiled(*mine2)
        for i, (g, w) in enumerate(zip(mine2, theirs)):
            if isinstance(w, np.ndarray):
                assert_same(g, w, where=f"argument {i} after the call: ")
    return compiled


def refused_at(fn, *args, match: str, line: int):
    """pyonnx refuses ``fn(*args)`` with a ConversionError matching ``match`` at body line
    ``line`` (1 = the first line after ``def``)."""
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(*copy.deepcopy(args))
    assert info.value.lineno == fn.__code__.co_firstlineno + line, str(info.value)


# ------------------------------------------------ np.squeeze without axis on symbolic shapes
def squeeze_all(x, y):
    z = np.squeeze(x) * 2
    return z, np.squeeze(y).sum()


def squeeze_then_write(x):
    s = np.squeeze(x)
    s[...] = s + 1  # a view: the caller's x changes
    return s.shape


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.bool_])
def test_squeeze_without_axis_converts_per_shape(dtype):
    f = check_args(squeeze_all, np.ones((1, 3), dtype), np.ones((2, 1, 1), dtype),
                   calls=[(np.ones((3, 1), dtype), np.ones((1, 1, 1), dtype)),
                          (np.ones((2, 3), dtype), np.ones((0, 1, 4), dtype))])
    assert f.static_shapes  # one model per input shape
    assert f.conversions == 3


def test_squeeze_view_write_per_shape():
    check_args(squeeze_then_write, np.arange(3.0).reshape(1, 3),
               calls=[(np.arange(4.0).reshape(2, 1, 2),)])


def squeeze_data_dependent(x):
    return np.squeeze(x[x > 0])


def test_squeeze_data_dependent_refused():
    refused_at(squeeze_data_dependent, np.ones((1, 3)), match="pass axis=", line=1)


# ------------------------------------------------ methods of arrays known at conversion time
def constant_methods(x):
    a = np.zeros(3).astype(np.int32)
    b = np.ones(4).sum()
    c = np.arange(3).any()
    d = np.arange(5).min()
    e = np.arange(5).item(2)
    s = np.float32(2.5).astype(np.int16)
    return x + a.sum() + b + c + d + e, s, np.arange(4.0).dot(x), a


def constant_view_written(x):
    z = np.zeros((2, 3))
    v = z.reshape(6)  # a view of z: the write below reaches z
    v[0] = x[0]
    z.fill(2.0) if x.shape[0] > 9 else None
    return z, v


def constant_fill(x):
    z = np.zeros(4)
    w = z
    z.fill(x[1])
    return w + x


@pytest.mark.parametrize("dtype", [np.int16, np.float32])
def test_methods_of_conversion_time_arrays(dtype):
    check_args(constant_methods, np.arange(4, dtype=dtype))
    check_args(constant_view_written, np.arange(4, dtype=dtype))
    check_args(constant_fill, np.arange(4, dtype=dtype))


def constant_module_view(x):
    v = _TABLE.reshape(4)
    v[0] = x[0]
    return v


_TABLE = np.zeros((2, 2))


def test_view_of_module_array_written_refused():
    refused_at(constant_module_view, np.ones(3), match="module-level", line=1)


# ------------------------------------------------ views made by np.flip, np.diagonal, ...
def flip_write_through(x):
    v = np.flip(x, axis=0)
    v[0, 1] = -5
    w = np.fliplr(x)
    w[-1, 0] += 2
    return v.copy(), w.copy()


def flip_base_written(x):
    v = np.flipud(x)
    u = np.flip(x)
    x[-1, -2] -= 3
    return v.copy(), u.copy()


def reversed_slice_reshape(x):
    v = x[::-1]
    r = v.reshape(-1)  # the same shape: a view of a view
    r[r > 2] = -2
    e = np.atleast_2d(v)  # a new axis on a view: a view
    e[0, 0] = 9
    return r.copy()


def diagonal_base_written(x):
    d = np.diagonal(x)
    t = x.diagonal(1)
    b = np.broadcast_to(x[0], (2, x.shape[1]))
    x[1, 1] = 7
    x[0, 1] = 3
    return d.copy(), t.copy(), b.copy()


def swap_move_written(x):
    s = np.swapaxes(x, 0, 1)
    m = np.moveaxis(x, 0, -1)
    s[1, 0] = 8
    m[0, 1] -= 1
    return s.copy(), m.copy()


def flip_in_loop(x, n):
    v = np.flip(x, 0)
    for i in range(n):
        v[i % x.shape[0]] += 1
        x[0] *= 2
    return v.copy()


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_views_of_numpy_functions_follow_writes(dtype):
    for shape in [(3, 4), (4, 4), (2, 2)]:
        x = np.arange(np.prod(shape), dtype=dtype).reshape(shape)
        check_args(flip_write_through, x)
        check_args(flip_base_written, x)
        check_args(swap_move_written, x)
        check_args(diagonal_base_written, x)
    check_args(reversed_slice_reshape, np.arange(5, dtype=dtype))
    check_args(flip_in_loop, np.arange(6, dtype=dtype).reshape(3, 2), 4,
               calls=[(np.arange(4, dtype=dtype).reshape(2, 2), 0)])


def diagonal_written(x):
    d = np.diagonal(x)
    d[0] = 1
    return d


def ravel_of_strided_written(x):
    r = x[::2].ravel()  # a copy in numpy when the view is strided, a view when it is not
    r[0] = 5
    return r


def test_writes_through_read_only_or_unknown_views_refused():
    with pytest.raises(ValueError, match=r"assignment destination is read-only"):
        diagonal_written(np.ones((2, 2)))
    refused_at(diagonal_written, np.ones((2, 2)), match="read-only", line=2)
    refused_at(ravel_of_strided_written, np.ones(4), match="does not follow", line=2)


# ------------------------------------------------ a name whose memory depends on run-time data
def choice_ternary(a, b):
    y = a if a.sum() > b.sum() else b
    y[0] = 7
    y += 1
    return a, b


def choice_view_or_copy(x, c):
    if c > 0:
        y = x[1:]
    else:
        y = x[:-1].copy()
    y[0] += 5
    v = y[1:]  # a view of the choice: writes reach x when y viewed x
    v *= 2
    return y.copy()


def choice_read_after_base_write(x, c):
    if c > 0:
        y = x[::2]
    else:
        y = np.zeros(x.shape[0] // 2 + x.shape[0] % 2, x.dtype)
    x[0] = 9  # shows through y when y views x
    return y.copy()


def choice_of_choice(x, z, c):
    y = x[1:] if c > 0 else z
    if c < -1:
        y = z[:-1] * 1  # else: y is still x[1:] or z (a choice of a choice)
    for i in range(2):
        y[i] -= 1
    z[0] = 4
    return x.copy(), z.copy(), y.copy()


def choice_written_in_loop(x, z, n):
    y = x if n > 1 else z
    for i in range(n):
        y[i % y.shape[0]] += i
    return y.sum()


def rebound_for_then_written(x, n):
    for i in range(n):
        x = x * 2
    x[0] = -1
    return x.copy()


@pytest.mark.parametrize("dtype", [np.int64, np.float32])
@pytest.mark.parametrize("c", [-3, -1, 0, 2])
def test_memory_chosen_at_run_time(dtype, c):
    x, z = np.arange(5, dtype=dtype), np.arange(4, dtype=dtype) + 10
    check_args(choice_ternary, x, z)
    check_args(choice_ternary, z[:3].copy(), x[:3].copy())
    check_args(choice_view_or_copy, x, np.int64(c))
    check_args(choice_read_after_base_write, x, np.int64(c))
    check_args(choice_of_choice, x, z, np.int64(c))
    check_args(choice_written_in_loop, x, z, np.int64(abs(c)))
    check_args(rebound_for_then_written, x, np.int64(max(c, 0)))


def view_parity_in_loop(x, n):
    y = x[1:]
    for i in range(n):
        y = y[::-1]  # x[1:] or its reversal: as many reversals as the loop ran
    y[0] = 1
    return y


def choice_in_list(x, z, c):
    pair = [x, z] if c > 0 else [z, x]
    pair[0][0] = 5
    return x


def choice_in_nested_branches(x, z, c):
    if c > 0:
        y = x[1:]
    elif c < -1:
        y = np.flip(z)
    else:
        y = z[:-1] * 1
    y[0] = 1
    x[2] = 8  # shows through y when y is x[1:]
    return y.copy()


def choice_inner_kept(x, c):
    t = np.atleast_2d(x)
    if c > 0:
        if c > 1:
            t = t >> 1
        t[0, 1] += 2  # the inner choice: x's memory when c == 1
    t[t > 2] &= 6
    return t.copy()


@pytest.mark.parametrize("c", [-3, -1, 0, 1, 2])
def test_memory_chosen_in_nested_branches(c):
    check_args(choice_in_nested_branches, np.arange(4), np.arange(4) + 5, np.int64(c))
    check_args(choice_inner_kept, np.arange(4), np.int64(c))


def test_memory_chosen_at_run_time_refused_where_not_followed():
    refused_at(view_parity_in_loop, np.arange(4), np.int64(2),
               match="may refer to different memory", line=4)


@pytest.mark.parametrize("c", [-1, 1])
def test_memory_chosen_at_run_time_in_a_list_is_followed(c):
    # each item of the list is its own choice (fuzz campaign 14100000: dict/list items)
    check_args(choice_in_list, np.arange(4), np.arange(4) + 5, np.int64(c))


def choice_one_buffer_two_ways(a0):
    t6 = np.squeeze(a0)  # (static shapes: a0.ravel() is a0 itself, a view)
    if a0.sum() > -2.125:
        a0 = a0.ravel()
    a0[...] = -1  # both paths saw the argument (through different steps): it is written
    return t6.copy()


def test_choice_of_one_buffer_through_two_views():
    check_args(choice_one_buffer_two_ways, np.array([-2.5, -4.0, 3.75]),
               calls=[(np.array([-2.5, -4.0, -3.75]),)])


# ------------------------------------------------ false refusals of what numpy computes
def where_wraps_python_int(x, c):
    return np.where(c, -1, x), np.where(x > 2, 300, x), np.where(c, x, -2)


def bool_arange(x, a):
    n = min(x.shape[0], 2)
    return (np.arange(n, dtype=bool), np.arange(a, a + n, dtype=np.bool_),
            np.arange(n - 1, -1, -1, dtype=bool))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int8])
def test_where_casts_python_ints_as_numpy(dtype):
    x = np.arange(5, dtype=dtype)
    check_args(where_wraps_python_int, x, x % 2 == 0)
    check_args(where_wraps_python_int, x[:0], x[:0] > 1)


def test_bool_arange_up_to_length_2():
    f = pyonnx.compile(bool_arange)
    for n in (0, 1, 2, 5):
        check(f, np.ones(n), np.float64(0.5))
        check(f, np.ones(n), np.float64(-1.0))


def bool_arange_too_long(x):
    return np.arange(x.shape[0], dtype=bool)


def test_bool_arange_longer_fails_at_run_time():
    with pytest.raises(TypeError, match=r"arange\(\) is only supported for booleans"):
        bool_arange_too_long(np.ones(3))
    f = pyonnx.compile(bool_arange_too_long)
    check(f, np.ones(2))
    with pytest.raises(pyonnx.ExecutionError, match="arange_bool"):
        f(np.ones(3))


# ------------------------------------------------ numpy scalars out of a run-time if or loop
def scalar_out_of_if(x, c):
    t = x.max()  # a numpy scalar (x's dtype)
    if c > 0:
        t = t * 2
    t -= 1.5  # numpy rebinds: float64
    u = x.min()
    if c > 1:
        u = u + 1
    u /= 2
    return t, u


def scalar_out_of_loop(x, n):
    t = x.sum()
    for i in range(n):
        t = t + x[i % x.shape[0]]
    t -= 0.5 if x.dtype.kind == "f" else 2
    return t


def array0d_out_of_if(x, c):
    t = np.asarray(x.max())  # a 0-d array: in-place keeps its dtype
    if c > 0:
        t = np.array(x.min())
    t -= 1
    return t


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.uint8])
@pytest.mark.parametrize("c", [0, 1, 2])
def test_numpy_scalar_kind_survives_if_and_loop(dtype, c):
    x = np.arange(1, 5, dtype=dtype)
    check_args(scalar_out_of_if, x, np.int64(c))
    check_args(scalar_out_of_loop, x, np.int64(c))
    check_args(array0d_out_of_if, x, np.int64(c))


def scalar_or_array(x, c):
    t = x.max()
    if c > 0:
        t = np.asarray(x.min())
    t -= 1.5  # a scalar rebinds, a 0-d array raises: only the data says which
    return t


def test_scalar_or_array_out_of_if_refused():
    refused_at(scalar_or_array, np.arange(3, dtype=np.int32), np.int64(1),
               match="cannot tell which", line=4)


def view_bound_in_loop(a0, n):
    t1 = a0[..., np.array([0, 1])]  # a copy
    t3 = np.transpose(a0)
    for i in range(n):
        t1 = t3[:]  # a view of a0 once the loop ran (was silently a copy)
    t1[1] = 1.5
    a0[0, 0] = 7  # shows through t1 when it views a0
    return t1.copy()


@pytest.mark.parametrize("n", [0, 1, 3])
def test_view_bound_in_a_loop_that_may_not_run(n):
    check_args(view_bound_in_loop, np.arange(10.0).reshape(5, 2), np.int64(n))

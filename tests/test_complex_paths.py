"""Complex 0-d values whose numpy type depends on the run-time path (lower/control_flow/
complex_paths.py): a Python complex after a loop that ran 0 times, a 0-d array on one path and
a numpy scalar on another. numpy is the oracle; where the model cannot give numpy's dtype the
call fails (ExecutionError) on the path that would differ, never answers in the other type."""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

C = (np.complex64, np.complex128)


def python_accumulator(z):
    s = 0j
    for i in range(z.shape[0]):
        s += z[i]
    return s


def array_accumulator(z):
    acc = np.zeros((), complex)
    for i in range(z.shape[0]):
        acc = acc + z[i]
    return acc


def accumulator_plus_float32(z, y):
    s = 0j
    for i in range(z.shape[0]):
        s = s + z[i]
    return s + y


def where_after_loop(z, w):
    s = 0j
    for i in range(z.shape[0]):
        s = s + z[i]
    return np.where(w.real > 0, s, w)


def select_after_loop(z, w):
    s = 0j
    for i in range(z.shape[0]):
        s = s + z[i]
    return np.select([w.real > 0], [w], s)


def float_accumulator_times_complex(x, z):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i]
    return s * z


def python_on_one_branch(z):
    if z.real.sum() > 0:
        s = 0j
    else:
        s = z[0] * 2
    return s


def array_on_one_branch(z):
    if z.real.sum() > 0:
        s = np.zeros((), np.complex128)
    else:
        s = z[0] * 2
    return s, s * 2


def while_accumulator(z):
    s = 0j
    i = 0
    while i < z.shape[0] and z[i].real < 3:
        s = s + z[i] * z[i]
        i += 1
    return s


def _z(n, dt, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)


@pytest.mark.parametrize("dt", C)
@pytest.mark.parametrize("n", [0, 1, 4])
def test_python_accumulator_is_a_python_complex_after_zero_trips(dt, n):
    compiled = check(python_accumulator, _z(n, dt))
    got = compiled(_z(n, dt))
    assert type(got) is (complex if n == 0 else np.dtype(dt).type)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_array_accumulator_is_a_0d_array_after_zero_trips(n):
    compiled = check(array_accumulator, _z(n, np.complex128))
    got = compiled(_z(n, np.complex128))
    assert isinstance(got, np.ndarray) if n == 0 else isinstance(got, np.complex128)


@pytest.mark.parametrize("n", [1, 3])
def test_float32_operand_after_the_loop_ran(n):
    check(accumulator_plus_float32, _z(n, np.complex128), np.ones(2, np.float32))


def test_float32_operand_after_zero_trips_fails_not_answers_in_complex128():
    # numpy: 0j + float32 array is complex64; after a trip, complex128: the model has one type
    compiled = pyonnx.compile(accumulator_plus_float32)
    assert accumulator_plus_float32(_z(0, np.complex128), np.ones(2, np.float32)).dtype == \
        np.complex64
    assert compiled(_z(2, np.complex128), np.ones(2, np.float32)).dtype == np.complex128
    with pytest.raises(pyonnx.ExecutionError, match="depends on the path taken at run time"):
        compiled(_z(0, np.complex128), np.ones(2, np.float32))


@pytest.mark.parametrize("n", [0, 2])
def test_complex64_accumulator_keeps_numpys_dtype_with_float32(n):
    # the state is complex64 on every path here: no difference to refuse
    check(accumulator_plus_float32, _z(n, np.complex64), np.ones(2, np.float32))


@pytest.mark.parametrize("fn, call", [(where_after_loop, "np.add"),
                                      (select_after_loop, "np.select")])
def test_choice_after_zero_trips_fails_where_numpys_dtype_differs(fn, call):
    # numpy's np.where and np.select take a Python complex as weak
    compiled = pyonnx.compile(fn)
    w = _z(3, np.complex64, 1)
    check(compiled, _z(2, np.complex128), w)
    assert fn(_z(0, np.complex128), w).dtype == np.complex64
    with pytest.raises(pyonnx.ExecutionError, match=f"{call} gives complex128"):
        compiled(_z(0, np.complex128), w)


def test_python_float_times_complex64_after_zero_trips():
    # 0.0 * complex64 is complex64 in numpy, np.float64 * complex64 complex128
    compiled = pyonnx.compile(float_accumulator_times_complex)
    z = _z(3, np.complex64, 3)
    check(compiled, np.arange(2.0), z)
    assert float_accumulator_times_complex(np.arange(0.0), z).dtype == np.complex64
    with pytest.raises(pyonnx.ExecutionError, match="Python float"):
        compiled(np.arange(0.0), z)


@pytest.mark.parametrize("sign", [1, -1])
def test_python_complex_on_one_branch(sign):
    check(python_on_one_branch, sign * (np.arange(1.0, 4.0) + 1j))


@pytest.mark.parametrize("sign", [1, -1])
def test_0d_array_on_one_branch(sign):
    compiled = check(array_on_one_branch, sign * (np.arange(1.0, 4.0) + 1j))
    got = compiled(sign * (np.arange(1.0, 4.0) + 1j))
    assert isinstance(got[0], np.ndarray) == (sign > 0)
    assert isinstance(got[1], np.complex128)


@pytest.mark.parametrize("z", [np.array([], complex), np.array([5 + 1j]),
                               np.array([1 + 1j, 2 - 1j, 4j, 7 + 0j])])
def test_while_accumulator(z):
    check(while_accumulator, z)


def accumulator_and_operator_results(z):
    acc = 1 - 0.5j
    for i in range(z.shape[0] - 1):
        acc += z[i]
    return acc, acc * 2, -acc, 2.0 / acc


@pytest.mark.parametrize("n", [1, 2, 4])
def test_operators_on_a_python_complex_stay_python_complex(n):
    # (1 - 0.5j) * 2 is a Python complex where the loop ran 0 times, an np.complex128 after
    check(accumulator_and_operator_results, _z(n, np.complex128))


def scaled_in_the_body(z):
    acc = 0j
    for i in range(z.shape[0]):
        acc = acc * 0.5 + z[i]
    return acc


def test_python_complex_arithmetic_in_float32_precision_is_refused():
    # the first iteration computes 0j * 0.5 in complex128 (Python), later ones in complex64:
    # one model cannot do both (the real path refuses `s = 0.0; s = s * 0.5 + x32[i]` too)
    with pytest.raises(pyonnx.ConversionError, match="Python complex on some paths"):
        pyonnx.compile(scaled_in_the_body)(_z(3, np.complex64))
    check(scaled_in_the_body, _z(3, np.complex128))


def kept_if_positive(z):
    s = 0j
    for v in z:
        if v.real > 0:
            s += v
    return s


@pytest.mark.parametrize("dt", C)
@pytest.mark.parametrize("z", [[], [-1 + 1j], [-1 + 1j, 2 - 1j, -3j, 4 + 4j]])
def test_accumulator_an_iteration_may_keep(dt, z):
    # a Python 0j where no element was positive (carried with a "still Python" flag), a
    # numpy scalar of z's dtype after one was (was refused for complex64)
    compiled = check(kept_if_positive, np.array(z, dt))
    got = compiled(np.array(z, dt))
    assert type(got) is (complex if all(np.real(z) <= 0) else np.dtype(dt).type)


def half_j_or_item(z):
    s = 0.5j if z[0].real > 0 else z[0]
    return s


def tenth_j_or_item(z):
    s = 0.1j if z[0].real > 0 else z[0]
    return s


@pytest.mark.parametrize("sign", [1, -1])
def test_python_complex_on_one_branch_held_exactly(sign):
    check(half_j_or_item, np.array([sign + 1j, 2], np.complex64))


def test_python_complex_on_one_branch_rounded_fails_where_taken():
    compiled = pyonnx.compile(tenth_j_or_item)
    check(compiled, np.array([-1 + 1j, 2], np.complex64))  # the item's path: no difference
    with pytest.raises(pyonnx.ExecutionError, match="holds the Python complex only rounded"):
        compiled(np.array([1 + 1j, 2], np.complex64))


def cheap_choice(x, w):
    s = 0.5j if x[0] > 0 else w  # (both sides computed, picked with Where)
    return s


def cheap_choice_rounded(x, w):
    s = 0.1j if x[0] > 0 else w
    return s


@pytest.mark.parametrize("sign", [1, -1])
def test_conditional_expression_computed_on_both_sides(sign):
    # numpy: the Python complex 0.5j on one path, w (a numpy complex64 scalar) on the other
    check(cheap_choice, sign * np.ones(2), np.complex64(1 + 2j))


def test_conditional_expression_rounded_python_complex_fails_where_taken():
    compiled = pyonnx.compile(cheap_choice_rounded)
    check(compiled, -np.ones(2), np.complex64(1 + 2j))
    with pytest.raises(pyonnx.ExecutionError, match="holds the Python complex only rounded"):
        compiled(np.ones(2), np.complex64(1 + 2j))


def scalar_argument(w, z):
    v = w
    w += 1j  # a numpy scalar: rebound, the caller's value is not written
    return v, w, w * z, z


@pytest.mark.parametrize("dt", C)
def test_numpy_scalar_complex_argument_is_a_scalar(dt):
    # (a complex argument passed as np.complex64(...) came back as a 0-d ndarray)
    check(scalar_argument, dt(1 + 2j), np.array(2j, dt))


def python_complex_parts(x):
    s = complex(x[0], 1.0)
    return abs(s), s.real, s.imag, np.abs(s), np.real(s)


def accumulator_parts(z):
    s = 0j
    for i in range(z.shape[0]):
        s += z[i]
    return s.real, s.imag, np.real(s), np.imag(s)


def accumulator_ufunc(z):
    s = 0j
    for i in range(z.shape[0]):
        s += z[i]
    return np.abs(s), np.exp(s), np.conj(s)


def accumulator_abs(z):
    s = 0j
    for i in range(z.shape[0]):
        s += z[i]
    return abs(s)


def test_parts_of_a_python_complex_are_python_floats():
    # abs(), .real, .imag of a Python complex are Python floats (np.abs gives np.float64)
    check(python_complex_parts, np.array([2.0, 3.0]))


@pytest.mark.parametrize("dt", C)
@pytest.mark.parametrize("n", [0, 2])
def test_parts_of_an_accumulator(dt, n):
    check(accumulator_parts, (np.arange(3) + 1j).astype(dt)[:n])


@pytest.mark.parametrize("n", [0, 2])
def test_ufunc_of_an_accumulator(n):
    # numpy computes a Python complex as complex128: right for a complex128 state; a
    # complex64 state fails where the loop kept the Python complex
    check(accumulator_ufunc, (np.arange(3) + 1j)[:n])
    compiled = pyonnx.compile(accumulator_ufunc)
    z = (np.arange(3) + 1j).astype(np.complex64)[:n]
    if n:
        check(compiled, z)
    else:
        with pytest.raises(pyonnx.ExecutionError, match="numpy computes the Python complex"):
            compiled(z)


def test_abs_of_a_complex64_accumulator_kept_python_fails():
    # Python's abs(0j) is a float64 computation; the model's is complex64's float32
    compiled = pyonnx.compile(accumulator_abs)
    check(compiled, np.array([1 + 1j, 2j], np.complex64))
    with pytest.raises(pyonnx.ExecutionError, match="Python computes it in float64"):
        compiled(np.zeros(0, np.complex64))
    check(accumulator_abs, np.zeros(0, np.complex128))


def converted_accumulator(z):
    s = 0j
    for i in range(z.shape[0]):
        s += z[i]
    return np.complex64(s) * 2  # (a dtype's constructor takes the Python complex as it is)


@pytest.mark.parametrize("n", [0, 2])
def test_dtype_constructor_of_an_accumulator(n):
    check(converted_accumulator, (np.arange(3) + 1j).astype(np.complex64)[:n])


def explicit_ufuncs(z):
    s = 0j
    for i in range(z.shape[0]):
        s += z[i]
    return np.add(s, 1j), s + 1j, np.multiply(s, 2), -s, np.negative(s)


def explicit_ufuncs_of_a_python_complex(x):
    s = complex(x[0], 1.0)
    return np.add(s, 1j), s + 1j, np.exp(s), np.conj(s), np.sqrt(s)


@pytest.mark.parametrize("n", [0, 2])
def test_explicit_ufuncs_give_numpy_scalars(n):
    # np.add(0j, 1j) is np.complex128, 0j + 1j a Python complex
    check(explicit_ufuncs, (np.arange(3) + 1j)[:n])
    check(explicit_ufuncs_of_a_python_complex, np.array([2.0, 3.0]))

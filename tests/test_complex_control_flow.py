"""Complex values through run-time ``if``/``for``/``while`` (issue 11): If outputs and Loop state
carry a complex value as its two real parts, against numpy (tests/complex_kernels.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tests import complex_kernels as k
from tests.oracle import check

R = np.random.default_rng(13)
C64, C128 = np.complex64, np.complex128


def rc(shape, dtype=C128):
    return (R.normal(size=shape) + 1j * R.normal(size=shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("t", [1.0, -1.0])
def test_if(dtype, t):
    check(k.cf_if, rc((3,), dtype), np.float64(t))


def test_if_real_on_one_path_promotes_like_numpy():
    # numpy: w is complex on both paths here (x * 1j is complex128)
    check(k.cf_if_real_branch, rc((3,)), np.arange(3.0), np.float64(1))
    check(k.cf_if_real_branch, rc((3,)), np.arange(3.0), np.float64(-1))


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("n", [0, 1, 4])
def test_loop(dtype, n):
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == C64 else {}
    check(k.cf_loop, rc((3,), dtype) * 0.5, np.int64(n), **tol)


def test_while_mandelbrot_escape():
    check(k.cf_while, np.array([0.1 + 0.2j, 0.3 - 0.1j]))
    check(k.cf_while, np.array([1.0 + 1.0j, 0.3 - 0.1j]))


def test_scalar_if():
    check(k.cf_scalar_if, rc((4,)))
    check(k.cf_scalar_if, rc((4,)) * 0.01)


def test_truth_of_complex_element():
    check(k.cf_truth, np.array([0j, 1j]))
    check(k.cf_truth, np.array([1j, 0j]))


def test_write_in_loop():
    check(k.cf_write_in_loop, np.arange(5.0), np.int64(3))


@pytest.mark.parametrize("fn, arg", [(k.g_power_spectrum, np.arange(4.0)),
                                     (k.g_complex_arg, np.array([1j, 2 + 0j])),
                                     (k.g_intermediate, np.arange(3.0))])
def test_gradient_refuses_complex(fn, arg):
    import pyonnx

    with pytest.raises(pyonnx.ConversionError, match="complex values"):
        pyonnx.grad(fn)(arg)
    with pytest.raises(pyonnx.ConversionError, match="complex values"):
        pyonnx.value_and_grad(fn)(arg)


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_alias_written_in_a_loop(n, dtype):
    # (refused before: the alias follows the part buffers the loop carries)
    check(k.cw_alias_then_loop, (np.arange(3) * 1j).astype(dtype), np.int64(n))


@pytest.mark.parametrize("t", [1.0, -1.0])
def test_write_through_an_alias_chosen_in_an_if(t):
    # (refused before: complex_choices makes each part a choice buffer)
    check(k.cw_alias_if, np.arange(3) * 1j, np.float64(t))


@pytest.mark.parametrize("n", [0, 2, 3])
def test_writes_into_an_argument_in_a_loop(n):
    # (more in test_complex_argument_writes.py)
    check(k.cw_argument_in_loop, np.arange(3) * 1j, np.int64(n))
    check(k.cw_arg_loop, np.arange(3) * 1j, np.int64(n))


@pytest.mark.parametrize("t", [1.0, -1.0])
def test_write_after_if_of_fresh_arrays(t):
    check(k.cw_fresh_if, rc((3,)), np.float64(t))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_writes_into_complex_arguments(dtype):
    check(k.cw_arg_write, rc((4,), dtype), R.normal(size=4), rtol=1e-5, atol=1e-6)
    check(k.cw_arg_inplace, rc((3, 2), dtype))



def test_write_into_argument_read_only_is_refused_at_call():
    import pyonnx

    z = rc((3,))
    z.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        pyonnx.compile(k.cw_arg_inplace)(z)

"""Complex values end to end (issue 11): representation at the boundary, arithmetic with NEP 50
promotion, parts, abs/angle, powers, elementwise functions, reductions, products, indexing and
writes, against numpy (tests/complex_kernels.py)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import pyonnx
from tests import complex_kernels as k
from tests.oracle import check

R = np.random.default_rng(11)
C64, C128 = np.complex64, np.complex128


def rc(shape, dtype=C128):
    return (R.normal(size=shape) + 1j * R.normal(size=shape)).astype(dtype)


TOL = {C64: dict(rtol=2e-5, atol=2e-6), C128: dict(rtol=1e-12, atol=1e-13)}

SPECIAL = np.array([0j, complex(-0.0, 0.0), complex(0.0, -0.0), 1 + 1j, -2.5 + 0.5j,
                    complex(3, -4), 1e300 + 1e300j, complex(np.inf, 1), complex(1, np.nan)])


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("shape", [(5,), (2, 3), (), (0,), (0, 3)])
def test_identity_and_shapes(dtype, shape):
    # (a 0-d complex argument is a 0-d array here: returned, it stays one, as in numpy; a
    # numpy scalar argument shares the 0-d array's signature, see the README's "results")
    check(k.c_identity, np.asarray(rc(shape, dtype)))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_arith(dtype):
    z, w = rc((4, 3), dtype), rc((3,), dtype)
    check(k.c_arith, z, w, **TOL[dtype])


def test_arith_special_values():
    z = SPECIAL
    w = SPECIAL[::-1].copy()
    check(k.c_arith, z, w)


@pytest.mark.parametrize("dtype", [C64, C128])
@pytest.mark.parametrize("xdtype", [np.float32, np.float64, np.int64, np.int32, bool])
def test_mixed_real(dtype, xdtype):
    x = (R.normal(size=4) * 3 + 5).astype(xdtype)
    check(k.c_mixed_real, rc((4,), dtype), x, **TOL[np.result_type(dtype, xdtype).type])


@pytest.mark.parametrize("dtype", [C64, C128])
def test_python_scalars_weak(dtype):
    check(k.c_python_scalar, rc((3,), dtype), **TOL[dtype])


@pytest.mark.parametrize("xdtype", [np.float32, np.float64, np.int64])
def test_literals(xdtype):
    x = np.arange(4).astype(xdtype)
    check(k.c_literal, x)
    check(k.c_complex_builtin, x)
    check(k.c_from_real, x)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_parts_abs_angle(dtype):
    z = SPECIAL.astype(dtype)
    check(k.c_parts, z)
    check(k.c_abs_angle, z, **TOL[dtype])
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check(k.c_to_real, z)


def test_abs_no_overflow():
    z = np.array([1e300 + 1e300j, 3e-300 + 4e-300j, complex(np.inf, np.nan)])
    check(k.c_abs_angle, z)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_powers(dtype):
    z = np.concatenate([rc((5,), dtype), np.array([0j, 1j], dtype)])
    check(k.c_powers, z, **TOL[dtype])
    check(k.c_pow_fast, z, **TOL[dtype])


def test_powers_complex_exponent():
    z = np.concatenate([rc((5,)), np.array([0j, 1j])])
    w = rc((7,))
    check(k.c_pow_complex, z, w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_exp_log_sqrt_trig(dtype):
    z = np.concatenate([rc((6,), dtype), np.array([-4 + 0j, complex(-4, -0.0), 2j, 0j], dtype)])
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == C64 else dict(rtol=1e-10, atol=1e-12)
    check(k.c_exp_log_sqrt, z, **tol)
    check(k.c_trig, z, **tol)


def test_compare():
    z = np.array([1j, 2 + 0j, complex(np.nan, 0), 0j])
    check(k.c_compare, z, np.array([1j, 2 + 1j, complex(np.nan, 0), -0.0 + 0j]))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_reductions(dtype):
    z = rc((3, 4), dtype)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == C64 else dict(rtol=1e-12, atol=1e-12)
    check(k.c_reductions, z, **tol)
    check(k.c_prod_all, rc((5,), dtype), **tol)
    check(k.c_prod_all, np.zeros(0, dtype))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_products(dtype):
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == C64 else dict(rtol=1e-10, atol=1e-12)
    check(k.c_matmul, rc((3, 3), dtype), rc((3, 3), dtype), **tol)
    check(k.c_matmul_real, rc((2, 3), dtype), R.normal(size=(3, 2)), **tol)


def test_indexing():
    z = rc((5,))
    check(k.c_index, z, np.int64(-2))
    check(k.c_index2, rc((3, 4)))


def test_writes():
    check(k.c_write, np.arange(5.0))
    check(k.c_write_mask, rc((6,)))


def test_structure_functions():
    c = np.array([True, False, True, False])
    check(k.c_structure, rc((4,)), rc((4,), C64), c)
    check(k.c_where_real, rc((4,), C64), np.arange(4.0), c)


def test_promotion_nep50():
    check(k.c_promote32, rc((3,), C64), np.arange(3.0), rtol=2e-6, atol=1e-6)
    check(k.c_int_plus, np.arange(3))


def test_inplace():
    check(k.c_inplace, rc((3,)), rc((3,)))


def test_predicates():
    check(k.c_isnan, SPECIAL)


def test_zero_d_results():
    check(k.c_zero_d, rc((4,)))


def test_kernels_from_the_issue():
    re, im = np.meshgrid(np.linspace(-2, 1, 7), np.linspace(-1.2, 1.2, 5))
    check(k.c_mandelbrot, re + 1j * im)
    check(k.c_normalize, rc((6,)))


def test_boundary_convention_in_model():
    f = pyonnx.compile(k.c_arith)
    z = rc((3,), C64)
    model = f.to_onnx(z, z)
    onnx.checker.check_model(model, full_check=True)
    assert model.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT
    assert [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim][-1] == 2
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta["pyonnx.complex_inputs"] == "z:complex64,w:complex64"
    assert meta["pyonnx.complex_outputs"].startswith("0:complex64")
    assert "trailing dimension of 2" in model.doc_string
    # numpy's layout: a deployment feeds z.view(float32).reshape(*z.shape, 2)
    import onnxruntime as ort
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    pairs = z.view(np.float32).reshape(*z.shape, 2)
    out = sess.run(None, {"z": pairs, "w": pairs})[0]
    np.testing.assert_allclose(out[..., 0] + 1j * out[..., 1], z + z, rtol=1e-6)


def test_non_contiguous_argument():
    z = rc((4, 6))[:, ::2]
    check(k.c_arith, z, z.T.copy().T)


@pytest.mark.parametrize("dtype", [C64, C128])
def test_more_math(dtype):
    z = np.concatenate([rc((5,), dtype), np.array([0j, -2 + 0j], dtype)])
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == C64 else dict(rtol=1e-10, atol=1e-12)
    check(k.c_more_math, z, **tol)
    check(k.c_more_math, rc((2, 3), dtype), **tol)


@pytest.mark.parametrize("fn, match", [(k.c_refused_cov, "np.cov")])
def test_not_yet_converted_is_refused_at_the_line(fn, match):
    # numpy computes these; pyonnx refuses at the user's line (never a real-only result)
    fn(rc((3,)))
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(rc((3,)))
    assert info.value.lineno == fn.__code__.co_firstlineno + 1


def test_spec_inputs_and_cli_text():
    from pyonnx.specs import parse_spec

    f = pyonnx.compile(k.c_arith)
    model = f.to_onnx(parse_spec("complex64[N,3]"), pyonnx.spec("complex64", (3,)))
    onnx.checker.check_model(model, full_check=True)
    dims = [d.dim_param or d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    assert dims == ["N", 3, 2]
    assert [(p.key, p.value) for p in model.graph.input[0].metadata_props] == [
        ("pyonnx.complex", "complex64")]


@pytest.mark.parametrize("dtype", [C64, C128])
def test_special_values_grid(dtype):
    # every pair of parts among 0, -0, 1, -1.5, inf, -inf, nan: numpy's C99 special values
    import itertools

    vals = [0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan]
    z = np.array([complex(a, b) for a, b in itertools.product(vals, vals)], dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == C64 else {}
    for fn in (k.c_exp_log_sqrt, k.c_trig, k.c_abs_angle, k.c_more_math):
        check(fn, z, **tol)


def test_creation_and_queries():
    check(k.c_creation, np.arange(3.0), rc((2,)))
    check(k.c_truthy, np.array([0j, 1j, 2 + 0j, 0j]))
    check(k.c_truthy, np.zeros(0, C64))
    check(k.c_methods, rc((6,)), rtol=1e-12, atol=1e-12)
    check(k.c_divide_ufuncs, rc((3,)), rc((3,), C64), rtol=1e-6, atol=1e-7)
    check(k.c_complex_of_arrays, np.arange(3.0), np.arange(2.0))
    check(k.c_unpack_T, rc((2, 3)))


def test_refusals_name_the_construct():
    for fn, args, match in [
            (k.c_bad_floordiv, (rc((2,)),), "'//' is not defined for complex"),
            (k.c_bad_index, (rc((2,)),), "integer"),
            (k.c_bad_real_write, (np.arange(2.0),), "not 'complex'"),
            (k.c_bad_cast, (rc((2,)),), "Cannot cast"),
            (k.c_bad_inplace_real, (np.arange(2.0),), "same_kind")]:
        with pytest.raises(pyonnx.ConversionError, match=match):
            pyonnx.compile(fn)(*args)


def likes(a, x):
    return np.zeros_like(a), np.ones_like(a), np.full_like(a, 2), np.full_like(x, 1 + 2j), \
        np.full_like(a, 1j, dtype=np.complex128), np.full(2, 1j), np.full_like(x, a[0])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_like_creation_keeps_the_template_dtype(dtype):
    # (fuzz seed 14400003: np.zeros_like of complex64 was complex128; a complex fill of a
    # real template keeps the real part, as numpy with its ComplexWarning)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        check(likes, np.ones(3, dtype) * (1 + 1j), np.arange(3.0))

"""Differential tests of numpy's linear algebra (pyonnx/frontend/numpy_calls/linalg/).

Integer products are checked with values that overflow the narrow types (numpy wraps), bool
products are logical, float16 products are compared with a float16 tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyonnx
from tests.oracle import check

ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64"]
F16_TOL = {"rtol": 2e-3, "atol": 2e-3}

# Module constants: arrays whose shape is known at conversion time (static-shape checks).
ZEROS_2x3 = np.zeros((2, 3))
ZEROS_4x5 = np.zeros((4, 5))
ZEROS_3 = np.zeros(3)


def sample(shape, dtype, seed=0, big=False):
    """Values of ``dtype``; ``big`` ones overflow products in the narrow integer types."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind in "iu" and big:
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dt)
    raw = rng.integers(-4, 5, size=shape)
    if dt.kind == "u":
        raw = np.abs(raw)
    return raw.astype(dt)


def tol(*dtypes):
    return F16_TOL if "float16" in dtypes else {}


def error_line(fn, *args, match=None):
    """Asserts fn raises ConversionError; returns its line relative to ``def``."""
    with pytest.raises(pyonnx.ConversionError, match=match) as info:
        pyonnx.compile(fn)(*args)
    return info.value.lineno - fn.__code__.co_firstlineno


# ------------------------------------------------------------------------ matmul / dot
def matmul_op(a, b):
    return a @ b


def matmul_fn(a, b):
    return np.matmul(a, b), np.linalg.matmul(a, b)


def dot_fn(a, b):
    return np.dot(a, b), a.dot(b)


MATMUL_SHAPES = [((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)), ((4,), (4,)),
                 ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)),
                 ((0, 3), (3, 2)), ((2, 0), (0, 3)), ((3, 0), (0,)), ((0, 3), (3,)),
                 ((2, 3, 0), (0,)), ((0,), (0, 3)), ((2, 0, 3), (3, 4)), ((0, 2, 3), (0, 3, 1))]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_matmul_dtypes(dtype):
    a, b = sample((3, 4), dtype, 1, big=True), sample((4, 2), dtype, 2, big=True)
    check(matmul_op, a, b, **tol(dtype))
    check(dot_fn, a, b, **tol(dtype))
    check(matmul_op, a[0], b, **tol(dtype))
    check(dot_fn, a[0], b[:, 0].copy(), **tol(dtype))


@pytest.mark.parametrize("sa, sb", MATMUL_SHAPES)
def test_matmul_shapes(sa, sb):
    check(matmul_fn, sample(sa, "float64"), sample(sb, "float64", 1))


@pytest.mark.parametrize("dt1, dt2", [("int8", "uint8"), ("int32", "float32"), ("bool", "int16"),
                                      ("float16", "float32"), ("uint64", "int64"),
                                      ("bool", "bool")])
def test_matmul_promotion(dt1, dt2):
    check(matmul_op, sample((2, 3), dt1), sample((3, 2), dt2, 1), **tol(dt1, dt2))
    check(dot_fn, sample((2, 3), dt1), sample((3, 2), dt2, 1), **tol(dt1, dt2))


def matmul_list(a):
    return a @ [1, 2, 3], np.matmul([[1.5, 2.0]], a)


def matmul_dtype(a, b):
    return np.matmul(a, b, dtype=np.float64), np.matmul(a, b, dtype=np.int8, casting="unsafe")


def test_matmul_static_operands_and_dtype():
    check(matmul_list, sample((2, 3), "float32"))
    check(matmul_list, sample((2, 3), "int16"))
    check(matmul_dtype, sample((2, 3), "int16"), sample((3, 2), "int32", 1))


DOT_SHAPES = [((), (3,)), ((2, 3), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)),
              ((2, 3, 4), (4,)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (6, 4, 5)), ((3,), (2, 3, 4)),
              ((2, 0, 3), (4, 3, 2)), ((2, 3), (5, 3, 0))]


@pytest.mark.parametrize("sa, sb", DOT_SHAPES)
def test_dot_shapes(sa, sb):
    # The sign of an exact-zero dot product depends on the BLAS numpy links (its accumulator
    # starts at +0.0): numpy does not define it.
    check(dot_fn, sample(sa, "float32"), sample(sb, "float32", 1), signed_zeros=False)
    check(dot_fn, sample(sa, "int8", big=True), sample(sb, "int8", 1, big=True))


def dot_scalar(a):
    return np.dot(a, 2), np.dot(3.5, a)


def test_dot_python_scalars_are_strong():
    # np.dot converts Python scalars with asarray: int8 · 2 is int64, float32 · 3.5 float64.
    check(dot_scalar, sample(3, "int8"))
    check(dot_scalar, sample((2, 2), "float32"))


def matmul_0d(a):
    return a @ a[0, 0]


def matmul_mismatch(a):
    return (a + ZEROS_2x3) @ ZEROS_4x5


def dot_mismatch(a):
    return np.dot(a + ZEROS_2x3, ZEROS_4x5)


def test_matmul_errors():
    assert error_line(matmul_0d, np.ones((2, 2)), match="does not have enough dimensions") == 1
    assert error_line(matmul_mismatch, np.ones(3), match="mismatch in its core dimension") == 1
    assert error_line(dot_mismatch, np.ones(3), match="not aligned") == 1
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):  # run-time mismatch: MatMul fails, as numpy
        pyonnx.compile(matmul_op)(np.ones((2, 3)), np.ones((4, 2)))


# --------------------------------------------------------------------- other products
def products(a, b):
    return np.inner(a, b), np.outer(a, b), np.vdot(a, b), np.tensordot(a, b, axes=1)


def inner_nd(a, b):
    return np.inner(a, b)


def tensordots(a, b):
    return (np.tensordot(a, b, axes=([0, 1], [1, 0])), np.tensordot(a, b, axes=0),
            np.tensordot(a, b, axes=([-1], [2])), np.tensordot(a, b, axes=(1, 0)))


def tensordot_default(a, b):
    return np.tensordot(a, b)


def kron_fn(a, b):
    return np.kron(a, b)


def cross_fn(a, b):
    return np.cross(a, b)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_products_dtypes(dtype):
    a, b = sample(4, dtype, 1, big=True), sample(4, dtype, 2, big=True)
    check(products, a, b, **tol(dtype))
    check(kron_fn, sample((2, 3), dtype), sample((2, 2), dtype, 1), **tol(dtype))


@pytest.mark.parametrize("sa, sb", [((2, 3), (4, 3)), ((3,), (2, 4, 3)), ((2, 3, 4), (5, 4)),
                                    ((2, 0), (3, 0)), ((), (2, 3))])
def test_inner_shapes(sa, sb):
    check(inner_nd, sample(sa, "float64"), sample(sb, "float64", 1))


def test_tensordot():
    check(tensordots, sample((2, 3, 4), "float64"), sample((3, 2, 4), "float64", 1))
    check(tensordots, sample((2, 3, 4), "int16", big=True), sample((3, 2, 4), "int16", 1, big=True))
    check(tensordot_default, sample((2, 3, 4), "float32"), sample((3, 4, 5), "float32", 1))
    check(tensordot_default, sample((2, 0, 4), "float32"), sample((0, 4, 5), "float32", 1))


def test_tensordot_summed_dims_checked_at_run_time():
    # (2, 3) and (3, 2) both flatten to 6: numpy still refuses ("shape-mismatch for sum").
    with pytest.raises(ValueError, match="shape-mismatch for sum"):
        tensordot_default(np.ones((4, 2, 3)), np.ones((3, 2, 5)))
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):
        pyonnx.compile(tensordot_default)(np.ones((4, 2, 3)), np.ones((3, 2, 5)))


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8", "float16", "float32"])
def test_kron_cross(dtype):
    check(kron_fn, sample(3, dtype), sample((2, 2), dtype, 1), **tol(dtype))
    check(kron_fn, sample((2, 1, 2), dtype), sample((3,), dtype, 1), **tol(dtype))
    check(cross_fn, sample((2, 3), dtype), sample(3, dtype, 1), **tol(dtype))
    check(cross_fn, sample((0, 3), dtype), sample((1, 3), dtype, 1), **tol(dtype))


def test_cross_length_checked_at_run_time():
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):  # numpy refuses 4-vectors too
        pyonnx.compile(cross_fn)(np.ones(4), np.ones(4))


def vdot_mismatch(a):
    return np.vdot(a + ZEROS_2x3, ZEROS_4x5)


def tensordot_mismatch(a):
    return np.tensordot(a + ZEROS_2x3, ZEROS_4x5, axes=1)


def test_product_errors():
    assert error_line(vdot_mismatch, np.ones(3), match="cannot reshape") == 1
    assert error_line(tensordot_mismatch, np.ones(3), match="shape-mismatch") == 1


# -------------------------------------------------------------------------------- einsum
def einsums(a, b):
    return (np.einsum("ij,jk->ik", a, b), np.einsum("ij,jk", a, b), np.einsum("ij->", a),
            np.einsum("ij->ji", a), np.einsum("ij,ij->i", a, a), np.einsum("i j , j k", a, b),
            np.einsum("ij,kj", a, a), np.einsum("ba,aA", a, b), np.einsum("ij", a))


def einsum_diag(a):
    return np.einsum("ii->i", a), np.einsum("ii", a), np.einsum("iij->j", a[None] * a[:, :, None])


def einsum_ellipsis(a, b):
    return (np.einsum("...ij,...jk->...ik", a, b), np.einsum("...ij->...", a),
            np.einsum("i...->...", b), np.einsum("...j,jk", a, b))


def einsum_scalar(a):
    return np.einsum("i,->i", a, 2), np.einsum("i,i", a, [1, 2, 3])


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_einsum_dtypes(dtype):
    check(einsums, sample((2, 3), dtype, big=True), sample((3, 4), dtype, 1, big=True),
          **tol(dtype))


def test_einsum_forms():
    check(einsum_diag, sample((3, 3), "float64"))
    check(einsum_diag, sample((0, 0), "int32"))
    check(einsum_ellipsis, sample((5, 2, 3), "float32"), sample((3, 4), "float32", 1))
    check(einsum_scalar, sample(3, "int8"))
    check(einsums, sample((0, 3), "float32"), sample((3, 0), "float32"))


def einsum_dtype(a, b):
    return np.einsum("ij,jk", a, b, dtype=np.float64), np.einsum("i->", a[0], dtype=np.int64)


def test_einsum_dtype_keyword():
    check(einsum_dtype, sample((2, 3), "int16"), sample((3, 2), "int8", 1))


def einsum_bad_label(a):
    return np.einsum("i1->i", a)


def einsum_bad_output(a):
    return np.einsum("ij->k", a)


def einsum_count(a):
    return np.einsum("ij,jk->ik", a)


def einsum_list_form(a):
    return np.einsum(a, [0, 1])


def einsum_casting(a):
    return np.einsum("ij->", a, dtype=np.int8)


def test_einsum_errors():
    x = np.ones((2, 2))
    assert error_line(einsum_bad_label, x, match="letters") == 1
    assert error_line(einsum_bad_output, x, match="never appeared") == 1
    assert error_line(einsum_count, x, match="fewer operands") == 1
    assert error_line(einsum_list_form, x, match="sublist") == 1
    assert error_line(einsum_casting, x, match="safe") == 1


# ------------------------------------------------------------ trace / diagonal / diag
def diagonals(a):
    return (np.trace(a), a.trace(1), np.trace(a, -1), np.diagonal(a), a.diagonal(1),
            np.diagonal(a, -2), np.diag(a), np.diag(a, 1), np.diag(a, -1), np.trace(a, 7))


def diagonals_nd(a):
    return (np.trace(a, axis1=1, axis2=2), a.diagonal(0, -1, 0), np.trace(a, 1, 2, 0),
            np.trace(a, dtype=np.float32), a.trace(dtype=np.int8))


def diag_vector(v):
    return np.diag(v), np.diag(v, 2), np.diag(v, -1)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_diagonals_dtypes(dtype):
    check(diagonals, sample((3, 4), dtype, big=True), **tol(dtype))
    check(diag_vector, sample(3, dtype), **tol(dtype))


@pytest.mark.parametrize("shape", [(4, 3), (1, 1), (0, 3), (3, 0), (0, 0)])
def test_diagonal_shapes(shape):
    check(diagonals, sample(shape, "int32"))


def test_diagonals_nd_and_empty_vector():
    check(diagonals_nd, sample((2, 3, 4), "float64"))
    check(diagonals_nd, sample((2, 3, 4), "uint8"))
    check(diag_vector, sample(0, "float32"))


def diag_3d(a):
    return np.diag(a)


def trace_same_axes(a):
    return np.trace(a, 0, 1, -1)


def test_diagonal_errors():
    assert error_line(diag_3d, np.ones((2, 2, 2)), match="1- or 2-d") == 1
    assert error_line(trace_same_axes, np.ones((2, 2)), match="cannot be the same") == 1


# ---------------------------------------------------------------------------------- norm
def norms(x):
    return (np.linalg.norm(x), np.linalg.norm(x, keepdims=True), np.linalg.norm(x, "fro"),
            np.linalg.norm(x, axis=1), np.linalg.norm(x, axis=0, keepdims=True),
            np.linalg.norm(x, 1, axis=0), np.linalg.norm(x, np.inf, axis=1),
            np.linalg.norm(x, -np.inf, axis=-1), np.linalg.norm(x, 0, axis=1),
            np.linalg.norm(x, 3, axis=-1, keepdims=True), np.linalg.norm(x, 0.5, axis=0),
            np.linalg.norm(x, 1), np.linalg.norm(x, -1), np.linalg.norm(x, np.inf),
            np.linalg.norm(x, -np.inf, keepdims=True), np.linalg.norm(x, "fro", (1, 0)))


def vector_norms(v):
    return (np.linalg.norm(v), np.linalg.norm(v, 2), np.linalg.norm(v, 1),
            np.linalg.norm(v, np.inf), np.linalg.norm(v, -np.inf), np.linalg.norm(v, 0),
            np.linalg.norm(v, 4, keepdims=True))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_norm_dtypes(dtype):
    # float32 reductions add in another order than numpy's BLAS dot and pairwise sums.
    t = F16_TOL if dtype == "float16" else ({"rtol": 1e-5, "atol": 1e-5}
                                            if dtype == "float32" else {})
    check(norms, sample((3, 4), dtype, 1), **t)
    check(vector_norms, sample(5, dtype, 2), **t)


def norms_no_min(x):
    return (np.linalg.norm(x), np.linalg.norm(x, axis=1), np.linalg.norm(x, np.inf, axis=1),
            np.linalg.norm(x, np.inf, axis=0), np.linalg.norm(x, 1), np.linalg.norm(x, np.inf),
            np.linalg.norm(x, 0, axis=1), np.linalg.norm(x, 3, axis=0), np.linalg.norm(x, "fro"))


def norm_3d(x):
    return np.linalg.norm(x), np.linalg.norm(x, axis=(0, 2)), np.linalg.norm(x, 1, axis=(2, 0))


@pytest.mark.parametrize("shape", [(2, 0), (0, 3), (0, 0)])
def test_norm_empty(shape):
    # numpy 2.4: max-based norms of nothing are 0 (initial=0); min-based ones raise.
    check(norms_no_min, np.zeros(shape))


def test_norm_3d():
    check(norm_3d, sample((2, 3, 4), "float64"))


def norm_min_of_empty(v):
    return np.linalg.norm(v, -np.inf)


def test_norm_min_of_empty_fails_at_run_time():
    with pytest.raises(ValueError, match="zero-size array"):
        norm_min_of_empty(np.zeros(0))
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):
        pyonnx.compile(norm_min_of_empty)(np.zeros(0))


def norm_2_matrix(x):
    return np.linalg.norm(x, 2)


def norm_nuc(x):
    return np.linalg.norm(x, "nuc")


def norm_fro_vector(x):
    return np.linalg.norm(x, "fro")


def norm_3d_ord(x):
    return np.linalg.norm(x, 1)


def test_norm_errors():
    assert error_line(norm_2_matrix, np.ones((2, 2)), match="singular value") == 1
    assert error_line(norm_nuc, np.ones((2, 2)), match="singular value") == 1
    assert error_line(norm_fro_vector, np.ones(2), match="for vectors") == 1
    assert error_line(norm_3d_ord, np.ones((2, 2, 2)), match="Improper number") == 1


# --------------------------------------------------------------- numpy 2 array-API names
def array_api(x, y):
    return (np.linalg.outer(x[0], y[0]), np.linalg.tensordot(x, y.T, axes=1),
            np.linalg.trace(x[None]), np.linalg.diagonal(x, offset=1), np.linalg.matrix_transpose(x),
            np.linalg.cross(x[:, :3], y[:, :3]), np.vecdot(x, y), np.linalg.vecdot(x, y, axis=0),
            np.vecdot(x, y[0]))


def array_api_norms(x):
    return (np.linalg.matrix_norm(x), np.linalg.matrix_norm(x, ord=1, keepdims=True),
            np.linalg.vector_norm(x), np.linalg.vector_norm(x, axis=1, ord=np.inf),
            np.linalg.vector_norm(x, axis=(1, 0), keepdims=True),
            np.linalg.vector_norm(x[None], axis=(0, 2)), np.linalg.vector_norm(x, ord=1))


@pytest.mark.parametrize("dtype", ["int8", "uint64", "float16", "float64"])
def test_array_api_products(dtype):
    check(array_api, sample((3, 4), dtype, 1, big=True), sample((3, 4), dtype, 2, big=True),
          **tol(dtype))


def bool_vecdot(x, y):
    return np.vecdot(x, y), np.vecdot(x, y[0])


def test_array_api_bool_and_norms():
    check(bool_vecdot, sample((3, 4), "bool"), sample((3, 4), "bool", 1))
    check(array_api_norms, sample((3, 4), "float64"))
    check(array_api_norms, sample((3, 4), "float32"), rtol=1e-5, atol=1e-5)


def test_vecdot_length_checked_at_run_time():
    # numpy does not broadcast the summed axis: (3,) · (1,) is an error, not a broadcast.
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        np.vecdot(np.ones(3), np.ones(1))
    with pytest.raises(pyonnx.ExecutionError, match="onnxruntime failed to run the model"):
        pyonnx.compile(bool_vecdot)(np.ones((2, 3)), np.ones((2, 1)))


def einsum_pair(a, b):
    return np.einsum("ij,jk->ik", a, b)


def test_einsum_conflicting_label_sizes_is_a_conversion_error():
    a = pyonnx.spec("float64", (2, 3))
    b = pyonnx.spec("float64", (4, 5))
    with pytest.raises(pyonnx.ConversionError, match="label 'j' has sizes 3 and 4") as info:
        pyonnx.compile(einsum_pair).to_onnx(a, b)
    assert info.value.lineno == einsum_pair.__code__.co_firstlineno + 1

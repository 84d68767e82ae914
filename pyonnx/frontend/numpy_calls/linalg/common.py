"""Product kernels shared by the linalg modules: the dtype a sum of products runs in, ONNX
MatMul with numpy's semantics (and onnxruntime's empty-dimension bugs worked around), exact
integer sums, and numpy's result dtype.

Input: the Lowering ``ctx`` and Arrays. Output: Arrays in numpy's dtype, computed in one that
onnxruntime has a kernel for (the rules are in the package docstring). No registry entries live
here.
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes, kernels
from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array, Dim
from pyonnx.frontend.numpy_calls.registry import lookup
from pyonnx.frontend.numpy_calls.shape import (
    flatten_range, ints, reshape_dims, shape_slice, strong, unsqueeze,
)


_F32 = np.dtype(np.float32)


# ------------------------------------------------------------------------------- kernels
def _product_dtype(ctx, op: str, dtype: np.dtype) -> np.dtype:
    """The dtype to run a sum-of-products ``op`` (MatMul/Einsum) in for numpy's ``dtype``."""
    if dtype.kind == "b" or dtype == np.float16:
        return _F32
    if dtype.kind == "u":
        # The signed type of the same width (or int32) wraps to the same bits; onnxruntime's
        # unsigned MatMul also fails on an empty inner dimension.
        dtype = np.dtype(f"int{max(32, dtype.itemsize * 8)}")
    run = kernels.compute_dtype(op, dtype)
    if run is None:
        raise ctx.error(f"onnxruntime has no {op} kernel for {dtype}")
    return run


def _finish(ctx, out: Array, dtype: np.dtype) -> Array:
    """Casts a product computed in a wider dtype back to numpy's ``dtype``."""
    if dtype.kind == "b":
        return Array(ctx.op("Greater", out, ctx.const(np.zeros((), out.dtype))), dtype, out.shape)
    return ctx.cast(out, dtype)


def _matmul_raw(ctx, a: Array, b: Array, dtype: np.dtype) -> Array:
    """ONNX MatMul (numpy matmul semantics) computed as numpy does in ``dtype``."""
    shape = _matmul_shape(ctx, a, b)
    run = _product_dtype(ctx, "MatMul", dtype)
    value = _matmul_value(ctx, ctx.cast(a, run), ctx.cast(b, run))
    return _finish(ctx, Array(value, run, shape), dtype)


def _matmul_value(ctx, a: Array, b: Array) -> ir.Value:
    """ONNX MatMul with an onnxruntime bug worked around.

    1-D operands are promoted to 2-D here (and the axis squeezed after), as numpy defines it:
    onnxruntime's MatMul refuses ``(0, 3) @ (3,)``. An empty inner dimension gives zeros
    (onnxruntime >= 1.32 fills the output: ``MatMul<T>`` and the float kernel's ``K == 0``
    branch; tests/test_matmul_empty_inner.py runs it after a call that leaves the buffers
    dirty, for every dtype a product runs in). The unsigned kernels fail there, so products
    of unsigned integers run signed (:func:`_product_dtype`). Still refused by onnxruntime at
    run time (not worked around): a zero batch dimension in ``b`` broadcast against ``a``'s
    missing or size-1 batch, e.g. ``(2, 3) @ (0, 3, 4)``.
    """
    squeeze = []
    if a.ndim == 1:
        a = unsqueeze(ctx, a, [0])
        squeeze.append(-2)
    if b.ndim == 1:
        b = unsqueeze(ctx, b, [1])
        squeeze.append(-1)
    value = ctx.op("MatMul", a, b)
    if squeeze:
        value = ctx.op("Squeeze", value, ints(ctx, sorted(squeeze)))
    return value


def _matmul_shape(ctx, a: Array, b: Array) -> tuple[Dim, ...]:
    for i, x in enumerate((a, b)):
        if x.ndim == 0:
            raise ctx.error(f"matmul: Input operand {i} does not have enough dimensions (has 0, "
                            "gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)")
    ka = a.shape[-1]
    kb = b.shape[-2] if b.ndim >= 2 else b.shape[0]
    if ka is not None and kb is not None and ka != kb:
        raise ctx.error("matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                        f"gufunc signature (n?,k),(k,m?)->(n?,m?) (size {kb} is different from "
                        f"{ka})")
    try:
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError as e:
        raise ctx.error(f"matmul: {e}") from None
    return batch + (a.shape[-2:-1] if a.ndim >= 2 else ()) + (b.shape[-1:] if b.ndim >= 2 else ())


def _sum_trailing(ctx, x: Array, keep: int) -> Array:
    """Sums the axes of ``x`` after the first ``keep`` exactly (integers wrap, as numpy).

    onnxruntime's integer ReduceSum goes through floating point (it saturates, and loses
    precision past 2**53); MatMul with a vector of ones adds in the integer type.
    """
    summed, static = flatten_range(ctx, x, keep, x.ndim)
    flat = reshape_dims(ctx, x, [shape_slice(ctx, x, 0, keep), summed]) if x.ndim != keep + 1 \
        else x
    n_vec = summed.value if isinstance(summed, Array) else ints(ctx, [summed])
    ones = Array(ctx.op("ConstantOfShape", n_vec, value=ir.tensor(np.ones(1, x.dtype))), x.dtype,
                 (static,))
    return Array(_matmul_value(ctx, flat, ones), x.dtype, x.shape[:keep])


def _multiply(ctx, a: Array, b: Array) -> Array:
    """``np.multiply`` of strong arrays (numpy's dot/outer/inner of a scalar)."""
    return strong(lookup(np.multiply).fn(ctx, strong(a), strong(b)))


def _result_dtype(ctx, *arrays: Array) -> np.dtype:
    dt = np.result_type(*(a.dtype for a in arrays))
    if dt not in dtypes.SUPPORTED_DTYPES:
        raise ctx.error(f"dtype {dt} is not supported")
    return dt

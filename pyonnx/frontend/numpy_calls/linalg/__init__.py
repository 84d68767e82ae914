"""numpy linear algebra: dot, matmul/@, outer, inner, vdot, tensordot, einsum, trace, diag,
diagonal, kron, cross, linalg.norm.

Input: frontend values under numpy's parameter names. Output: Arrays with numpy's result dtype
and exact static rank. Products run on onnxruntime's MatMul/Einsum in a dtype it has a kernel
for, chosen so the result is numpy's:

* bool: numpy's sum of products is a logical OR of ANDs; computed as a float32 count of true
  products (non-negative, so ``> 0`` is exact).
* float16: numpy accumulates float16 products in float32 and rounds once; so does pyonnx.
* integers: numpy wraps modulo 2**bits. Narrow and unsigned ints run in int32 or int64 (int8 →
  int32, uint64 → int64 bit for bit) and are cast back: wrapping modulo 2**32 or 2**64 and then
  truncating gives the same bits as numpy's wrapping in the narrow type. Integer sums use
  MatMul with ones, never ReduceSum, which onnxruntime computes in floating point.

Supported syntax:

* ``np.matmul(a, b)``, ``a @ b``, ``np.linalg.matmul`` (1-D promotion, batch broadcasting;
  0-d operands are an error, as in numpy), ``dtype=``.
* ``np.dot(a, b)``, ``a.dot(b)`` (0-d: multiply; N-d: sum over a's last and b's second-to-last
  axis), ``np.inner``, ``np.outer`` (flattens), ``np.vdot`` (flattens),
  ``np.tensordot(a, b, axes=2)`` (int or a pair of int sequences).
* ``np.einsum("ij,jk->ik", *arrays)``: string subscripts, implicit or explicit output,
  ``...``, repeated labels (diagonals); ``dtype=`` and ``casting=``. The list form
  (``einsum(a, [0, 1], ...)``) is refused.
* ``np.trace(a, offset, axis1, axis2, dtype)``, ``a.trace(...)``, ``np.diagonal``,
  ``a.diagonal(...)``, ``np.diag(v, k)`` (1-D → matrix, 2-D → diagonal).
* ``np.kron(a, b)``, ``np.cross(a, b)`` (3-vectors along the last axis; 2-vectors,
  deprecated in numpy 2, are refused).
* ``np.linalg.norm(x, ord=None, axis=None, keepdims=False)``: vectors (ord None/2, 1, inf,
  -inf, 0, other p) and matrices (None/'fro', 1, -1, inf, -inf). ord=2/-2/'nuc' for matrices
  need a singular value decomposition, which onnxruntime lacks: refused.
* numpy 2 spellings: ``np.linalg.outer``, ``np.linalg.tensordot``, ``np.linalg.trace``,
  ``np.linalg.diagonal``, ``np.linalg.cross``, ``np.linalg.matrix_norm``,
  ``np.linalg.vector_norm`` (axis None, int or tuple), ``np.vecdot``/``np.linalg.vecdot``
  (real dtypes, ``axis=``).

Modules (importing this package imports them all, which registers their entries): ``products``
(matmul, dot, vdot, inner, outer, tensordot, vecdot, kron, cross), ``einsum_``, ``diagonals``
(diagonal, trace, diag) and ``norms``; ``common`` holds the MatMul kernels they share.
"""

from __future__ import annotations

# The registry imports this package by name: importing every module runs its @register.
from pyonnx.frontend.numpy_calls.linalg import diagonals, einsum_, norms, products  # noqa: F401
# The entries keep the names the single linalg.py module gave them.
from pyonnx.frontend.numpy_calls.linalg.diagonals import (  # noqa: F401
    diag, diagonal, linalg_diagonal, linalg_trace, trace,
)
from pyonnx.frontend.numpy_calls.linalg.einsum_ import einsum
from pyonnx.frontend.numpy_calls.linalg.norms import matrix_norm, norm, vector_norm  # noqa: F401
from pyonnx.frontend.numpy_calls.linalg.products import (  # noqa: F401
    cross, dot, inner, kron, linalg_cross, linalg_outer, linalg_tensordot, matmul, outer,
    tensordot, vdot, vecdot,
)

__all__ = ["matmul", "dot", "einsum"]

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
* ``np.kron(a, b)``, ``np.cross(a, b)`` (3-vectors along the last axis, or 2-vectors).
* ``np.linalg.norm(x, ord=None, axis=None, keepdims=False)``: vectors (ord None/2, 1, inf,
  -inf, 0, other p) and matrices (None/'fro', 1, -1, inf, -inf). ord=2/-2/'nuc' for matrices
  need a singular value decomposition, which onnxruntime lacks: refused.
* numpy 2 spellings: ``np.linalg.outer``, ``np.linalg.tensordot``, ``np.linalg.trace``,
  ``np.linalg.diagonal``, ``np.linalg.cross``, ``np.linalg.matrix_norm``,
  ``np.linalg.vector_norm`` (axis None, int or tuple), ``np.vecdot``/``np.linalg.vecdot``
  (real dtypes, ``axis=``).
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.lower import dtypes, kernels
from pyonnx.frontend.lower.shapes import broadcast_shapes
from pyonnx.frontend.lower.values import Array, Dim
from pyonnx.frontend.numpy_calls import lookup, register
from pyonnx.frontend.numpy_calls.shape import (
    I64, axes_of, axis_of, flatten_range, fmt_shape, guard, ints, reshape_dims, reshape_vec,
    ravel_array, shape_slice, shape_vector, strong, to_array, transpose_to, unsqueeze,
)

__all__ = ["matmul", "dot", "einsum"]

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
    """ONNX MatMul with two onnxruntime bugs worked around.

    1-D operands are promoted to 2-D here (and the axis squeezed after), as numpy defines it:
    onnxruntime's MatMul refuses ``(0, 3) @ (3,)``. An empty inner dimension makes the result
    0: onnxruntime leaves the output uninitialized for some such shapes (``(3, 0) @ (0,)``).
    Still refused by onnxruntime at run time (not worked around): a zero batch dimension in
    ``b`` broadcast against ``a``'s missing or size-1 batch, e.g. ``(2, 3) @ (0, 3, 4)``.
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
    k, kb = a.shape[-1], b.shape[-2]
    if (k is not None and k != 0) or (kb is not None and kb != 0):
        return value
    empty = ctx.op("Equal", ctx.op("ReduceMax", ctx.op("Shape", a, start=a.ndim - 1), keepdims=0),
                   ctx.const(np.int64(0)))
    return ctx.op("Where", empty, ctx.const(np.zeros((), a.dtype)), value)


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


# -------------------------------------------------------------------------------- matmul
@register(np.matmul, np.linalg.matmul)
def matmul(ctx, x1, x2, /, out=None, *, casting="same_kind", order="K", dtype=None, subok=True,
           signature=None, axes=None, axis=None):
    """``np.matmul(a, b)`` and ``a @ b`` (numpy 1-D promotion and batch broadcasting)."""
    if out is not None:
        raise ctx.error("np.matmul(..., out=...) is not supported; assign the result")
    if signature is not None or axes is not None or axis is not None:
        raise ctx.error("np.matmul(..., signature=/axes=/axis=) is not supported; transpose the "
                        "operands instead")
    try:
        if dtype is None:
            ins, outs, _ = dtypes.ufunc_dtypes(np.matmul, x1, x2)
        else:
            dt = np.dtype(ctx.static(dtype, "dtype"))
            casting = ctx.static(casting, "casting")
            # dtype= fixes the loop's output type (a signature), as numpy's ufunc call does.
            resolved = np.matmul.resolve_dtypes((dtypes.proxy(x1), dtypes.proxy(x2), None),
                                                signature=(None, None, dt), casting=casting)
            ins, outs = resolved[:2], resolved[2:]
    except Exception as e:  # numpy's no-loop and casting errors
        raise ctx.error(f"np.matmul: {e}") from None
    a = ctx.cast(to_array(ctx, x1), ins[0])
    b = ctx.cast(to_array(ctx, x2), ins[1])
    return ctx.cast(_matmul_raw(ctx, a, b, ins[0]), outs[0])


# ---------------------------------------------------------------------------------- dot
def _not_aligned(ctx, a: Array, b: Array, ia: int, ib: int) -> None:
    da, db = a.shape[ia], b.shape[ib]
    if da is not None and db is not None and da != db:
        raise ctx.error(f"shapes {fmt_shape(a.shape)} and {fmt_shape(b.shape)} not aligned: "
                        f"{da} (dim {ia % a.ndim}) != {db} (dim {ib % b.ndim})")


def _dot(ctx, a: Array, b: Array) -> Array:
    if a.ndim == 0 or b.ndim == 0:
        return _multiply(ctx, a, b)
    dt = _result_dtype(ctx, a, b)
    a, b = ctx.cast(a, dt), ctx.cast(b, dt)
    _not_aligned(ctx, a, b, -1, -2 if b.ndim >= 2 else 0)
    if b.ndim <= 2 or a.ndim == 1:
        # matmul's batch broadcasting never applies here: one side has no batch axes.
        return _matmul_raw(ctx, a, b, dt)
    # (..., k) · (..., k, m): a as (A, k), b with its k axis first as (k, B·m).
    a2 = reshape_dims(ctx, a, [flatten_range(ctx, a, 0, a.ndim - 1)[0],
                               shape_slice(ctx, a, a.ndim - 1, a.ndim)])
    bt = transpose_to(ctx, b, [b.ndim - 2] + list(range(b.ndim - 2)) + [b.ndim - 1])
    b2 = reshape_dims(ctx, bt, [shape_slice(ctx, bt, 0, 1), flatten_range(ctx, bt, 1, bt.ndim)[0]])
    r = _matmul_raw(ctx, a2, b2, dt)
    shape = a.shape[:-1] + b.shape[:-2] + b.shape[-1:]
    pieces = [shape_slice(ctx, a, 0, a.ndim - 1), shape_slice(ctx, b, 0, b.ndim - 2),
              shape_slice(ctx, b, b.ndim - 1, b.ndim)]
    return reshape_vec(ctx, r, shape_vector(ctx, pieces), shape)


@register(np.dot, methods=("dot",))
def dot(ctx, a, b, out=None):
    """``np.dot(a, b)`` and ``a.dot(b)`` with numpy's 0-d, 1-d, 2-d and N-d rules."""
    if out is not None:
        raise ctx.error("np.dot(..., out=...) is not supported; assign the result")
    return _dot(ctx, to_array(ctx, a), to_array(ctx, b))


@register(np.vdot)
def vdot(ctx, a, b, /):
    """``np.vdot(a, b)``: the dot product of the flattened arrays (equal sizes)."""
    a, b = to_array(ctx, a), to_array(ctx, b)
    sa, sb = a.static_size, b.static_size
    if sa is not None and sb is not None and sa != sb:
        raise ctx.error(f"cannot reshape array of size {sb} into shape ({sa},)")
    return _dot(ctx, ravel_array(ctx, a), ravel_array(ctx, b))


@register(np.inner)
def inner(ctx, a, b, /):
    """``np.inner(a, b)``: sum over the last axes of both."""
    a, b = to_array(ctx, a), to_array(ctx, b)
    if a.ndim == 0 or b.ndim == 0:
        return _multiply(ctx, a, b)
    da, db = a.shape[-1], b.shape[-1]
    if da is not None and db is not None and da != db:
        raise ctx.error(f"shapes {fmt_shape(a.shape)} and {fmt_shape(b.shape[::-1])} not "
                        f"aligned: {da} (dim {a.ndim - 1}) != {db} (dim 0)")
    dt = _result_dtype(ctx, a, b)
    a, b = ctx.cast(a, dt), ctx.cast(b, dt)
    if b.ndim == 1:
        return _matmul_raw(ctx, a, b, dt)
    # b as (B, k), transposed to (k, B); the result's trailing B unflattened to b.shape[:-1].
    b2 = b if b.ndim == 2 else reshape_dims(
        ctx, b, [flatten_range(ctx, b, 0, b.ndim - 1)[0], shape_slice(ctx, b, b.ndim - 1, b.ndim)])
    r = _matmul_raw(ctx, a, transpose_to(ctx, b2, [1, 0]), dt)
    if b.ndim == 2:
        return r
    pieces = [shape_slice(ctx, a, 0, a.ndim - 1), shape_slice(ctx, b, 0, b.ndim - 1)]
    return reshape_vec(ctx, r, shape_vector(ctx, pieces), a.shape[:-1] + b.shape[:-1])


@register(np.outer)
def outer(ctx, a, b, out=None):
    """``np.outer(a, b)``: ``a.ravel()[:, None] * b.ravel()[None, :]``."""
    if out is not None:
        raise ctx.error("np.outer(..., out=...) is not supported; assign the result")
    a = unsqueeze(ctx, ravel_array(ctx, to_array(ctx, a)), [1])
    b = unsqueeze(ctx, ravel_array(ctx, to_array(ctx, b)), [0])
    return _multiply(ctx, a, b)


@register(np.tensordot)
def tensordot(ctx, a, b, axes=2):
    """``np.tensordot(a, b, axes=2)``: axes an int N (a's last N with b's first N) or a pair
    of axis sequences."""
    a, b = to_array(ctx, a), to_array(ctx, b)
    axes = ctx.static(axes, "axes")
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise ctx.error("np.tensordot: axes must be an int or a pair of axis sequences")
        axes_a, axes_b = axes
    else:
        n = operator.index(axes)
        if n < 0 or n > a.ndim or n > b.ndim:
            raise ctx.error(f"np.tensordot: axes={n} needs at least {n} dimensions in both "
                            f"operands (they have {a.ndim} and {b.ndim})")
        axes_a, axes_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    axes_a = axes_a if isinstance(axes_a, (tuple, list)) else [axes_a]
    axes_b = axes_b if isinstance(axes_b, (tuple, list)) else [axes_b]
    if len(axes_a) != len(axes_b):
        raise ctx.error("shape-mismatch for sum")
    ax_a = axes_of(ctx, tuple(axes_a), a.ndim, "axes")
    ax_b = axes_of(ctx, tuple(axes_b), b.ndim, "axes")
    for i, j in zip(ax_a, ax_b):
        if a.shape[i] is not None and b.shape[j] is not None and a.shape[i] != b.shape[j]:
            raise ctx.error("shape-mismatch for sum")
    dt = _result_dtype(ctx, a, b)
    a, b = ctx.cast(a, dt), ctx.cast(b, dt)
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [j for j in range(b.ndim) if j not in ax_b]
    at = transpose_to(ctx, a, free_a + list(ax_a))
    bt = transpose_to(ctx, b, list(ax_b) + free_b)
    nf, ns = len(free_a), len(ax_a)
    vec_a = [flatten_range(ctx, at, 0, nf)[0], flatten_range(ctx, at, nf, at.ndim)[0]]
    vec_b = [flatten_range(ctx, bt, 0, ns)[0], flatten_range(ctx, bt, ns, bt.ndim)[0]]
    if ns > 1 and any(a.shape[i] is None or b.shape[j] is None for i, j in zip(ax_a, ax_b)):
        # Flattened, (2, 3) and (3, 2) both sum 6 elements: check each summed pair, as numpy.
        same = ctx.op("Equal", shape_slice(ctx, at, nf, at.ndim), shape_slice(ctx, bt, 0, ns))
        ok = ctx.op("ReduceMin", same, keepdims=0)
        vec = guard(ctx, ok, Array(shape_vector(ctx, vec_a), I64, (2,)))
        a2 = reshape_vec(ctx, at, vec.value, (_static_prod(at.shape[:nf]),
                                               _static_prod(at.shape[nf:])))
    else:
        a2 = reshape_dims(ctx, at, vec_a)
    b2 = reshape_dims(ctx, bt, vec_b)
    r = _matmul_raw(ctx, a2, b2, dt)
    shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b)
    pieces = [shape_slice(ctx, at, 0, nf), shape_slice(ctx, bt, ns, bt.ndim)]
    return reshape_vec(ctx, r, shape_vector(ctx, pieces), shape)


def _static_prod(dims) -> Dim:
    if any(d == 0 for d in dims):
        return 0
    return None if any(d is None for d in dims) else math.prod(dims)


# -------------------------------------------------------------------------------- einsum
def _parse_term(ctx, term: str) -> tuple[list[str], bool]:
    ell = term.count("...")
    if ell > 1 or (ell == 0 and "." in term) or (ell and "." in term.replace("...", "", 1)):
        raise ctx.error(f"einstein sum subscripts string contains a '.' that is not part of an "
                        f"ellipsis ('...') in '{term}'")
    labels = []
    for ch in term.replace("...", ""):
        if not ch.isascii() or not ch.isalpha():
            raise ctx.error(f"invalid subscript '{ch}' in einstein sum subscripts string, "
                            "subscripts must be letters")
        labels.append(ch)
    return list(term.replace("...", ".")) if ell else labels, bool(ell)


@register(np.einsum)
def einsum(ctx, *operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    """``np.einsum("ij,jk->ik", a, b)`` with string subscripts (see the module docstring)."""
    if out is not None:
        raise ctx.error("np.einsum(..., out=...) is not supported; assign the result")
    if not operands or not isinstance(operands[0], str):
        raise ctx.error("np.einsum needs the subscripts string first; the operand/sublist form "
                        "einsum(a, [0, 1], ...) is not supported")
    subscripts = operands[0].replace(" ", "")
    arrays = [to_array(ctx, v) for v in operands[1:]]
    if "->" in subscripts:
        lhs, rhs = subscripts.split("->", 1)
        if "->" in rhs or "-" in rhs or ">" in rhs:
            raise ctx.error("einstein sum subscript string has a misplaced '->'")
    else:
        if "-" in subscripts or ">" in subscripts:
            raise ctx.error("einstein sum subscript string has a misplaced '->'")
        lhs, rhs = subscripts, None
    terms = lhs.split(",")
    if len(terms) != len(arrays):
        raise ctx.error(f"more operands provided to einstein sum function than specified in the "
                        f"subscripts string" if len(arrays) > len(terms) else
                        "fewer operands provided to einstein sum function than specified in the "
                        "subscripts string")
    parsed = [_parse_term(ctx, t) for t in terms]
    # Each label's size; the dims the ellipses stand for, right-aligned and broadcast.
    sizes: dict[str, Dim] = {}
    ell_shapes = []
    for (labels, has_ell), a in zip(parsed, arrays):
        named = [lab for lab in labels if lab != "."]
        if len(named) > a.ndim or (not has_ell and len(named) != a.ndim):
            raise ctx.error("operand has more dimensions than subscripts given in einstein sum, "
                            "but no '...' ellipsis provided to broadcast the extra dimensions."
                            if len(named) < a.ndim else
                            f"einstein sum subscripts string contains too many subscripts for "
                            f"operand {len(ell_shapes)}")
        ell_n = a.ndim - len(named)
        pos = labels.index(".") if has_ell else len(labels)
        dims = list(a.shape[:pos]) + list(a.shape[pos + ell_n:]) if has_ell else list(a.shape)
        ell_shapes.append(tuple(a.shape[pos:pos + ell_n]) if has_ell else ())
        for lab, d in zip(named, dims):
            # numpy broadcasts a size-1 dimension against the label's other sizes.
            if lab not in sizes or sizes[lab] == 1 or (sizes[lab] is None and d not in (None, 1)):
                sizes[lab] = d
            elif d is not None and d != 1 and sizes[lab] is not None and d != sizes[lab]:
                raise ctx.error(f"operands could not be broadcast together with remapped shapes: "
                                f"label '{lab}' has sizes {prev} and {d}")
    try:
        ell_shape = broadcast_shapes(*ell_shapes)
    except ValueError as e:
        raise ctx.error(str(e)) from None
    any_ell = any(h for _, h in parsed)
    counts: dict[str, int] = {}
    for labels, _ in parsed:
        for lab in labels:
            if lab != ".":
                counts[lab] = counts.get(lab, 0) + 1
    if rhs is None:
        out_labels = sorted(lab for lab, c in counts.items() if c == 1)
        rhs = ("..." if any_ell else "") + "".join(out_labels)
    out_parsed, out_ell = _parse_term(ctx, rhs)
    for lab in out_parsed:
        if lab != "." and lab not in counts:
            raise ctx.error(f"einstein sum subscripts string included output subscript '{lab}' "
                            "which never appeared in an input")
    named_out = [lab for lab in out_parsed if lab != "."]
    if len(set(named_out)) != len(named_out):
        raise ctx.error("einstein sum subscripts string includes output subscript more than once")
    if not out_ell and any(d != 1 for d in ell_shape) and ell_shape:
        raise ctx.error("output has more dimensions than subscripts given in einstein sum, but "
                        "no '...' ellipsis provided to broadcast the extra dimensions.")
    shape: list[Dim] = []
    for lab in out_parsed:
        if lab == ".":
            shape.extend(ell_shape)
        else:
            shape.append(sizes[lab])
    # numpy's result dtype; with dtype= the operands are cast (casting rule checked) first.
    if dtype is None:
        dt = _result_dtype(ctx, *arrays) if arrays else np.dtype(np.float64)
    else:
        dt = np.dtype(ctx.static(dtype, "dtype"))
        casting = ctx.static(casting, "casting")
        for a in arrays:
            if not np.can_cast(a.dtype, dt, casting=casting):
                raise ctx.error(f"Cannot cast array data from dtype('{a.dtype}') to "
                                f"dtype('{dt}') according to the rule '{casting}'")
    run = _product_dtype(ctx, "Einsum", dt)
    reduced = sorted(lab for lab in counts if lab not in named_out)
    if run.kind in "iu" and reduced:
        # onnxruntime's Einsum sums some reductions with its inexact integer ReduceSum: keep the
        # summed labels as trailing output axes and add them exactly (_sum_trailing).
        rhs += "".join(reduced)
    # ONNX's Einsum shape inference wants every '...' to stand for the same number of dims:
    # pad shorter ones with leading 1s (numpy broadcasts them the same way).
    ell_rank = len(ell_shape)
    inputs = []
    for (labels, has_ell), a, es in zip(parsed, arrays, ell_shapes):
        if has_ell and len(es) < ell_rank:
            pos = labels.index(".")
            a = unsqueeze(ctx, a, list(range(pos, pos + ell_rank - len(es))))
        inputs.append(ctx.cast(ctx.cast(a, dt), run))
    value = ctx.op("Einsum", *inputs, equation=lhs + "->" + rhs)
    if run.kind in "iu" and reduced:
        full = Array(value, run, tuple(shape) + tuple(sizes[lab] for lab in reduced))
        return _finish(ctx, _sum_trailing(ctx, full, len(shape)), dt)
    return _finish(ctx, Array(value, run, tuple(shape)), dt)


# ------------------------------------------------------------------ diagonal / trace / diag
def _diagonal(ctx, a: Array, offset: Any, axis1: Any, axis2: Any) -> Array:
    if a.ndim < 2:
        raise ctx.error("diag requires an array of at least two dimensions")
    i = axis_of(ctx, axis1, a.ndim, "axis1")
    j = axis_of(ctx, axis2, a.ndim, "axis2")
    if i == j:
        raise ctx.error("axis1 and axis2 cannot be the same")
    k = operator.index(ctx.static(offset, "offset"))
    rest = [d for d in range(a.ndim) if d not in (i, j)]
    t = transpose_to(ctx, a, rest + [i, j])
    n, m = t.shape[-2], t.shape[-1]
    start = k if k >= 0 else -k * (m if m is not None else 0)
    flat = reshape_dims(ctx, t, [shape_slice(ctx, t, 0, t.ndim - 2),
                                 flatten_range(ctx, t, t.ndim - 2, t.ndim)[0]])
    if n is not None and m is not None:
        length = max(0, min(n, m - k) if k >= 0 else min(n + k, m))
        idx = ctx.const_array(np.arange(length, dtype=np.int64) * (m + 1) + start)
    else:
        # length = max(0, min(n, m - k)) (k ≥ 0) or max(0, min(n + k, m)); the flat index of
        # the i-th element is i * (m + 1) + (k if k ≥ 0 else -k * m).
        nm = shape_slice(ctx, t, t.ndim - 2, t.ndim)
        n_v = ctx.op("Gather", nm, ctx.const(np.int64(0)))
        m_v = ctx.op("Gather", nm, ctx.const(np.int64(1)))
        if k >= 0:
            length = ctx.op("Min", n_v, ctx.op("Sub", m_v, ctx.const(np.int64(k))))
            first = ctx.const(np.int64(k))
        else:
            length = ctx.op("Min", ctx.op("Add", n_v, ctx.const(np.int64(k))), m_v)
            first = ctx.op("Mul", m_v, ctx.const(np.int64(-k)))
        length = ctx.op("Max", length, ctx.const(np.int64(0)))
        steps = ctx.op("Range", ctx.const(np.int64(0)), length, ctx.const(np.int64(1)))
        idx = Array(ctx.op("Add", ctx.op("Mul", steps, ctx.op("Add", m_v, ctx.const(np.int64(1)))),
                           first), I64, (None,))
        length = None
    value = ctx.op("Gather", flat, idx, axis=flat.ndim - 1)
    return Array(value, a.dtype, flat.shape[:-1] + (length if isinstance(length, int) else None,))


@register(np.diagonal, methods=("diagonal",))
def diagonal(ctx, a, offset=0, axis1=0, axis2=1):
    """``np.diagonal(a, offset=0, axis1=0, axis2=1)``: the diagonal as the last axis."""
    return _diagonal(ctx, to_array(ctx, a), offset, axis1, axis2)


def _sum_last(ctx, x: Array, dtype: np.dtype) -> Array:
    """``x.sum(axis=-1, dtype=dtype)`` as numpy computes it."""
    x = ctx.cast(x, dtype)
    if dtype.kind in "biu":
        # Exact, wrapping integer sums (see _sum_trailing); a bool sum is a logical or.
        run = _product_dtype(ctx, "MatMul", dtype)
        return _finish(ctx, _sum_trailing(ctx, ctx.cast(x, run), x.ndim - 1), dtype)
    run = _F32 if dtype == np.float16 else dtype
    value = ctx.op("ReduceSum", ctx.cast(x, run), ints(ctx, [x.ndim - 1]), keepdims=0)
    return _finish(ctx, Array(value, run, x.shape[:-1]), dtype)


@register(np.trace, methods=("trace",))
def trace(ctx, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``np.trace(a, offset=0, axis1=0, axis2=1, dtype=None)``: the diagonal's sum with
    numpy's sum dtype (small ints → int64/uint64)."""
    if out is not None:
        raise ctx.error("np.trace(..., out=...) is not supported; assign the result")
    a = to_array(ctx, a)
    dt = None if dtype is None else np.dtype(ctx.static(dtype, "dtype"))
    out_dtype = np.trace(np.zeros((1, 1), a.dtype), dtype=dt).dtype
    return _sum_last(ctx, _diagonal(ctx, a, offset, axis1, axis2), out_dtype)


@register(np.diag)
def diag(ctx, v, k=0):
    """``np.diag(v, k=0)``: a 1-D ``v`` on the k-th diagonal of a square matrix; the k-th
    diagonal of a 2-D ``v``."""
    v = to_array(ctx, v)
    k = operator.index(ctx.static(k, "k"))
    if v.ndim == 2:
        return _diagonal(ctx, v, k, 0, 1)
    if v.ndim != 1:
        raise ctx.error("Input must be 1- or 2-d.")
    n = v.shape[0]
    off = abs(k)
    if n is not None:
        size = n + off
        pos = ctx.const_array(np.arange(n, dtype=np.int64) * (size + 1)
                              + (k if k >= 0 else -k * size))
        total = ints(ctx, [size * size])
        shape_vec = ints(ctx, [size, size])
        static = (size, size)
    else:
        n_v = ctx.op("Shape", v)
        size = ctx.op("Add", n_v, ints(ctx, [off]))
        steps = ctx.op("Range", ctx.const(np.int64(0)), ctx.op("Squeeze", n_v, ints(ctx, [0])),
                       ctx.const(np.int64(1)))
        first = ints(ctx, [k]) if k >= 0 else ctx.op("Mul", size, ints(ctx, [-k]))
        pos = Array(ctx.op("Add", ctx.op("Mul", steps, ctx.op("Add", size, ints(ctx, [1]))),
                           first), I64, (None,))
        total = ctx.op("Mul", size, size)
        shape_vec = ctx.op("Concat", size, size, axis=0)
        static = (None, None)
    run = kernels.compute_dtype("ScatterElements", v.dtype)
    zeros = ctx.op("ConstantOfShape", total, value=ir.tensor(np.zeros(1, run)))
    flat = ctx.op("ScatterElements", zeros, pos, ctx.cast(v, run), axis=0)
    return ctx.cast(Array(ctx.op("Reshape", flat, shape_vec, allowzero=1), run, static), v.dtype)


# ------------------------------------------------------------------------ kron / cross
@register(np.kron)
def kron(ctx, a, b):
    """``np.kron(a, b)``: every ``a[i] * b`` block, for any ranks."""
    a, b = to_array(ctx, a), to_array(ctx, b)
    nd = max(a.ndim, b.ndim)
    if a.ndim < nd:
        a = unsqueeze(ctx, a, list(range(nd - a.ndim)))
    if b.ndim < nd:
        b = unsqueeze(ctx, b, list(range(nd - b.ndim)))
    # a at even axes, b at odd axes: their product has shape (a0, b0, a1, b1, ...), and
    # merging each pair gives kron's (a0*b0, a1*b1, ...).
    prod = _multiply(ctx, unsqueeze(ctx, a, [2 * i + 1 for i in range(nd)]),
                     unsqueeze(ctx, b, [2 * i for i in range(nd)]))
    if nd == 0:
        return prod
    pieces = []
    shape: list[Dim] = []
    for i in range(nd):
        piece, static = flatten_range(ctx, prod, 2 * i, 2 * i + 2)
        pieces.append(piece)
        shape.append(static)
    return reshape_vec(ctx, prod, shape_vector(ctx, pieces), tuple(shape))


@register(np.cross)
def cross(ctx, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """``np.cross(a, b)`` of 3-element vectors along the last axis (broadcast); the axis
    arguments must keep their defaults, and 2-element vectors (deprecated in numpy 2) are
    refused."""
    a, b = to_array(ctx, a), to_array(ctx, b)
    if axis is not None or any(ctx.static(x, "axis") != -1 for x in (axisa, axisb, axisc)):
        raise ctx.error("np.cross with axis arguments is not supported; move the vector axis "
                        "last with np.moveaxis")
    if a.ndim == 0 or b.ndim == 0:
        raise ctx.error("np.cross needs arrays of at least one dimension")
    na, nb = a.shape[-1], b.shape[-1]
    if na is not None and nb is not None and (na not in (2, 3) or nb not in (2, 3)):
        raise ctx.error("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if 2 in (na, nb):
        raise ctx.error("np.cross of 2-element vectors is deprecated in numpy 2 and not "
                        "supported; write a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]")
    dt = _result_dtype(ctx, a, b)

    def rotate(x: Array, order: list[int]) -> Array:
        idx = Array(ints(ctx, order), I64, (3,))
        if x.shape[-1] is None:
            # Gathering 3 components would ignore a longer axis: numpy refuses any length but
            # 2 or 3, and pyonnx accepts 3 only, so the run fails for other lengths.
            n = ctx.op("Shape", x, start=x.ndim - 1, end=x.ndim)
            ok = ctx.op("Squeeze", ctx.op("Equal", n, ints(ctx, [3])), ints(ctx, [0]))
            idx = guard(ctx, ok, idx)
        return Array(ctx.op("Gather", x, idx, axis=x.ndim - 1), x.dtype, x.shape[:-1] + (3,))

    # cross = a[[1, 2, 0]] * b[[2, 0, 1]] - a[[2, 0, 1]] * b[[1, 2, 0]] along the last axis.
    left = _multiply(ctx, rotate(a, [1, 2, 0]), rotate(b, [2, 0, 1]))
    right = _multiply(ctx, rotate(a, [2, 0, 1]), rotate(b, [1, 2, 0]))
    out = strong(lookup(np.subtract).fn(ctx, left, right))
    return ctx.cast(out, dt) if out.dtype != dt else out


# ---------------------------------------------------------------------------------- norm
def _reduce(ctx, op: str, x: Array, axes: tuple[int, ...], keepdims: bool) -> Array:
    shape = tuple((1 if keepdims else None) if i in axes else d for i, d in enumerate(x.shape))
    shape = tuple(d for i, d in enumerate(shape) if keepdims or i not in axes)
    run = _F32 if x.dtype == np.float16 and op == "ReduceSum" else x.dtype
    value = ctx.op(op, ctx.cast(x, run), ints(ctx, axes), keepdims=int(keepdims))
    return ctx.cast(Array(value, run, shape), x.dtype)


def _reduce_max0(ctx, x: Array, axes: tuple[int, ...], keepdims: bool) -> Array:
    """numpy's ``max(..., initial=0)`` of non-negative values: 0 for an empty axis
    (onnxruntime's ReduceMax gives -inf there; Max with 0 keeps NaN, as numpy's max does)."""
    r = _reduce(ctx, "ReduceMax", x, axes, keepdims)
    return Array(ctx.op("Max", r, ctx.const(np.zeros((), x.dtype))), x.dtype, r.shape)


def _reduce_min(ctx, x: Array, axes: tuple[int, ...], keepdims: bool) -> Array:
    """A min reduction: numpy raises when a reduced axis is empty (no identity)."""
    name = "minimum"
    op = "ReduceMin"
    dims = [x.shape[a] for a in axes]
    if any(d == 0 for d in dims):
        raise ctx.error(f"zero-size array to reduction operation {name} which has no identity")
    if all(d is not None for d in dims):
        return _reduce(ctx, op, x, axes, keepdims)
    n = ctx.op("ReduceMin", ctx.op("Gather", ctx.op("Shape", x), ints(ctx, axes)), keepdims=0)
    ok = ctx.op("Greater", n, ctx.const(np.int64(0)))
    axes_vec = guard(ctx, ok, Array(ints(ctx, axes), I64, (len(axes),)))
    shape = tuple(d if i not in axes else 1 for i, d in enumerate(x.shape) if keepdims or i not in axes)
    return Array(ctx.op(op, x, axes_vec, keepdims=int(keepdims)), x.dtype, shape)


def _sqrt(ctx, x: Array) -> Array:
    run = _F32 if x.dtype == np.float16 else x.dtype
    return ctx.cast(Array(ctx.op("Sqrt", ctx.cast(x, run)), run, x.shape), x.dtype)


def _abs(ctx, x: Array) -> Array:
    return Array(ctx.op("Abs", x), x.dtype, x.shape)


def _sum_squares(ctx, x: Array, axes: tuple[int, ...], keepdims: bool) -> Array:
    run = _F32 if x.dtype == np.float16 else x.dtype
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keepdims or i not in axes)
    value = ctx.op("ReduceSumSquare", ctx.cast(x, run), ints(ctx, axes), keepdims=int(keepdims))
    return ctx.cast(Array(value, run, shape), x.dtype)


@register(np.linalg.norm)
def norm(ctx, x, ord=None, axis=None, keepdims=False):
    """``np.linalg.norm(x, ord=None, axis=None, keepdims=False)`` (see module docstring)."""
    x = to_array(ctx, x)
    if x.dtype.kind != "f":
        x = ctx.cast(x, np.float64)
    if x.dtype == np.float16:
        # numpy rounds each float16 step; onnxruntime computes float16 ops in float32 anyway:
        # compute in float32 and round once (within float16 tolerance of numpy's result).
        return ctx.cast(norm(ctx, ctx.cast(x, np.float32), ord, axis, keepdims), np.float16)
    ord = ctx.static(ord, "ord")
    axis = ctx.static(axis, "axis")
    keepdims = bool(ctx.static(keepdims, "keepdims"))
    nd = x.ndim
    if axis is None and (ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1)):
        ret = _sqrt(ctx, _sum_squares(ctx, x, tuple(range(nd)), False))
        if keepdims:
            ret = unsqueeze(ctx, ret, list(range(nd)))
        return ret
    if axis is None:
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        axis = (axis,)
    if len(axis) == 1:
        ax = (axis_of(ctx, axis[0], nd),)
        if ord == math.inf:
            return _reduce_max0(ctx, _abs(ctx, x), ax, keepdims)
        if ord == -math.inf:
            return _reduce_min(ctx, _abs(ctx, x), ax, keepdims)
        if ord == 0:
            nz = ctx.op("Not", ctx.op("Equal", x, ctx.const(np.zeros((), x.dtype))))
            return _reduce(ctx, "ReduceSum", ctx.cast(Array(nz, np.dtype(bool), x.shape), x.dtype),
                           ax, keepdims)
        if ord == 1:
            return _reduce(ctx, "ReduceSum", _abs(ctx, x), ax, keepdims)
        if ord is None or ord == 2:
            return _sqrt(ctx, _sum_squares(ctx, x, ax, keepdims))
        if isinstance(ord, str):
            raise ctx.error(f"Invalid norm order '{ord}' for vectors")
        try:
            p = float(ord)
        except (TypeError, ValueError):
            raise ctx.error(f"Invalid norm order {ord!r} for vectors") from None
        run = _F32 if x.dtype == np.float16 else x.dtype
        absx = _abs(ctx, x)
        with np.errstate(all="ignore"):
            p_t = np.asarray(p).astype(x.dtype)
            inv = np.reciprocal(np.asarray(p, dtype=x.dtype))
        powed = ctx.cast(Array(ctx.op("Pow", ctx.cast(absx, run), ctx.const(p_t.astype(run))),
                               run, x.shape), x.dtype)
        s = _reduce(ctx, "ReduceSum", powed, ax, keepdims)
        return ctx.cast(Array(ctx.op("Pow", ctx.cast(s, run), ctx.const(inv.astype(run))), run,
                              s.shape), x.dtype)
    if len(axis) == 2:
        row = axis_of(ctx, axis[0], nd)
        col = axis_of(ctx, axis[1], nd)
        if row == col:
            raise ctx.error("Duplicate axes given.")
        if ord in (2, -2, "nuc"):
            raise ctx.error(f"np.linalg.norm(ord={ord!r}) of a matrix needs a singular value "
                            "decomposition, which onnxruntime does not provide; compute it "
                            "outside the compiled function (ord='fro', 1, -1, inf, -inf work)")
        if ord in (None, "fro", "f"):
            ret = _sqrt(ctx, _sum_squares(ctx, x, (row, col), False))
        elif ord in (1, -1, math.inf, -math.inf):
            if ord in (1, -1):
                summed, other = row, col
            else:
                summed, other = col, row
            s = _reduce(ctx, "ReduceSum", _abs(ctx, x), (summed,), False)
            if other > summed:
                other -= 1
            # numpy 2.4: max(..., initial=0) (0 for no columns); min raises on no columns.
            ret = _reduce_max0(ctx, s, (other,), False) if ord > 0 else \
                _reduce_min(ctx, s, (other,), False)
        else:
            raise ctx.error("Invalid norm order for matrices.")
        if keepdims:
            ret = unsqueeze(ctx, ret, sorted((row, col)))
        return ret
    raise ctx.error("Improper number of dimensions to norm.")



# ------------------------------------------------------------ numpy 2 array-API spellings
@register(np.linalg.outer)
def linalg_outer(ctx, x1, x2, /):
    """``np.linalg.outer(a, b)``: 1-D operands only (as numpy)."""
    a, b = to_array(ctx, x1), to_array(ctx, x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ctx.error(f"Input arrays must be one-dimensional, but they are x1.ndim={a.ndim} "
                        f"and x2.ndim={b.ndim}.")
    return outer(ctx, a, b)


@register(np.linalg.tensordot)
def linalg_tensordot(ctx, x1, x2, /, *, axes=2):
    """``np.linalg.tensordot(a, b, axes=2)``."""
    return tensordot(ctx, x1, x2, axes)


@register(np.linalg.trace)
def linalg_trace(ctx, x, /, *, offset=0, dtype=None):
    """``np.linalg.trace(x, offset=0, dtype=None)``: over the last two axes."""
    return trace(ctx, x, offset, -2, -1, dtype)


@register(np.linalg.diagonal)
def linalg_diagonal(ctx, x, /, *, offset=0):
    """``np.linalg.diagonal(x, offset=0)``: of the last two axes."""
    return _diagonal(ctx, to_array(ctx, x), offset, -2, -1)


@register(np.linalg.cross)
def linalg_cross(ctx, x1, x2, /, *, axis=-1):
    """``np.linalg.cross(a, b, axis=-1)`` of 3-element vectors."""
    return cross(ctx, x1, x2, axis=None if ctx.static(axis, "axis") == -1 else axis)


@register(np.linalg.matrix_norm)
def matrix_norm(ctx, x, /, *, keepdims=False, ord="fro"):
    """``np.linalg.matrix_norm(x, keepdims=False, ord='fro')``: over the last two axes."""
    return norm(ctx, x, ord, (-2, -1), keepdims)


@register(np.linalg.vector_norm)
def vector_norm(ctx, x, /, *, axis=None, keepdims=False, ord=2):
    """``np.linalg.vector_norm(x, axis=None, keepdims=False, ord=2)``: axis None, an int or a
    tuple (those axes flattened into one vector)."""
    a = to_array(ctx, x)
    axis = ctx.static(axis, "axis")
    keepdims = bool(ctx.static(keepdims, "keepdims"))
    if axis is None:
        axes = tuple(range(a.ndim))
        res = norm(ctx, ravel_array(ctx, a), ord, 0, False)
    elif isinstance(axis, tuple):
        axes = axes_of(ctx, axis, a.ndim)
        given = tuple(axis_of(ctx, ax, a.ndim) for ax in axis)
        rest = [i for i in range(a.ndim) if i not in axes]
        t = transpose_to(ctx, a, list(given) + rest)
        merged = reshape_dims(ctx, t, [flatten_range(ctx, t, 0, len(axes))[0],
                                       shape_slice(ctx, t, len(axes), t.ndim)])
        res = norm(ctx, merged, ord, 0, False)
    else:
        axes = (axis_of(ctx, axis, a.ndim),)
        res = norm(ctx, a, ord, axes[0], False)
    if keepdims:
        res = unsqueeze(ctx, res, sorted(axes))
    return res


@register(np.vecdot, np.linalg.vecdot)
def vecdot(ctx, x1, x2, /, out=None, *, axis=-1, casting="same_kind", order="K", dtype=None,
           subok=True, signature=None, axes=None):
    """``np.vecdot(a, b, axis=-1)`` (also ``np.linalg.vecdot``): sum of products over
    ``axis``, the other axes broadcast; real dtypes."""
    if out is not None or signature is not None or axes is not None or dtype is not None:
        raise ctx.error("np.vecdot supports only the axis= keyword here")
    try:
        ins, outs, _ = dtypes.ufunc_dtypes(np.vecdot, x1, x2)
    except TypeError as e:
        raise ctx.error(f"np.vecdot: {e}") from None
    a = ctx.cast(to_array(ctx, x1), ins[0])
    b = ctx.cast(to_array(ctx, x2), ins[1])
    if a.ndim == 0 or b.ndim == 0:
        raise ctx.error("vecdot: Input operand does not have enough dimensions (a 0-d operand)")
    ax = ctx.static(axis, "axis")
    a = _move_last(ctx, a, axis_of(ctx, ax, a.ndim))
    b = _move_last(ctx, b, axis_of(ctx, ax, b.ndim))
    ka, kb = a.shape[-1], b.shape[-1]
    if ka is not None and kb is not None and ka != kb:
        raise ctx.error(f"vecdot: Input operand 1 has a mismatch in its core dimension 0 "
                        f"(size {kb} is different from {ka})")
    if ka is None or kb is None:
        # Mul would broadcast a length-1 axis against the other; numpy requires equal lengths:
        # the run fails otherwise (guarded Reshape of a to its own shape).
        same = ctx.op("Equal", shape_slice(ctx, a, a.ndim - 1, a.ndim),
                      shape_slice(ctx, b, b.ndim - 1, b.ndim))
        vec = guard(ctx, ctx.op("Squeeze", same, ints(ctx, [0])), shape_slice(ctx, a, 0, a.ndim))
        a = Array(ctx.op("Reshape", a, vec, allowzero=1), a.dtype, a.shape)
    dt = ins[0]
    run = _product_dtype(ctx, "MatMul", dt)
    try:
        shape = broadcast_shapes(a.shape[:-1], b.shape[:-1])
    except ValueError as e:
        raise ctx.error(f"vecdot: {e}") from None
    prod = Array(ctx.op("Mul", ctx.cast(a, run), ctx.cast(b, run)), run,
                 shape + ((ka if ka is not None else kb),))
    if run.kind in "iu":
        res = _sum_trailing(ctx, prod, prod.ndim - 1)
    else:
        res = Array(ctx.op("ReduceSum", prod, ints(ctx, [prod.ndim - 1]), keepdims=0), run,
                    prod.shape[:-1])
    return ctx.cast(_finish(ctx, res, dt), outs[0])


def _move_last(ctx, a: Array, axis: int) -> Array:
    return transpose_to(ctx, a, [i for i in range(a.ndim) if i != axis] + [axis])

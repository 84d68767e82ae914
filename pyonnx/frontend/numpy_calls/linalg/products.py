"""numpy products: matmul/@, dot, vdot, inner, outer, tensordot, vecdot, kron, cross.

Input: frontend values under numpy's parameter names. Output: Arrays with numpy's result dtype
and exact static rank. Sums of products run on onnxruntime's MatMul in a dtype it has a kernel
for, chosen so the result is numpy's (see the package docstring); 0-d operands of dot, inner
and outer multiply elementwise, as in numpy.

Supported syntax:

* ``np.matmul(a, b)``, ``a @ b``, ``np.linalg.matmul`` (1-D promotion, batch broadcasting;
  0-d operands are an error, as in numpy), ``dtype=``.
* ``np.dot(a, b)``, ``a.dot(b)`` (0-d: multiply; N-d: sum over a's last and b's second-to-last
  axis), ``np.inner``, ``np.outer`` (flattens), ``np.vdot`` (flattens),
  ``np.tensordot(a, b, axes=2)`` (int or a pair of int sequences), ``np.linalg.outer``,
  ``np.linalg.tensordot``.
* ``np.vecdot``/``np.linalg.vecdot`` (real dtypes, ``axis=``).
* ``np.kron(a, b)``; ``np.cross(a, b)`` and ``np.linalg.cross`` of 3-element vectors along the
  last axis (2-element vectors, deprecated in numpy 2, are refused).
"""

from __future__ import annotations

import operator

import numpy as np

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array, Dim
from pyonnx.frontend.numpy_calls.registry import lookup, register
from pyonnx.frontend.numpy_calls.linalg.common import (
    _finish, _matmul_raw, _multiply, _product_dtype, _result_dtype, _sum_trailing,
)
from pyonnx.frontend.numpy_calls.shape import (
    I64, axes_of, axis_of, flatten_range, fmt_shape, guard, ints, ravel_array, reshape_dims,
    reshape_vec, shape_slice, shape_vector, static_prod, strong, to_array, transpose_to,
    unsqueeze,
)


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
        a2 = reshape_vec(ctx, at, vec.value, (static_prod(at.shape[:nf]),
                                               static_prod(at.shape[nf:])))
    else:
        a2 = reshape_dims(ctx, at, vec_a)
    b2 = reshape_dims(ctx, bt, vec_b)
    r = _matmul_raw(ctx, a2, b2, dt)
    shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b)
    pieces = [shape_slice(ctx, at, 0, nf), shape_slice(ctx, bt, ns, bt.ndim)]
    return reshape_vec(ctx, r, shape_vector(ctx, pieces), shape)


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


@register(np.linalg.cross)
def linalg_cross(ctx, x1, x2, /, *, axis=-1):
    """``np.linalg.cross(a, b, axis=-1)`` of 3-element vectors."""
    return cross(ctx, x1, x2, axis=None if ctx.static(axis, "axis") == -1 else axis)

"""DFTs of a length that is not a power of two, as matrix products (the "four-step" FFT).

onnxruntime's CPU ``DFT`` is a radix-2 FFT for powers of two, but otherwise an O(n^2) sum
with a large cost per 1-D transform (measured, onnxruntime 1.32: 47 ms for 8 x 4158 float64
values, 17 ms for 4752 transforms of length 7; numpy 0.35 ms). For ``n = n1 * n2`` the
transform is ``n2`` DFTs of length ``n1``, a multiplication by the twiddle factors
``exp(-2 pi i k1 j2 / n)`` and ``n1`` DFTs of length ``n2``; each short DFT here is a product
with its DFT matrix (``MatMul``, whose kernels are fast): O(n (n1 + n2)) work.

Input: a packed real Array (trailing dimension 2, numpy's layout) whose ``axis`` has the static
length ``n``. Output: the packed forward DFT along ``axis``, of the same shape. Index maps:
``j = n2 j1 + j2`` in, ``k = k1 + n1 k2`` out. The matrices and twiddles are computed in
float64 from exact integer angles ``(j k) mod n``.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array

__all__ = ["split", "four_step"]

_MIN_LENGTH = 16   # shorter transforms stay one DFT node
_MAX_FACTOR = 2048  # a DFT matrix of at most 2048 x 2048


def split(n: int) -> tuple[int, int] | None:
    """``(n1, n2)`` with ``n1 * n2 = n`` (``n1`` the largest divisor up to sqrt(n), 1 for a
    prime), for a length that is not a power of two, at least 16, whose factors are at most
    2048; None otherwise (one DFT node)."""
    if n < _MIN_LENGTH or n & (n - 1) == 0:
        return None
    d = int(np.sqrt(n))
    while d > 1 and n % d:
        d -= 1
    return (d, n // d) if n // d <= _MAX_FACTOR else None


def _i64(ctx, values) -> object:
    return ctx.const(np.array(values, np.int64))


def _angles(rows: int, cols: int, n: int) -> np.ndarray:
    return -2.0 * np.pi * ((np.arange(rows)[:, None] * np.arange(cols)[None, :]) % n) / n


def _cmul_const(ctx, re, im, angle: np.ndarray, dtype, left: bool | None):
    """(re + i im) times exp(i angle): a matrix product from the left (``left``), from the
    right, or elementwise (None)."""
    cr, ci = ctx.const(np.cos(angle).astype(dtype)), ctx.const(np.sin(angle).astype(dtype))

    def times(c, x):
        if left is None:
            return ctx.op("Mul", x, c)
        return ctx.op("MatMul", c, x) if left else ctx.op("MatMul", x, c)
    return ctx.op("Sub", times(cr, re), times(ci, im)), ctx.op("Add", times(cr, im), times(ci, re))


def four_step(ctx, packed: Array, axis: int, n1: int, n2: int) -> Array:
    """The forward DFT of ``packed`` along ``axis`` (length ``n1 * n2``)."""
    n = n1 * n2
    rank = packed.ndim
    dt = packed.dtype
    perm = [i for i in range(rank - 1) if i != axis] + [axis, rank - 1]
    inverse = [perm.index(i) for i in range(rank)]
    moved = ctx.op("Transpose", packed, perm=perm)
    batch = ctx.op("Slice", ctx.op("Shape", moved), _i64(ctx, [0]), _i64(ctx, [rank - 2]))
    grid = ctx.op("Reshape", moved, _i64(ctx, [-1, n1, n2, 2]))
    re = ctx.op("Gather", grid, ctx.const(np.array(0, np.int64)), axis=-1)  # (B, n1, n2)
    im = ctx.op("Gather", grid, ctx.const(np.array(1, np.int64)), axis=-1)
    if n1 > 1:
        re, im = _cmul_const(ctx, re, im, _angles(n1, n1, n1), dt, left=True)  # over j1
        re, im = _cmul_const(ctx, re, im, _angles(n1, n2, n), dt, left=None)   # twiddles
    re, im = _cmul_const(ctx, re, im, _angles(n2, n2, n2), dt, left=False)     # over j2
    last = _i64(ctx, [-1])
    pair = ctx.op("Concat", ctx.op("Unsqueeze", re, last), ctx.op("Unsqueeze", im, last),
                  axis=-1)
    swapped = ctx.op("Transpose", pair, perm=[0, 2, 1, 3])  # (k2, k1): k = k1 + n1 k2
    flat = ctx.op("Reshape", swapped, ctx.op("Concat", batch, _i64(ctx, [n, 2]), axis=0))
    return Array(ctx.op("Transpose", flat, perm=inverse), dt, packed.shape)

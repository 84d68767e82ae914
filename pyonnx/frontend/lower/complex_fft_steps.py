"""Long DFTs of a length that is not a power of two, as two short ones (the "four-step" FFT).

onnxruntime's CPU ``DFT`` is a radix-2 FFT for powers of two but an O(n^2) sum otherwise
(measured, onnxruntime 1.32: 47 ms for 8 x 4158 float64 values, numpy 0.35 ms). For
``n = n1 * n2`` the transform is ``n2`` DFTs of length ``n1``, a multiplication by the twiddle
factors ``exp(-2 pi i k1 j2 / n)`` and ``n1`` DFTs of length ``n2``: O(n (n1 + n2)) work.

Input: a packed real Array (trailing dimension 2, numpy's layout) whose ``axis`` has the static
length ``n``; the one-DFT builder for the short transforms. Output: the packed forward DFT
along ``axis``, of the same shape. Index maps: ``j = n2 j1 + j2`` in, ``k = k1 + n1 k2`` out.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array

__all__ = ["split", "four_step"]

_MIN_LENGTH = 64  # shorter transforms stay one DFT node (fewer nodes, little work)


def split(n: int) -> tuple[int, int] | None:
    """``(n1, n2)`` with ``n1 * n2 = n``, ``n1`` the largest divisor up to sqrt(n), for a
    length worth splitting (not a power of two, at least 64, a divisor of at least 4)."""
    if n < _MIN_LENGTH or n & (n - 1) == 0:
        return None
    d = int(np.sqrt(n))
    while d >= 4:
        if n % d == 0:
            return d, n // d
        d -= 1
    return None


def _i64(ctx, values) -> object:
    return ctx.const(np.array(values, np.int64))


def _twiddle(ctx, a: Array, n1: int, n2: int, n: int) -> Array:
    """``a`` (shape (B, n1, n2, 2)) times exp(-2 pi i k1 j2 / n) elementwise."""
    k1j2 = (np.arange(n1)[:, None] * np.arange(n2)[None, :]) % n
    angle = -2.0 * np.pi * k1j2 / n
    rd = a.dtype
    tr = ctx.const(np.cos(angle).astype(rd))
    ti = ctx.const(np.sin(angle).astype(rd))
    ar = ctx.op("Gather", a, ctx.const(np.array(0, np.int64)), axis=-1)
    ai = ctx.op("Gather", a, ctx.const(np.array(1, np.int64)), axis=-1)
    re = ctx.op("Sub", ctx.op("Mul", ar, tr), ctx.op("Mul", ai, ti))
    im = ctx.op("Add", ctx.op("Mul", ar, ti), ctx.op("Mul", ai, tr))
    last = _i64(ctx, [-1])
    out = ctx.op("Concat", ctx.op("Unsqueeze", re, last), ctx.op("Unsqueeze", im, last), axis=-1)
    return Array(out, rd, a.shape)


def four_step(ctx, packed: Array, axis: int, n1: int, n2: int, dft) -> Array:
    """The forward DFT of ``packed`` along ``axis`` (length ``n1 * n2``) from ``dft(ctx,
    array, axis, length)`` calls of lengths ``n1`` and ``n2``."""
    n = n1 * n2
    rank = packed.ndim
    perm = [i for i in range(rank - 1) if i != axis] + [axis, rank - 1]
    inverse = [perm.index(i) for i in range(rank)]
    moved = ctx.op("Transpose", packed, perm=perm)
    batch = ctx.op("Slice", ctx.op("Shape", moved), _i64(ctx, [0]), _i64(ctx, [rank - 2]))
    grid = Array(ctx.op("Reshape", moved, _i64(ctx, [-1, n1, n2, 2])), packed.dtype,
                 (None, n1, n2, 2))
    step = dft(ctx, grid, 1, n1)                      # A[k1, j2]
    step = _twiddle(ctx, step, n1, n2, n)
    step = dft(ctx, step, 2, n2)                      # B[k1, k2]
    swapped = ctx.op("Transpose", step, perm=[0, 2, 1, 3])  # (k2, k1): k = k1 + n1 k2
    shape = ctx.op("Concat", batch, _i64(ctx, [n, 2]), axis=0)
    flat = ctx.op("Reshape", swapped, shape)
    out = ctx.op("Transpose", flat, perm=inverse)
    return Array(out, packed.dtype, packed.shape)

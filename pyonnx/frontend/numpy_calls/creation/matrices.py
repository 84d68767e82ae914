"""Matrices: ``np.eye``, ``np.identity``, ``np.tri``, ``np.tril``, ``np.triu``.

Input: sizes and the diagonal offset ``k`` as Python ints or integer 0-d Arrays (run-time sizes
give None dims), ``dtype`` static; for tril/triu an array of at least 1 dimension (1-D is
broadcast against the (n, n) mask, as numpy does). Output: an Array of numpy's dtype (float64 by
default for eye and tri, the input's for tril/triu).

Supported syntax::

    np.eye(N, M=None, k=0, dtype=float), np.identity(n, dtype=None)
    np.tri(N, M=None, k=0, dtype=float)
    np.tril(m, k=0), np.triu(m, k=0)
"""

from __future__ import annotations

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.creation.common import (
    _BOOL,
    _F64,
    _I64,
    _dtype,
    _i64,
    _refuse_order,
    _scalar_i64,
    _strong,
)


def _as_i64(ctx, v: ir.Value | int) -> ir.Value:
    return _i64(ctx, v) if isinstance(v, int) else v


def _grid(ctx, name: str, N, M, k) -> tuple[ir.Value, ir.Value, tuple, ir.Value | int]:
    """Row indices (N, 1) + k and column indices (1, M) as int64, for eye and tri."""
    n = _scalar_i64(ctx, name, N, "N")
    m = n if M is None else _scalar_i64(ctx, name, M, "M")
    k = _scalar_i64(ctx, name, k, "k")
    for v, what in ((n, "N"), (m, "M")):
        if isinstance(v, int) and v < 0:
            raise ctx.error(f"{name}: negative dimensions are not allowed ({what}={v})")
    rows = ctx.op("Range", _i64(ctx, 0), _as_i64(ctx, n), _i64(ctx, 1))
    cols = ctx.op("Range", _i64(ctx, 0), _as_i64(ctx, m), _i64(ctx, 1))
    rows = ctx.op("Add", ctx.op("Unsqueeze", rows, _i64(ctx, [1])), _as_i64(ctx, k))
    cols = ctx.op("Unsqueeze", cols, _i64(ctx, [0]))
    dims = (n if isinstance(n, int) else None, m if isinstance(m, int) else None)
    return rows, cols, dims, k


@register(np.eye)
def eye(ctx, N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    _refuse_order(ctx, "np.eye", order, like)
    dt = _dtype(ctx, "np.eye", dtype, _F64)
    rows, cols, dims, _ = _grid(ctx, "np.eye", N, M, k)
    return ctx.cast(Array(ctx.op("Equal", rows, cols), _BOOL, dims), dt)


@register(np.identity)
def identity(ctx, n, dtype=None, *, like=None):
    return eye(ctx, n, dtype=dtype if dtype is not None else float, like=like)


@register(np.tri)
def tri(ctx, N, M=None, k=0, dtype=float, *, like=None):
    dt = _dtype(ctx, "np.tri", dtype, _F64)
    rows, cols, dims, _ = _grid(ctx, "np.tri", N, M, k)
    return ctx.cast(Array(ctx.op("GreaterOrEqual", rows, cols), _BOOL, dims), dt)


def _trilu(ctx, name: str, m, k, upper: int) -> Array:
    x = _strong(ctx.asarray(m))
    if x.ndim == 0:
        raise ctx.error(f"{name} needs an array of at least 1 dimension")
    kk = _scalar_i64(ctx, name, k, "k")
    if x.ndim == 1:
        # numpy broadcasts a 1-D input against the (n, n) mask.
        shp = ctx.shape_of(x)
        x = Array(ctx.op("Expand", x, ctx.op("Concat", shp, shp, axis=0)), x.dtype,
                  (x.shape[0], x.shape[0]))
    run = kernels.compute_dtype("Trilu", x.dtype)
    if run is None:
        # uint64: the int64 cast wraps both ways, and Trilu only moves values.
        run = _I64
    xc = ctx.cast(x, run)
    out = Array(ctx.op("Trilu", xc, _as_i64(ctx, kk), upper=upper), run, x.shape)
    return ctx.cast(out, x.dtype)


@register(np.tril)
def tril(ctx, m, k=0):
    return _trilu(ctx, "np.tril", m, k, 0)


@register(np.triu)
def triu(ctx, m, k=0):
    return _trilu(ctx, "np.triu", m, k, 1)

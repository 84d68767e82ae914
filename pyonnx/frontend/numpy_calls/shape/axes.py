"""numpy axis permutations: transpose, permute_dims, matrix_transpose, swapaxes, moveaxis,
rollaxis.

Input: an array and static axes (checked by numpy itself on a stand-in array, so errors carry
numpy's messages). Output: one ``Transpose`` of the array (the array itself for the identity
permutation).

Supported syntax:

* ``np.transpose(x, axes=None)``, ``x.transpose(1, 0)``/``x.transpose((1, 0))``,
  ``np.permute_dims``, ``np.matrix_transpose`` (also ``x.mT``), ``np.swapaxes``/``x.swapaxes``,
  ``np.moveaxis`` (int or tuple axes), ``np.rollaxis``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.shape.common import axes_of, axis_of, to_array, transpose_to


def _numpy_check(ctx, fn, *args, **kwargs) -> Any:
    """Runs numpy on stand-in arrays to reproduce its argument checks and messages."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, TypeError, IndexError) as e:
        raise ctx.error(f"{type(e).__name__}: {e}") from None


def _dummy(ndim: int) -> np.ndarray:
    return np.empty((0,) * ndim, dtype=np.int8)


# ---------------------------------------------------------------------------- transposes
def _transpose(ctx, a: Any, axes: Any) -> Array:
    a = to_array(ctx, a)
    axes = ctx.static(axes, "axes")
    if axes is None:
        return transpose_to(ctx, a, list(reversed(range(a.ndim))))
    if not isinstance(axes, (tuple, list)):
        axes = (axes,)
    _numpy_check(ctx, np.transpose, _dummy(a.ndim), axes)
    norm = [operator.index(p) % a.ndim for p in axes] if a.ndim else []
    return transpose_to(ctx, a, norm)


@register(np.transpose, np.permute_dims)
def transpose(ctx, a, axes=None):
    """``np.transpose(x, axes=None)``, ``np.permute_dims``."""
    return _transpose(ctx, a, axes)


@register(methods=("transpose",))
def transpose_method(ctx, a, *axes):
    """``x.transpose()``, ``x.transpose(1, 0)``, ``x.transpose((1, 0))``."""
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    elif not axes:
        axes = None
    return _transpose(ctx, a, axes)


def _matrix_transpose(ctx, x) -> Array:
    x = to_array(ctx, x)
    if x.ndim < 2:
        raise ctx.error("matrix transpose with ndim < 2 is undefined")
    perm = list(range(x.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return transpose_to(ctx, x, perm)


@register(np.matrix_transpose, np.linalg.matrix_transpose)
def matrix_transpose(ctx, x, /):
    """``np.matrix_transpose(x)`` (also ``x.mT``): swaps the last two axes."""
    return _matrix_transpose(ctx, x)


@register(np.swapaxes, methods=("swapaxes",))
def swapaxes(ctx, a, axis1, axis2):
    """``np.swapaxes(x, axis1, axis2)``, ``x.swapaxes(axis1, axis2)``."""
    a = to_array(ctx, a)
    i = axis_of(ctx, axis1, a.ndim, "axis1")
    j = axis_of(ctx, axis2, a.ndim, "axis2")
    perm = list(range(a.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return transpose_to(ctx, a, perm)


@register(np.moveaxis)
def moveaxis(ctx, a, source, destination):
    """``np.moveaxis(x, source, destination)`` (ints or sequences of ints)."""
    a = to_array(ctx, a)
    src = ctx.static(source, "source")
    dst = ctx.static(destination, "destination")
    _numpy_check(ctx, np.moveaxis, _dummy(a.ndim), src, dst)
    src = axes_of(ctx, src, a.ndim, "source")
    dst = axes_of(ctx, dst, a.ndim, "destination")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose_to(ctx, a, order)


@register(np.rollaxis)
def rollaxis(ctx, a, axis, start=0):
    """``np.rollaxis(x, axis, start=0)``."""
    a = to_array(ctx, a)
    n = a.ndim
    axis = axis_of(ctx, axis, n)
    start = operator.index(ctx.static(start, "start"))
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise ctx.error(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return transpose_to(ctx, a, order)

"""numpy's set routines built on ``np.unique``: union1d, intersect1d, setdiff1d, setxor1d.

Input: two arrays (any shapes: numpy flattens them). Output: a sorted 1-D Array of run-time
length in numpy's promoted dtype.

Each is numpy's ``_arraysetops_impl`` code, step by step through the registered lowerings of
``unique``, ``concatenate``, ``sort``, ``isin`` and boolean indexing, so NaNs behave as
numpy's (``unique`` merges them; the equality tests never match them).

Supported syntax:

* ``np.union1d(ar1, ar2)``.
* ``np.intersect1d(ar1, ar2, assume_unique=False)``.
* ``np.setdiff1d(ar1, ar2, assume_unique=False)``.
* ``np.setxor1d(ar1, ar2, assume_unique=False)``.

Not supported: ``intersect1d(..., return_indices=True)`` (numpy takes the indices from a
mergesort of the concatenation; refused rather than reproduced).
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.registry import register
from pyonnx.frontend.numpy_calls.science.compose import Np
from pyonnx.frontend.numpy_calls.shape import to_array


def _flag(ctx, value, what: str) -> bool:
    return bool(ctx.static(value, what))


@register(np.union1d)
def union1d(ctx, ar1, ar2):
    """``np.union1d(ar1, ar2)``: ``unique(concatenate((ar1, ar2), axis=None))``."""
    N = Np(ctx)
    return N.unique(N.concatenate((to_array(ctx, ar1), to_array(ctx, ar2)), axis=None))


@register(np.intersect1d)
def intersect1d(ctx, ar1, ar2, assume_unique=False, return_indices=False):
    """``np.intersect1d(ar1, ar2, assume_unique=False)``."""
    N = Np(ctx)
    if _flag(ctx, return_indices, "return_indices"):
        raise ctx.error("np.intersect1d(..., return_indices=True) is not supported; use "
                        "np.isin to find the positions")
    a, b = to_array(ctx, ar1), to_array(ctx, ar2)
    if _flag(ctx, assume_unique, "assume_unique"):
        a, b = N.ravel(a), N.ravel(b)
    else:
        a, b = N.unique(a), N.unique(b)
    aux = N.sort(N.concatenate((a, b)))
    mask = N.equal(N.getitem(aux, slice(1, None)), N.getitem(aux, slice(None, -1)))
    return N.getitem(N.getitem(aux, slice(None, -1)), mask)


@register(np.setdiff1d)
def setdiff1d(ctx, ar1, ar2, assume_unique=False):
    """``np.setdiff1d(ar1, ar2, assume_unique=False)``."""
    N = Np(ctx)
    a, b = to_array(ctx, ar1), to_array(ctx, ar2)
    if _flag(ctx, assume_unique, "assume_unique"):
        a = N.ravel(a)
    else:
        a, b = N.unique(a), N.unique(b)
    return N.getitem(a, N.isin(a, b, assume_unique=True, invert=True))


@register(np.setxor1d)
def setxor1d(ctx, ar1, ar2, assume_unique=False):
    """``np.setxor1d(ar1, ar2, assume_unique=False)``."""
    N = Np(ctx)
    a, b = to_array(ctx, ar1), to_array(ctx, ar2)
    if not _flag(ctx, assume_unique, "assume_unique"):
        a, b = N.unique(a), N.unique(b)
    aux = N.sort(N.concatenate((a, b), axis=None))
    differs = N.not_equal(N.getitem(aux, slice(1, None)), N.getitem(aux, slice(None, -1)))
    # numpy: flag = [True, aux[1:] != aux[:-1], True]; aux[flag[1:] & flag[:-1]] (and aux
    # itself when empty): both halves cut to len(aux), which also covers the empty case.
    true = ctx.const_array(np.ones(1, bool))
    length = ctx.op("Shape", aux)
    zero = ctx.const(np.zeros(1, np.int64))
    left = ctx.op("Slice", N.concatenate((true, differs)), zero, length)
    right = ctx.op("Slice", N.concatenate((differs, true)), zero, length)
    keep = ctx.op("And", left, right)
    return Array(ctx.op("Compress", aux, keep, axis=0), aux.dtype, (None,))

"""The index of the first maximum (minimum) along one axis, as onnxruntime runs it fastest.

Input: an Array ``x`` already in the dtype the comparison runs in (``ArgMax``'s operand), the
axis ``k``, ``keepdims`` (0/1) and whether the maximum is wanted. Output: the int64 index of
the first extreme along ``k`` (numpy's ``argmax``/``argmin`` rule for inputs without NaN: NaN
is the caller's, ``extrema._arg``), as ``ArgMax``/``ArgMin`` give it.

Along the last axis of an array of two or more dimensions, for float32, float64, int32 and
int64, this is ``TopK`` with ``k = 1``: ONNX orders equal elements by index (the lower first),
and onnxruntime's kernel does (checked against numpy on rows of repeated values, ±0, ±inf and
full-range integers, 1 to 100,003 elements, one and two threads). onnxruntime's ``ArgMax``
runs row by row there (float32, one thread, µs, ArgMax / TopK: (17, 3072) 49 / 38, (32, 1000)
31 / 27, (200, 500) 86 / 75, (1000, 1000) 813 / 643; short rows lose a little: (1000, 10)
11 / 14). A 1-d array (and a flattened ``argmax``) keeps ``ArgMax``, which is fast on one row
(100,000 elements: 20 against 63 µs), as do other axes (mixed) and other dtypes (``TopK`` has
no kernel for them). Both fail at run time on an empty axis, as numpy raises.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph.values import Array

__all__ = ["first_extreme_index"]

_TOPK = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64))
_I64 = np.dtype(np.int64)


def first_extreme_index(ctx, x: Array, k: int, keep: int, is_max: bool, shape,
                        raises: str) -> Array:
    """The first index of ``x``'s maximum (minimum) along ``k`` (module docstring); ``raises``
    is the ``pyonnx.raises`` text of the node that fails on an empty axis."""
    if x.dtype not in _TOPK or x.ndim < 2 or k != x.ndim - 1:
        idx = ctx.op("ArgMax" if is_max else "ArgMin", x, axis=k, keepdims=keep)
        idx.producer().metadata_props["pyonnx.raises"] = raises
        return Array(idx, _I64, shape)
    _, idx = ctx.op("TopK", x, ctx.const(np.array([1], np.int64)), axis=k,
                    largest=int(is_max), sorted=1, outputs=2)
    idx.producer().metadata_props["pyonnx.raises"] = raises
    if not keep:
        idx = ctx.op("Squeeze", idx, ctx.const(np.array([k], np.int64)))
    return Array(idx, _I64, shape)

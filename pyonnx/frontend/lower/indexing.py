"""Indexing reads ``x[index]`` (registry of index forms). Minimal: ints and static slices."""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.lower.values import Array

__all__ = ["getitem"]


def getitem(ctx, x: Array, index: Any) -> Array:
    if not isinstance(index, tuple):
        index = (index,)
    out = x
    axis = 0
    for item in index:
        if isinstance(item, int):
            idx = ctx.const(np.array(item, np.int64))
            out = Array(ctx.op("Gather", out, idx, axis=axis), out.dtype,
                        out.shape[:axis] + out.shape[axis + 1:])
        elif isinstance(item, slice) and all(isinstance(v, (int, type(None)))
                                              for v in (item.start, item.stop, item.step)):
            step = 1 if item.step is None else item.step
            big = np.iinfo(np.int64).max
            start = item.start if item.start is not None else (0 if step > 0 else -1)
            stop = item.stop if item.stop is not None else (big if step > 0 else -big)
            c = lambda v: ctx.const(np.array([v], np.int64))  # noqa: E731
            v = ctx.op("Slice", out, c(start), c(stop), c(axis), c(step))
            out = Array(v, out.dtype, out.shape[:axis] + (None,) + out.shape[axis + 1:])
            axis += 1
        else:
            raise ctx.error(f"index {item!r} is not supported yet")
    return out

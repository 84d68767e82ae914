"""A subscript → :class:`IndexPlan`: classified items covering every axis, checked statically.

Input: the indexed Array and the evaluated subscript. Output: the items (Ellipsis expanded into
``:``, trailing ``:`` added, each item knowing the first axis it consumes), whether numpy uses
advanced indexing, and where numpy puts the advanced result dimensions. Everything numpy would
refuse and that is known at conversion time (too many indices, two Ellipses, an integer out of
bounds of a known length, a mask whose known shape differs) is a ConversionError with numpy's
message.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from pyonnx.frontend.graph.indexing.forms import (ADVANCED, ARRAY, BOOL0, ELLIPSIS, INT, MASK,
                                                  NEWAXIS, SLICE, Item, classify)
from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array

__all__ = ["IndexPlan", "plan"]


@dataclasses.dataclass
class IndexPlan:
    """How numpy reads one subscript of one array.

    Attributes:
        items: the classified elements, Ellipsis replaced by ``:``s and ``:`` appended for the
            axes not indexed, so that every axis of the array is consumed by exactly one item.
        advanced: numpy uses advanced indexing (an index array, a mask or a 0-d boolean).
        adjacent: the advanced items (with the integers, which then count as advanced) are
            consecutive, so their result dimensions stay in place; otherwise they go first.
    """

    items: list[Item]
    advanced: bool
    adjacent: bool

    def out_position(self, upto: int) -> int:
        """Number of dimensions the basic stage keeps for ``items[:upto]``."""
        n = 0
        for it in self.items[:upto]:
            n += _kept_dims(it)
        return n

    @property
    def advanced_position(self) -> int:
        """Where the advanced result dimensions start in the result (numpy's placement)."""
        if not self.adjacent:
            return 0
        first = next(i for i, it in enumerate(self.items) if _is_advanced(it, True))
        return self.out_position(first)


def _kept_dims(it: Item) -> int:
    """Dimensions an item leaves after the basic stage (slices, new axes, arrays kept whole)."""
    if it.kind == INT:
        return 0
    if it.kind in (NEWAXIS, BOOL0):
        return 1
    return it.consumes


def _is_advanced(it: Item, advanced: bool) -> bool:
    return it.kind in ADVANCED or (advanced and it.kind == INT)


def plan(ctx, x: Array, index: Any) -> IndexPlan:
    """Classifies and checks the subscript ``index`` of ``x`` (see the module docstring).

    Raises:
        ConversionError: numpy raises for this subscript, and that is known at conversion time.
    """
    elements = index if isinstance(index, tuple) else (index,)
    items = [classify(ctx, e) for e in elements]
    n_ellipsis = sum(it.kind == ELLIPSIS for it in items)
    if n_ellipsis > 1:
        raise ctx.error("an index can only have a single ellipsis ('...') (numpy raises "
                        "IndexError)")
    consumed = sum(it.consumes for it in items)
    if consumed > x.ndim:
        raise ctx.error(f"too many indices for array: array is {x.ndim}-dimensional, but "
                        f"{consumed} were indexed (numpy raises IndexError)")
    advanced = any(it.kind in ADVANCED for it in items)
    # Adjacency is judged on the subscript as written: an Ellipsis separates even when it
    # stands for no axis (x[:, 0, ..., [1]] puts the advanced dimension first).
    positions = [i for i, it in enumerate(items) if _is_advanced(it, advanced)]
    adjacent = not positions or positions[-1] - positions[0] + 1 == len(positions)
    fill = [Item(SLICE, slice(None), 1) for _ in range(x.ndim - consumed)]
    if n_ellipsis:
        at = next(i for i, it in enumerate(items) if it.kind == ELLIPSIS)
        items = items[:at] + fill + items[at + 1:]
    else:
        items = items + fill
    axis = 0
    for it in items:
        it.axis = axis
        axis += it.consumes
    # numpy checks index arrays' bounds while reading; it reads nothing when several advanced
    # indices broadcast to an empty shape (x[[], [5]] is empty, x[[5]] raises).
    check_arrays = sum(it.kind in ADVANCED for it in items) < 2 or 0 not in _broadcast(items)
    for it in items:
        _check_static(ctx, x, it, check_arrays)
    return IndexPlan(items, advanced, adjacent)


def _broadcast(items: list[Item]) -> tuple:
    """The static broadcast shape of the advanced items (() when it is not known to exist)."""
    shapes = []
    for it in items:
        if it.kind == ARRAY:
            shapes.append(it.value.shape)
        elif it.kind == MASK:
            shapes.append((int(np.count_nonzero(it.value)),) if isinstance(it.value, np.ndarray)
                          else (None,))
        elif it.kind == BOOL0:
            shapes.append((int(it.value),) if isinstance(it.value, bool) else (None,))
    try:
        return broadcast_shapes(*shapes)
    except ValueError:
        return ()  # reported when the indices are stacked


def _check_static(ctx, x: Array, it: Item, check_arrays: bool) -> None:
    """numpy's IndexErrors that conversion time can already see; normalizes static ints."""
    if it.kind == INT and isinstance(it.value, int):
        d = x.shape[it.axis]
        v = it.value
        if not -2**63 <= v < 2**63:
            raise ctx.error(f"cannot fit 'int' into an index-sized integer: index {v} (numpy "
                            "raises IndexError)")
        if d is not None and not -d <= v < d:
            raise ctx.error(f"index {v} is out of bounds for axis {it.axis} with size {d} "
                            "(numpy raises IndexError)")
        if d is not None and v < 0:
            it.value = v + d
    elif it.kind == ARRAY and isinstance(it.value, np.ndarray) and check_arrays:
        d = x.shape[it.axis]
        v = it.value
        if d is not None and v.size:
            bad = v[(v < -d) | (v >= d)]
            if bad.size:
                raise ctx.error(f"index {bad.flat[0]} is out of bounds for axis {it.axis} with "
                                f"size {d} (numpy raises IndexError)")
    elif it.kind == MASK:
        for i, m in enumerate(it.value.shape):
            d = x.shape[it.axis + i]
            if m is not None and d is not None and m != d:
                raise ctx.error(
                    f"boolean index did not match indexed array along axis {it.axis + i}; size "
                    f"of axis is {d} but size of corresponding boolean axis is {m} (numpy raises "
                    "IndexError)")

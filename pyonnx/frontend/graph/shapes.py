"""Static shape arithmetic with unknown dimensions (None), following numpy's rules.

Input: static shapes (tuples of int or None). Output: static shapes, or a ValueError carrying
numpy's message when the known dimensions cannot broadcast.
"""

from __future__ import annotations

import functools

import numpy as np

from pyonnx.frontend.graph.values import Dim

__all__ = ["BroadcastError", "broadcast_shapes", "normalize_axis", "normalize_axes", "single_axis"]


class BroadcastError(ValueError):
    """Shapes known at conversion time that numpy cannot broadcast (numpy raises ValueError
    there): numpy calls that meet it unhandled are refused at the line (lower/calls.py)."""


def broadcast_shapes(*shapes: tuple[Dim, ...]) -> tuple[Dim, ...]:
    """numpy broadcasting of static shapes (see :func:`_broadcast`); any sequences accepted."""
    return _broadcast(*(s if type(s) is tuple else tuple(s) for s in shapes))


@functools.lru_cache(maxsize=4096)  # shapes are tuples of int/None: hashable, few distinct
def _broadcast(*shapes: tuple[Dim, ...]) -> tuple[Dim, ...]:
    """numpy broadcasting of shapes whose dimensions may be unknown.

    A dimension is known in the result when some operand has it > 1 (any other operand then
    must be 1, unknown or equal), or when every operand knows it.

    Raises:
        ValueError: two known dimensions > 1 differ.
    """
    first = shapes[0] if shapes else ()
    if all(s == first for s in shapes):
        # The common case: operands of one static shape (unknown dims stay unknown: equal
        # shapes broadcast to themselves whatever the run-time sizes).
        return first
    ndim = max((len(s) for s in shapes), default=0)
    out: list[Dim] = []
    for i in range(-ndim, 0):
        dims = [s[i] for s in shapes if len(s) >= -i]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise BroadcastError("operands could not be broadcast together with shapes "
                             + " ".join(str(tuple('?' if d is None else d for d in s))
                                        for s in shapes))
        if known:
            out.append(known.pop())
        elif all(d == 1 for d in dims):
            out.append(1)
        else:
            out.append(None)
    return tuple(out)


def normalize_axis(axis: int, ndim: int) -> int:
    """``axis`` in ``[0, ndim)``; raises numpy's AxisError message as ValueError."""
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise ValueError(f"axis must be an integer, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def normalize_axes(axis: None | int | tuple[int, ...] | list[int], ndim: int) -> tuple[int, ...]:
    """Sorted, normalized axes; None means all. Raises ValueError on repeats or bad values."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis(a, ndim) for a in axis)
    else:
        axes = (normalize_axis(axis, ndim),)
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    return tuple(sorted(axes))


def single_axis(ctx, name: str, x, axis) -> int:
    """A single static axis of ``x`` (numpy's ``normalize_axis_index``), or a ConversionError
    naming ``name``. (The reductions' ``_axis1``; here so that lowering uses it too.)"""
    axis = ctx.static(axis, "axis")
    if isinstance(axis, np.integer):
        axis = int(axis)
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise ctx.error(f"{name}: axis must be an int or None, not {axis!r}")
    try:
        return normalize_axis(axis, x.ndim)
    except ValueError as e:
        raise ctx.error(f"{name}: {e}") from None

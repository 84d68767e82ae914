"""Conversion-time numpy arrays that share memory, written through one of them.

Input: a numpy array known at conversion time that the function writes into (``t = np.ones(3)``
made from static shapes) while other conversion-time arrays the function holds view the same
memory in ways the view model does not follow (``np.atleast_2d(t)``, ``t.ravel()``,
``np.split(t, 2)``, ``t[...]`` made before ``t`` was a graph value). Output: one buffer (the
memory of their common base, in memory order, as a 1-D graph constant) and each of those
arrays as a :class:`FlatIndex` view of it: the element positions numpy's strides give, known
exactly at conversion time. A write through any of them reaches the others as in numpy
(alias_writes re-derives every view of the buffer).

Refused (None: the caller keeps its ConversionError) where the arrays do not share one
contiguous base of a bool, integer or float dtype, differ in dtype (``x.view(np.int32)``),
or one is read-only or repeats an
element (``np.broadcast_to(t, ...)``: numpy refuses a write through it, a model would not).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.aliases import Buffer, Step

__all__ = ["FlatIndex", "group_views", "group_positions"]


@dataclasses.dataclass(eq=False)
class FlatIndex(Step):
    """The elements at ``positions`` (int64, the view's shape) of a 1-D base."""

    positions: np.ndarray

    def forward(self, ctx, base: Array) -> Array:
        index = ctx.const(self.positions)
        return Array(ctx.op("Gather", base, index, axis=0), base.dtype, self.positions.shape)

    def backward(self, ctx, base: Array, view: Array) -> Array:
        index = ctx.const(self.positions[..., None])
        values = view
        if tuple(view.shape) != self.positions.shape:  # (a 0-d or broadcast new value)
            values = Array(ctx.op("Expand", view, ctx.const(
                np.array(self.positions.shape, np.int64))), view.dtype, self.positions.shape)
        return Array(ctx.op("ScatterND", base, index, values), base.dtype, base.shape)


def _root(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _positions(a: np.ndarray, root: np.ndarray) -> np.ndarray | None:
    """The memory-order positions (in items of ``root``'s buffer) of ``a``'s elements."""
    size = root.dtype.itemsize
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if offset % size or any(s % size for s in a.strides):
        return None
    pos = np.full(a.shape, offset // size, np.int64)
    for k, (n, s) in enumerate(zip(a.shape, a.strides)):
        shape = [1] * a.ndim
        shape[k] = n
        pos = pos + (np.arange(n, dtype=np.int64) * (s // size)).reshape(shape)
    if pos.size and (pos.min() < 0 or pos.max() >= root.size):
        return None
    return pos


def group_positions(target: np.ndarray, held: list) -> tuple | None:
    """``(memory, {id(array): (array, positions)})`` for ``target`` and every array of
    ``held`` sharing its base's memory: the base's memory in memory order (1-D) and each
    array's element positions in it; None where they do not share one contiguous base of
    one dtype, or one is read-only or repeats an element."""
    root = _root(target)
    if not (root.flags.c_contiguous or root.flags.f_contiguous) or root.dtype != target.dtype:
        return None
    group: dict[int, np.ndarray] = {id(target): target}
    for w in held:
        if id(w) not in group and (w is root or np.may_share_memory(w, root)):
            if _root(w) is not root or w.dtype != root.dtype:
                return None
            group[id(w)] = w
    out = {}
    for key, w in group.items():
        pos = _positions(w, root)
        if pos is None or not w.flags.writeable or len(np.unique(pos)) != pos.size:
            return None
        out[key] = (w, pos)
    return np.ravel(root, order="K"), out  # (a contiguous base: its memory order)


def group_views(ctx, target: np.ndarray, held: list) -> dict[int, Array] | None:
    """``id(array)`` → its graph value for ``target`` and every array of ``held`` sharing its
    base's memory, as views of one new buffer; None where that cannot be done (see the module
    docstring)."""
    if target.dtype.kind not in "biuf":
        return None  # (a complex constant is two part buffers: complex_materialize)
    grouped = group_positions(target, held)
    if grouped is None:
        return None
    memory, group = grouped
    positions = {key: pos for key, (_, pos) in group.items()}
    initial = ctx.asarray(memory)
    initial = Array(initial.value, initial.dtype, initial.shape)
    state = ctx.aliases
    buffer = Buffer(initial)
    state.memory[buffer] = initial
    state.register(initial, buffer, ())
    out = {}
    for key, pos in positions.items():
        step = FlatIndex(pos)
        view = step.forward(ctx, initial)
        state.register(view, buffer, (step,))
        if view.ndim == 0:
            from pyonnx.frontend.graph.scalar_kinds import mark_array0d
            mark_array0d(ctx, view)
        out[key] = view
    return out

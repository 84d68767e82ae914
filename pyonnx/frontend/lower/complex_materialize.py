"""A complex array made at conversion time, written through one of several names that hold it.

``a = np.zeros(3, complex); b = a; b += z`` or ``v = a[1:]; v[0] = 1j``: numpy changes every
array that shares the memory. The conversion-time arrays that share it (the same object under
several names, or views numpy made of it: ``a[1:]``, ``a.T``, ``a.reshape(...)``) become one
followed complex value of two part buffers (the memory of their common base, in memory order),
each array a :class:`~pyonnx.frontend.lower.const_views.FlatIndex` view of it at the positions
numpy's strides give; every name, list, tuple and dict item holding one of them is rebound to
its view. The write then goes through the complex memory model (complex_aliases.write), which
re-derives every view, as for any complex array computed in the graph.

Input: the conversion-time complex ndarray being written, during lowering.
Output: its followed Complex, or None where the arrays cannot be grouped (a base that is not
contiguous, a read-only or broadcast view, arrays of another dtype viewing the memory): the
caller keeps its refusal.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import complex_kinds
from pyonnx.frontend.graph.complex_values import Complex, make
from pyonnx.frontend.lower import complex_aliases as CA
from pyonnx.frontend.lower.alias_writes import _numpy_arrays_in, _swap, refuse_outside
from pyonnx.frontend.lower.const_views import FlatIndex, group_positions

__all__ = ["materialize"]


def materialize(lowering, target: np.ndarray, loc_text: str) -> Complex | None:
    """The followed Complex of conversion-time complex ``target`` (see the module docstring);
    every holder of an array sharing its memory is rebound.

    Raises:
        ConversionError: ``target`` shares memory with a module-level or closure array (a
            write would change it for every later call).
    """
    ctx = lowering.ctx
    frames = ctx.frames
    refuse_outside(ctx, target, loc_text)
    held = [w for f in frames for v in f.env.locals.values() for w in _numpy_arrays_in(v)]
    grouped = group_positions(target, held)
    if grouped is None:
        return None
    memory, group = grouped
    base = CA.register(ctx, make(ctx, memory.real.copy(), memory.imag.copy(), target.dtype))
    views: dict[int, Complex] = {}
    for key, (w, pos) in group.items():
        step = FlatIndex(pos)
        out = Complex(step.forward(ctx, base.re), step.forward(ctx, base.im), target.dtype)
        out = CA.view(ctx, base, out, step)
        complex_kinds.mark(out, complex_kinds.static_kind(w))
        views[key] = out
    for f in frames:
        env = f.env.locals
        for name, value in list(env.items()):
            new = value
            for w in list(_numpy_arrays_in(value)):
                if id(w) in views:
                    new = _swap(new, w, views[id(w)])
            if new is not value:
                env[name] = new
    return views[id(target)]


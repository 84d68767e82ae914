"""Composing lowerings: numpy functions written as numpy's own Python source, step by step.

Input: the Lowering ``ctx``. Output: :class:`Np`, a facade whose attributes are the registered
lowerings of the numpy functions of the same name, bound to ``ctx`` (``N.subtract(x, m)``
lowers ``np.subtract(x, m)`` with numpy's promotion), plus ``N.getitem(x, index)`` for
``x[index]``. The science families follow numpy's Python implementations through it, so their
intermediate dtypes and roundings are those of the lowerings already tested against numpy.

Precondition: every family is loaded (true once a lowering runs: the package loads them all
before the first look-up).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.indexing import getitem
from pyonnx.frontend.graph.loops import counted_loop  # noqa: F401 (re-exported: moved to graph)
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls import registry

__all__ = ["Np"]


class Np:
    """``N.name(*args)`` lowers ``np.name(*args)`` through the registry (see module doc)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def __getattr__(self, name: str):
        target = getattr(np, name)
        entry = registry.lookup(target)
        if entry is None:  # a bug in a family, not a user mistake
            raise RuntimeError(f"pyonnx: numpy.{name} has no lowering to compose with")
        ctx = self.ctx
        return lambda *args, **kwargs: entry.fn(ctx, *args, **kwargs)

    def getitem(self, x: Any, index: Any) -> Array:
        """``x[index]`` with numpy's semantics."""
        return getitem(self.ctx, self.ctx.asarray(x), index)

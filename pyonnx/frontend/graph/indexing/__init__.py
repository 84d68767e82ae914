"""Indexing reads ``x[index]``: every numpy subscript form, lowered with numpy's exact result.

Input: the indexed Array and the evaluated subscript (a static int, a slice whose parts are
None, ints or 0-d integer Arrays, ``...``, None, a 0-d bool, a static list/array of ints or
bools, an integer or bool Array, lists mixing Arrays, or a tuple of those). Output: an Array
with numpy's value, dtype and shape (a 0-d Array where numpy returns a scalar).

Four stages; the first and last are registries whose entries' docstrings list the syntax they
support:

* :mod:`.forms` classifies each subscript element (integers, slices, ``...``, None, 0-d
  booleans, integer arrays, boolean masks);
* :mod:`.plan` checks the subscript as numpy does and decides where advanced dimensions go;
* :mod:`.basic` emits at most one ``Slice`` (all slices, and integers when that is fewer nodes),
  one ``Squeeze`` or ``GatherND`` (static integers) or a ``Gather`` per integer, and one
  ``Unsqueeze`` (new axes);
* :mod:`.advanced` picks a strategy for the advanced items: one ``Gather`` (one index array),
  one ``Compress`` (one mask), or ``GatherND`` (several, broadcast together), then moves the
  result dimensions where numpy puts them.

numpy raises IndexError for out-of-bounds indices and mismatched masks: when conversion time
knows it, that is a ConversionError; otherwise the ONNX model fails at run time (Gather,
GatherND, Squeeze or a checking Reshape reports it) rather than return something else.
"""

from __future__ import annotations

from typing import Any

from pyonnx.frontend.graph.indexing.advanced import apply_advanced
from pyonnx.frontend.graph.indexing.basic import apply_basic
from pyonnx.frontend.graph.indexing.plan import IndexPlan, plan
from pyonnx.frontend.graph.values import Array

__all__ = ["getitem", "plan", "IndexPlan"]


def getitem(ctx, x: Array, index: Any) -> Array:
    """``x[index]`` with numpy's semantics.

    Args:
        ctx: the Lowering.
        x: the indexed array.
        index: the evaluated subscript (see the module docstring).

    Returns:
        The result Array (0-d where numpy returns a scalar).

    Raises:
        ConversionError: numpy raises for this subscript and conversion time knows it, or the
            subscript holds something numpy does not accept as an index.
    """
    if x.weak:
        if x.ndim == 0:
            raise ctx.error("a Python scalar is not subscriptable (Python raises TypeError); "
                            "use np.asarray(v) to index it as a 0-d array")
        # A weak array of rank >= 1 holds one Python number per element: a loop variable or
        # a Python accumulator of a vectorized loop (frontend/vectorize), which lays it out
        # with v[:, None]; its items stay Python numbers.
        out = getitem(ctx, Array(x.value, x.dtype, x.shape), index)
        return Array(out.value, out.dtype, out.shape, weak=True)
    p = plan(ctx, x, index)
    out = apply_basic(ctx, x, p)
    if p.advanced:
        out = apply_advanced(ctx, out, p)
    elif out is x:
        # x[...], x[:], x[()]: numpy returns a view; the value is x itself.
        return Array(x.value, x.dtype, x.shape)
    return out


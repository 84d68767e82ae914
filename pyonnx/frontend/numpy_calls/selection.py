"""Choosing among arrays by conditions: ``np.select``.

Input: a list or tuple (its length known at conversion time) of bool conditions and one of
choices, and the ``default`` value; Arrays or values ``np.asarray`` takes. Output: numpy's
result: its dtype is ``np.result_type`` of every choice and the default, Python ints and floats
weak (NEP 50, as numpy's select keeps them), anything else as ``np.asarray`` makes it; its shape the broadcast of the conditions and choices. The first true
condition wins: the choices are applied from the last to the first with ``np.where``, as
numpy's ``copyto(result, choice, where=cond)`` loop does.

Errors numpy raises: lists of different lengths, empty lists, a condition that is not bool.

Supported syntax::

    np.select(condlist, choicelist, default=0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array, Seq
from pyonnx.frontend.numpy_calls.registry import lookup, register

__all__: list[str] = []


def _as_array(ctx, v: Any) -> Array:
    """``np.asarray(v)``: strong (a Python number takes its default dtype)."""
    a = ctx.asarray(v)
    return Array(a.value, a.dtype, a.shape)


def _choice(ctx, v: Any) -> Array:
    """A choice as numpy's select keeps it: Python int/float weak (NEP 50), anything else
    ``np.asarray`` (a Python bool too: numpy tests ``type(v) in (int, float, complex)``)."""
    if type(v) in (int, float):
        return ctx.asarray(v)
    if isinstance(v, Array) and v.weak and v.dtype.kind != "b":
        return v
    return _as_array(ctx, v)


@register(np.select)
def select(ctx, condlist, choicelist, default=0):
    """``np.select(condlist, choicelist, default=0)``."""
    for what, v in (("condlist", condlist), ("choicelist", choicelist)):
        if isinstance(v, Seq):
            raise ctx.error(f"np.select: {what} must be a list whose length is known at "
                            "conversion time, not one built at run time")
        if not isinstance(v, (list, tuple)):
            raise ctx.error(f"np.select: {what} must be a list or tuple of arrays")
    if len(condlist) != len(choicelist):
        raise ctx.error("list of cases must be same length as list of conditions (numpy "
                        "raises ValueError)")
    if not condlist:
        raise ctx.error("select with an empty condition list is not possible (numpy raises "
                        "ValueError)")
    choices = [_choice(ctx, c) for c in choicelist]
    fallback = _choice(ctx, default)
    dtype = lookup(np.result_type).fn(ctx, *choices, fallback)
    conds = [_as_array(ctx, c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise ctx.error(f"invalid entry {i} in condlist: should be boolean ndarray (numpy "
                            "raises TypeError)")
    where = lookup(np.where).fn
    result = ctx.cast(fallback, dtype)
    for cond, choice in reversed(list(zip(conds, choices))):
        result = ctx.cast(where(ctx, cond, ctx.cast(choice, dtype), result), dtype)
    return Array(result.value, result.dtype, result.shape)

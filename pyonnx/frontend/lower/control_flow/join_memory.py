"""The memory of a name a run-time ``if`` binds to different memory on its two paths: a
choice buffer whose writes reach each candidate under its condition (:mod:`..choices`), or,
where that cannot be followed, AMBIGUOUS (writes refused, stale after a write to memory it may
view).

Input: the merged value, the If's condition and each path's alternative
(``choices.alternative``). Output: the registration, in ``ctx.aliases``.
"""

from __future__ import annotations

from typing import Any

import onnx_ir as ir

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import choices, memory_sharing

__all__ = ["choose", "mark_ambiguous", "each_alternative"]


def choose(ctx, value: Any, cond: ir.Value, alts: tuple | None,
            exported: dict[int, ir.Value] | None = None, sides: tuple = ()) -> None:
    """Registers a merged name that saw different memory on the two paths: a choice buffer
    when both paths are followed (``alts``; a Nested one's conditions are ``exported`` If
    outputs by id), else AMBIGUOUS (writes refused; stale after a write to memory one of
    ``sides``, the paths' values, may view; no ``sides``: a value only one path made, which
    later writes, run on the other path only, never reach)."""
    if alts is None or not isinstance(value, Array):
        mark_ambiguous(ctx, value, memory_sharing.candidates(ctx, *sides) if sides
                        else frozenset())
        return
    pairs = []
    for side, alt in enumerate(alts):
        if isinstance(alt, choices.Nested):
            pairs += [(exported[id(c)], a) for c, a in alt.alternatives]
        else:
            pairs.append((cond if side == 0 else ctx.op("Not", cond), alt))
    choices.make_choice(ctx, value, pairs)


def mark_ambiguous(ctx, value: Any, maybe: frozenset | None) -> None:
    """Writes through ``value`` are refused; a write to a buffer in ``maybe`` (the memory the
    paths' values may view; None: unknown) makes it stale."""
    if isinstance(value, Array):
        memory_sharing.mark_ambiguous(ctx, value, maybe)
    elif isinstance(value, (tuple, list, dict)):
        for v in (value.values() if type(value) is dict else value):
            mark_ambiguous(ctx, v, maybe)


def each_alternative(alts: Any):
    """(side, alternative) of a merged name's alternatives (a pair, choices.Leaves, None)."""
    if isinstance(alts, choices.Leaves):
        for _, pair, _ in alts.items:
            yield from enumerate(pair or ())
    else:
        yield from enumerate(alts or ())

"""Lists, tuples and dicts carried through a run-time loop whose array items share memory.

Input: a loop-carried name bound to a container (``d = {'u': a[1:]}`` before the loop, or
bound in the body to one whose items view an argument). Output: the items of the container
the loop's state rebuilds (in the body, and after the loop) registered as
:data:`~pyonnx.frontend.lower.aliases.AMBIGUOUS`: the state holds their values, not the memory
numpy's items see, so a write through one is refused at its line, and a write to memory they
may view makes them stale (reading them afterwards is refused), never silently lost.

(An array name carried with shared memory is followed exactly by ``loops`` and ``choices``;
an item of a container is not yet.)
"""

from __future__ import annotations

from typing import Any

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import aliases, memory_sharing

__all__ = ["sharing_containers", "mark_items"]


def sharing_containers(ctx, values: dict[str, Any], names: Any) -> dict[str, frozenset | None]:
    """The ``names`` bound in ``values`` (name → value) to a list, tuple or dict holding an
    array that shares memory, each with the buffers its items may view (None: unknown)."""
    found = {}
    for n in names:
        v = values.get(n)
        if not isinstance(v, (tuple, list, dict)):
            continue
        shared = [w for w in memory_sharing.arrays_in(v)
                  if memory_sharing.item_shares_memory(ctx, w, v, n, values)]
        if shared:
            known = all(ctx.aliases.lookup(w) is not None or id(w) in ctx.aliases.params
                        for w in shared)
            found[n] = memory_sharing.candidates(ctx, v) if known else None
    return found


def mark_items(ctx, value: Any, maybe: frozenset | None) -> None:
    """Registers every array item of the container ``value`` AMBIGUOUS (see the module
    docstring); ``maybe``: the buffers they may view."""
    if isinstance(value, Array):
        memory_sharing.mark_ambiguous(ctx, value, maybe)
    elif isinstance(value, (tuple, list, dict)):
        for v in (value.values() if type(value) is dict else value):
            mark_items(ctx, v, maybe)

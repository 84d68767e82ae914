"""Which names share memory: the questions a join, a loop or a write asks of the alias model.

Input: values during lowering (arrays, and lists, tuples and dicts of them) and the
environments that bind them, with the buffers of :mod:`aliases`. Output: whether a value shares
memory with anything else (:func:`shares_memory`, :func:`item_shares_memory`), the buffers a
value may view (:func:`candidates`), and the registration of a name whose memory run-time data
chose in a way that is not followed (:func:`mark_ambiguous`).
"""

from __future__ import annotations

from typing import Any

from pyonnx.frontend.graph import scalar_kinds
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.aliases import AMBIGUOUS, AliasState, Buffer

__all__ = ["shares_memory", "item_shares_memory", "same_memory", "arrays_in", "may_view",
           "candidates", "mark_ambiguous", "without_one"]


def may_view(buffer: Buffer, buffers: set[Buffer]) -> bool:
    """Whether an AMBIGUOUS name's buffer may view one of ``buffers``."""
    return buffer.maybe is None or not buffer.maybe.isdisjoint(buffers)


def candidates(ctx, *values: Any) -> frozenset | None:
    """The buffers that ``values`` may view (their own buffers, the candidates of memory
    chosen at run time, an AMBIGUOUS one's candidates), or None when that is not known (an
    array made where no name outside can be followed). Input of :func:`mark_ambiguous`."""
    state: AliasState = ctx.aliases
    found: set[Buffer] = set()
    for v in values:
        if isinstance(v, (tuple, list, dict)):
            inner = candidates(ctx, *(v.values() if type(v) is dict else v))
            if inner is None:
                return None
            found |= inner
            continue
        if not isinstance(v, Array):
            continue
        hit = state.lookup(v)
        if hit is None:
            if id(v) in state.params:
                found.add(state.buffer_of(v)[0])
            continue
        buffer = hit[0]
        if AMBIGUOUS in hit[1]:
            if buffer.maybe is None:
                return None
            found |= buffer.maybe
        found.add(buffer)
        found |= {alt[0] for _, alt in buffer.choice}
    return frozenset(found)


def mark_ambiguous(ctx, value: Array, maybe: frozenset | None) -> None:
    """Registers ``value`` as a name whose memory run-time data chose in a way pyonnx cannot
    follow: writes through it are refused, and a write to any buffer in ``maybe`` (any write,
    when None) makes it stale (reading it afterwards is refused), as numpy would show the new
    values through it on some paths."""
    buffer = Buffer(value)
    buffer.maybe = maybe
    ctx.aliases.register(value, buffer, (AMBIGUOUS,))



def shares_memory(ctx, value: Any, name: Any, env: dict | None = None) -> bool:
    """Whether ``value`` (bound to ``name``) shares its memory with something else: a view or
    a base with views, a function argument (the caller's memory), or an Array another name
    holds (in ``env``, or in any active frame)."""
    if isinstance(value, (tuple, list)):
        return any(shares_memory(ctx, v, name, env) for v in value)
    if type(value) is dict:
        return any(shares_memory(ctx, v, name, env) for v in value.values())
    if not isinstance(value, Array):
        return False
    state: AliasState = ctx.aliases
    shared, entry = _shared_memory_of(state, value)
    if shared:
        return True
    # (the same name in another frame is another variable: a helper's parameter 'out' bound
    # to the caller's 'out' shares its memory)
    current = ctx.frames[-1] if ctx.frames else None
    envs = ([(env, True)] if env is not None else []) + [
        (f.env.locals, f is current) for f in ctx.frames]
    for e, own in envs:
        for n, v in e.items():
            if v is value:
                if n != name or not own:
                    return True
            elif entry is not None and isinstance(v, Array):
                if same_memory(state, v, entry[0]):
                    return True
            elif isinstance(v, (tuple, list, dict)):
                # an item of a list, tuple or dict another name holds (``d = {"u": t}``,
                # ``L = [t]``): it sees a write to ``t`` as numpy does
                for w in arrays_in(v):
                    if w is value or entry is not None and same_memory(state, w, entry[0]):
                        return True
    return False


def _shared_memory_of(state: AliasState, value: Array) -> tuple[bool, Any]:
    """Whether ``value``'s memory is shared whoever else holds it (an argument, a view, memory
    marked shared or chosen at run time), with its alias entry (None: not tracked)."""
    if id(value) in state.params:
        return True, None
    entry = state.lookup(value)
    if entry is not None:
        buffer, steps = entry
        if steps or buffer.shared or buffer.param is not None or buffer.choice:
            return True, entry
    return False, entry


def item_shares_memory(ctx, item: Any, container: Any, name: Any,
                       env: dict | None = None) -> bool:
    """:func:`shares_memory` of ``item``, an array held in ``container`` (which ``name``
    binds): its place in the container is not another holder; another item of the container
    holding it or its memory is. A Python number or a numpy scalar shares nothing (a write
    rebinds it)."""
    if not isinstance(item, Array) or item.weak or \
            scalar_kinds.scalar_kind(ctx, item) == "scalar":
        return False
    state: AliasState = ctx.aliases
    shared, entry = _shared_memory_of(state, item)
    if shared:
        return True
    envs = ([env] if env is not None else []) + [f.env.locals for f in ctx.frames]
    for e in envs:
        for n, v in e.items():
            items = [v] if isinstance(v, Array) else list(arrays_in(v)) \
                if isinstance(v, (tuple, list, dict)) else []
            if n == name and v is container:
                items = without_one(items, item)  # its own place
            if any(w is item or entry is not None and same_memory(state, w, entry[0])
                   for w in items):
                return True
    return False


def same_memory(state: AliasState, other_value: Array, buffer: Buffer) -> bool:
    """Whether ``other_value`` is a view or the base of ``buffer``'s memory, a name whose memory
    run-time data chooses among candidates including it (choices.py), or an AMBIGUOUS value
    that may view it."""
    other = state.lookup(other_value)
    if other is None:
        return False
    return other[0] is buffer or any(alt[0] is buffer for _, alt in other[0].choice) or (
        AMBIGUOUS in other[1] and may_view(other[0], {buffer}))


def without_one(items: list, x: Any) -> list:
    """``items`` without its first element that is ``x`` (by identity: Arrays overload ==)."""
    for i, w in enumerate(items):
        if w is x:
            return items[:i] + items[i + 1:]
    return items


def arrays_in(v: Any, depth: int = 0):
    """The Arrays held in a (nested) tuple, list or dict."""
    items = v.values() if type(v) is dict else v
    for w in items:
        if isinstance(w, Array):
            yield w
        elif isinstance(w, (tuple, list, dict)) and depth < 8:
            yield from arrays_in(w, depth + 1)

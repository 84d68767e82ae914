"""Names whose memory depends on run-time data: ``y = a if c else b``, or ``y`` bound in a
run-time ``if`` to a view of ``x`` on one path and to a new array on the other.

Input: the merged value of such a name after the ``If`` (an If output), and per path the run-time
condition under which the path ran and the memory the name saw there (a buffer and the view
steps from it, or nothing: a private array). Output: a *choice buffer*, the name's own memory,
that carries those alternatives (:attr:`Buffer.choice`).

numpy's meaning, kept exactly with ``If`` nodes (never ``Where``: on the path not taken the
alternative's shapes may not fit, and an ``If`` runs only the taken branch):

* a write through the name (or a view of it) writes the memory the name saw on the path that
  ran: each alternative buffer ``X`` becomes ``If(cond, X with the new values written back
  through the steps, X)`` (:func:`propagate`, downwards);
* a write to an alternative buffer ``X`` shows through the name when its path ran: the choice
  buffer becomes ``If(cond, the steps applied to the new X, its old contents)`` (upwards).

Where an alternative cannot be followed (memory made inside the branch and seen by another
name, a view whose steps use values of the branch, an unmodelled view, a container of arrays),
the name stays :data:`~pyonnx.frontend.lower.aliases.AMBIGUOUS` and writes are refused.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import aliases, memory_sharing, view_calls

__all__ = ["alternative", "container_alternatives", "make_choice", "propagate", "PRIVATE",
           "Nested", "Leaves"]

# An alternative in which the name held an array of its own (a copy): nothing to update.
PRIVATE = object()


def alternative(ctx, value: Any, name: Any, env: dict | None, outer: set[int],
                shared: bool = False, made_here: bool = False, holder: Any = None) -> Any:
    """What ``value`` (bound to ``name`` at the end of one path) saw: :data:`PRIVATE`, a
    ``(buffer, steps)`` pair of memory visible before the branches, or None when that cannot
    be followed. ``shared``: the value is known to share memory (skips that test).
    ``made_here``: memory not visible before was made on the path (a branch of an ``if``;
    not a loop body, whose state inputs stand for memory seen outside). ``holder``: the list,
    tuple or dict bound to ``name`` that holds ``value`` (its place there is not another
    name)."""
    if not isinstance(value, Array):
        return None
    if not shared and not memory_sharing.shares_memory(ctx, value, name, env):
        return PRIVATE
    state: aliases.AliasState = ctx.aliases
    hit = state.lookup(value)
    if hit is None:
        if id(value) not in outer:
            return None  # a new array another name of the branch holds
        hit = state.buffer_of(value)
    buffer, steps = hit
    if aliases.AMBIGUOUS in steps or aliases.UNKNOWN in steps:
        return None
    outer_steps = {id(s) for aid in outer for s in _steps_of(state, aid)}

    def visible(b: aliases.Buffer, ss: tuple) -> bool:
        return (b in state.memory or id(b.initial) in outer or b.param is not None) and all(
            id(s) in outer_steps or _portable(s) for s in ss)

    if visible(buffer, steps):
        return buffer, steps
    if made_here and not buffer.choice and not any(isinstance(s, aliases.MaybeCopy)
                                                   for s in steps):
        # memory made in the branch: private when no other name sees it (y = a.copy()[:2])
        return None if _held_elsewhere(ctx, value, buffer, name, env, holder) else PRIVATE
    if not buffer.choice or not all(id(s) in outer_steps or _portable(s) for s in steps):
        return None  # memory made in the branch
    # A choice made in the branch (an inner if): its alternatives, under conditions of the
    # branch that the caller exports from the If.
    inner = []
    for cond, (x, s) in buffer.choice:
        if not visible(x, s):
            return None
        inner.append((cond, (x, s + steps)))
    return Nested(inner)


def _held_elsewhere(ctx, value: Array, buffer: aliases.Buffer, name: Any,
                    env: dict | None, holder: Any = None) -> bool:
    """Whether a name other than ``name`` (in ``env`` or any active frame, also as an item of
    a list, tuple or dict) holds ``value`` or an array of ``buffer``'s memory (a view, the
    base, a choice or AMBIGUOUS value that may see it). ``holder``: the container ``name``
    binds that holds ``value`` (its other items count)."""
    state: aliases.AliasState = ctx.aliases
    envs = ([env] if env is not None else []) + [f.env.locals for f in ctx.frames]
    for e in envs:
        for n, v in e.items():
            if n == name and v is value and e is env:
                continue
            items = [v] if isinstance(v, Array) else list(memory_sharing.arrays_in(v)) \
                if isinstance(v, (tuple, list, dict)) else []
            if n == name and holder is not None and v is holder:
                # its own place (twice in the container: counts once)
                items = memory_sharing.without_one(items, value)
            if any(w is value or memory_sharing.same_memory(state, w, buffer) for w in items):
                return True
    return False


class Nested:
    """The alternatives of a choice made inside a branch: (condition in the branch, (buffer,
    steps)) pairs; see :func:`alternative`."""

    def __init__(self, alternatives: list):
        self.alternatives = alternatives


class Leaves:
    """The alternatives of a container (tuple, list, dict) bound on the two paths to
    containers of one structure whose array items saw different memory (``d = {'u': a}`` on
    one path, ``{'u': a[::-1]}`` on the other): per item that shares memory on some path,
    ``(path of keys, (alternative on path 0, on path 1) or None when one cannot be followed,
    (the item on path 0, on path 1))``."""

    def __init__(self, items: list):
        self.items = items

    def resolve(self, merged: Any):
        """(the merged container's item, its alternatives or None, the paths' items) per
        item; items the merged container does not hold as an Array are skipped."""
        for path, alts, sides in self.items:
            leaf = merged
            for key in path:
                leaf = leaf[key]
            if isinstance(leaf, Array):
                yield leaf, alts, sides


def container_alternatives(ctx, a: Any, b: Any, name: Any, envs: tuple, outer: set[int]
                           ) -> Leaves | None:
    """:class:`Leaves` of the containers ``a`` and ``b`` (bound to ``name`` at the end of the
    two paths, whose environments are ``envs``), or None when their structures differ."""
    pairs: list = []
    if not _parallel(a, b, (), pairs):
        return None
    items = []
    for path, x, y in pairs:
        if not isinstance(x, Array) and not isinstance(y, Array):
            continue
        alts = tuple(_item_alternative(ctx, v, c, name, env, outer)
                     for v, c, env in ((x, a, envs[0]), (y, b, envs[1])))
        if all(alt is PRIVATE for alt in alts):
            continue  # a new array on both paths: memory of its own
        items.append((path, alts if None not in alts else None, (x, y)))
    return Leaves(items)


def _parallel(a: Any, b: Any, path: tuple, out: list, depth: int = 0) -> bool:
    """Appends (path, item of a, item of b) for the leaves of two containers; False when
    their structures differ."""
    if depth > 8:
        return False
    if type(a) is dict and type(b) is dict:
        if list(a) != list(b):
            return False
        return all(_parallel(a[k], b[k], path + (k,), out, depth + 1) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if type(a) is not type(b) or len(a) != len(b):
            return False
        return all(_parallel(x, y, path + (i,), out, depth + 1)
                   for i, (x, y) in enumerate(zip(a, b)))
    if isinstance(a, (tuple, list, dict)) or isinstance(b, (tuple, list, dict)):
        return False
    out.append((path, a, b))
    return True


def _item_alternative(ctx, value: Any, container: Any, name: Any, env: dict,
                      outer: set[int]) -> Any:
    """:func:`alternative` of an item of ``container`` (bound to ``name``): the container
    itself does not count as another holder of the item, another item of it does."""
    if not isinstance(value, Array):
        return PRIVATE  # a number: no memory to share
    if not memory_sharing.item_shares_memory(ctx, value, container, name, env):
        return PRIVATE
    return alternative(ctx, value, name, env, outer, shared=True, made_here=True,
                       holder=container)


def _steps_of(state, array_id: int) -> tuple:
    hit = state.registry.get(array_id)
    return hit[2] if hit is not None else ()


def _portable(step: Any) -> bool:
    """Whether a step made inside a branch uses only values visible after it."""
    from pyonnx.frontend.graph.values import is_static
    if isinstance(step, aliases.Transpose):
        return True
    if isinstance(step, aliases.GetItem):
        return is_static(step.index)
    if isinstance(step, view_calls.Recompute):
        return getattr(step.fn, "portable", False)
    if isinstance(step, aliases.Reshape):
        return getattr(step.shape_value, "const_value", None) is not None
    return False


def make_choice(ctx, value: Array, alternatives: list[tuple[ir.Value, Any]]) -> None:
    """Registers ``value`` (the merged name) as the base of a choice buffer whose
    ``alternatives`` are (condition, (buffer, steps)) pairs; PRIVATE ones are dropped."""
    state: aliases.AliasState = ctx.aliases
    buffer = aliases.Buffer(value)
    buffer.choice = tuple((c, alt) for c, alt in alternatives if alt is not PRIVATE)
    state.memory[buffer] = value
    state.register(value, buffer, ())
    state.choices.append(buffer)
    state.propagate = propagate  # alias_writes.write_with calls it after each write from now on


def propagate(lowering, written: aliases.Buffer) -> set[aliases.Buffer]:
    """After ``written``'s contents changed: updates every memory that shares elements with
    it under a run-time condition (see the module docstring); returns the buffers updated.

    Down: the write reaches the memory the name saw on the path that ran. A choice among
    choices (``t = a if c1 else a[::-1]``, then ``if c2: t = a[:]``) is followed to the memory
    under the conjunction of the conditions on the way: the inner choice's memory is not
    written through on its own (fuzz seeds 20006311, 20014119: the route through the inner
    choice was skipped once ``a`` had been updated by the other route, and the write was lost
    when ``c2`` was false). Up: every choice that saw updated memory, in the order they were
    made (a choice only sees memory made before it), is re-derived under its conditions."""
    ctx = lowering.ctx
    state: aliases.AliasState = ctx.aliases
    new = state.memory[written]
    touched: set[aliases.Buffer] = set()
    for cond, x, steps in _routes(ctx, written, None, (), 0):
        if x is written:
            continue
        old = state.memory.get(x, x.initial)
        state.memory[x] = _if(ctx, cond, lambda c, s=steps, o=old: _write_back(c, o, s, new),
                              old)
        state.register(state.memory[x], x, ())
        touched.add(x)
    done = touched | {written}
    for q in state.choices:  # up: names that saw updated memory on some path
        if q is written or q not in state.memory:
            continue
        for cond, (x, steps) in q.choice:
            if x in done and x is not q:
                old = state.memory[q]
                state.memory[q] = _if(ctx, cond, lambda c, b=state.memory[x], s=steps:
                                      _derive(c, b, s), old)
                state.register(state.memory[q], q, ())
                touched.add(q)
        if q in touched:
            done.add(q)
    return touched


def _routes(ctx, b: aliases.Buffer, cond: ir.Value | None, after: tuple, depth: int):
    """(condition, memory, steps from it) for each memory a write to the choice buffer ``b``
    reaches, under ``cond`` (None: always) with the steps ``after`` applied to ``b``; a choice
    on the way is written and followed to the memory it saw."""
    if depth > 16:
        raise ctx.error("names chosen at run time are nested too deeply for pyonnx to follow "
                        "a write through them; take .copy() before writing")
    for c, (x, steps) in b.choice:
        both = c if cond is None else ctx.op("And", cond, c)
        yield both, x, steps + after
        if x.choice and x in ctx.aliases.memory:
            # (x itself is written too: on its private paths, PRIVATE alternatives are not
            # listed, its contents are the memory)
            yield from _routes(ctx, x, both, steps + after, depth + 1)


def _derive(ctx, base: Array, steps: tuple) -> Array:
    for step in steps:
        base = step.forward(ctx, base)
    return base


def _write_back(ctx, base: Array, steps: tuple, view: Array) -> Array:
    chain = [base]
    for step in steps[:-1]:
        chain.append(step.forward(ctx, chain[-1]))
    for step, parent in zip(reversed(steps), reversed(chain)):
        view = step.backward(ctx, parent, view)
    return view


def _if(ctx, cond: ir.Value, compute: Callable[[Any], Array], old: Array) -> Array:
    """``compute(ctx)`` when ``cond`` holds (lowered in the then-branch only), else ``old``."""
    from pyonnx.frontend.lower.control_flow.common import outputs_of, subgraph_output
    from pyonnx.frontend.lower.structure import Leaf

    with ctx.subgraph() as then_nodes:
        new = compute(ctx)
        if new.dtype != old.dtype:
            new = ctx.cast(new, old.dtype)
    shape = tuple(a if a == b else None for a, b in zip(new.shape, old.shape)) \
        if new.ndim == old.ndim else old.shape
    leaf = Leaf(old.dtype, shape)
    graphs = []
    for label, nodes, arr in (("then", then_nodes, new), ("else", [], old)):
        with ctx.subgraph(nodes):
            out = subgraph_output(ctx, arr, leaf, outputs_of(nodes))
        graphs.append(ir.Graph([], [out], nodes=nodes, name=f"{ctx.function_name}_{label}"))
    value = ctx.op("If", cond, then_branch=graphs[0], else_branch=graphs[1])
    value.type = ir.TensorType(dtypes.to_ir(old.dtype))
    value.shape = ir.Shape(list(shape))
    return Array(value, np.dtype(old.dtype), shape, old.weak)

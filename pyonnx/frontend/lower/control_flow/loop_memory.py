"""What a run-time loop does to memory: names carried across iterations that share memory
(arguments, views, aliases), whether the memory a name ends an iteration with exists outside the
body, the choice of memory a trip count makes, and the refusals where pyonnx cannot follow which
memory a name holds after the loop.

Input: the values of :func:`.loop_body.lower_body` (the body's exit bindings and buffer
contents, its state inputs) and the loop's entry bindings. Output: a registered choice (on "the
loop ran") or the values to mark AMBIGUOUS, and ConversionErrors at the loop's line.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.errors import ConversionError
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import alias_writes, aliases, choices, memory_sharing
from pyonnx.frontend.lower.control_flow.common import changed_buffers

__all__ = ["materialize_constants", "own_state_only", "refuse_memory_swap", "refuse_swap_of_shared",
           "refuse_other_view", "refuse_rebound_while_written", "aliases_across_iterations", "follow_memory", "outer_memory",
           "same_view", "loop_ran", "viewed_buffers"]


def refuse_memory_swap(ctx, names, sharing, bound: dict, exits: dict, memory: dict,
                        line: int) -> None:
    """Refuses a name written through in the body that leaves an iteration bound to the
    memory of another name that shares memory outside the loop (``a, out = out, a`` with
    ``a`` an argument or a view): the next iteration's write goes to that memory, which the
    loop's state does not follow (the write would be lost for the argument)."""
    for n in names:
        state_in = bound.get(n)
        if state_in is None or not any(b.initial is state_in and v is not b.initial
                                       for b, v in memory.items()):
            continue  # not written through in the body
        now = aliases.entry_of(ctx, exits.get(n))
        if now is None:
            continue
        # (the memory a run-time if in the body chose on some path too: ``else: t1 = x``)
        candidates = {now[0], *(alt[0] for _, alt in now[0].choice)}
        for m in sharing:
            other = aliases.entry_of(ctx, bound.get(m))
            if m != n and other is not None and other[0] in candidates:
                raise ctx.error(
                    f"'{n}' is written in the loop at line {line} and rebound in it to the "
                    f"memory of '{m}', which shares memory outside the loop (an argument, a "
                    f"view or an alias): the next iteration writes into that memory, which "
                    f"pyonnx does not follow across iterations; make '{m}' a private copy "
                    f"before the loop ({m} = {m}.copy()) and write the result back after it "
                    "if the caller must see it")


def aliases_across_iterations(ctx, keys, bound: dict, exits: dict, memory: dict) -> dict:
    """Carried names that may hold another carried name's memory at the end of an iteration
    (``t = x`` on some path, ``x`` kept), when the body writes through either: name -> the
    other name. The Loop carries them as two values, so on the next iteration a write through
    one would not reach the other (a silently wrong sum before: ``t[...] = x - x`` then
    ``else: t = x`` with ``x`` rebound on the other path); the caller lowers the body again
    with the name's state input AMBIGUOUS, stale after a write to the other's memory. Names
    rebound on exclusive paths of one ``if`` (a conditional swap) never hold one memory."""
    names = [k for k in keys if isinstance(k, str) and isinstance(bound.get(k), Array)
             and isinstance(exits.get(k), Array)]
    if len(names) < 2:
        return {}
    state = ctx.aliases
    own = {n: _memory_key(state, bound[n]) for n in names}
    written = {n for n in names if own[n] is not None and any(
        b.initial is bound[n] and v is not b.initial for b, v in memory.items())}
    if not written:
        return {}
    at_exit = {n: _alternatives(ctx, exits[n]) for n in names}
    found = {}
    for n in names:
        for m in names:
            if m == n or own[m] is None or (n not in written and m not in written):
                continue
            mine = [c for c, key in at_exit[n] if key == own[m]]
            theirs = [c for c, key in at_exit[m] if key == own[m]]
            if any(not _exclusive(a, b) for a in mine for b in theirs):
                found[n] = m
    return found


def viewed_buffers(ctx, value: Any, unknown: frozenset = frozenset()) -> set:
    """The buffers ``value`` (a name's value at the end of a loop body) may view: its own
    memory's buffer, or each alternative's of a choice made in the body; a complex value's, both
    parts', or ``unknown`` when it may be a view not followed (``Complex.shared``, parts the
    buffers do not know: fuzz seed 26010354, complex form)."""
    if isinstance(value, Complex):
        if value.shared and all(ctx.aliases.lookup(p) is None for p in (value.re, value.im)):
            return set(unknown)
        return viewed_buffers(ctx, value.re) | viewed_buffers(ctx, value.im)
    if not isinstance(value, Array):
        return set()
    return {key for _, key in _alternatives(ctx, value) if isinstance(key, aliases.Buffer)}


def _memory_key(state, value: Array) -> Any:
    hit = state.lookup(value)
    if hit is None:
        return ("value", id(value))
    if aliases.AMBIGUOUS in hit[1] or aliases.UNKNOWN in hit[1] or hit[0].choice:
        return None
    return hit[0]


def _alternatives(ctx, value: Array, cond: Any = None, depth: int = 0) -> list:
    """(condition or None, memory key) of each memory ``value`` may be (a choice: each
    path's; nested choices with the innermost condition, conservatively)."""
    hit = ctx.aliases.lookup(value)
    if hit is None or not hit[0].choice or depth > 8:
        return [(cond, _memory_key(ctx.aliases, value))]
    out = []
    for c, (x, _) in hit[0].choice:
        if x.choice and x in ctx.aliases.memory:
            out += _alternatives(ctx, ctx.aliases.memory[x], c, depth + 1)
        else:
            out.append((c, x))
    # (a path on which the name holds memory of its own is listed by no alternative)
    return out


def _exclusive(a: Any, b: Any) -> bool:
    """Whether the path conditions ``a`` and ``b`` (If conditions, None: always) cannot both
    hold: one is the other's Not."""
    if a is None or b is None:
        return False
    for x, y in ((a, b), (b, a)):
        p = x.producer() if isinstance(x, ir.Value) else None
        if p is not None and p.op_type == "Not" and p.inputs[0] is y:
            return True
    return False


def refuse_swap_of_shared(ctx, n: str, bound: dict, exits: dict, names: list,
                           line: int) -> None:
    """The refusal for ``a, b = b, a`` in a loop with a run-time trip count where the names
    share memory before it (arguments, views): after the loop each name is the one array or
    the other depending on the number of iterations."""
    after = exits.get(n)
    for m in names:
        start = bound.get(m)
        same = after is start or (
            isinstance(after, Array) and isinstance(start, Array)
            and aliases.entry_of(ctx, after) is not None
            and aliases.entry_of(ctx, after)[0] is (aliases.entry_of(ctx, start) or (None,))[0])
        if m != n and start is not None and same:
            raise ctx.error(
                f"'{n}' is bound in the loop at line {line} to the memory '{m}' had before it "
                f"(double buffering, {n}, {m} = {m}, {n}), and that memory is shared outside "
                "the loop (an argument is the caller's memory, or a view): which array each "
                "name is after the loop depends on the trip count, known only at run time; "
                f"swap private copies ({n}, {m} = {n}.copy(), {m}.copy() before the loop) and "
                "assign the results to the caller's arrays after it if the caller must see "
                "them, or give the loop a static trip count (static_argnames=...) so that it "
                "unrolls")


def refuse_other_view(ctx, n: str, before: Any, after: Any, line: int,
                      by_other: bool = False) -> None:
    """The refusal for a name that views memory the loop writes and that an iteration binds
    to another view of the same memory (``v = v[1:]``, ``v = v[::-1]``): after the loop the
    view depends on the trip count. (The same view, ``v = v[:]``, is followed: same_view.)
    ``by_other``: the memory is written through another name only; a name bound to a new
    array (``v = v * 2``) is then a view on the first iteration only, not followed."""
    e0, e1 = aliases.entry_of(ctx, before), aliases.entry_of(ctx, after)
    if by_other and not (e0 and e1 and e0[0] is e1[0]):
        raise ctx.error(
            f"'{n}' is a view of memory the loop at line {line} writes through another name, "
            f"and the loop binds '{n}' to a new array: on the first iteration '{n}' reads the "
            "written memory, on later ones its own array, which pyonnx does not follow; take "
            f"a copy before the loop ({n} = {n}.copy()) if it must keep the old values, or "
            f"give the new array another name")
    if e0 and e1 and e0[0] is e1[0]:
        raise ctx.error(
            f"'{n}' is a view of memory the loop at line {line} writes, and the loop binds it "
            f"to another view of that memory ({n} = {n}[1:], {n}[::-1], ...): which part of "
            f"the memory '{n}' views after the loop depends on the trip count, known only at "
            "run time; index the written array after the loop instead (with the trip count), "
            f"or take a copy before the loop ({n} = {n}.copy())")


def refuse_rebound_while_written(ctx, names: set, entry: dict, exits: dict, memory: dict,
                                  outer: set[int], line: int) -> None:
    """A name that shares memory before the loop (an argument, a view, an alias), whose memory
    the body writes (through another name), and that the body binds to other memory on some
    path (``if c: a = a - k`` while ``t = a[1]; t += 1`` writes ``a``'s memory): after the
    loop it is the written memory or the new array depending on the path each iteration took,
    which pyonnx does not follow (fuzz seed 937309 returned the old values). Refused."""
    changed = set(changed_buffers(ctx, [memory], outer))
    if not changed:
        return
    for n in sorted(names):
        before = entry.get(n)
        hit = aliases.entry_of(ctx, before) if isinstance(before, Array) else None
        if hit is None or hit[0] not in changed or aliases.AMBIGUOUS in hit[1]:
            continue
        after = aliases.entry_of(ctx, exits.get(n))
        # (bound to a new array on every path is followed: follow_memory's choice on "the
        # loop ran"; only a choice made inside the body is not)
        chosen = after is not None and (after[0].choice or aliases.AMBIGUOUS in after[1])
        if chosen and not same_view(ctx, before, exits.get(n), {hit[0]}):
            raise ctx.error(
                f"'{n}' shares memory with another array before the loop at line {line}, the "
                "loop writes that memory, and it binds the name to a new array on some path: "
                f"after the loop '{n}' is the written memory or the new array depending on the "
                "path taken; use a new name for the new array")


def follow_memory(ctx, name: str, value: Array, before: Any, after: Any, exits: dict,
                   outer: set[int], count: Array | None, first: ir.Value,
                   state_in: Any = None) -> list:
    """A carried name whose memory depends on the trip count: bound before the loop to shared
    memory (``before``, given when the loop may run 0 times: an argument, a view) and/or in
    the body to a view (``after``). Registered as a choice on "the loop ran" (choices.py) when
    both can be followed; else returns ``[(value, the buffers it may view)]`` for the caller to
    mark AMBIGUOUS once the loop's writes are re-derived (writes refused instead of guessed)."""
    e0, e1 = aliases.entry_of(ctx, before), aliases.entry_of(ctx, after)
    if e0 is None and isinstance(before, Array) and e1 and state_in is not None and \
            e1[0].initial is state_in and not e1[1]:
        # (an argument no view was made of yet is not registered: its own buffer, which the
        # body's `x = x[:]` keeps, fuzz seed 20001751)
        e0 = ctx.aliases.buffer_of(before)
    if e0 and e1 and aliases.AMBIGUOUS not in e0[1] and (
            e0[0] is e1[0] and aliases.steps_equal(_plain(e0[1]), _plain(e1[1]))
            or state_in is not None and e1[0].initial is state_in and not e1[1]):
        # the same view of the same memory whether the loop ran or not (t = t.T of 1-D t:
        # the body's value is its state input's memory as it is)
        ctx.aliases.register(value, e0[0], e0[1])
        return []
    was = choices.PRIVATE if before is None else choices.alternative(
        ctx, before, name, None, outer, shared=True)
    now = choices.alternative(ctx, after, name, exits, outer)
    if was is choices.PRIVATE and now is choices.PRIVATE:
        return []
    if any(a is None or isinstance(a, choices.Nested) for a in (was, now)):
        # Writes through it are refused; a write to memory it may view makes it stale.
        return [(value, memory_sharing.candidates(ctx, before, after))]
    ran = loop_ran(ctx, count, first)
    pairs = [] if was is choices.PRIVATE else [(ctx.op("Not", ran), was)]
    pairs += [] if now is choices.PRIVATE else [(ran, now)]
    choices.make_choice(ctx, value, pairs)
    return []


def materialize_constants(lowering, names) -> None:
    """Makes the conversion-time arrays among the loop's state ``names`` that other names
    hold (the same object, or a view of its memory) graph values before the loop, so that a
    write in the body reaches every name (alias_writes.materialize)."""
    ctx, env = lowering.ctx, lowering.env
    for n in names:
        v = env.locals.get(n)
        if not isinstance(v, np.ndarray):
            continue
        others = [w for f in ctx.frames for m, w in f.env.locals.items()
                  if f is not lowering or m != n]
        if any(w is v for w in others):
            # A conversion-time array with several names that the loop may change in place:
            # make it a graph value first so that the names share it (and its memory).
            alias_writes.materialize(lowering, v, f"'{n}'")
        elif any(isinstance(w, np.ndarray) and np.may_share_memory(w, v) for w in others):
            # ... or with views of its memory (p, q = np.split(t, [2])): one buffer for them
            # all (const_views); where that cannot be, a write in the loop is refused there
            try:
                alias_writes.materialize(lowering, v, f"'{n}'")
            except ConversionError:
                pass


def own_state_only(ctx, name: str, after: Any, state_in: Any, exits: dict) -> bool:
    """Whether a carried name that enters the loop as memory of its own (not shared) leaves
    each iteration as exactly the memory it entered with (its state input, written in place
    or registered by an inner loop iterating it: ``for r in t: ...`` then ``t[:] = 1.5``) and
    no other live name holds that memory: after the loop it is a private array (fuzz seed
    20001481)."""
    e1 = aliases.entry_of(ctx, after)
    if not (e1 and state_in is not None and e1[0].initial is state_in and not e1[1]):
        return False
    for m, v in exits.items():
        if m == name:
            continue
        for w in memory_sharing.arrays_in(v) if isinstance(v, (tuple, list, dict)) else [v]:
            hit = aliases.entry_of(ctx, w)
            if w is after or hit is not None and hit[0] is e1[0]:
                return False
    return True


def outer_memory(ctx, value: Array, nodes: list, inputs: tuple, own=()) -> bool:
    """Whether ``value`` (a name's value at the end of a loop body) is memory that exists
    outside the body: an argument's, or an array made before the loop (``t = w[1:]``), or the
    memory another carried name or buffer enters the iteration with (``t = x[...]`` with ``x``
    carried: next iteration ``x`` is still that memory), not one the iteration made (or the
    name's own state ``own``, ``t = t[:]``)."""
    hit = aliases.entry_of(ctx, value)
    if hit is not None and hit[0].param is not None:
        return True
    origin = hit[0].initial.value if hit is not None else value.value
    others = {id(v) for group in inputs[2] for v in group}
    others -= {id(v) for v in own}
    # (the other name's whole memory, a, b = b, a, is double buffering: refuse_memory_swap)
    if id(origin) in others and hit is not None and hit[1]:
        # fuzz seed 13000343 (full program): ``x`` is loop state (rebound on another path),
        # ``else: t1 = x[..., :]``, next iteration ``t1[...] = x - x`` writes ``x``
        return True
    inside = {id(v) for node in nodes for v in node.outputs}
    inside |= {id(v) for group in inputs[2] for v in group}
    if hit is not None:
        # memory a run-time if in the body chose: outer memory if one alternative is
        # (fuzz seed 13000343: ``else: t = x[..., :]``, then ``t[...] = ...`` next iteration)
        for _, alt in hit[0].choice:
            b = alt[0]
            if b.param is not None or id(b.initial.value) not in inside \
                    or id(b.initial.value) in others and alt[1]:
                return True
    return id(origin) not in inside


def same_view(ctx, before: Any, after: Any, buffers: set) -> bool:
    """Whether a name is the same view of a carried buffer before and after an iteration
    (``v = v[:]`` keeps it the same view)."""
    e0, e1 = aliases.entry_of(ctx, before), aliases.entry_of(ctx, after)
    return bool(e0 and e1 and e0[0] is e1[0] and e0[0] in buffers
                and aliases.steps_equal(_plain(e0[1]), _plain(e1[1])))


def _plain(steps: tuple) -> tuple:
    """``steps`` without the views that are the whole array as it is (``v[:]``, ``v[...]``)."""
    return tuple(s for s in steps if not (isinstance(s, aliases.GetItem) and _whole(s.index)))


def _whole(index: Any) -> bool:
    if isinstance(index, tuple):
        return all(_whole(i) for i in index)
    return index is Ellipsis or (isinstance(index, slice) and index == slice(None))


def loop_ran(ctx, count: Array | None, first: ir.Value) -> ir.Value:
    """Whether a ``Loop`` with trip count ``count`` and first condition ``first`` runs its
    body at least once (a bool 0-d value)."""
    if count is None:
        return first
    more = ctx.op("Greater", count, ctx.const(np.array(0, np.int64)))
    return ctx.op("And", more, first)

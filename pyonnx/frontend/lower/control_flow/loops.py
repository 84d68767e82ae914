"""Run-time ``for`` and ``while`` → ONNX ``Loop``.

Input: the loop statement (annotated with liveness), its trip count, first condition, how to
bind the target from the iteration number, and how to evaluate the next condition. Output: a
``Loop`` whose state is the names the body assigns that are live at the header (onnxscript's
rule) plus the contents of every buffer the body writes into; the body is lowered again while
the state types widen (a shape that grows, a Python number that becomes an array).

One lowering of the body is :mod:`.loop_body`; what the loop does to memory (names that share
it, choices on the trip count, refusals) is :mod:`.loop_memory`.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes, path_weak, scalar_kinds
from pyonnx.frontend.lower import (alias_writes, aliases, complex_aliases, complex_choices,
                                   memory_sharing)
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph import python_entry
from pyonnx.frontend.lower.control_flow import (complex_paths, held_items, maybe_bound,
                                                path_types)
from pyonnx.frontend.lower.control_flow.loop_body import lower_body
from pyonnx.frontend.lower.control_flow.loop_memory import (
    follow_memory, loop_ran, materialize_constants, outer_memory, own_state_only, viewed_buffers,
    aliases_across_iterations, refuse_memory_swap, refuse_other_view,
    refuse_rebound_while_written, refuse_swap_of_shared, same_view)
from pyonnx.frontend.lower.control_flow.common import (
    _BOOL, MISSING, changed_buffers, condition, internal, join_or_error, outer_ids,
    outputs_of, subgraph_output, typed)
from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.lower.structure import (
    Leaf, Plan, Static, is_number, kind_changed, leaf_plans, leaves_of, number_leaf,
    placeholder, plan_of, rebuild)
from pyonnx.frontend.graph.values import Array, Undefined, is_static

__all__ = ["lower_loop"]


def lower_loop(lowering, node: ast.For | ast.While, *, count: Array | None, first: Any,
               start: Callable[[Array], None] | None, next_test: Callable[[], Any] | None,
               targets: frozenset[str] = frozenset()) -> None:
    """A ``Loop`` node for ``node``.

    The state is the names the body assigns that are live at the header, plus the contents of
    every buffer (numpy memory, :mod:`aliases`) the body writes into: a write through a view
    (``row = M[i]; row += 1``) changes ``M`` although the body never assigns ``M``. Names that
    are the same view of a carried buffer before and after an iteration are re-derived from it
    rather than carried twice.

    Args:
        lowering: the FunctionLowering.
        node: the loop statement (its liveness annotations give the state).
        count: the trip count (a ``for`` loop), or None (a ``while`` loop).
        first: the condition before the first iteration (True, or a run-time value).
        start: binds the loop target from the iteration number (a ``for`` loop).
        next_test: evaluates the condition for the next iteration, after the body.
        targets: the names ``start`` binds.
    """
    ctx = lowering.ctx
    env = lowering.env
    state_aliases: aliases.AliasState = ctx.aliases
    line = lowering.loc_of(node).lineno
    names = sorted((node.pyonnx_assigned | targets) & node.pyonnx_live_iter)
    materialize_constants(lowering, names)
    entry: dict[Any, Any] = {n: env.locals.get(n, MISSING) for n in names}
    # Names first bound in the loop are undefined after it if it runs 0 times: a user's name is
    # not carried (reading it after the loop is an error), an internal one (the return value)
    # is carried with a stand-in that its flag keeps anyone from reading.
    pending = {n for n, v in entry.items() if isinstance(v, Undefined)}
    # Names that may be unbound at an iteration's end (first bound in an inner loop that may
    # run 0 times) or at the loop's entry: carried with a "bound" flag (maybe_bound.py), and
    # maybe-bound in the body and after the loop. name -> the message of a failing read.
    flagged: dict[str, str] = {}
    for n in sorted(pending):
        v = entry[n]
        if v.bound is not None and not internal(n) and maybe_bound.checkable(ctx, v.bound[0]):
            flagged[n] = v.message
            entry[n] = v.bound[0]
            entry[maybe_bound.flag_key(n)] = maybe_bound.flag(ctx, v.bound[1])
            pending.discard(n)
    # A carried Python number almost always changes in the body (a counter, a flag): start it
    # as a graph value, which saves lowering the body a second time to find that out.
    plans: dict[Any, Plan | None] = {
        n: (None if n in pending else number_leaf(v) if is_number(v) else plan_of(v))
        for n, v in entry.items()}
    entry_plans = dict(plans)  # the types before the first iteration (see _check_ran)
    outer = outer_ids(ctx)
    # A carried name that shares memory (an argument, a view, an alias) follows its buffer:
    # the buffer is the state, the name is re-derived from it in the body and after the loop.
    # (Found by lowering: a name becomes derived when the body writes into its memory.)
    derived: set[str] = set()
    sharing = {n for n in names if n not in pending and isinstance(entry[n], Array)
               and memory_sharing.shares_memory(ctx, entry[n], n)}
    # The kinds of the 0-d values of the state (numpy scalars, 0-d arrays: x -= 1 rebinds
    # one, writes into the other) where they are the same before the loop and after every
    # iteration (else scalar_kinds says "unknown" in the body). A name first bound in the loop
    # takes the kinds of its first iteration; a 0-d array that shares memory follows its
    # buffer.
    kinds = {n: scalar_kinds.state_kind(ctx, entry[n]) for n in names if n not in pending}
    kinds = {n: k for n, k in kinds.items()
             if k is not None and k != "-" and not (n in sharing and k == "array")}
    rebound: set[str] = set()  # names bound to shared memory in the body (see escaping)
    # Carried lists/tuples/dicts whose array items share memory: not followed (held_items)
    held = held_items.sharing_containers(ctx, env.locals, [n for n in names if n not in pending])
    # Names an iteration leaves stale (a view whose memory was written in a way pyonnx does not
    # follow): not carried; reading one in a later iteration or after the loop is refused.
    stale: dict[str, str] = {}
    by_other: set[str] = set()  # names derived because another name writes their memory
    # Such names that the body binds to a new array (u = u + U[1:]): their state input is
    # made stale by a write to that memory in the body (a read after it is refused), name ->
    # the written buffers
    watched: dict[str, frozenset] = {}
    # Names that may hold another carried name's memory at an iteration's end (t = x on some
    # path): name -> the other; stale in the body after a write to the other's memory
    alias_watch: dict[str, str] = {}
    # Python numbers whose kind an iteration may leave changed on some paths only (``s = 0``,
    # then ``if c: s = 0.5``): name -> the narrower kind (graph/path_weak.mark_kind)
    mixed_kinds: dict[Any, np.dtype] = {}
    # Complex names followed before the loop: their part buffers are the state, the names
    # re-derived from them (complex_aliases); carried as values again if the body rebinds them.
    complex_derived = complex_aliases.loop_derived(ctx, names, entry, pending, node.body)
    for n in complex_derived:
        del plans[n]
        for b in complex_aliases.part_buffers(ctx, entry[n]):
            if b not in plans:
                entry[b] = state_aliases.memory.get(b, b.initial)
                plans[b] = plan_of(entry[b])
    # Python numbers an iteration may keep (m = 0.0, then if v > m: m = v): carried with a
    # "still the Python number" flag (path_types.python_state_flags)
    py_flagged: set[str] = set()
    py_unknown: set[str] = set()  # (of those, names whose flag a body did not know)
    for _ in range(8):
        py_kinds = {**_kind_entry(entry_plans, plans), **mixed_kinds}
        weak_now = _weak_entry(entry_plans, plans) | complex_paths.weak_entry(entry_plans, plans)
        exits, memory, nodes, inputs, cond_out, bound = lower_body(
            lowering, node, plans, start, next_test, line, sharing - derived, kinds, held,
            weak_now, stale, py_kinds, watched, flagged, alias_watch, py_flagged)
        maybe_bound.unwrap_exits(ctx, exits, nodes, names, pending, flagged, entry)
        kept_python = path_types.python_state_flags(ctx, exits, names, weak_now, py_flagged,
                                                    entry, plans, py_unknown)
        if kept_python:
            continue
        moved = [n for n in complex_derived
                 if not complex_aliases.same_view(ctx, entry[n], exits.get(n))]
        if moved:  # bound to another array in the body: carried as a value
            for n in moved:
                complex_derived.remove(n)
                plans[n] = entry_plans[n]
            continue
        more = held_items.sharing_containers(ctx, exits, [n for n in names if n not in held])
        if more:
            held.update(more)
            continue
        found = {k: e[2] for k in names if k not in mixed_kinds
                 and (e := path_weak.kind_entry(ctx, exits.get(k))) is not None}
        if found:
            mixed_kinds.update(found)
            continue
        changed = set(changed_buffers(ctx, [memory], outer))
        written = {n for n in sharing - derived
                   if any(b.initial is bound.get(n) and v is not b.initial
                          for b, v in memory.items())}
        # or written through another name (a0 -= 1 with v = a0[::-1] carried): the state
        # input of v is a copy the write does not reach (fuzz seed 20004919 read v's old
        # values in the next iteration and after the loop)
        # (only where the copy is read: a name rebound before any read, a0 = v.reshape(...),
        # is followed as before)
        by_other |= {n for n in sharing - derived - written - set(watched)
                     if (hit := aliases.entry_of(ctx, entry[n])) is not None
                     and hit[0] in changed and aliases.AMBIGUOUS not in hit[1]
                     and _state_read(ctx, bound.get(n), exits.get(n))}
        written |= by_other & (sharing - derived)
        # A name bound in the body to memory another name sees (a view or alias of an
        # argument, ``t = w[1:]``) while it entered the loop as an array of its own: on the
        # next iteration a write through it reaches that memory. Lower again with the name
        # followed as shared memory, so that such a write shows (and is refused below).
        escaping = {n for n in names if n not in pending and n not in sharing
                    and isinstance(exits.get(n), Array) and exits[n] is not entry[n]
                    and outer_memory(ctx, exits[n], nodes, inputs,
                                      inputs[2][list(plans).index(n)] if n in plans else ())
                    and memory_sharing.shares_memory(ctx, exits[n], n, exits)}
        if escaping:
            sharing |= escaping
            rebound |= escaping
            continue
        # A name bound in the body to a view of memory the body writes (on some path, through
        # another name): the value it carries into the next iteration does not see that
        # iteration's writes (fuzz seed 26010354 returned the values from before them).
        # Followed as watched: its state input is stale after such a write (a read refused).
        # (a complex name: its parts; rebound to a view of a followed complex array)
        stale_views = {n: b for n in (rebound | _complex_rebound(entry, exits, plans))
                       - derived - set(watched)
                       if n in plans and (b := viewed_buffers(ctx, exits.get(n), changed)
                                          & changed)}
        if stale_views:
            watched.update({n: frozenset(b) for n, b in stale_views.items()})
            outer = outer_ids(ctx)
            continue
        if written & rebound:
            n = sorted(written & rebound)[0]
            raise ctx.error(
                f"'{n}' is bound in the loop at line {line} to memory another name sees (a "
                "view or an alias) and written through on a later iteration, while it was an "
                "array of its own before the loop: which memory the write reaches changes with "
                "the iteration; write through the other name, or bind a copy (.copy())")
        if written:
            for n in sorted(written):
                buffer, _ = state_aliases.buffer_of(entry[n])
                derived.add(n)
                del plans[n]
                if buffer not in plans:
                    entry[buffer] = state_aliases.memory.get(buffer, buffer.initial)
                    plans[buffer] = plan_of(entry[buffer])
            outer = outer_ids(ctx)
            continue
        refuse_memory_swap(ctx, names, sharing, bound, exits, memory, line)
        shared_late = {n: m for n, m in aliases_across_iterations(
            ctx, [n for n in names if n in plans], bound, exits, memory).items()
            if n not in alias_watch}
        if shared_late:
            alias_watch.update(shared_late)
            continue
        lost = {n for n, k in kinds.items() if n in exits and not isinstance(
            exits[n], Undefined) and scalar_kinds.state_kind(ctx, exits[n]) != k}
        if lost:
            kinds = {n: k for n, k in kinds.items() if n not in lost}
            continue
        rebound_away = {n for n in derived & by_other
                        if not same_view(ctx, entry[n], exits.get(n), set(plans))
                        and not _views_same_memory(ctx, entry[n], exits.get(n))}
        if rebound_away:
            for n in rebound_away:
                watched[n] = frozenset({aliases.entry_of(ctx, entry[n])[0]})
                derived.discard(n)
                by_other.discard(n)
                plans[n] = entry_plans.get(n) or plan_of(entry[n])
            outer = outer_ids(ctx)
            continue
        for n in derived:
            if not same_view(ctx, entry[n], exits.get(n), set(plans)):
                refuse_swap_of_shared(ctx, n, bound, exits, names, line)
                refuse_other_view(ctx, n, entry[n], exits.get(n), line, n in by_other)
                raise ctx.error(
                    f"'{n}' shares memory with another array before the loop at line {line} "
                    "but is bound to a new array in it, so a write through it changes the "
                    "other array on the first iteration only; use a new name for the new array")
        refuse_rebound_while_written(ctx, sharing - derived, entry, exits, memory, outer,
                                      line)
        widened: dict[Any, Plan | None] = dict(plans)
        for b in changed_buffers(ctx, [memory], outer):
            if b not in widened:  # a buffer the body writes into becomes state
                entry[b] = state_aliases.memory.get(b, b.initial)
                widened[b] = plan_of(entry[b])
        for key, old in plans.items():
            exit_value = (memory.get(key, entry[key]) if isinstance(key, aliases.Buffer)
                          else exits.get(key, MISSING))
            if isinstance(exit_value, Undefined):
                if exit_value.bound is None and old is not None and \
                        not isinstance(key, aliases.Buffer) and key not in pending:
                    stale[key] = exit_value.message if exit_value is not MISSING else (
                        f"'{key}' is deleted in the loop at line {line}; assign it again "
                        "before the end of the body")
                    widened[key] = None
                continue
            if isinstance(old, Static) and isinstance(old.value, list) and \
                    not _same_list(old.value, exit_value):
                others = sorted(m for m, w in env.locals.items() if w is old.value and m != key)
                if others:
                    raise ctx.error(
                        f"the list '{key}' is changed in this loop and also named "
                        f"{', '.join(others)}; a list changed in run-time control flow may have "
                        "only one name")
            if old is None and key in pending:
                first_kind = scalar_kinds.state_kind(ctx, exit_value)
                if first_kind is not None and first_kind != "-":
                    kinds[key] = first_kind
            shown = "an array written in the loop" if isinstance(key, aliases.Buffer) else key
            widened[key] = plan_of(exit_value) if old is None else join_or_error(
                lowering, shown, old, plan_of(exit_value), f"the loop at line {line}", loop=True)
        for n in flagged:  # (a name newly maybe-bound at an iteration's end)
            widened.setdefault(maybe_bound.flag_key(n), Leaf(_BOOL, ()))
        if widened == plans:
            # (equal types; the joined plans also carry what is not compared: a complex
            # value's memory notes, "a view on some path", which later writes must see: fuzz
            # seed 12004309)
            plans = widened
            break
        plans = widened
    else:
        raise ctx.error("the types of the loop's variables do not settle; give them fixed "
                        "types before the loop")
    buffers = {k for k in plans if isinstance(k, aliases.Buffer)}
    flag_keys = {maybe_bound.flag_key(n) for n in flagged}
    derived |= {n for n in names if n in plans and
                same_view(ctx, entry[n], exits.get(n), buffers)}
    # A loop known to run at least once (a static range(k), k >= 1, or a first test that is
    # statically true) defines after it every name its body always assigns.
    may_skip = not (is_static(first) and first is True and (count is None
                                                           or _at_least_once(count)))
    weak_entry = _weak_entry(entry_plans, plans)
    # (a user's name first bound in the body is carried too when the loop may run 0 times:
    # bound after it where the loop ran, a read is checked at run time: maybe_bound.py)
    keys = [k for k in plans if plans[k] is not None and not isinstance(plans[k], Static)
            and k not in derived]
    leaves = [leaf for k in keys for leaf in leaf_plans(plans[k])]
    # Entry values (cast to the state types; internal names get a stand-in).
    initial: list[Array] = []
    for k in keys:
        value = entry[k] if k not in pending else placeholder(ctx, plans[k])
        initial.extend(leaves_of(ctx, plans[k], value))
    for a in initial:
        # A static entry shape on the value: LoopToScanPass runs the Loop as a Scan only when
        # entry, body input and body output shapes are provably the same.
        v = getattr(a, "value", None)
        if isinstance(v, ir.Value) and v.shape is None and v.producer() is not None and \
                all(type(d) is int for d in getattr(a, "shape", (None,))):
            v.shape = ir.Shape(list(a.shape))
            if v.type is None:
                v.type = ir.TensorType(dtypes.to_ir(a.dtype))
    iter_in, cond_in, state_in = inputs
    state_of = dict(zip(plans, state_in))  # key -> its body inputs
    used_inputs = [v for k in keys for v in state_of[k]]
    with ctx.subgraph(nodes):
        produced = outputs_of(nodes) | {id(v) for v in used_inputs}
        if cond_out is None:
            # The loop stops on its trip count only: pass the (true) condition through, one
            # node less per iteration.
            outs = [cond_in]
        else:
            outs = [subgraph_output(ctx, Array(cond_out, _BOOL, ()), Leaf(_BOOL, ()),
                                     produced)]
        exit_arrays = [leaf for k in keys for leaf in leaves_of(
            ctx, plans[k], memory.get(k, entry[k]) if isinstance(k, aliases.Buffer) else exits[k])]
        outs += [subgraph_output(ctx, a, p, produced) for a, p in zip(exit_arrays, leaves)]
    # Inputs of keys that are not state (derived names, static ones) must not be read.
    graph = ir.Graph([iter_in, cond_in, *used_inputs], outs, nodes=nodes,
                     name=f"{ctx.function_name}_loop_L{line}")
    # An omitted condition means true in ONNX, but onnx's reference evaluator runs no iteration
    # then: a constant true serves both runtimes.
    first_value = ctx.const(np.array(True)) if (is_static(first) and first is True) \
        else condition(ctx, first)
    results = ctx.op("Loop", count, first_value, *initial, outputs=len(leaves), body=graph)
    results = [results] if len(leaves) == 1 else list(results or ())
    finals = iter(typed(v, p) for v, p in zip(results, leaves))
    ran = None
    unfollowed: list[tuple[Array, frozenset | None]] = []
    after: dict[str, Any] = {}  # pending names' final values (maybe_bound)
    live_exits = {n: exits[n] for n in names if n in exits}
    maybe_final: dict[str, Any] = {}  # flagged names' final values and flags
    for k in keys:
        value = rebuild(plans[k], finals)
        if k in flagged or k in flag_keys:
            maybe_final[k] = value
        if k in flag_keys:
            continue
        if k in pending and not internal(k) and may_skip:
            after[k] = value
            scalar_kinds.merge_kinds(ctx, value, [exits.get(k)])
        elif may_skip and not isinstance(k, aliases.Buffer) and not internal(k) and \
                isinstance(value, Array) and (kind_changed(entry_plans.get(k), plans[k])
                                              or _widened(entry_plans.get(k), plans[k])):
            # numpy gives the entry type after 0 iterations, the widened one after more: the
            # model fails at run time when the loop runs 0 times rather than answer in the
            # wrong type (a Python int 0 where numpy gives 0, not 0.0).
            ran = ran or loop_ran(ctx, count, first_value)
            # (the node name says why; "refused_" marks a run-time refusal, not numpy's error)
            what = f"refused_{k}_changes_type_in_the_loop_at_line_{line}_which_ran_0_times"
            value = runtime_check(ctx, Array(ctx.op("Not", ran), _BOOL, ()), value, what,
                                  _zero_trip_message(k, entry_plans.get(k), plans[k], line))
            value = Array(value.value, plans[k].dtype, value.shape, plans[k].weak)
        if k in mixed_kinds:  # its kind after the loop depends on the paths taken in it
            path_weak.mark_kind(ctx, value, f"the loop at line {line}", mixed_kinds[k], None)
        if k in py_flagged:
            pass  # (marked with its carried flag below)
        elif may_skip and k in weak_entry:
            # a Python number after 0 iterations, a numpy value after more (s = 0.0, then
            # s = s + x[i]): refused where numpy's result type would show the difference
            ran = ran or loop_ran(ctx, count, first_value)
            value = python_entry.held_exactly(ctx, value, entry.get(k), ctx.op("Not", ran), k,
                                              line)
            path_weak.mark(ctx, value, f"the loop at line {line}, which may run 0 times",
                           ctx.op("Not", ran))
        if isinstance(k, aliases.Buffer):
            state_aliases.memory[k] = value
            state_aliases.register(value, k, ())
            if value.ndim == 0 and any(isinstance(v, Array) and v.value in state_aliases.mixed0d
                                       for v in (entry[k], memory.get(k))):
                state_aliases.mixed0d[value.value] = None  # (its kind is not followed)
        else:
            env.bind(k, value)
            complex_paths.after_loop(ctx, value, k, entry, exits, may_skip, inputs, nodes,
                                lambda: ran or loop_ran(ctx, count, first_value), line,
                                k not in py_flagged)
            if k in kinds and (k not in pending or not may_skip):
                scalar_kinds.assume(ctx, value, kinds[k])
            elif k not in after:  # the kinds of the entry (0 iterations) and an iteration's
                sides = [entry.get(k), exits.get(k)] if may_skip else [exits.get(k)]
                flags = scalar_kinds.side_flags(ctx, sides) if may_skip else None
                flag = None
                if flags is not None and not isinstance(flags[1], ir.Value):
                    # (an iteration's own flag is the body's: not carried, not known here)
                    ran = ran or loop_ran(ctx, count, first_value)
                    flag = path_types.select_flag(ctx, ran, flags[1], flags[0])
                scalar_kinds.merge_kinds(ctx, value, sides, flag)
            if k in held and isinstance(value, (tuple, list, dict)):
                # (marked after the re-derivation, as unfollowed names are; a run-time list,
                # Seq, holds copies: appends.py)
                unfollowed += [(w, held[k]) for w in memory_sharing.arrays_in(value)]
            elif isinstance(value, Array) and not (k not in sharing and own_state_only(
                    ctx, k, exits.get(k), bound.get(k), live_exits)):
                # (only the names live after the loop: a dict or view the body made and
                # dropped (d = {'u': x}) sees nothing later, fuzz seed 20001337)
                unfollowed += follow_memory(
                    ctx, k, value, entry[k] if k in sharing and may_skip else None,
                    exits.get(k), live_exits, outer, count, first_value, bound.get(k))
            elif isinstance(value, Complex):  # per part, as follow_memory (complex_choices)
                complex_choices.follow_loop(
                    ctx, k, value, entry[k] if may_skip else None, exits.get(k), live_exits,
                    outer, lambda: loop_ran(ctx, count, first_value))
    for n in py_flagged:
        still = env.locals.pop(path_types.python_key(n), None)
        if isinstance(env.locals.get(n), Complex) and not env.locals[n].weak:
            flag = still.value if isinstance(still, Array) and n not in py_unknown else None
            env.locals[n].py_path = (f"the loop at line {line}, whose iterations may leave a "
                                     "Python number in it", flag)
            python_entry.held_exactly(ctx, env.locals[n], entry.get(n), flag, n, line)
        elif isinstance(env.locals.get(n), Array):
            flag = still.value if isinstance(still, Array) and n not in py_unknown else None
            env.bind(n, python_entry.held_exactly(ctx, env.locals[n], entry.get(n), flag, n,
                                                  line))
            path_weak.mark(ctx, env.locals[n], f"the loop at line {line}, whose iterations "
                           "may leave a Python number in it", flag)
    for n in names:
        plan = plans.get(n)
        if n in flagged and n in maybe_final and maybe_bound.flag_key(n) in maybe_final:
            # bound after the loop where its flag holds (a read is checked at run time)
            env.bind(n, Undefined(flagged[n], (maybe_final[n],
                                               maybe_final[maybe_bound.flag_key(n)].value)))
        elif n in pending and not internal(n) and (may_skip or n not in keys):
            why = ("the loop can run 0 times" if may_skip
                   else "the first iteration may stop before assigning it")
            if n in after:
                ran = ran or loop_ran(ctx, count, first_value)
            env.bind(n, Undefined(
                f"'{n}' is first assigned inside the loop at line {line} and may be unbound "
                f"after it ({why}); assign it before the loop",
                (after[n], ran) if n in after else None))
        elif n in stale:
            env.bind(n, Undefined(stale[n]))
        elif isinstance(plan, Static):
            env.bind(n, plan.value)
    if buffers:
        alias_writes.rederive(lowering, buffers)
    for value, maybe in unfollowed:
        # Marked after the re-derivation: the loop's final value already shows the body's
        # writes (only later writes make it stale).
        memory_sharing.mark_ambiguous(ctx, value, maybe)


def _views_same_memory(ctx, a: Any, b: Any) -> bool:
    e0, e1 = aliases.entry_of(ctx, a), aliases.entry_of(ctx, b)
    return bool(e0 and e1 and e0[0] is e1[0])


def _state_read(ctx, state_in: Any, exit_value: Any) -> bool:
    """Whether the body reads a name's state input: a node uses it, or the name leaves the
    iteration bound to it or to a view of it (``v = v[:]``)."""
    if state_in is None or exit_value is state_in:
        return state_in is not None
    value = getattr(state_in, "value", None)
    if not isinstance(value, ir.Value) or list(value.uses()) or \
            getattr(exit_value, "value", None) is value:
        return True
    e0, e1 = aliases.entry_of(ctx, state_in), aliases.entry_of(ctx, exit_value)
    return bool(e0 and e1 and e0[0] is e1[0])


def _at_least_once(count: Array | None) -> bool:
    """Whether a ``Loop`` trip count is a constant of at least 1."""
    const = getattr(getattr(count, "value", None), "const_value", None)
    if const is None:
        return False
    return int(np.asarray(const.numpy()).reshape(-1)[0]) >= 1


def _weak_entry(entry_plans: dict, plans: dict) -> set:
    """The names that enter the loop as a Python number (weak) and are carried as a numpy
    0-d value of the same kind (``s = 0.0``, then ``s = s + x[i]``): a Python number after 0
    iterations and on the first, a numpy value after (graph/path_weak.py)."""
    return {k for k, p in plans.items()
            if isinstance(p, Leaf) and not p.weak and p.shape == ()
            and isinstance(entry_plans.get(k), Leaf) and entry_plans[k].weak
            and not kind_changed(entry_plans[k], p)}


def _zero_trip_message(name: str, entry: Plan | None, final: Plan | None, line: Any) -> str:
    def shown(p):
        return path_weak.kind_word(p.dtype, p.weak) if isinstance(p, Leaf) else "another type"
    return path_weak.zero_trip_message(name, shown(entry), shown(final), line)


def _kind_entry(entry_plans: dict, plans: dict) -> dict:
    """The names that enter the loop as a Python number of a narrower kind than their state
    (``s = 0``, then ``s = s + 0.5``: an int on the first iteration, a float after), name ->
    the entry's kind (graph/path_weak.mark_kind)."""
    order = "biuf"
    return {k: entry_plans[k].dtype for k, p in plans.items()
            if isinstance(p, Leaf) and p.weak and p.shape == ()
            and isinstance(entry_plans.get(k), Leaf) and entry_plans[k].weak
            and entry_plans[k].shape == () and p.dtype.kind in order
            and entry_plans[k].dtype.kind in order
            and order.index(entry_plans[k].dtype.kind) < order.index(p.dtype.kind)}


def _same_list(a: list, b: Any) -> bool:
    return isinstance(b, list) and len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _widened(entry: Plan | None, final: Plan | None) -> bool:
    """A numpy value (not a Python number) whose dtype an iteration widens (float32 state
    plus float64 values is float64): after 0 iterations numpy still has the entry dtype."""
    return isinstance(entry, Leaf) and isinstance(final, Leaf) and not entry.weak \
        and not final.weak and entry.dtype != final.dtype


def _complex_rebound(entry: dict, exits: dict, plans: dict) -> set:
    """Carried names the body binds to another complex value (a view of a followed complex
    array, possibly: the parts' buffers say)."""
    return {n for n in plans if isinstance(n, str) and isinstance(exits.get(n), Complex)
            and exits[n] is not entry.get(n)}


"""Run-time ``if``, conditional expressions, ``and``/``or`` and chained comparisons → ONNX
``If``.

Input: the FunctionLowering and the branch statements or expressions. Output: an ``If`` whose
branches are the lowered subgraphs, and the environment after it: the names a branch assigns
that are live after the ``if`` are its outputs (onnxscript's rule), with their types joined
(:mod:`pyonnx.frontend.lower.structure`); buffers a branch wrote into are outputs too, and names
that are the same view of one on both paths are re-derived from it. A name bound on one path
only becomes :class:`~pyonnx.frontend.graph.values.Undefined`.

Conditional expressions, ``and``/``or``: :mod:`.select`.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.canonicalize.early_return import RETURN_FLAG, RETURN_VALUE
from pyonnx.frontend.graph import path_weak, scalar_kinds
from pyonnx.frontend.lower import (alias_writes, aliases, choices, complex_aliases,
                                   complex_choices, complex_writes, memory_sharing,
                                   optional_reads)
from pyonnx.frontend.lower.control_flow import complex_paths, guards, maybe_bound, path_types
from pyonnx.frontend.lower.control_flow.join_memory import (
    choose, each_alternative, mark_ambiguous)
from pyonnx.frontend.lower.control_flow.common import (
    _BOOL, MISSING, Branch, changed_buffers, condition, internal, is_outer,
    join_or_error, lower_branch, outer_ids, outputs_of, subgraph_output, typed)
from pyonnx.frontend.lower.structure import (
    Leaf, Plan, Static, Tree, leaf_plans, leaves_of, mixes_python_scalar, placeholder,
    plan_of, rebuild)
from pyonnx.frontend.graph.values import Array, Stale, Undefined

__all__ = ["lower_if", "unrolled_iteration", "join_branches"]



def _emit_if(lowering, cond: ir.Value, branches: list[tuple[list[ir.Node], list[Array]]],
             plans: list[Leaf]) -> list[ir.Value]:
    ctx = lowering.ctx
    graphs = []
    for label, (nodes, arrays) in zip(("then", "else"), branches):
        with ctx.subgraph(nodes):
            produced = outputs_of(nodes)
            outs = []
            for a, p in zip(arrays, plans):
                out = subgraph_output(ctx, a, p, produced)
                if out in outs:  # one value for two outputs (a name and the memory it is):
                    out = typed(ctx.op("Identity", out), p)  # onnxruntime loses the second
                outs.append(out)
        graphs.append(ir.Graph([], outs, nodes=nodes, name=f"{ctx.function_name}_{label}"))
    results = ctx.op("If", cond, outputs=len(plans), then_branch=graphs[0],
                     else_branch=graphs[1])
    results = [results] if len(plans) == 1 else list(results)
    return [typed(v, p) for v, p in zip(results, plans)]


def lower_if(lowering, node: ast.If, cond_value: Any) -> None:
    """``if`` on a run-time condition: both branches become subgraphs of one ``If``."""
    if guards.raise_site(lowering, node, cond_value):  # 'assert' / 'if c: raise': no If
        return
    cond = condition(lowering.ctx, cond_value)

    def block(body: list, holds: bool) -> None:
        with optional_reads.narrowed_by(lowering, node.test, holds):  # 'if best is None:'
            lowering.block(body)
    then = lower_branch(lowering, lambda: block(node.body, True))
    if guards.inline_guard(lowering, node, then):  # code only a failed check skips
        return
    other = lower_branch(lowering, lambda: block(node.orelse, False))
    join_branches(lowering, cond, then, other, getattr(node, "pyonnx_live_out", None),
                   lowering.loc_of(node).lineno, "if", return_guard=_is_return_guard(node))


def _written_argument(ctx, *values: Any) -> bool:
    """Whether a value is a complex argument the function wrote into: its final value is the
    caller's (complex_boundary.written_arguments reads it from the name at the end), so the
    name leaves the ``If`` although nothing reads it later."""
    from pyonnx.frontend.graph.complex_values import Complex
    from pyonnx.frontend.lower.complex_state import written_arguments
    return any(isinstance(v, Complex) and v.param is not None
               and v.param in written_arguments(ctx) for v in values)


def _mixed_error(lowering, name: Any, a: Plan, b: Plan, line: int, construct: str):
    """The error for returning a value that is a Python number on one path only."""
    shown = "the return value" if not isinstance(name, str) or name.startswith(RETURN_VALUE) \
        else f"'{name}'"
    python = isinstance(a, Static) and type(a.value) in (int, float, bool) or \
        isinstance(a, Leaf) and a.weak
    first, second = ("a Python number", "a numpy value") if python else \
        ("a numpy value", "a Python number")
    return lowering.ctx.error(
        f"{shown} is {first} on one path and {second} on the other (the branches of the "
        f"'{construct}' at line {line}), and it is returned: numpy returns a different type "
        "depending on the path; make both the same (e.g. float(...)/int(...) on both, or "
        "np.float64(...) on both)")


def _is_return_guard(node: ast.If) -> bool:
    """True for the ``if not _pyonnx_return:`` (no else) early_return puts around the rest of
    a block: when its test is false the function has returned, and every later statement runs
    under the same guard, so a name bound only in its body is never read on the other path."""
    test = node.test
    return (not node.orelse and isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
            and isinstance(test.operand, ast.Name) and test.operand.id == RETURN_FLAG)


def unrolled_iteration(lowering, node: ast.For, cond_value: Any, run: Callable[[], None]) -> None:
    """One unrolled iteration of a static ``for`` loop whose extra test (a ``break`` flag) is
    only known at run time: the iteration runs under an ``If``."""
    cond = condition(lowering.ctx, cond_value)
    then = lower_branch(lowering, run)
    other = lower_branch(lowering, lambda: None)
    join_branches(lowering, cond, then, other, node.pyonnx_live_iter,
                   lowering.loc_of(node).lineno, "for")


_RESULT = object()  # the key of a conditional expression's value among the merged names


def join_branches(lowering, cond: ir.Value, then: Branch, other: Branch,
                   live: frozenset[str] | None, line: int, construct: str,
                   result: bool = False, return_guard: bool = False) -> Any:
    """Binds, after an ``If`` on ``cond``, every live name either branch changed and the
    contents of every buffer a branch wrote; returns the merged ``result`` of expressions.

    ``return_guard``: the ``if`` is early_return's guard (see :func:`_is_return_guard`), so a
    name its body binds gets a stand-in on the returned path instead of becoming Undefined."""
    ctx = lowering.ctx
    state: aliases.AliasState = ctx.aliases
    then_env, else_env = then.env, other.env
    before = lowering.env.locals
    outer = outer_ids(ctx)
    buffers = changed_buffers(ctx, [then.memory, other.memory], outer)
    # (a complex argument written in a branch is carried though not read after: its final
    # value is the caller's, complex_writes.written_arguments)
    names = sorted(n for n in set(then_env) | set(else_env)
                   if (then_env.get(n, MISSING) is not before.get(n, MISSING)
                       or else_env.get(n, MISSING) is not before.get(n, MISSING))
                   and (live is None or n in live
                        or _written_argument(ctx, then_env.get(n), else_env.get(n))))
    merged: list[tuple[Any, Plan]] = []
    values: list[tuple[Any, Any]] = []
    derived: list[tuple[str, aliases.Buffer, tuple]] = []
    complex_derived: list[tuple[str, Any]] = []  # (name, a complex value: same view per path)
    ambiguous: dict[Any, Any] = {}  # name -> its two paths' memory, or None (refused)
    guarded: set[Any] = set()  # flag-guarded names: bound on one path, read on it only
    stand_ins: dict[Any, Any] = {}  # their stand-ins on the other path (never read)
    mixed: dict[Any, Exception] = {}  # names joined from a Python number and a numpy value
    rewrap: dict[Any, list] = {}  # maybe-bound names: [then flag, else flag, message]
    for b in buffers:
        a_val = then.memory.get(b, state.memory.get(b, b.initial))
        b_val = other.memory.get(b, state.memory.get(b, b.initial))
        merged.append((b, join_or_error(lowering, "an array written in a branch",
                                         plan_of(a_val), plan_of(b_val),
                                         f"the branches of the '{construct}' at line {line}")))
        values.append((a_val, b_val))
    keys: list[Any] = list(names) + ([_RESULT] if result else [])
    static_result: Any = None  # a conditional expression's value when both sides agree statically
    for name in keys:
        if name is _RESULT:
            a, b = then.result, other.result
        else:
            a, b = then_env.get(name, MISSING), else_env.get(name, MISSING)
        a_undef, b_undef = isinstance(a, Undefined), isinstance(b, Undefined)
        maybe = maybe_bound.join_sides(ctx, a, b, MISSING) if a_undef or b_undef else None
        if maybe is not None:  # first bound in a loop that may run 0 times (maybe_bound.py)
            a, b, *rewrap[name] = maybe
            a_undef = b_undef = False
        if a_undef and b_undef:
            # (unbound on a path: a maybe-bound one's values are the branch's own; a name
            # never bound on one path takes the other path's message, MISSING has none: fuzz
            # seed 14400085)
            known = b if a is MISSING else a
            lowering.env.bind(name, known if known.bound is None else Undefined(known.message))
            continue
        if a_undef or b_undef:
            # A branch that returned or raised on every path (its return flag statically
            # true: ``else: raise ValueError(...)``) reaches no later read: everything after
            # this 'if' runs under early_return's guard, as after a return guard.
            returned = (a_undef and then_env.get(RETURN_FLAG) is True) or \
                (b_undef and else_env.get(RETURN_FLAG) is True)
            stale = a if isinstance(a, Stale) else b if isinstance(b, Stale) else None
            # (the path that returned or raised is never read after; a stale value on the
            # other path is read there: stale after the join too, fuzz seed 47001381 took
            # the returned path's old value and gave the live path a stand-in)
            dead = _dead_side(name, return_guard) if return_guard else \
                0 if a_undef and then_env.get(RETURN_FLAG) is True else \
                1 if b_undef and else_env.get(RETURN_FLAG) is True else None
            if stale is not None and not internal(name) and (
                    not return_guard and not returned
                    or dead is not None and (stale is a) != (dead == 0)):
                lowering.env.bind(name, stale)  # (its own reason, not "unassigned there")
                continue
            if not internal(name) and not return_guard and not returned:
                if construct == "if":
                    missing = "the 'if' branch" if a_undef else "the 'else' branch"
                    has = "else" if a_undef else "if"
                    message = (
                        f"'{name}' is assigned in the '{has}' branch of the 'if' at line {line} "
                        f"but not in {missing}, which runs when the condition is "
                        f"{'true' if a_undef else 'false'}; assign it before the 'if' or in both "
                        "branches")
                else:
                    message = (f"'{name}' may be unbound here: the loop at line {line} may stop "
                               "before assigning it; assign it before the loop")
                lowering.env.bind(name, Undefined(message))
                continue
            # A flag-guarded value (the return value, or a name bound under the return guard):
            # the other path never reads it.
            known = b if a_undef else a
            guarded.add(name)  # (later writes run on the other path only: never stale)
            stand_in = placeholder(ctx, plan_of(known))
            stand_ins[name] = stand_in
            a, b = (stand_in, b) if a_undef else (a, stand_in)
        if name is not _RESULT and name not in rewrap and complex_aliases.same_view(ctx, a, b):
            complex_derived.append((name, a))  # a complex name: its part buffers' views
            continue
        ea, eb = aliases.entry_of(ctx, a), aliases.entry_of(ctx, b)
        # (steps with a marker, AMBIGUOUS or UNKNOWN, cannot be re-derived: fuzz seed 13002843)
        if ea and eb and ea[0] is eb[0] and aliases.steps_equal(ea[1], eb[1]) and \
                all(hasattr(s, "forward") for s in ea[1]) and \
                is_outer(ctx, ea[0], outer) and name is not _RESULT and name not in rewrap:
            derived.append((name, ea[0], ea[1]))  # the same view on both paths: re-derived
            continue
        # (a name not live after the 'if' reads no memory later: a view made in a branch and
        # dropped, fuzz seed 41000157)
        calts = complex_choices.join_alternatives(
            ctx, a, b, name, (_live(then_env, live, name), _live(else_env, live, name)), outer)
        if calts is not None:  # complex values: per part (complex_choices)
            ambiguous[name] = calts
        elif any(memory_sharing.shares_memory(ctx, v, name, env)
                 for v, env in ((a, _live(then_env, live, name)),
                                (b, _live(else_env, live, name)))):
            # The name may share memory with other names on one path only: a later write
            # through it changes them depending on run-time data (choices.py follows it when
            # it can: the memory each path saw, under the condition).
            # (names dead after the join hold nothing a later write could reach: a view
            # v4 = v1[::2] of a new v1 made and dropped in the branch, fuzz seed 20002768)
            envs = (_live(then_env, live, name), _live(else_env, live, name))
            if isinstance(a, (tuple, list, dict)) and isinstance(b, (tuple, list, dict)):
                # per array item (d = {'u': a0} on one path, {'u': a0[::-1]} on the other)
                ambiguous[name] = choices.container_alternatives(ctx, a, b, name, envs, outer)
            else:
                alts = (choices.alternative(ctx, a, name, envs[0], outer, made_here=True),
                        choices.alternative(ctx, b, name, envs[1], outer, made_here=True))
                ambiguous[name] = alts if None not in alts else None
        plan = join_or_error(lowering, "the value" if name is _RESULT else name, plan_of(a),
                              plan_of(b), f"the branches of the '{construct}' at line {line}"
                              if name is not _RESULT else "a conditional expression")
        if isinstance(plan, Leaf) and mixes_python_scalar(plan_of(a), plan_of(b)):
            mixed[name] = _mixed_error(lowering, name, plan_of(a), plan_of(b), line, construct)
            if isinstance(name, str) and name.startswith(RETURN_VALUE):
                raise mixed[name]  # returned on both paths: numpy's type depends on the path
        if isinstance(plan, Static):
            if name is _RESULT:
                # (not returned yet: the buffers and names the sides wrote are merged below;
                # `x.fill(3) if c else None` in a loop lost its write, found by the cplx helper)
                static_result = plan.value
                continue
            if name in rewrap:
                rewrap[name].append(plan.value)  # (bound once its flag is merged)
            else:
                lowering.env.bind(name, plan.value)
            continue
        merged.append((name, plan))
        values.append((a, b))
    kind_flags: dict[Any, ir.Value] = {}
    complex_joins: list[tuple] = []  # (name, merged value, its sides): complex_paths
    kinds: list[tuple[Any, Any, tuple]] = []  # (name, merged value, sides): after the flags
    # A 0-d value that is a 0-d array on one path and a numpy scalar on the other: an If
    # output says which (returned with the value: convert._outputs).
    # (a buffer's contents, when a path's are: stmt._in_place)
    for (key, plan), sides in list(zip(merged, values)):
        if not isinstance(plan, Leaf) or plan.shape != () or plan.weak or \
                isinstance(key, aliases.Buffer) and not any(
                    isinstance(v, Array) and v.value in state.mixed0d for v in sides):
            continue
        if isinstance(key, aliases.Buffer):
            kinds.append((key, None, sides))
        flags = scalar_kinds.side_flags(ctx, [None if s is stand_ins.get(key) else s
                                              for s in sides])
        if flags is not None:
            merged.append((_KindFlag(key), Leaf(_BOOL, ())))
            values.append(tuple(Array(f, _BOOL, ()) if isinstance(f, ir.Value) else
                                Array(ctx.const(np.array(f)), _BOOL, ()) for f in flags))
    # A 0-d number that is a Python number on some paths (graph/path_weak), where a path's own
    # flag is made inside it (an inner join's): an If output carries the flag out.
    py_flags: dict[Any, ir.Value] = {}
    inside = tuple({id(n) for n in b.nodes} for b in (then, other))
    for (key, plan), sides in list(zip(merged, values)):
        for i, (leaf, leaf_sides) in enumerate(path_types.number_leaves(plan, sides)):
            if not isinstance(leaf, Leaf) or leaf.shape != () or leaf.weak:
                continue
            flags = path_types.side_python_flags(ctx, leaf_sides,
                                                 _dead_side(key, return_guard), inside)
            if flags is not None:
                merged.append((_PyFlag(key, i), Leaf(_BOOL, ())))
                values.append(tuple(Array(f, _BOOL, ()) if isinstance(f, ir.Value) else
                                    Array(ctx.const(np.array(f)), _BOOL, ()) for f in flags))
    # Conditions of choices made inside a branch (choices.Nested): extra If outputs, false on
    # the other path, so the outer choice can use them.
    exported: dict[int, ir.Value] = {}
    false = Array(ctx.const(np.array(False)), _BOOL, ())
    for name, alts in ambiguous.items():
        for side, alt in each_alternative(alts):
            if isinstance(alt, choices.Nested):
                for c, _ in alt.alternatives:
                    key = _Exported(id(c))
                    inner = Array(c, _BOOL, ())
                    merged.append((key, Leaf(_BOOL, ())))
                    values.append((inner, false) if side == 0 else (false, inner))
    # Whether a maybe-bound name is bound (maybe_bound.py): an If output, each path's flag.
    for name, (then_flag, else_flag, *_) in rewrap.items():
        merged.append((_Flag(name), Leaf(_BOOL, ())))
        values.append((maybe_bound.flag(ctx, then_flag), maybe_bound.flag(ctx, else_flag)))
    out_value: Any = static_result
    made: list[tuple[Any, Any, tuple]] = []
    unfollowed: list[tuple[Any, tuple]] = []
    if merged:
        leaves = [leaf for _, plan in merged for leaf in leaf_plans(plan)]
        branches = []
        for side, branch in ((0, then), (1, other)):
            with ctx.subgraph(branch.nodes):
                arrays = [leaf for (name, plan), vals in zip(merged, values)
                          for leaf in leaves_of(ctx, plan, vals[side])]
            branches.append((branch.nodes, arrays))
        outs = iter(_emit_if(lowering, cond, branches, leaves))
        by_key: dict[int, Any] = {}
        for (key, plan), sides in zip(merged, values):
            value = rebuild(plan, outs)
            if key in mixed:
                ctx.mixed_scalars[id(value.value)] = mixed[key]
            path_types.mark(ctx, value, plan, sides, cond,
                            f"the branches of the '{construct}' at line {line}",
                            _dead_side(key, return_guard))
            by_key[id(key)] = value
            if isinstance(key, _Exported):
                exported[key.cond] = value.value
            elif isinstance(key, _KindFlag):
                kind_flags[key.key] = value.value
            elif isinstance(key, _PyFlag):
                py_flags[key.key] = value.value
                merged_leaf = path_types.number_leaf_at(by_key[id(key.key)], key.index)
                path_weak.mark(ctx, merged_leaf,
                               f"the branches of the '{construct}' at line {line}", value.value)
            elif isinstance(key, _Flag):
                then_flag, else_flag, message, merged_value = rewrap[key.name]
                lowering.env.bind(key.name, Undefined(message, (merged_value, value.value)))
            elif isinstance(key, aliases.Buffer):
                state.memory[key] = value
                state.register(value, key, ())
                kinds = [(k, value if k is key else v, s) for k, v, s in kinds]
            else:
                if key is _RESULT:
                    out_value = value
                else:
                    if key in rewrap:
                        rewrap[key].append(value)  # (bound once its flag is merged)
                    else:
                        lowering.env.bind(key, value)
                # (a stand-in is never read: the kind is the bound path's, fuzz seed 41000319)
                kinds.append((key, value, tuple(s for s in sides
                                                if s is not stand_ins.get(key))))
                unread = {i for i, s in enumerate(sides) if s is stand_ins.get(key)} | \
                    {_dead_side(key, return_guard)} - {None}
                complex_joins.append((key, value, complex_paths.sides_of(list(sides), unread)))
                if key in ambiguous:
                    made.append((value, ambiguous[key], () if key in guarded else sides))
        for key, value, sides in kinds:
            scalar_kinds.merge_kinds(ctx, value, list(sides), kind_flags.get(key))
        for key, value, sides in complex_joins:  # (a flag made in a branch is not read here)
            complex_paths.after_join(
                ctx, value, sides, lambda f: path_types.select_flag(ctx, cond, f[0], f[1]),
                f"the branches of the '{construct}' at line {line}",
                lambda f: all(id(f.producer()) not in nodes for nodes in inside),
                [cond, ctx.op("Not", cond)], key if isinstance(key, str) else "")
        for value, alts, sides in made:
            if isinstance(alts, complex_choices.ComplexChoice):
                unfollowed += [(item, item_sides if sides else ()) for item, item_sides
                               in alts.choose(ctx, value, cond, exported, choose)]
            elif isinstance(alts, choices.Leaves):  # a container: per array item
                for item, pair, item_sides in alts.resolve(value):
                    if pair is None:
                        unfollowed.append((item, item_sides if sides else ()))
                    else:
                        choose(ctx, item, cond, pair, exported)
            elif alts is None or not isinstance(value, Array):
                unfollowed.append((value, sides))
            else:
                choose(ctx, value, cond, alts, exported, sides)
    if buffers:
        alias_writes.rederive(lowering, set(buffers))
    for value, sides in unfollowed:
        # Marked after the re-derivation: the merged value is made after the branches'
        # writes, which it already shows (only later writes make it stale).
        mark_ambiguous(ctx, value, memory_sharing.candidates(ctx, *sides) if sides
                        else frozenset())
    for name, buffer, steps in derived:
        value = state.memory.get(buffer, buffer.initial)
        for step in steps:
            value = step.forward(ctx, value)
        value = Array(value.value, value.dtype, value.shape, value.weak)
        state.register(value, buffer, steps)
        lowering.env.bind(name, value)
    for name, value in complex_derived:
        lowering.env.bind(name, complex_aliases.rederived(ctx, value))
    return out_value


def _live(env: dict, live: frozenset[str] | None, name: Any) -> dict:
    """A branch's bindings of the names read after the join (all when that is not known)."""
    return env if live is None else {n: v for n, v in env.items() if n in live or n == name}


class _Flag:
    """The key of a maybe-bound name's flag among the If's outputs."""

    def __init__(self, name: str):
        self.name = name


def _dead_side(key: Any, return_guard: bool) -> int | None:
    """The side of early_return's guard whose value of ``key`` is never read (its path has
    returned): the else side for a user's name; None for the return value itself (set on
    that path) and other internal names."""
    return 1 if return_guard and isinstance(key, str) and not internal(key) else None


class _PyFlag:
    """The key of a merged 0-d value's flag (true where it is a Python number) among the If's
    outputs (path_types.side_python_flags); ``index``: which leaf of a tuple, list or dict."""

    def __init__(self, key: Any, index: int = 0):
        self.key = key
        self.index = index


class _KindFlag:
    """The key of a merged 0-d value's flag (true where it is a 0-d array) among the If's
    outputs."""

    def __init__(self, key: Any):
        self.key = key


class _Exported:
    """The key of an inner choice's condition among the If's outputs."""

    def __init__(self, cond: int):
        self.cond = cond

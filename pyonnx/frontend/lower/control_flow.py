"""Run-time control flow: ``if``, conditional expressions, ``and``/``or``, ``for`` and ``while``
whose condition or trip count depends on array values → ONNX ``If`` and ``Loop``.

Input: canonical ASTs (jumps are flags, see :mod:`pyonnx.frontend.canonicalize`) annotated by
:mod:`pyonnx.frontend.analysis`, and the :class:`FunctionLowering` lowering them. Output: If and
Loop nodes whose subgraphs hold the lowered branches and bodies, and the environment after them.

The algorithm is onnxscript's: an ``If`` outputs the names a branch assigns that are live after
it; a ``Loop`` carries the names its body assigns that are live at its header. The types are
found by lowering: a branch or body is lowered into a subgraph, and the types its names end
with are joined with the types they started with (:mod:`structure`); a loop body whose state
types widen (a shape that grows, a Python number that becomes an array) is lowered again with
the wider types until they agree. Names bound on only some paths become
:class:`~pyonnx.frontend.lower.values.Undefined`: reading one later is a ConversionError naming
where it is missing.

Short conditional expressions whose branches cannot fail at run time (comparisons and
arithmetic, no indexing) are computed on both sides and selected with ``Where``: an ``If``
costs 1.3–2.6 µs in onnxruntime, more than the few nodes it would skip.
"""

from __future__ import annotations

import ast
import contextlib
from typing import Any, Callable, Iterator

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.canonicalize.templates import FLAG_PREFIX
from pyonnx.frontend.lower import aliases, dtypes, kernels
from pyonnx.frontend.lower.structure import (
    JoinError, Leaf, Plan, SeqPlan, Static, is_number, join, leaf_plans, leaves_of, number_leaf,
    placeholder, plan_of, rebuild)
from pyonnx.frontend.lower.values import Array, Seq, Undefined, is_static

__all__ = ["condition", "lower_if", "select", "lower_loop", "shares_memory", "MISSING"]

_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)

MISSING = Undefined("unbound")  # a name with no binding at all on a path

# Ops that cannot fail at run time and have no effect but their output: a conditional
# expression made only of these is computed on both sides (see the module docstring).
_SPECULATABLE = frozenset({
    "Add", "Sub", "Mul", "Neg", "Abs", "Equal", "Less", "LessOrEqual", "Greater",
    "GreaterOrEqual", "Not", "And", "Or", "Xor", "Cast", "Identity", "Shape", "Size", "Where",
    "Max", "Min", "Sign", "Floor", "Ceil", "IsNaN", "IsInf", "Squeeze", "Unsqueeze", "Exp",
    "Sqrt", "Tanh", "Sigmoid", "Relu", "Reciprocal", "Round", "BitwiseAnd", "BitwiseOr",
    "BitwiseXor", "BitwiseNot",
})
_SPECULATE_MAX_NODES = 8


def _internal(name: str) -> bool:
    return name.startswith(FLAG_PREFIX)


def condition(ctx, value: Any) -> ir.Value:
    """A run-time condition as a 0-d bool value, as numpy's ``bool(a)`` reads it (an array of
    several elements fails at run time, as numpy raises ValueError)."""
    arr = ctx.asarray(value)
    if arr.dtype != _BOOL:
        arr = ctx.cast(arr, _BOOL)
    if arr.ndim:
        return ctx.op("Reshape", arr, ctx.const(np.array([], np.int64)))
    return arr.value


def _typed(value: ir.Value, leaf: Leaf | SeqPlan) -> ir.Value:
    tensor = ir.TensorType(dtypes.to_ir(leaf.dtype))
    if isinstance(leaf, SeqPlan):
        value.type = ir.SequenceType(tensor)
        return value
    value.type = tensor
    value.shape = ir.Shape(list(leaf.shape))
    return value


def _subgraph_output(ctx, arr: Array | Seq, leaf: Leaf | SeqPlan, produced: set[int]) -> ir.Value:
    """``arr`` as an output of the subgraph being built: cast to the leaf dtype, and produced
    by a node of this subgraph (an outer value or a constant passes through an Identity)."""
    if isinstance(arr, Array) and arr.dtype != leaf.dtype:
        arr = ctx.cast(arr, leaf.dtype)
    value = arr.value
    if id(value) not in produced:
        value = ctx.op("Identity", value)
    produced.add(id(value))
    return _typed(value, leaf)


def _produced(nodes: list[ir.Node]) -> set[int]:
    return {id(out) for n in nodes for out in n.outputs}


def _join_or_error(lowering, name: str, a: Plan, b: Plan, where: str, loop: bool = False) -> Plan:
    """join(a, b), or a ConversionError naming the variable, both types and the construct."""
    try:
        return join(a, b, loop)
    except JoinError as e:
        shown = "the return value" if name.startswith(FLAG_PREFIX + "retval") else f"'{name}'"
        if loop:
            text = (f"{shown} is {e.first} before an iteration of {where} and {e.second} after "
                    "it, so numpy's result would depend on the trip count")
        else:
            text = f"{shown} is {e.first} on one path and {e.second} on the other ({where})"
        raise lowering.ctx.error(f"{text}{'; ' + e.hint if e.hint else ''}") from None


# ------------------------------------------------------------------ branches
@contextlib.contextmanager
def _dynamic(lowering) -> Iterator[None]:
    lowering.dynamic_depth += 1
    try:
        yield
    finally:
        lowering.dynamic_depth -= 1


class _Branch:
    """One lowered branch: the bindings of every active function frame and the buffers'
    contents at its end, its nodes, and the value it computed (for expressions)."""

    def __init__(self, frames: list[dict], memory: dict, nodes: list[ir.Node], result: Any):
        self.frames, self.memory, self.nodes, self.result = frames, memory, nodes, result

    @property
    def env(self) -> dict:
        return self.frames[-1]


@contextlib.contextmanager
def _isolated(lowering) -> Iterator[None]:
    """Runs the block on copies of every frame's bindings and of the buffers' contents (a write
    in a branch rebinds names in the functions inlining this one too); restores them after."""
    ctx = lowering.ctx
    originals = [(f, f.env.locals) for f in ctx.frames]
    memory = ctx.aliases.memory
    for f, env in originals:
        f.env.locals = dict(env)
    ctx.aliases.memory = dict(memory)
    try:
        yield
    finally:
        for f, env in originals:
            f.env.locals = env
        ctx.aliases.memory = memory


def _branch(lowering, run: Callable[[], Any]) -> _Branch:
    """Lowers one branch into a fresh subgraph, from the current bindings; restores them."""
    ctx = lowering.ctx
    with _isolated(lowering):
        with ctx.subgraph() as nodes, _dynamic(lowering):
            result = run()
        return _Branch([f.env.locals for f in ctx.frames], ctx.aliases.memory, nodes, result)


def _outer_ids(ctx) -> set[int]:
    """ids of the Arrays visible before a branch or loop (bindings of every frame, buffers)."""
    seen: set[int] = set()

    def walk(v: Any) -> None:
        if isinstance(v, Array):
            seen.add(id(v))
        elif isinstance(v, (tuple, list)):
            for x in v:
                walk(x)
    for f in ctx.frames:
        for v in f.env.locals.values():
            walk(v)
    for v in ctx.aliases.memory.values():
        walk(v)
    return seen


def _is_outer(ctx, buffer: aliases.Buffer, outer: set[int]) -> bool:
    return buffer in ctx.aliases.memory or id(buffer.initial) in outer or buffer.param is not None


def _changed_buffers(ctx, memories: list[dict], outer: set[int]) -> list[aliases.Buffer]:
    """Buffers visible before the branches (or loop) whose contents differ on some path."""
    before = ctx.aliases.memory
    found = []
    for mem in memories:
        for b, v in mem.items():
            if b in found or not _is_outer(ctx, b, outer):
                continue
            if any(m.get(b, before.get(b, b.initial)) is not before.get(b, b.initial)
                   for m in memories):
                found.append(b)
    return sorted(found, key=lambda b: b.id)


def _emit_if(lowering, cond: ir.Value, branches: list[tuple[list[ir.Node], list[Array]]],
             plans: list[Leaf]) -> list[ir.Value]:
    ctx = lowering.ctx
    graphs = []
    for label, (nodes, arrays) in zip(("then", "else"), branches):
        with ctx.subgraph(nodes):
            produced = _produced(nodes)
            outs = [_subgraph_output(ctx, a, p, produced) for a, p in zip(arrays, plans)]
        graphs.append(ir.Graph([], outs, nodes=nodes, name=f"{ctx.function_name}_{label}"))
    results = ctx.op("If", cond, outputs=len(plans), then_branch=graphs[0],
                     else_branch=graphs[1])
    results = [results] if len(plans) == 1 else list(results)
    return [_typed(v, p) for v, p in zip(results, plans)]


def lower_if(lowering, node: ast.If, cond_value: Any) -> None:
    """``if`` on a run-time condition: both branches become subgraphs of one ``If``."""
    cond = condition(lowering.ctx, cond_value)
    then = _branch(lowering, lambda: lowering.block(node.body))
    other = _branch(lowering, lambda: lowering.block(node.orelse))
    _join_branches(lowering, cond, then, other, getattr(node, "pyonnx_live_out", None),
                   lowering.loc_of(node).lineno, "if")


def unrolled_iteration(lowering, node: ast.For, cond_value: Any, run: Callable[[], None]) -> None:
    """One unrolled iteration of a static ``for`` loop whose extra test (a ``break`` flag) is
    only known at run time: the iteration runs under an ``If``."""
    cond = condition(lowering.ctx, cond_value)
    then = _branch(lowering, run)
    other = _branch(lowering, lambda: None)
    _join_branches(lowering, cond, then, other, node.pyonnx_live_iter,
                   lowering.loc_of(node).lineno, "for")


_RESULT = object()  # the key of a conditional expression's value among the merged names


def _join_branches(lowering, cond: ir.Value, then: _Branch, other: _Branch,
                   live: frozenset[str] | None, line: int, construct: str,
                   result: bool = False) -> Any:
    """Binds, after an ``If`` on ``cond``, every live name either branch changed and the
    contents of every buffer a branch wrote; returns the merged ``result`` of expressions."""
    ctx = lowering.ctx
    state: aliases.AliasState = ctx.aliases
    then_env, else_env = then.env, other.env
    before = lowering.env.locals
    outer = _outer_ids(ctx)
    buffers = _changed_buffers(ctx, [then.memory, other.memory], outer)
    names = sorted(n for n in set(then_env) | set(else_env)
                   if (then_env.get(n, MISSING) is not before.get(n, MISSING)
                       or else_env.get(n, MISSING) is not before.get(n, MISSING))
                   and (live is None or n in live))
    merged: list[tuple[Any, Plan]] = []
    values: list[tuple[Any, Any]] = []
    derived: list[tuple[str, aliases.Buffer, tuple]] = []
    ambiguous: set[Any] = set()
    for b in buffers:
        a_val = then.memory.get(b, state.memory.get(b, b.initial))
        b_val = other.memory.get(b, state.memory.get(b, b.initial))
        merged.append((b, _join_or_error(lowering, "an array written in a branch",
                                         plan_of(a_val), plan_of(b_val),
                                         f"the branches of the '{construct}' at line {line}")))
        values.append((a_val, b_val))
    keys: list[Any] = list(names) + ([_RESULT] if result else [])
    for name in keys:
        if name is _RESULT:
            a, b = then.result, other.result
        else:
            a, b = then_env.get(name, MISSING), else_env.get(name, MISSING)
        a_undef, b_undef = isinstance(a, Undefined), isinstance(b, Undefined)
        if a_undef and b_undef:
            lowering.env.bind(name, a)
            continue
        if a_undef or b_undef:
            if not _internal(name):
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
            # A flag-guarded internal value (the return value): the other path never reads it.
            known = b if a_undef else a
            stand_in = placeholder(ctx, plan_of(known))
            a, b = (stand_in, b) if a_undef else (a, stand_in)
        ea, eb = aliases.entry_of(ctx, a), aliases.entry_of(ctx, b)
        if ea and eb and ea[0] is eb[0] and aliases.steps_equal(ea[1], eb[1]) and \
                _is_outer(ctx, ea[0], outer) and name is not _RESULT:
            derived.append((name, ea[0], ea[1]))  # the same view on both paths: re-derived
            continue
        if any(shares_memory(ctx, v, name, env) for v, env in ((a, then_env), (b, else_env))):
            # The name may share memory with other names on one path only: a later write
            # through it would change them depending on run-time data.
            ambiguous.add(name)
        plan = _join_or_error(lowering, "the value" if name is _RESULT else name, plan_of(a),
                              plan_of(b), f"the branches of the '{construct}' at line {line}"
                              if name is not _RESULT else "a conditional expression")
        if isinstance(plan, Static):
            if name is _RESULT:
                return plan.value
            lowering.env.bind(name, plan.value)
            continue
        merged.append((name, plan))
        values.append((a, b))
    out_value: Any = None
    if merged:
        leaves = [leaf for _, plan in merged for leaf in leaf_plans(plan)]
        branches = []
        for side, branch in ((0, then), (1, other)):
            with ctx.subgraph(branch.nodes):
                arrays = [leaf for (name, plan), vals in zip(merged, values)
                          for leaf in leaves_of(ctx, plan, vals[side])]
            branches.append((branch.nodes, arrays))
        outs = iter(_emit_if(lowering, cond, branches, leaves))
        for key, plan in merged:
            value = rebuild(plan, outs)
            if isinstance(key, aliases.Buffer):
                state.memory[key] = value
                state.register(value, key, ())
            elif key is _RESULT:
                out_value = value
                if key in ambiguous:
                    _mark_ambiguous(ctx, value)
            else:
                lowering.env.bind(key, value)
                if key in ambiguous:
                    _mark_ambiguous(ctx, value)
    if buffers:
        aliases.rederive(lowering, set(buffers))
    for name, buffer, steps in derived:
        value = state.memory.get(buffer, buffer.initial)
        for step in steps:
            value = step.forward(ctx, value)
        value = Array(value.value, value.dtype, value.shape, value.weak)
        state.register(value, buffer, steps)
        lowering.env.bind(name, value)
    return out_value


def shares_memory(ctx, value: Any, name: Any, env: dict | None = None) -> bool:
    """Whether ``value`` (bound to ``name``) shares its memory with something else: a view or
    a base with views, a function argument (the caller's memory), or an Array another name
    holds (in ``env``, or in any active frame)."""
    if isinstance(value, (tuple, list)):
        return any(shares_memory(ctx, v, name, env) for v in value)
    if not isinstance(value, Array):
        return False
    state: aliases.AliasState = ctx.aliases
    entry = state.lookup(value)
    if entry is not None:
        buffer, steps = entry
        if steps or buffer.shared or any(v is not value and state.lookup(v) is not None
                        and state.lookup(v)[0] is buffer for v in _all_values(ctx, env)):
            return True
        if buffer.param is not None:
            return True
    if id(value) in state.params:
        return True
    envs = [env] if env is not None else []
    envs += [f.env.locals for f in ctx.frames]
    return any(n != name and v is value for e in envs for n, v in e.items())


def _all_values(ctx, env: dict | None) -> list[Any]:
    values = list(env.values()) if env is not None else []
    for f in ctx.frames:
        values.extend(f.env.locals.values())
    return [v for v in values if isinstance(v, Array)]


def _mark_ambiguous(ctx, value: Any) -> None:
    if isinstance(value, Array):
        ctx.aliases.register(value, aliases.Buffer(value), (aliases.AMBIGUOUS,))
    elif isinstance(value, (tuple, list)):
        for v in value:
            _mark_ambiguous(ctx, v)


def select(lowering, cond_value: Any, then: Callable[[], Any], otherwise: Callable[[], Any],
           what: str) -> Any:
    """A conditional expression on a run-time condition: ``then()`` if it holds, else
    ``otherwise()``, each evaluated only on its path (``a if c else b``, ``and``, ``or``)."""
    ctx = lowering.ctx
    cond = condition(ctx, cond_value)
    a_branch = _branch(lowering, then)
    b_branch = _branch(lowering, otherwise)
    a, b = a_branch.result, b_branch.result
    writes = _changed_buffers(ctx, [a_branch.memory, b_branch.memory], _outer_ids(ctx))
    nodes = a_branch.nodes + b_branch.nodes
    if not writes and _speculatable(nodes):
        # Both sides are cheap and cannot fail: compute both, pick with Where (when the
        # shapes agree: Where would broadcast a scalar side to the other's shape).
        plan = _join_or_error(lowering, what, plan_of(a), plan_of(b), "a conditional expression")
        leaves = leaf_plans(plan)
        if isinstance(plan, Static) or all(
                isinstance(p, Leaf) and None not in p.shape and
                _shape_of(x) == p.shape and _shape_of(y) == p.shape
                for p, x, y in zip(leaves, _flat(a), _flat(b))):
            ctx.nodes.extend(nodes)
            if isinstance(plan, Static):
                return plan.value
            picked = [kernels.where(ctx, Array(cond, _BOOL, ()), x, y).value
                      for x, y in zip(leaves_of(ctx, plan, a), leaves_of(ctx, plan, b))]
            value = rebuild(plan, iter(picked))
            if shares_memory(ctx, a, None) or shares_memory(ctx, b, None):
                _mark_ambiguous(ctx, value)  # a view of a or of b, decided at run time
            return value
    return _join_branches(lowering, cond, a_branch, b_branch, frozenset(),
                          ctx.loc.lineno if ctx.loc else 0, "expression", result=True)


def _flat(v: Any) -> list[Any]:
    if isinstance(v, (tuple, list)):
        return [x for item in v for x in _flat(item)]
    return [v]


def _shape_of(v: Any) -> tuple:
    return v.shape if isinstance(v, Array) else ()


def _speculatable(nodes: list[ir.Node]) -> bool:
    return len(nodes) <= _SPECULATE_MAX_NODES and all(
        n.op_type in _SPECULATABLE and not n.domain for n in nodes)


# --------------------------------------------------------------------- loops
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
    for n in names:
        v = env.locals.get(n)
        if isinstance(v, np.ndarray) and any(
                w is v and (f is not lowering or m != n)
                for f in ctx.frames for m, w in f.env.locals.items()):
            # A conversion-time array with several names that the loop may change in place:
            # make it a graph value first so that the names share it (and its memory).
            aliases.materialize(lowering, v, f"'{n}'")
    entry: dict[Any, Any] = {n: env.locals.get(n, MISSING) for n in names}
    # Names first bound in the loop are undefined after it if it runs 0 times: a user's name is
    # not carried (reading it after the loop is an error), an internal one (the return value)
    # is carried with a stand-in that its flag keeps anyone from reading.
    pending = {n for n, v in entry.items() if isinstance(v, Undefined)}
    # A carried Python number almost always changes in the body (a counter, a flag): start it
    # as a graph value, which saves lowering the body a second time to find that out.
    plans: dict[Any, Plan | None] = {
        n: (None if n in pending else number_leaf(v) if is_number(v) else plan_of(v))
        for n, v in entry.items()}
    outer = _outer_ids(ctx)
    # A carried name that shares memory (an argument, a view, an alias) follows its buffer:
    # the buffer is the state, the name is re-derived from it in the body and after the loop.
    # (Found by lowering: a name becomes derived when the body writes into its memory.)
    derived: set[str] = set()
    sharing = {n for n in names if n not in pending and isinstance(entry[n], Array)
               and shares_memory(ctx, entry[n], n)}
    for _ in range(8):
        exits, memory, nodes, inputs, cond_out, bound = _lower_body(
            lowering, node, plans, start, next_test, line, sharing - derived)
        written = {n for n in sharing - derived
                   if any(b.initial is bound.get(n) and v is not b.initial
                          for b, v in memory.items())}
        if written:
            for n in sorted(written):
                buffer, _ = state_aliases.buffer_of(entry[n])
                derived.add(n)
                del plans[n]
                if buffer not in plans:
                    entry[buffer] = state_aliases.memory.get(buffer, buffer.initial)
                    plans[buffer] = plan_of(entry[buffer])
            outer = _outer_ids(ctx)
            continue
        for n in derived:
            if not _same_view(ctx, entry[n], exits.get(n), set(plans)):
                raise ctx.error(
                    f"'{n}' shares memory with another array before the loop at line {line} "
                    "but is bound to a new array in it, so a write through it changes the "
                    "other array on the first iteration only; use a new name for the new array")
        widened: dict[Any, Plan | None] = dict(plans)
        for b in _changed_buffers(ctx, [memory], outer):
            if b not in widened:  # a buffer the body writes into becomes state
                entry[b] = state_aliases.memory.get(b, b.initial)
                widened[b] = plan_of(entry[b])
        for key, old in plans.items():
            exit_value = (memory.get(key, entry[key]) if isinstance(key, aliases.Buffer)
                          else exits.get(key, MISSING))
            if isinstance(exit_value, Undefined):
                continue
            if isinstance(old, Static) and isinstance(old.value, list) and \
                    not _same_list(old.value, exit_value):
                others = sorted(m for m, w in env.locals.items() if w is old.value and m != key)
                if others:
                    raise ctx.error(
                        f"the list '{key}' is changed in this loop and also named "
                        f"{', '.join(others)}; a list changed in run-time control flow may have "
                        "only one name")
            shown = "an array written in the loop" if isinstance(key, aliases.Buffer) else key
            widened[key] = plan_of(exit_value) if old is None else _join_or_error(
                lowering, shown, old, plan_of(exit_value), f"the loop at line {line}", loop=True)
        if widened == plans:
            break
        plans = widened
    else:
        raise ctx.error("the types of the loop's variables do not settle; give them fixed "
                        "types before the loop")
    buffers = {k for k in plans if isinstance(k, aliases.Buffer)}
    derived |= {n for n in names if n in plans and
                _same_view(ctx, entry[n], exits.get(n), buffers)}
    keys = [k for k in plans if plans[k] is not None and not isinstance(plans[k], Static)
            and not (k in pending and not _internal(k)) and k not in derived]
    leaves = [leaf for k in keys for leaf in leaf_plans(plans[k])]
    # Entry values (cast to the state types; internal names get a stand-in).
    initial: list[Array] = []
    for k in keys:
        value = entry[k] if k not in pending else placeholder(ctx, plans[k])
        initial.extend(leaves_of(ctx, plans[k], value))
    iter_in, cond_in, state_in = inputs
    state_of = dict(zip(plans, state_in))  # key -> its body inputs
    used_inputs = [v for k in keys for v in state_of[k]]
    with ctx.subgraph(nodes):
        produced = _produced(nodes) | {id(v) for v in used_inputs}
        if cond_out is None:
            # The loop stops on its trip count only: pass the (true) condition through, one
            # node less per iteration.
            outs = [cond_in]
        else:
            outs = [_subgraph_output(ctx, Array(cond_out, _BOOL, ()), Leaf(_BOOL, ()),
                                     _produced(nodes))]
        exit_arrays = [leaf for k in keys for leaf in leaves_of(
            ctx, plans[k], memory.get(k, entry[k]) if isinstance(k, aliases.Buffer) else exits[k])]
        outs += [_subgraph_output(ctx, a, p, produced) for a, p in zip(exit_arrays, leaves)]
    # Inputs of keys that are not state (derived names, static ones) must not be read.
    graph = ir.Graph([iter_in, cond_in, *used_inputs], outs, nodes=nodes,
                     name=f"{ctx.function_name}_loop_L{line}")
    # An omitted condition means true in ONNX, but onnx's reference evaluator runs no iteration
    # then: a constant true serves both runtimes.
    first_value = ctx.const(np.array(True)) if (is_static(first) and first is True) \
        else condition(ctx, first)
    results = ctx.op("Loop", count, first_value, *initial, outputs=len(leaves), body=graph)
    results = [results] if len(leaves) == 1 else list(results or ())
    finals = iter(_typed(v, p) for v, p in zip(results, leaves))
    for k in keys:
        value = rebuild(plans[k], finals)
        if isinstance(k, aliases.Buffer):
            state_aliases.memory[k] = value
            state_aliases.register(value, k, ())
        else:
            env.bind(k, value)
    for n in names:
        plan = plans.get(n)
        if n in pending and not _internal(n):
            env.bind(n, Undefined(
                f"'{n}' is first assigned inside the loop at line {line} and may be unbound "
                "after it (the loop can run 0 times); assign it before the loop"))
        elif isinstance(plan, Static):
            env.bind(n, plan.value)
    if buffers:
        aliases.rederive(lowering, buffers)


def _same_view(ctx, before: Any, after: Any, buffers: set) -> bool:
    """Whether a name is the same view of a carried buffer before and after an iteration."""
    e0, e1 = aliases.entry_of(ctx, before), aliases.entry_of(ctx, after)
    return bool(e0 and e1 and e0[0] is e1[0] and e0[0] in buffers
                and aliases.steps_equal(e0[1], e1[1]))


def _lower_body(lowering, node, plans, start, next_test, line, sharing=frozenset()):
    """Lowers the loop body once with state types ``plans`` (names and buffers); returns the
    names' values and the buffers' contents at the end of the body, the body's nodes, its
    inputs (iteration number, condition, per key its state inputs) and its condition output."""
    ctx = lowering.ctx
    env = lowering.env
    iter_in = ir.Value(name=ctx.fresh_name("iter"), type=ir.TensorType(ir.DataType.INT64),
                       shape=ir.Shape([]))
    cond_in = ir.Value(name=ctx.fresh_name("cond"), type=ir.TensorType(ir.DataType.BOOL),
                       shape=ir.Shape([]))
    state_in: list[list[ir.Value]] = []
    bound: dict[Any, Any] = {}
    with _isolated(lowering):
        buffers = set()
        for key, plan in plans.items():
            inputs: list[ir.Value] = []
            state_in.append(inputs)
            if plan is None:
                env.bind(key, Undefined(
                    f"'{key}' is read in the loop at line {line} before it is assigned on the "
                    "first iteration; assign it before the loop"))
                continue
            if isinstance(plan, Static):
                env.bind(key, _fresh_static(plan.value))
                continue
            hint = f"buf{key.id}" if isinstance(key, aliases.Buffer) else key.lstrip("_")
            for p in leaf_plans(plan):
                inputs.append(_typed(ir.Value(name=ctx.fresh_name(hint)), p))
            value = rebuild(plan, iter(inputs))
            if isinstance(key, aliases.Buffer):
                ctx.aliases.memory[key] = value
                ctx.aliases.register(value, key, ())
                buffers.add(key)
            else:
                env.bind(key, value)
                bound[key] = value
                if key in sharing and isinstance(value, Array):
                    # The name shares memory outside the loop: a write or an in-place operator
                    # on it must be seen (lower_loop then follows the memory instead).
                    ctx.aliases.buffer_of(value)[0].shared = True
        ctx.loop_buffers.append((buffers, {id(v) for v in bound.values()}))
        with ctx.subgraph() as nodes, _dynamic(lowering):
            if buffers:
                # Views of a carried buffer (names bound before the loop) see its state.
                aliases.rederive(lowering, buffers)
            if start is not None:
                start(Array(iter_in, _I64, (), weak=True))
            lowering.block(node.body)
            cond_out = None
            if next_test is not None:
                test = next_test()
                if not (is_static(test) and bool(test) is True):
                    cond_out = condition(ctx, test) if not is_static(test) else ctx.const(
                        np.array(bool(test)))
        ctx.loop_buffers.pop()
        return (env.locals, ctx.aliases.memory, nodes, (iter_in, cond_in, state_in), cond_out,
                bound)


def _same_list(a: list, b: Any) -> bool:
    return isinstance(b, list) and len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _fresh_static(value: Any) -> Any:
    # A Python list is mutable: the body may be lowered more than once.
    return list(value) if isinstance(value, list) else value

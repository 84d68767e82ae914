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
from pyonnx.frontend.lower import dtypes, kernels
from pyonnx.frontend.lower.structure import (
    JoinError, Leaf, Plan, SeqPlan, Static, is_number, join, leaf_plans, leaves_of, number_leaf,
    placeholder, plan_of, rebuild)
from pyonnx.frontend.lower.values import Array, Seq, Undefined, is_static

__all__ = ["condition", "lower_if", "select", "lower_loop", "MISSING"]

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


def _branch(lowering, run: Callable[[], Any]) -> tuple[dict, list[ir.Node], Any]:
    """Lowers one branch into a fresh subgraph, from the current bindings; restores them."""
    before = lowering.env.locals
    lowering.env.locals = dict(before)
    try:
        with lowering.ctx.subgraph() as nodes, _dynamic(lowering):
            result = run()
        return lowering.env.locals, nodes, result
    finally:
        lowering.env.locals = before


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


def _join_branches(lowering, cond: ir.Value, then: tuple, other: tuple,
                   live: frozenset[str] | None, line: int, construct: str) -> None:
    """Binds, after an ``If`` on ``cond``, every live name either branch changed."""
    ctx = lowering.ctx
    then_env, then_nodes, _ = then
    else_env, else_nodes, _ = other
    before = lowering.env.locals
    names = sorted(n for n in set(then_env) | set(else_env)
                   if (then_env.get(n, MISSING) is not before.get(n, MISSING)
                       or else_env.get(n, MISSING) is not before.get(n, MISSING))
                   and (live is None or n in live))
    merged: list[tuple[str, Plan]] = []
    values: list[tuple[Any, Any]] = []
    for name in names:
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
        plan = _join_or_error(lowering, name, plan_of(a), plan_of(b),
                              f"the branches of the '{construct}' at line {line}")
        if isinstance(plan, Static):
            lowering.env.bind(name, plan.value)
            continue
        merged.append((name, plan))
        values.append((a, b))
    if not merged:
        # Nothing live changes: the branches only computed values nobody reads.
        return
    leaves = [leaf for _, plan in merged for leaf in leaf_plans(plan)]
    branches = []
    for side, nodes in ((0, then_nodes), (1, else_nodes)):
        with ctx.subgraph(nodes):
            arrays = [leaf for (name, plan), vals in zip(merged, values)
                      for leaf in leaves_of(ctx, plan, vals[side])]
        branches.append((nodes, arrays))
    outs = iter(_emit_if(lowering, cond, branches, leaves))
    for name, plan in merged:
        lowering.env.bind(name, rebuild(plan, outs))


def select(lowering, cond_value: Any, then: Callable[[], Any], otherwise: Callable[[], Any],
           what: str) -> Any:
    """A conditional expression on a run-time condition: ``then()`` if it holds, else
    ``otherwise()``, each evaluated only on its path (``a if c else b``, ``and``, ``or``)."""
    ctx = lowering.ctx
    cond = condition(ctx, cond_value)
    _, then_nodes, a = _branch(lowering, then)
    _, else_nodes, b = _branch(lowering, otherwise)
    plan = _join_or_error(lowering, what, plan_of(a), plan_of(b), "a conditional expression")
    if isinstance(plan, Static):
        ctx.nodes.extend(then_nodes + else_nodes)
        return plan.value
    leaves = leaf_plans(plan)
    if _speculatable(then_nodes + else_nodes) and all(
            None not in p.shape for p in leaves):
        # Both sides are cheap and cannot fail: compute both, pick with Where.
        ctx.nodes.extend(then_nodes + else_nodes)
        picked = []
        for x, y, p in zip(leaves_of(ctx, plan, a), leaves_of(ctx, plan, b), leaves):
            if not isinstance(p, Leaf) or x.shape != p.shape or y.shape != p.shape:
                break
            picked.append(kernels.where(ctx, Array(cond, _BOOL, ()), x, y).value)
        else:
            return rebuild(plan, iter(picked))
    branches = []
    for nodes, value in ((then_nodes, a), (else_nodes, b)):
        with ctx.subgraph(nodes):
            branches.append((nodes, leaves_of(ctx, plan, value)))
    return rebuild(plan, iter(_emit_if(lowering, cond, branches, leaves)))


def _speculatable(nodes: list[ir.Node]) -> bool:
    return len(nodes) <= _SPECULATE_MAX_NODES and all(
        n.op_type in _SPECULATABLE and not n.domain for n in nodes)


# --------------------------------------------------------------------- loops
def lower_loop(lowering, node: ast.For | ast.While, *, count: Array | None, first: Any,
               start: Callable[[Array], None] | None, next_test: Callable[[], Any] | None,
               targets: frozenset[str] = frozenset()) -> None:
    """A ``Loop`` node for ``node``.

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
    line = lowering.loc_of(node).lineno
    carried = sorted((node.pyonnx_assigned | targets) & node.pyonnx_live_iter)
    entry = {n: env.locals.get(n, MISSING) for n in carried}
    # Names first bound in the loop are undefined after it if it runs 0 times: a user's name is
    # not carried (reading it after the loop is an error), an internal one (the return value)
    # is carried with a stand-in that its flag keeps anyone from reading.
    pending = {n for n, v in entry.items() if isinstance(v, Undefined)}
    # A carried Python number almost always changes in the body (a counter, a flag): start it
    # as a graph value, which saves lowering the body a second time to find that out.
    plans: dict[str, Plan | None] = {
        n: (None if n in pending else number_leaf(v) if is_number(v) else plan_of(v))
        for n, v in entry.items()}
    for _ in range(8):
        body = _lower_body(lowering, node, plans, entry, start, next_test, line)
        exits, nodes, inputs, cond_out = body
        widened: dict[str, Plan | None] = {}
        for n in carried:
            exit_value = exits.get(n, MISSING)
            if isinstance(exit_value, Undefined):
                widened[n] = plans[n]
                continue
            old = plans[n]
            if isinstance(old, Static) and isinstance(old.value, list) and \
                    not _same_list(old.value, exit_value):
                others = sorted(m for m, w in env.locals.items() if w is old.value and m != n)
                if others:
                    raise ctx.error(
                        f"the list '{n}' is changed in this loop and also named "
                        f"{', '.join(others)}; a list changed in run-time control flow may have "
                        "only one name")
            new = plan_of(exit_value) if old is None else _join_or_error(
                lowering, n, old, plan_of(exit_value), f"the loop at line {line}", loop=True)
            widened[n] = new
        if widened == plans:
            break
        plans = widened
    else:
        raise ctx.error("the types of the loop's variables do not settle; give them fixed "
                        "types before the loop")
    state = [n for n in carried if plans[n] is not None and not isinstance(plans[n], Static)
             and not (n in pending and not _internal(n))]
    leaves = [leaf for n in state for leaf in leaf_plans(plans[n])]
    # Entry values (cast to the state types; internal names get a stand-in).
    initial: list[Array] = []
    for n in state:
        value = entry[n] if n not in pending else placeholder(ctx, plans[n])
        initial.extend(leaves_of(ctx, plans[n], value))
    iter_in, cond_in, state_in = inputs
    with ctx.subgraph(nodes):
        produced = _produced(nodes) | {id(v) for v in state_in}
        produced.discard(None)
        if cond_out is None:
            # The loop stops on its trip count only: pass the (true) condition through, one
            # node less per iteration.
            outs = [cond_in]
        else:
            outs = [_subgraph_output(ctx, Array(cond_out, _BOOL, ()), Leaf(_BOOL, ()),
                                     _produced(nodes))]
        exit_arrays = [leaf for n in state for leaf in leaves_of(ctx, plans[n], exits[n])]
        outs += [_subgraph_output(ctx, a, p, produced) for a, p in zip(exit_arrays, leaves)]
    graph = ir.Graph([iter_in, cond_in, *state_in[:len(leaves)]], outs, nodes=nodes,
                     name=f"{ctx.function_name}_loop_L{line}")
    # An omitted condition means true in ONNX, but onnx's reference evaluator runs no iteration
    # then: a constant true serves both runtimes.
    first_value = ctx.const(np.array(True)) if (is_static(first) and first is True) \
        else condition(ctx, first)
    results = ctx.op("Loop", count, first_value, *initial, outputs=len(leaves), body=graph)
    results = [results] if len(leaves) == 1 else list(results or ())
    finals = iter(_typed(v, p) for v, p in zip(results, leaves))
    for n in carried:
        plan = plans[n]
        if n in pending and not _internal(n):
            env.bind(n, Undefined(
                f"'{n}' is first assigned inside the loop at line {line} and may be unbound "
                "after it (the loop can run 0 times); assign it before the loop"))
        elif isinstance(plan, Static):
            env.bind(n, plan.value)
        elif plan is not None:
            env.bind(n, rebuild(plan, finals))


def _lower_body(lowering, node, plans, entry, start, next_test, line):
    """Lowers the loop body once with state types ``plans``; returns the names' values at the
    end of the body, the body's nodes, its inputs and its condition output."""
    ctx = lowering.ctx
    env = lowering.env
    before = env.locals
    env.locals = dict(before)
    iter_in = ir.Value(name=ctx.fresh_name("iter"), type=ir.TensorType(ir.DataType.INT64),
                       shape=ir.Shape([]))
    cond_in = ir.Value(name=ctx.fresh_name("cond"), type=ir.TensorType(ir.DataType.BOOL),
                       shape=ir.Shape([]))
    state_in: list[ir.Value] = []
    try:
        for n, plan in plans.items():
            if plan is None:
                env.bind(n, Undefined(
                    f"'{n}' is read in the loop at line {line} before it is assigned on the "
                    "first iteration; assign it before the loop"))
            elif isinstance(plan, Static):
                env.bind(n, _fresh_static(plan.value))
            else:
                values = []
                for p in leaf_plans(plan):
                    v = _typed(ir.Value(name=ctx.fresh_name(n.lstrip("_"))), p)
                    state_in.append(v)
                    values.append(v)
                env.bind(n, rebuild(plan, iter(values)))
        with ctx.subgraph() as nodes, _dynamic(lowering):
            if start is not None:
                start(Array(iter_in, _I64, (), weak=True))
            lowering.block(node.body)
            cond_out = None
            if next_test is not None:
                test = next_test()
                if not (is_static(test) and bool(test) is True):
                    cond_out = condition(ctx, test) if not is_static(test) else ctx.const(
                        np.array(bool(test)))
        return env.locals, nodes, (iter_in, cond_in, state_in), cond_out
    finally:
        env.locals = before


def _same_list(a: list, b: Any) -> bool:
    return isinstance(b, list) and len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _fresh_static(value: Any) -> Any:
    # A Python list is mutable: the body may be lowered more than once.
    return list(value) if isinstance(value, list) else value

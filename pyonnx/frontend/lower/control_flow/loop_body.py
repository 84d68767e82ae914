"""One lowering of a run-time loop's body: its state inputs bound (names, buffers, with the
0-d kinds and Python-number marks the state has), the body lowered into a fresh subgraph on
isolated copies of the bindings, and the next condition.

Input: the FunctionLowering, the loop statement and the state types (:mod:`.loops` lowers the
body again while they widen). Output: see :func:`lower_body`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import path_weak, scalar_kinds
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array, Undefined, is_static
from pyonnx.frontend.lower import alias_writes, aliases, memory_sharing
from pyonnx.frontend.lower.control_flow import complex_paths, held_items, maybe_bound, path_types
from pyonnx.frontend.lower.control_flow.common import (
    _I64, condition, dynamic, isolated, typed)
from pyonnx.frontend.lower.structure import Static, leaf_plans, rebuild

__all__ = ["lower_body"]


def lower_body(lowering, node, plans, start, next_test, line, sharing=frozenset(),
                kinds=None, held=None, weak_entry=frozenset(), stale=None, py_kinds=None,
                watched=None, flagged=None, alias_watch=None, py_flagged=None):
    """Lowers the loop body once with state types ``plans`` (names and buffers); returns the
    names' values and the buffers' contents at the end of the body, the body's nodes, its
    inputs (iteration number, condition, per key its state inputs), its condition output, the
    names bound to their state inputs. ``kinds``: the kinds of names' 0-d state values
    (scalar_kinds.state_kind); ``stale``: names an iteration leaves stale, with the refusal
    of a read.
    ``held``: containers whose items' memory is not followed (held_items), name → buffers;
    ``weak_entry``: names that are a Python number on the first iteration only; ``py_kinds``:
    Python numbers whose kind may differ between iterations, name -> the narrower kind;
    ``watched``: names whose state input a write to the given buffers makes stale (a view of
    that memory on the first iteration, read before the write only);
    ``flagged``: names carried with a "bound" flag (maybe_bound.flag_key), name -> the message
    of a failing read: bound as maybe-bound in the body; ``alias_watch``: names that may
    hold another carried name's memory from the second iteration on, name -> that name
    (loop_memory.aliases_across_iterations): AMBIGUOUS, stale after a write to it;
    ``py_flagged``: Python numbers an iteration may keep, carried with a flag
    (path_types.python_state_flags)."""
    ctx = lowering.ctx
    env = lowering.env
    iter_in = ir.Value(name=ctx.fresh_name("iter"), type=ir.TensorType(ir.DataType.INT64),
                       shape=ir.Shape([]))
    cond_in = ir.Value(name=ctx.fresh_name("cond"), type=ir.TensorType(ir.DataType.BOOL),
                       shape=ir.Shape([]))
    state_in: list[list[ir.Value]] = []
    bound: dict[Any, Any] = {}
    with isolated(lowering):
        buffers = set()
        marked: list = []  # watched names' state inputs, marked after the first re-derivation
        for key, plan in plans.items():
            inputs: list[ir.Value] = []
            state_in.append(inputs)
            if plan is None:
                if stale and key in stale:
                    env.bind(key, Undefined(stale[key]))
                else:
                    env.bind(key, Undefined(
                        f"'{key}' is read in the loop at line {line} before it is assigned on "
                        "the first iteration; assign it before the loop", unassigned=True))
                continue
            if isinstance(plan, Static):
                env.bind(key, _fresh_static(plan.value))
                continue
            hint = f"buf{key.id}" if isinstance(key, aliases.Buffer) else key.lstrip("_")
            for p in leaf_plans(plan):
                inputs.append(typed(ir.Value(name=ctx.fresh_name(hint)), p))
            value = rebuild(plan, iter(inputs))
            if isinstance(key, aliases.Buffer):
                ctx.aliases.memory[key] = value
                ctx.aliases.register(value, key, ())
                buffers.add(key)
            else:
                env.bind(key, value)
                bound[key] = value
                if kinds and key in kinds:
                    scalar_kinds.assume(ctx, value, kinds[key])
                if key in weak_entry and isinstance(value, Complex):
                    complex_paths.mark_first_iteration(value, line)
                elif key in weak_entry:
                    path_weak.mark(ctx, value, f"the loop at line {line}: a Python number on "
                                   "its first iteration only")
                if py_kinds and key in py_kinds:
                    path_weak.mark_kind(ctx, value, f"the loop at line {line}: another kind "
                                        "on some iterations", py_kinds[key], None)
                if held and key in held:
                    held_items.mark_items(ctx, value, held[key])
                if watched and key in watched and isinstance(value, Array):
                    marked.append((value, watched[key]))
                elif watched and key in watched and isinstance(value, Complex):
                    marked += [(value.re, watched[key]), (value.im, watched[key])]
                elif key in sharing and isinstance(value, Array):
                    # The name shares memory outside the loop: a write or an in-place operator
                    # on it must be seen (lower_loop then follows the memory instead).
                    ctx.aliases.buffer_of(value)[0].shared = True
        path_types.mark_python_state(ctx, env.locals, bound, py_flagged or set(),
                                     f"the loop at line {line}: a Python number on some "
                                     "iterations (the one it entered with, or one max()/min() "
                                     "kept)")
        for name, message in (flagged or {}).items():
            key = maybe_bound.flag_key(name)
            if key in env.locals:
                flag = env.locals.pop(key)
                if name in bound:
                    env.bind(name, Undefined(message, (bound[name], flag.value)))
        ctx.loop_buffers.append((buffers, {id(v) for v in bound.values()}))
        with ctx.subgraph() as nodes, dynamic(lowering):
            if buffers:
                # Views of a carried buffer (names bound before the loop) see its state.
                alias_writes.rederive(lowering, buffers)
            for value, maybe in marked:  # (stale from the body's first write to ``maybe``)
                memory_sharing.mark_ambiguous(ctx, value, maybe)
            for n, m in (alias_watch or {}).items():
                if isinstance(bound.get(n), Array) and isinstance(bound.get(m), Array):
                    memory_sharing.mark_ambiguous(
                        ctx, bound[n], frozenset({ctx.aliases.buffer_of(bound[m])[0]}))
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


def _fresh_static(value: Any) -> Any:
    # A Python list is mutable: the body may be lowered more than once.
    return list(value) if isinstance(value, list) else value

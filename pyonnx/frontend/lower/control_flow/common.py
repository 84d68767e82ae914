"""What the lowering of ``If`` and ``Loop`` share: conditions, typed subgraph outputs, type
joins with located errors, and lowering a block in isolation (on copies of every frame's
bindings and of the buffers' contents).

Input/output: see :mod:`pyonnx.frontend.lower.control_flow`.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.canonicalize.templates import FLAG_PREFIX
from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.lower import aliases
from pyonnx.frontend.lower.checks import CheckBuffer
from pyonnx.frontend.lower.structure import (
    JoinError, Leaf, Plan, SeqPlan, Static, join, optional_array_join, optional_join)
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array, Seq, Undefined

__all__ = ["MISSING", "condition", "typed", "subgraph_output", "outputs_of", "join_or_error",
           "dynamic", "Branch", "isolated", "lower_branch", "outer_ids", "is_outer",
           "changed_buffers", "internal"]

_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)

MISSING = Undefined("unbound")  # a name with no binding at all on a path

def internal(name: str) -> bool:
    return name.startswith(FLAG_PREFIX)


def condition(ctx, value: Any) -> ir.Value:
    """A run-time condition as a 0-d bool value, as numpy's ``bool(a)`` reads it (an array of
    several elements fails at run time, as numpy raises ValueError); a list built at run time
    is true when not empty."""
    if isinstance(value, Seq):
        from pyonnx.frontend.graph import sequences
        value = sequences.truth(ctx, value)
    from pyonnx.frontend.graph import records
    if isinstance(value, records.Records):
        value = records.truth(ctx, value)
    if isinstance(value, records.ComplexSeq):  # a run-time list of complex values
        from pyonnx.frontend.graph import sequences
        value = sequences.truth(ctx, value.re)
    if isinstance(value, Complex):  # nonzero: either part
        from pyonnx.frontend.lower.complex_ops import truth
        value = truth(ctx, value)
    arr = ctx.asarray(value)
    if arr.dtype != _BOOL:
        arr = ctx.cast(arr, _BOOL)
    if arr.ndim:
        return ctx.op("Reshape", arr, ctx.const(np.array([], np.int64)))
    return arr.value


def typed(value: ir.Value, leaf: Leaf | SeqPlan) -> ir.Value:
    tensor = ir.TensorType(dtypes.to_ir(leaf.dtype))
    if isinstance(leaf, SeqPlan):
        value.type = ir.SequenceType(tensor)
        return value
    value.type = tensor
    value.shape = ir.Shape(list(leaf.shape))
    return value


def subgraph_output(ctx, arr: Array | Seq, leaf: Leaf | SeqPlan, produced: set[int]) -> ir.Value:
    """``arr`` as an output of the subgraph being built: cast to the leaf dtype, and produced
    by a node of this subgraph (an outer value or a constant passes through an Identity), once:
    ``produced`` loses the value it returns, so a value that is two outputs (a returned
    argument that is also written back) gets an Identity the second time (onnxruntime gives
    None for the repeated output of a subgraph)."""
    if isinstance(arr, Array) and arr.dtype != leaf.dtype:
        arr = ctx.cast(arr, leaf.dtype)
    value = arr.value
    if id(value) not in produced:
        value = ctx.op("Identity", value)
    produced.discard(id(value))
    return typed(value, leaf)


def outputs_of(nodes: list[ir.Node]) -> set[int]:
    return {id(out) for n in nodes for out in n.outputs}


def join_or_error(lowering, name: str, a: Plan, b: Plan, where: str, loop: bool = False) -> Plan:
    """join(a, b), or a ConversionError naming the variable, both types and the construct."""
    try:
        return join(a, b, loop)
    except JoinError as e:
        # (a user's name, or the return value: `return None` on one path, a number on the
        # other, returned as None where its flag is false: convert's "maybe" output)
        returned = name.startswith(FLAG_PREFIX + "retval")
        try:  # (numbers or arrays of two dtypes on the non-None paths join no better)
            optional = None if internal(name) and not returned else optional_join(a, b, loop)
            if optional is None and returned:  # (an array or None: returned per call)
                optional = optional_array_join(a, b, loop)
        except JoinError:
            optional = None
        if optional is not None:  # a user's 'best = None' sentinel, a number elsewhere
            return optional
        shown = ("the return value" if name.startswith(FLAG_PREFIX + "retval")
                 else "the value of the comprehension (or sum/any/all over it)"
                 if name.startswith(FLAG_PREFIX + "comp") else f"'{name}'")
        if loop:
            text = (f"{shown} is {e.first} before an iteration of {where} and {e.second} after "
                    "it, so numpy's result would depend on the trip count")
        else:
            text = f"{shown} is {e.first} on one path and {e.second} on the other ({where})"
        hint = e.hint
        if not hint and (a == Static(None)) != (b == Static(None)):
            hint = ("a model has one type per value on every path, and which path runs is known "
                    "only at run time: use empty arrays (np.zeros((0, 4), x.dtype)) or a "
                    "sentinel instead of None")
        raise lowering.ctx.error(f"{text}{'; ' + hint if hint else ''}") from None


@contextlib.contextmanager
def dynamic(lowering) -> Iterator[None]:
    lowering.dynamic_depth += 1
    try:
        yield
    finally:
        lowering.dynamic_depth -= 1


class Branch:
    """One lowered branch: the bindings of every active function frame and the buffers'
    contents at its end, its nodes, and the value it computed (for expressions)."""

    def __init__(self, frames: list[dict], memory: dict, nodes: list[ir.Node], result: Any):
        self.frames, self.memory, self.nodes, self.result = frames, memory, nodes, result

    @property
    def env(self) -> dict:
        return self.frames[-1]


@contextlib.contextmanager
def isolated(lowering) -> Iterator[None]:
    """Runs the block on copies of every frame's bindings and of the buffers' contents (a write
    in a branch rebinds names in the functions inlining this one too); restores them after."""
    ctx = lowering.ctx
    from pyonnx.frontend.lower.complex_aliases import prepare
    prepare(ctx)  # complex values' parts as buffers first: the block's writes reach them
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


def lower_branch(lowering, run: Callable[[], Any]) -> Branch:
    """Lowers one branch into a fresh subgraph, from the current bindings; restores them."""
    ctx = lowering.ctx
    with isolated(lowering):
        with ctx.subgraph() as nodes, dynamic(lowering):
            result = run()
        return Branch([f.env.locals for f in ctx.frames], ctx.aliases.memory, nodes, result)


def outer_ids(ctx) -> set[int]:
    """ids of the Arrays visible before a branch or loop (bindings of every frame, buffers)."""
    seen: set[int] = set()

    def walk(v: Any) -> None:
        if isinstance(v, Array):
            seen.add(id(v))
        elif isinstance(v, Complex):  # its parts (views of part buffers: complex_choices)
            walk(v.re)
            walk(v.im)
        elif isinstance(v, (tuple, list, dict)):
            for x in (v.values() if type(v) is dict else v):
                walk(x)
    for f in ctx.frames:
        for v in f.env.locals.values():
            walk(v)
    for v in ctx.aliases.memory.values():
        walk(v)
    return seen


def is_outer(ctx, buffer: aliases.Buffer, outer: set[int]) -> bool:
    """Whether ``buffer`` is memory visible before the branches (or loop): its contents
    are in the alias state, its first value or parameter is bound there, or a choice visible
    there may write it (an alternative: ``t = a if c else a[::-1]`` with ``a`` rebound since,
    fuzz seed 24004504 lost the write ``t[-1] = 0`` made in an ``if`` of a loop that rebinds
    ``a``, and a later write through the loop's choice on ``a`` read the old values)."""
    if _visible(ctx, buffer, outer):
        return True
    seen = {buffer}
    for q in ctx.aliases.choices:  # (creation order: a choice sees memory made before it)
        if q in seen or not any(alt[0] in seen for _, alt in q.choice):
            continue
        if _visible(ctx, q, outer):
            return True
        seen.add(q)  # (an inner choice of a visible choice: followed on to the outer one)
    return False


def _visible(ctx, buffer: aliases.Buffer, outer: set[int]) -> bool:
    # (check state is visible everywhere: it starts as "not failed", checks.py)
    return isinstance(buffer, CheckBuffer) or buffer in ctx.aliases.memory or \
        id(buffer.initial) in outer or buffer.param is not None


def changed_buffers(ctx, memories: list[dict], outer: set[int]) -> list[aliases.Buffer]:
    """Buffers visible before the branches (or loop) whose contents differ on some path."""
    before = ctx.aliases.memory
    found = []
    for mem in memories:
        for b, v in mem.items():
            if b in found or not is_outer(ctx, b, outer):
                continue
            if any(m.get(b, before.get(b, b.initial)) is not before.get(b, b.initial)
                   for m in memories):
                found.append(b)
    return sorted(found, key=lambda b: b.id)

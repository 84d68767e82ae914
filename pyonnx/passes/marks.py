"""Composite marks: which numpy function a multi-node construction computes, kept valid while
passes replace values.

The frontend builds some float64 numpy functions (``np.arctan2``, ``np.cosh``...) from many
ONNX nodes and marks the last one ``meta["pyonnx.derivative"] = (name, inputs)``: the gradient
pass differentiates it as that function of those input values
(:data:`pyonnx.passes.gradient.registry.COMPOSITE_RULES`), not node by node (the branches a
construction discards would give NaN, 0 * inf, where it selects them out).

A mark names its inputs by ``ir.Value``, which is no use of the value: a pass that replaces a
value (``replace_all_uses_with``: SetItem lowering, constant folding, CSE) does not update it,
and the mark then points at a value no longer in the model. Passes replace values through
:func:`replace_value`, which leaves a forwarding pointer on the old value
(``meta["pyonnx.replaced_by"]``); :func:`mark_inputs` follows those pointers.

Input/output: onnx-ir nodes and values; nothing else of pyonnx.
"""

from __future__ import annotations

import onnx_ir as ir

__all__ = ["DERIVATIVE", "mark_inputs", "move_mark", "replace_value"]

DERIVATIVE = "pyonnx.derivative"
_REPLACED_BY = "pyonnx.replaced_by"


def replace_value(old: ir.Value, new: ir.Value, *, replace_graph_outputs: bool = False) -> None:
    """``old.replace_all_uses_with(new)``, recording that ``new`` stands for ``old`` (for the
    composite marks naming ``old``)."""
    old.replace_all_uses_with(new, replace_graph_outputs=replace_graph_outputs)
    if old is not new:
        old.meta[_REPLACED_BY] = new


def move_mark(dup: ir.Node, kept: ir.Node) -> None:
    """``kept`` computes what ``dup`` did (CSE merged them): it takes ``dup``'s mark if it has
    none and is in the same graph (a mark moved out of a body could name values of the body)."""
    mark = dup.meta.get(DERIVATIVE)
    if (mark is not None and DERIVATIVE not in kept.meta and len(kept.outputs) == 1
            and kept.graph is dup.graph):
        kept.meta[DERIVATIVE] = mark


def _alive(v: ir.Value) -> bool:
    """Whether ``v`` is still a value of the model: made by a node in a graph (this one or an
    enclosing one), or a graph input or initializer."""
    producer = v.producer()
    if producer is not None:
        return producer.graph is not None
    return v.is_graph_input() or v.is_initializer()


def _current(v: ir.Value) -> ir.Value:
    """What replaced ``v`` (following the pointers :func:`replace_value` left), else ``v``. A
    replaced value's producer may linger until dead-code removal: the replacement is followed
    anyway (it is the value the model computes with)."""
    for _ in range(64):    # (a bound, not a limit met in practice)
        nxt = v.meta.get(_REPLACED_BY)
        if nxt is None:
            break
        v = nxt
    return v


def mark_inputs(node: ir.Node) -> tuple[ir.Value, ...]:
    """The input values of the numpy function ``node`` is marked as computing, updated to the
    values that replaced them (the mark is rewritten); () when ``node`` has no mark or one of
    them is no longer in the model."""
    mark = node.meta.get(DERIVATIVE)
    if mark is None or len(node.outputs) != 1:
        return ()
    xs = tuple(_current(x) if x is not None else None for x in mark[1])
    if any(x is None or not _alive(x) for x in xs):
        return ()
    if any(a is not b for a, b in zip(xs, mark[1])):
        node.meta[DERIVATIVE] = (mark[0], xs)
    return xs

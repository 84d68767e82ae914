"""Lists of complex values whose length is only known at run time (``acc.append(r.sum())`` in
a run-time loop): a :class:`records.ComplexSeq`, one ONNX sequence of real parts and one of
imaginary parts (the pair form of complex_values, item by item).

Input: lists that run-time control flow gives different lengths on different paths, whose
items are complex (structure._join_complex_field joins them into a ``SeqPlan`` of complex
dtype, two sequences as If/Loop state). Output: what numpy code does with such a list: ``lst.append(v)``
(lower/appends.py), ``len(lst)``, ``lst[i]`` (a Complex), ``lst[a:b]``, ``for v in lst``,
``if lst:``, ``np.array(lst)``/``np.asarray``/``np.stack``/``np.concatenate`` (a Complex array),
and returning it: at the model boundary it is ONE sequence of real tensors with a trailing
dimension of 2 (numpy's layout; the call converts each item back, complex_io.from_pairs).

The items keep one complex dtype, one kind (numpy scalars or Python complex numbers) and one
rank: a list mixing them (numpy keeps each item's type) is refused at the join.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes, sequences
from pyonnx.frontend.graph.complex_values import Complex, real_dtype
from pyonnx.frontend.graph.iterables import DynamicIter
from pyonnx.frontend.graph.records import ComplexSeq
from pyonnx.frontend.graph.values import Array, Seq

__all__ = ["packed", "length", "item", "iterate", "truth", "to_array",
           "call"]


def length(ctx, cs: ComplexSeq) -> Array:
    """``len(lst)``, a Python int."""
    return sequences.length(ctx, cs.re)


def truth(ctx, cs: ComplexSeq) -> Array:
    """``bool(lst)``: not empty."""
    return sequences.truth(ctx, cs.re)


def item(ctx, cs: ComplexSeq, index: Any) -> Complex | ComplexSeq:
    """``lst[i]`` (a copy numpy's list holds: the appended values are copies, appends.py) or
    ``lst[a:b]`` (a run-time list again)."""
    if isinstance(index, slice):
        return ComplexSeq(sequences.sliced(ctx, cs.re, index),
                          sequences.sliced(ctx, cs.im, index), cs.dtype, cs.weak)
    re, im = sequences.item(ctx, cs.re, index), sequences.item(ctx, cs.im, index)
    rd = real_dtype(cs.dtype)
    return Complex(Array(re.value, rd, re.shape), Array(im.value, rd, im.shape), cs.dtype,
                   cs.weak and not cs.shape)


def iterate(ctx, cs: ComplexSeq) -> DynamicIter:
    """``for v in lst``."""
    return DynamicIter(length(ctx, cs), lambda ctx, k: item(ctx, cs, k))


def to_array(ctx, cs: ComplexSeq) -> Complex:
    """``np.array(lst)`` / ``np.stack(lst)``: the items along a new first axis (fails at run
    time when the list is empty, as for a real run-time list: numpy's empty result is float64
    for np.array and an error for np.stack)."""
    return Complex(sequences.to_array(ctx, cs.re), sequences.to_array(ctx, cs.im), cs.dtype)


def concatenate(ctx, cs: ComplexSeq, axis: Any = 0) -> Complex:
    """``np.concatenate(lst, axis)``."""
    re = sequences.concatenate(ctx, cs.re, axis)
    im = sequences.concatenate(ctx, cs.im, axis)
    return Complex(re, im, cs.dtype)


def call(ctx, func: Any, args: list, kwargs: dict) -> Any:
    """A numpy function or builtin of a run-time complex list (its first argument); the ones
    that read it as an array take :func:`to_array`'s."""
    import builtins

    cs = args[0]
    if func is builtins.len and len(args) == 1 and not kwargs:
        return length(ctx, cs)
    if func is builtins.sum and len(args) <= 2 and set(kwargs) <= {"start"}:
        from pyonnx.frontend.lower.seq_sum import seq_sum
        return seq_sum(ctx, cs, *args[1:], **kwargs)
    if func in (np.concatenate, np.concat) and len(args) <= 2 and \
            set(kwargs) <= {"axis"}:
        return concatenate(ctx, cs, *args[1:], **kwargs)
    if func in (np.array, np.asarray, np.stack, np.asanyarray) and len(args) == 1 and \
            (not kwargs or func is np.stack and set(kwargs) <= {"axis"}
             and kwargs.get("axis", 0) == 0):
        return to_array(ctx, cs)
    name = getattr(func, "__name__", repr(func))
    raise ctx.error(f"{name}() of a list of complex values built at run time is not supported; "
                    "make it an array first (np.array(lst)) or collect the values in an array")


def packed(ctx, cs: ComplexSeq) -> Seq:
    """The boundary form of ``cs``: one sequence whose items are the complex items as real
    tensors with a trailing dimension of 2 (a Loop over the items: they may differ in shape)."""
    rd = real_dtype(cs.dtype)
    seq_type = ir.SequenceType(ir.TensorType(dtypes.to_ir(rd)))
    iter_in = ir.Value(name=ctx.fresh_name("iter"), type=ir.TensorType(ir.DataType.INT64),
                       shape=ir.Shape([]))
    cond_in = ir.Value(name=ctx.fresh_name("cond"), type=ir.TensorType(ir.DataType.BOOL),
                       shape=ir.Shape([]))
    acc_in = ir.Value(name=ctx.fresh_name("packed"), type=seq_type)
    with ctx.subgraph() as nodes:
        last = ctx.const(np.array([-1], np.int64))
        halves = [ctx.op("Unsqueeze", ctx.op("SequenceAt", s, iter_in), last)
                  for s in (cs.re, cs.im)]
        pair = ctx.op("Concat", *halves, axis=-1)
        acc_out = ctx.op("SequenceInsert", acc_in, pair)
        acc_out.type = seq_type
        cond_out = ctx.op("Identity", cond_in)
        cond_out.type = ir.TensorType(ir.DataType.BOOL)
    body = ir.Graph([iter_in, cond_in, acc_in], [cond_out, acc_out], nodes=nodes,
                    name=f"{ctx.function_name}_pack_complex_list")
    empty = ctx.op("SequenceEmpty", dtype=dtypes.to_ir(rd))
    empty.type = seq_type
    count = ctx.op("SequenceLength", cs.re)
    out = ctx.op("Loop", count, ctx.const(np.array(True)), empty, body=body)
    out.type = seq_type
    return Seq(out, rd, tuple(cs.shape) + (2,), cs.weak)

"""``sum(lst)`` of a list of numbers built at run time (appended to in a run-time loop or
branch): Python's own sum, ``((start + lst[0]) + lst[1]) + ...``, in that order.

The sum is a ``Loop`` over the ONNX sequence adding one item per iteration, so the rounding is
Python's (a reduction would add in another order). Its type is Python's: ``0 + np.float32(a)``
is a numpy float32, ``0 + 0.5`` a Python float, ``0 + True`` a Python int; where the list is
empty Python returns ``start`` itself (the int 0 by default), which is marked as a number of
that kind on that path (graph/path_weak.py: a returned value or a ufunc result type that would
show the difference fails there). Complex items: the parts are summed, numpy's complex
addition; an empty list gives ``start`` (a Python complex ``0j`` when given, marked as
lower/control_flow/complex_paths.py says; the int 0 cannot stand for a complex result, so
that path fails at run time).

Input: a Seq or ComplexSeq of 0-d items and ``start`` (a Python number). Output: the sum.
Arrays as items (Python adds them elementwise, broadcasting) are refused by the caller.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import dtypes, path_weak
from pyonnx.frontend.graph.checks import runtime_check
from pyonnx.frontend.graph.complex_values import Complex, real_dtype
from pyonnx.frontend.graph.records import ComplexSeq
from pyonnx.frontend.graph.values import Array, Seq

__all__ = ["seq_sum"]

_BOOL = np.dtype(np.bool_)


def seq_sum(ctx, seq: Seq | ComplexSeq, start: Any = 0) -> Any:
    """``sum(seq, start)`` (see the module docstring)."""
    if seq.shape != ():
        raise ctx.error("sum() of a list of arrays built at run time is not supported (Python "
                        "adds them one by one, broadcasting); write np.sum(np.stack(lst), "
                        "axis=0) when the arrays have one shape")
    if type(start) not in (int, float, complex, bool):
        raise ctx.error("sum(lst, start) of a list built at run time takes a Python number as "
                        "start")
    if seq.weak is None:
        raise ctx.error("sum() of a list built at run time that holds Python numbers on some "
                        "paths and numpy scalars on others is not supported; append one kind")
    count = ctx.op("SequenceLength", seq.re.value if isinstance(seq, ComplexSeq) else seq.value)
    empty = Array(ctx.op("Equal", count, ctx.const(np.array(0, np.int64))), _BOOL, ())
    where = "sum() of a list built at run time, which may be empty"
    if isinstance(seq, ComplexSeq):
        return _complex(ctx, seq, start, count, empty, where)
    # (stand-ins for the dtypes: Python's start + the first item, NEP 50)
    item = Array(ctx.const(np.zeros((), seq.dtype)), seq.dtype, (), weak=bool(seq.weak))
    first = Array(ctx.const(np.zeros((), type(start))), np.dtype(type(start)), (), weak=True)
    dt = dtypes.ufunc_dtypes(np.add, first, item)[1][0]
    if dt.kind == "c":  # (a Python complex start of real items)
        raise ctx.error("sum(lst, <complex>) of a list of real numbers built at run time is "
                        "not supported; convert the items with complex(...)")
    (total,) = _loop(ctx, [(seq.value, dt)], count, [np.array(start, dt)])
    value = Array(total, dt, (), weak=bool(seq.weak))
    kb = path_weak.python_kind(start)
    kv = path_weak.python_kind(value) if seq.weak else None
    return path_weak.join_kinds(ctx, value, kb, kv, Array(ctx.op("Not", empty.value), _BOOL, ()),
                                where, "sum()", "sum_of_a_list", lazy=True)


def _complex(ctx, seq: ComplexSeq, start: Any, count, empty: Array, where: str) -> Complex:
    rd = real_dtype(seq.dtype)
    s = complex(start)
    re, im = _loop(ctx, [(seq.re.value, rd), (seq.im.value, rd)], count,
                   [np.array(s.real, rd), np.array(s.imag, rd)])
    out = Complex(Array(re, rd, ()), Array(im, rd, ()), seq.dtype, bool(seq.weak))
    if seq.weak:  # Python complex items: a Python complex (an int 0 start where empty)
        if type(start) is not complex:
            out.re = runtime_check(ctx, empty, out.re, "refused_sum_of_an_empty_list",
                                   _EMPTY_MESSAGE)
        return out
    if type(start) is complex:  # 0j where empty: a Python complex there (complex_paths)
        from pyonnx.frontend.graph.python_entry import held_exactly
        out.py_path = (where, empty.value)
        held_exactly(ctx, out, start, empty.value, "sum()", "?", join=where)
        return out
    out.re = runtime_check(ctx, empty, out.re, "refused_sum_of_an_empty_list", _EMPTY_MESSAGE)
    return out


_EMPTY_MESSAGE = ("ExecutionError: sum() of an empty list is the Python int 0 (its start), "
                  "which the model's complex result cannot stand for; give the start as a "
                  "complex number: sum(lst, 0j)")


def _loop(ctx, seqs: list[tuple[Any, np.dtype]], count, initial: list[np.ndarray]) -> list:
    """One ``Loop`` over ``count`` items adding ``seqs[k]``'s item (cast to its dtype) to the
    state ``k`` (which starts at ``initial[k]``); the final states."""
    iter_in = ir.Value(name=ctx.fresh_name("iter"), type=ir.TensorType(ir.DataType.INT64),
                       shape=ir.Shape([]))
    cond_in = ir.Value(name=ctx.fresh_name("cond"), type=ir.TensorType(ir.DataType.BOOL),
                       shape=ir.Shape([]))
    states = [ir.Value(name=ctx.fresh_name("total"), type=ir.TensorType(dtypes.to_ir(dt)),
                       shape=ir.Shape([])) for _, dt in seqs]
    with ctx.subgraph() as nodes:
        outs = []
        for (seq, dt), acc in zip(seqs, states):
            item = ctx.op("Cast", ctx.op("SequenceAt", seq, iter_in), to=int(dtypes.to_ir(dt)))
            out = ctx.op("Add", acc, item)
            out.type, out.shape = ir.TensorType(dtypes.to_ir(dt)), ir.Shape([])
            outs.append(out)
        cond_out = ctx.op("Identity", cond_in)
        cond_out.type = ir.TensorType(ir.DataType.BOOL)
    body = ir.Graph([iter_in, cond_in, *states], [cond_out, *outs], nodes=nodes,
                    name=f"{ctx.function_name}_sum_of_a_list")
    results = ctx.op("Loop", count, ctx.const(np.array(True)),
                     *(ctx.const(v) for v in initial), body=body, outputs=len(seqs))
    results = [results] if len(seqs) == 1 else list(results)
    for r, (_, dt) in zip(results, seqs):
        r.type, r.shape = ir.TensorType(dtypes.to_ir(dt)), ir.Shape([])
    return results

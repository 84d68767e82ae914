"""``lst.append(v)`` (rewritten by canonicalize/list_append.py to ``lst = lst.append(v)``).

Input: the FunctionLowering, the list bound to the name (a Python list or a run-time
:class:`~pyonnx.frontend.graph.values.Seq`) and the value. Output: the list bound afterwards — a
SequenceInsert for a run-time list, the Python list itself (or a rebuilt one inside run-time
control flow) otherwise. Lives in statement lowering, not with the sequences, because it reads
the environment and the alias state.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.records import ComplexSeq, Records
from pyonnx.frontend.graph.values import Array, Seq

__all__ = ["append"]


def append(lowering, target: Any, value: Any) -> Any:
    """``target.append(value)`` (rewritten to ``target = target.append(value)``); returns the
    list bound to ``target`` afterwards."""
    ctx = lowering.ctx
    if isinstance(target, Records):
        k = len(target.fields)
        if not (isinstance(value, tuple) and len(value) == k):
            raise ctx.error(f"appending {_what(value)} to a list of {k}-tuples built at run "
                            f"time: each item is one tuple of {k} values (one sequence per "
                            "field holds them)")
        return Records(tuple(append(lowering, f, v) for f, v in zip(target.fields, value)))
    if isinstance(target, ComplexSeq):  # complex items (of a list, or a field of tuples)
        if isinstance(value, (complex, np.complexfloating)) or \
                isinstance(value, np.ndarray) and value.dtype.kind == "c":  # a constant
            from pyonnx.frontend.graph.complex_values import make, parts
            dt = np.dtype(value.dtype if isinstance(value, (np.generic, np.ndarray))
                          else np.complex128)
            value = make(ctx, *parts(ctx, value, dt), dt, type(value) is complex)
        if not isinstance(value, Complex) or value.dtype != target.dtype or \
                value.weak != target.weak or value.ndim != len(target.shape):
            raise ctx.error(f"appending {_what(value)} where the list built at run time holds "
                            f"{'Python complex' if target.weak else target.dtype} values of "
                            f"rank {len(target.shape)}: the items would differ in type; "
                            f"convert it (np.{np.dtype(target.dtype).name}(v))")
        if not value.weak:  # (a Python complex is immutable)
            value = _complex_copy_only(lowering, value)
        return ComplexSeq(append(lowering, target.re, value.re),
                          append(lowering, target.im, value.im), target.dtype, target.weak)
    if isinstance(target, Seq):
        _capture(lowering, value)
        v = ctx.asarray(value)
        if v.dtype != target.dtype:
            if not v.weak:
                raise ctx.error(f"appending a {v.dtype} value to a list of {target.dtype} arrays "
                                "built at run time: an ONNX sequence holds one dtype; convert "
                                f"it (.astype(np.{target.dtype}))")
            v = ctx.cast(v, target.dtype)
        if v.ndim != len(target.shape):
            raise ctx.error(f"appending a {v.ndim}-d value to a list of {len(target.shape)}-d "
                            "arrays built at run time: an ONNX sequence holds one rank")
        out = ctx.op("SequenceInsert", target, v)
        out.type = target.value.type
        shape = tuple(p if p == q else None for p, q in zip(target.shape, v.shape))
        return Seq(out, target.dtype, shape, target.weak if target.weak == v.weak else None)
    if not isinstance(target, list):
        kind = "numpy.ndarray" if isinstance(target, Array) else type(target).__name__
        raise ctx.error(f"'{kind}' object has no attribute 'append'"
                        + ("; use np.append(x, v) or collect values in a list"
                           if isinstance(target, Array) else ""))
    name = ctx.argument_lists.get(id(target))
    if name is not None:
        raise ctx.error(f"appending to the list argument '{name}' changes the caller's list on "
                        "every call in numpy, which a compiled model cannot do; copy it first "
                        f"({name} = list({name})) or build a new list")
    if not lowering.dynamic_depth:
        target.append(value)  # Python's meaning, aliases included
        return target
    # Inside a run-time branch or loop body the list is rebuilt, not mutated: the same body
    # may be lowered more than once and the other branch must not see the item. Another name
    # for the same list would then miss the append.
    others = [n for n, v in lowering.env.locals.items() if v is target]
    if len(others) > 1:
        raise ctx.error(f"the list appended to here is also named {', '.join(sorted(others))}; "
                        "inside run-time control flow a list may have only one name")
    return [*target, value]


def _complex_copy_only(lowering, value: Complex) -> Complex:
    """The complex item to append to a run-time list (complex_lists, or a field of a list of
    tuples): the sequence stores a copy while numpy's list keeps the object, so numpy scalars
    (``z[i]``) and new values no name holds (``z[i] * 2``) are taken as they are, memory
    complex_aliases follows is marked captured (a later write into it is refused), anything
    else is refused."""
    from pyonnx.frontend.lower.complex_aliases import (
        followed, holders, register, registrable)
    from pyonnx.frontend.lower.complex_state import scalar_copies

    ctx = lowering.ctx
    if scalar_copies(ctx).get(id(value)) is value or value.base is None and \
            not value.shared and value.param is None and not holders(ctx, value):
        # a copy or a new value: its parts as new objects (a part may be another array's
        # registered view, z.conj()'s real part is z's: appending is no capture of that memory)
        return Complex(Array(value.re.value, value.re.dtype, value.re.shape),
                       Array(value.im.value, value.im.dtype, value.im.shape), value.dtype,
                       value.weak)
    if not followed(ctx, value) and registrable(ctx, value):
        value = register(ctx, value)  # (a value a name holds: its parts become buffers)
    if followed(ctx, value):
        # memory complex_aliases follows (a row z[i], an argument): numpy's list keeps the
        # array itself, the sequence a copy, so later writes into that memory are refused
        # (alias_writes.write_with), as for a real array (_capture)
        _capture(lowering, value.re)
        _capture(lowering, value.im)
        return value
    raise ctx.error("a list built at run time holds complex items as copies, so it takes "
                    "numpy scalars (z[i]) and new values (z[i] * 2) only: numpy's list "
                    "would keep this array itself, whose later writes the list would show; "
                    "append value.copy()")


def _what(value: Any) -> str:
    if isinstance(value, tuple):
        return f"a tuple of {len(value)} values"
    if isinstance(value, (Array, Seq)):
        return f"a {value.dtype} {'value' if isinstance(value, Array) else 'list'}"
    return f"a {type(value).__name__}"


def _capture(lowering, value: Any) -> None:
    """The sequence keeps a copy of ``value``: numpy's list keeps the array itself, so its
    memory must not be written afterwards (checked at the writes), nor be memory an enclosing
    loop writes on every iteration (the next iteration would change the appended array)."""
    from pyonnx.frontend.lower import aliases

    ctx = lowering.ctx
    hit = aliases.entry_of(ctx, value)
    if hit is None:
        return
    buffer = hit[0]
    written = ctx.aliases.memory.get(buffer, buffer.initial) is not buffer.initial
    if any(buffer in carried or (written and id(buffer.initial) in state)
           for carried, state in ctx.loop_buffers):
        raise ctx.error("the array appended here is written on every iteration of the loop, so "
                        "numpy's list would hold the same array many times; append a copy "
                        "(lst.append(x.copy()))")
    buffer.captured = True

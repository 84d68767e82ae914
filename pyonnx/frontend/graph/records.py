"""Lists of tuples whose length is only known at run time (``out.append((i, score))`` in a
loop): one ONNX sequence per tuple field, all of the same length.

Input: a list of tuples that run-time control flow gives different lengths on different
paths (structure.py joins such lists into a :class:`RecordsPlan`). Output: the operations
numpy code applies to such a list: ``out.append((a, b))`` (one SequenceInsert per field),
``len(out)``, ``out[i]`` (a tuple of SequenceAt), ``for a, b in out``, ``if out:``, and
returning it (the call zips the fields back into a list of tuples). Anything else that would
read it as an array (``np.array(out)``: its shape is (0,) when empty and (n, k) otherwise) is
a ConversionError that says to keep one list per field.

A field of complex values (``out.append((i, z[i]))``) is a :class:`ComplexSeq`: one sequence
of real parts and one of imaginary parts; its items read back as Complex values. Returning
such a list is refused (the call would have to rebuild complex items from two sequences).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pyonnx.frontend.graph import sequences
from pyonnx.frontend.graph.iterables import DynamicIter
from pyonnx.frontend.graph.values import Array, Seq

__all__ = ["Records", "ComplexSeq", "length", "item", "iterate", "truth", "AS_ARRAY_REFUSAL"]

AS_ARRAY_REFUSAL = (
    "a list of tuples built at run time (appended in a loop or a run-time branch) can be "
    "appended to, indexed, iterated, measured with len() and returned; to use it as an array, "
    "keep one list per field (ids.append(i); scores.append(s)) and np.array(...) each")


@dataclasses.dataclass(eq=False)
class Records:
    """``fields[j]`` holds item ``j`` of every tuple (an ONNX sequence)."""

    pyonnx_dynamic = True  # values.is_static: a graph value
    fields: tuple[Seq, ...]

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(AS_ARRAY_REFUSAL)

    def __iter__(self):
        raise TypeError(AS_ARRAY_REFUSAL)

    def __bool__(self) -> bool:  # (a run-time length: the lowering's truth is records.truth)
        raise TypeError("pyonnx bug: the truth of a run-time list of tuples read statically")


@dataclasses.dataclass(eq=False)
class ComplexSeq:
    """A field of complex values: ``re``/``im`` hold the parts (real dtype), ``dtype`` is the
    items' complex dtype, ``weak`` True when they are Python complex numbers."""

    re: Seq
    im: Seq
    dtype: Any
    weak: bool = False

    @property
    def shape(self) -> tuple:
        return self.re.shape


def _first(records: Records) -> Seq:
    f = records.fields[0]
    return f.re if isinstance(f, ComplexSeq) else f


def length(ctx, records: Records) -> Array:
    return sequences.length(ctx, _first(records))


def item(ctx, records: Records, index: Any) -> tuple | Records:
    """``records[index]``: a tuple for an integer, a Records for a slice."""
    if isinstance(index, slice):
        return Records(tuple(_sliced(ctx, f, index) for f in records.fields))
    return tuple(_item(ctx, f, index) for f in records.fields)


def _sliced(ctx, f: Seq | ComplexSeq, index: slice) -> Seq | ComplexSeq:
    if isinstance(f, ComplexSeq):
        return ComplexSeq(sequences.sliced(ctx, f.re, index),
                          sequences.sliced(ctx, f.im, index), f.dtype, f.weak)
    return sequences.sliced(ctx, f, index)


def _item(ctx, seq: Seq | ComplexSeq, index: Any) -> Any:
    if isinstance(seq, ComplexSeq):
        from pyonnx.frontend.graph.complex_values import Complex
        return Complex(sequences.item(ctx, seq.re, index), sequences.item(ctx, seq.im, index),
                       seq.dtype, seq.weak)
    got = sequences.item(ctx, seq, index)
    return Array(got.value, got.dtype, got.shape, bool(seq.weak)) if not seq.shape else got


def iterate(ctx, records: Records) -> DynamicIter:
    return DynamicIter(length(ctx, records), lambda ctx, k: item(ctx, records, k))


def truth(ctx, records: Records) -> Array:
    return sequences.truth(ctx, _first(records))

"""The two kinds of values the lowering works with.

* **Static** values are plain Python objects known at conversion time: ints, floats, bools,
  strings, None, slices, tuples and lists (which may hold Arrays), numpy dtypes, numpy arrays
  (constants), modules and functions. Arithmetic on them runs in Python, at conversion time.
* **Dynamic** values are :class:`Array`: an ``ir.Value`` in the graph with its numpy dtype and
  static rank. ``weak`` marks a value that came from a Python scalar, which numpy 2 (NEP 50)
  treats as a weak type in promotion.

Input: nothing. Output: the value classes the lowering, the registries and the API share.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Array", "ArrayMethod", "Seq", "Undefined", "is_static", "Dim"]

# A static dimension: a known int, or None when only the run time knows it.
Dim = int | None


class Array:
    """A graph value with the numpy type information pyonnx tracks for it.

    Attributes:
        value: the ``onnx_ir.Value`` holding the data.
        dtype: its numpy dtype.
        shape: one entry per dimension, an int when known at conversion time, else None.
            The rank is always static.
        weak: True for values from Python scalars (0-d), which promote as NEP 50 says.
    """

    __slots__ = ("value", "dtype", "shape", "weak")

    def __init__(self, value: Any, dtype: np.dtype, shape: tuple[Dim, ...], weak: bool = False):
        self.value = value
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)
        self.weak = weak

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def static_size(self) -> int | None:
        """The element count when every dimension is known, else None."""
        size = 1
        for d in self.shape:
            if d is None:
                return None
            size *= d
        return size

    def __repr__(self) -> str:
        dims = ",".join("?" if d is None else str(d) for d in self.shape)
        return f"Array({self.dtype}[{dims}]{' weak' if self.weak else ''})"

    def __bool__(self) -> bool:
        # Guard: a Python truth test on a graph value is a lowering bug, never a silent True.
        raise TypeError("the truth value of a graph Array is only known at run time")


class ArrayMethod:
    """``x.name`` for an array method, before it is called (``x.sum`` in ``x.sum(axis=0)``)."""

    __slots__ = ("array", "name")

    def __init__(self, array: Array, name: str):
        self.array = array
        self.name = name


class Seq:
    """A Python list whose length is only known at run time (appended to in a ``Loop`` or a
    run-time branch): an ONNX sequence of tensors of one dtype and rank.

    Attributes:
        value: the sequence-typed ``onnx_ir.Value``.
        dtype: the elements' dtype.
        shape: the elements' static shape (None = differs or run-time).
        weak: True when every item is a Python number (numpy code's list holds ints/floats),
            False when none is (numpy scalars or arrays), None when the paths mix the two.
    """

    __slots__ = ("value", "dtype", "shape", "weak")

    def __init__(self, value: Any, dtype: np.dtype, shape: tuple[Dim, ...],
                 weak: bool | None = False):
        self.value = value
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)
        self.weak = weak

    def __repr__(self) -> str:
        return f"Seq({self.dtype}, {self.shape})"

    def __bool__(self) -> bool:
        raise TypeError("the length of a run-time list is only known at run time")


class Undefined:
    """A name that is not bound on every path reaching this point (assigned in one branch of a
    run-time ``if`` only, or first assigned in a loop that may run 0 times). Reading it is a
    ConversionError with ``message``, which says where it is missing.

    ``bound``: ``(value, ran)`` for a name first assigned in a loop that may run 0 times, whose
    value is ``value`` when the 0-d bool ``ran`` holds (control_flow/maybe_bound.py: a read is
    checked at run time, as Python raises UnboundLocalError there), else None.
    ``unassigned``: no path has bound the name yet (a name first assigned in a loop, at the
    body's start on its first iteration), not a stale value: joined with a maybe-bound value
    it is unbound there (maybe_bound.join_sides)."""

    __slots__ = ("message", "bound", "unassigned")

    def __init__(self, message: str, bound: tuple | None = None, unassigned: bool = False):
        self.message = message
        self.bound = bound
        self.unassigned = unassigned

    def __repr__(self) -> str:
        return "Undefined()"


class Stale(Undefined):
    """A name that viewed memory which was then written in a way pyonnx cannot re-derive (an
    unmodelled view, a view on some paths only): reading it is a ConversionError with
    ``message``, the reason; a branch join keeps it rather than saying the name is unassigned
    on that path."""

    __slots__ = ()


def is_static(value: Any) -> bool:
    """True when ``value`` holds no Array anywhere (containers are searched)."""
    if isinstance(value, (Array, Seq)) or getattr(type(value), "pyonnx_dynamic", False):
        return False  # (pyonnx_dynamic: graph values of other modules, complex_values.Complex)
    if isinstance(value, (tuple, list)):
        return all(is_static(v) for v in value)
    if isinstance(value, slice):
        return is_static(value.start) and is_static(value.stop) and is_static(value.step)
    return True

"""numpy's aliases and views during lowering: which names see the same memory, and what a write
through one of them does to the others.

Input: Arrays made by view operations (basic indexing, ``reshape``/``ravel`` of a base,
``.T``/``transpose``), names bound to the same Array object (``y = x``), and writes
``target[index] = value``. Output: after a write, every name that sees the written memory is
rebound to its new value.

The model: a :class:`Buffer` is one numpy array's memory. Its current contents are an Array in
:attr:`AliasState.memory`; a view is the buffer plus the :class:`Step` s that derive it (``r =
x[1:]`` is ``(GetItem(slice(1, None)),)``). A write through a view computes the view's new
value (:func:`~pyonnx.frontend.lower.setitem.setitem`), pushes it back through the steps in
reverse (each step's ``backward``) to a new base value, and re-derives every name of the buffer
from it. Arrays are registered by identity when they are made, so ``y = x`` aliases ``x``
without any bookkeeping of its own, and a copy (``x.copy()``, fancy indexing, arithmetic) is a
new, unregistered Array: it breaks the link, as in numpy.

Which numpy calls make views is :mod:`pyonnx.frontend.lower.view_calls`; ``np.flip`` and the
read-only ``np.diagonal``/``np.broadcast_to`` are ``view_calls.Recompute`` steps (the call run
again on the new base). Views numpy makes that pyonnx does not model (``np.split``, the ravel
of a view, ...) are registered as :data:`UNKNOWN`:
a write through one is a ConversionError. The reshape of an array whose memory order is not
known to be C is a :class:`MaybeCopy` step (numpy makes a view or a copy as the strides say:
:mod:`layout`, :mod:`copy_or_view`). A name whose buffer depends on run-time data
(``y = a if c else b`` with a run-time ``c``) is a choice buffer (:mod:`choices`) whose writes
reach each candidate under its condition; where that cannot be followed it is registered
:data:`AMBIGUOUS` when the branches merge, and writes are refused.

This module is the model (buffers, steps, the registry); a write and what it does to the
other names is :mod:`alias_writes`, which names share memory is :mod:`memory_sharing`.
"""

from __future__ import annotations

import abc
import dataclasses
import itertools
from typing import Any

from pyonnx.frontend.graph.values import Array

__all__ = ["Buffer", "AliasState", "Step", "GetItem", "Reshape", "MaybeCopy", "Transpose",
           "UNKNOWN", "AMBIGUOUS", "register_view", "entry_of", "steps_equal"]

_ids = itertools.count(1)


class Buffer:
    """One numpy array's memory.

    Attributes:
        initial: the Array it held when pyonnx first needed to track it.
        param: the function parameter whose memory it is (its final value is written back to
            the caller's array), or None.
        captured: an array of this memory was appended to a run-time list.
    """

    __slots__ = ("initial", "param", "id", "captured", "shared", "choice", "maybe")

    def __init__(self, initial: Array, param: str | None = None):
        self.initial = initial
        self.param = param
        self.id = next(_ids)
        # Appended to a list built at run time: the ONNX sequence holds a copy, so a later
        # write (which numpy's list would see) is refused.
        self.captured = False
        # Seen by names outside the loop body being lowered (a loop state standing for an
        # alias): in-place operators on it write through.
        self.shared = False
        # A name's memory chosen by run-time data: (condition, (buffer, steps)) per path that
        # saw other memory (see choices.py).
        self.choice: tuple = ()
        # An AMBIGUOUS name's own buffer: the buffers it may view (a write to one of them
        # makes the name stale), or None when they are not known (any write does).
        self.maybe: frozenset | None = frozenset()

    def __repr__(self) -> str:
        return f"Buffer#{self.id}({self.param or ''})"


class Step(abc.ABC):
    """One view operation: ``forward`` derives the view from its base, ``backward`` writes a
    new value of the view back into the base."""

    @abc.abstractmethod
    def forward(self, ctx, base: Array) -> Array:
        """The view of ``base``."""

    @abc.abstractmethod
    def backward(self, ctx, base: Array, view: Array) -> Array:
        """``base`` with the new contents ``view`` of the view written into it."""


@dataclasses.dataclass(frozen=True, eq=False)
class GetItem(Step):
    """``base[index]`` with a basic index (ints, slices, ``...``, None)."""

    index: Any

    def forward(self, ctx, base: Array) -> Array:
        from pyonnx.frontend.graph.indexing import getitem
        return getitem(ctx, base, self.index)

    def backward(self, ctx, base: Array, view: Array) -> Array:
        from pyonnx.frontend.lower.setitem import setitem
        return setitem(ctx, base, self.index, view)


@dataclasses.dataclass(frozen=True, eq=False)
class Reshape(Step):
    """``base.reshape(shape)`` (or ``ravel``) of a contiguous base. ``assumes``: the
    parameters whose C-contiguity makes it a view (the call checks them once a write depends
    on it, see :func:`note_assumptions`)."""

    shape: tuple
    shape_value: Any  # the int64 target shape vector
    assumes: frozenset = frozenset()

    def forward(self, ctx, base: Array) -> Array:
        return Array(ctx.op("Reshape", base, self.shape_value), base.dtype, self.shape)

    def backward(self, ctx, base: Array, view: Array) -> Array:
        return Array(ctx.op("Reshape", view, ctx.shape_of(base)), base.dtype, base.shape)


@dataclasses.dataclass(frozen=True, eq=False)
class MaybeCopy(Reshape):
    """``base.reshape(shape)`` (or ``ravel``) of an array whose memory order pyonnx does not
    know (``np.cosh(x.T)`` is Fortran-ordered): numpy returns a view or a copy depending on the
    strides. The values are the same either way; a write that could tell them apart is refused
    (:func:`write_with`), or, when nothing else sees the memory any more, follows the copy.
    ``base`` is the base's contents the reshape was made from (a later write replaces them)."""

    base: Any = None


@dataclasses.dataclass(frozen=True, eq=False)
class Transpose(Step):
    """``base.transpose(perm)`` (``.T``: the reversed axes)."""

    perm: tuple[int, ...]

    def forward(self, ctx, base: Array) -> Array:
        if self.perm == tuple(range(len(self.perm))):
            return base  # ``.T`` of a 0-d or 1-d array (an empty perm is no valid attribute)
        shape = tuple(base.shape[p] for p in self.perm)
        return Array(ctx.op("Transpose", base, perm=list(self.perm)), base.dtype, shape)

    def backward(self, ctx, base: Array, view: Array) -> Array:
        if self.perm == tuple(range(len(self.perm))):
            return view
        inverse = [0] * len(self.perm)
        for i, p in enumerate(self.perm):
            inverse[p] = i
        return Array(ctx.op("Transpose", view, perm=inverse), base.dtype, base.shape)


class _Marker:
    """A sentinel among a view's steps (never applied: writes through it are refused)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


# A view numpy makes whose mapping pyonnx does not model (writes through it are refused).
UNKNOWN = _Marker("UNKNOWN")
# A name whose buffer depends on which run-time branch ran.
AMBIGUOUS = _Marker("AMBIGUOUS")


class AliasState:
    """The buffers of one conversion.

    Attributes:
        registry: ``id(array)`` → (the array, its buffer, its steps) for every Array known to
            be a buffer's base or a view of one (the array is held so its id stays unique).
        memory: buffer → its current contents, for buffers written to or viewed.
        params: ``id(parameter Array)`` → its name (those buffers are written back).
    """

    def __init__(self):
        self.registry: dict[int, tuple[Array, Buffer, tuple]] = {}
        self.memory: dict[Buffer, Array] = {}
        # id(parameter Array) → parameter name (their buffers are written back)
        self.params: dict[int, str] = {}
        # 0-d values made as numpy arrays (np.array/np.asarray/np.zeros(()) ...), not numpy
        # scalars; see scalar_kinds.py.
        self.arrays0d: set[Any] = set()
        # 0-d values out of a run-time if/loop that are numpy scalars on every path.
        self.scalars0d: set[Any] = set()
        # 0-d values out of a run-time if/loop that are a numpy 0-d array on some paths and a
        # numpy scalar on others → a 0-d bool value, true where it is an array (returned with
        # it: convert._outputs), or None where that is not known (returning it is refused).
        self.mixed0d: dict[Any, Any] = {}
        # Buffers with a run-time choice of memory (choices.py), in creation order.
        self.choices: list[Buffer] = []
        self.propagate: Any = None  # choices.propagate once a choice exists
        # Values numpy allocates in C order whatever their input's order (x.copy()), and the
        # parameters' graph inputs → names (layout.py).
        self.c_order: set[Any] = set()
        self.param_values: dict[Any, str] = {}
        # value → the value whose memory order it has though the graph does not read its
        # elements (np.zeros_like(x.T) has x.T's order)
        self.follows: dict[Any, Any] = {}
        self.layout_cache: dict[Any, tuple] = {}  # layout.py: value → (answer, parameters)
        self.detach: Any = None  # copy_or_view.detach once a MaybeCopy view exists
        self.flat_view = 0  # > 0 while lowering x.flat's view (view_calls: a view of any x)
        # Parameters whose C-contiguity a write's meaning depends on (checked at the call).
        self.contiguous: set[str] = set()

    def lookup(self, a: Array) -> tuple[Buffer, tuple] | None:
        hit = self.registry.get(id(a))
        if hit is None or hit[0] is not a:
            return None
        return hit[1], hit[2]

    def register(self, a: Array, buffer: Buffer, steps: tuple) -> None:
        self.registry[id(a)] = (a, buffer, steps)

    def buffer_of(self, a: Array) -> tuple[Buffer, tuple]:
        """``a``'s buffer and steps, making ``a`` the base of a new buffer if it has none."""
        hit = self.lookup(a)
        if hit is not None:
            return hit
        buffer = Buffer(a, self.params.get(id(a)))
        self.memory[buffer] = a
        self.register(a, buffer, ())
        return buffer, ()


def register_view(ctx, view: Array, base: Array, step: Step) -> Array:
    """Records that ``view`` (just made from ``base``) is a view of ``base``'s memory."""
    state: AliasState = ctx.aliases
    if view is base:
        # x[...], x.reshape(x.shape): a new view object of the same values.
        view = Array(base.value, base.dtype, base.shape, base.weak)
    buffer, steps = state.buffer_of(base)
    if isinstance(step, Transpose) and step.perm == tuple(range(len(step.perm))) and view.ndim \
            or isinstance(step, GetItem) and not ctx.loop_buffers and \
            _whole(step.index, base.ndim):
        # v.T of a 1-D array or view, v[:] and v[...] are the same mapping: a loop's
        # `t = t.T` keeps one (no chain as long as the loop ran, which could not be followed),
        # and `x = x[:]` on one path leaves x the same memory on both (fuzz seed 20001751).
        # (Not in a loop body: `t = x[..., :]` there would be a whole alias of another carried
        # name, which the loop's state does not follow across iterations: fuzz seed 13000343)
        state.register(view, buffer, steps)
        return view
    state.register(view, buffer, steps + (step,))
    return view


def _whole(index: Any, ndim: int) -> bool:
    """Whether the basic index ``index`` selects every element in place (``:``, ``...``, a
    tuple of at most ``ndim`` of them with at most one ``...``; not ``()``, a scalar of
    a 0-d array): the view is its base."""
    parts = index if type(index) is tuple else (index,)
    if not parts or sum(p is Ellipsis for p in parts) > 1 or \
            sum(isinstance(p, slice) for p in parts) > ndim:
        return False
    return all(p is Ellipsis or type(p) is slice and p.start is None and p.stop is None
               and p.step is None for p in parts)


def entry_of(ctx, a: Any) -> tuple[Buffer, tuple] | None:
    return ctx.aliases.lookup(a) if isinstance(a, Array) else None


def steps_equal(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))

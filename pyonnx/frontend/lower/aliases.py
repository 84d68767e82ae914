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
"""

from __future__ import annotations

import abc
import dataclasses
import itertools
from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array, Undefined

__all__ = ["Buffer", "AliasState", "Step", "GetItem", "Reshape", "MaybeCopy", "Transpose",
           "UNKNOWN", "AMBIGUOUS", "candidates", "mark_ambiguous", "register_view", "write",
           "write_with", "rederive", "entry_of", "steps_equal",
           "current", "materialize", "shares_memory"]

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
        # numpy scalar on others (returning one is refused: convert._outputs).
        self.mixed0d: set[Any] = set()
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
    if isinstance(step, Transpose) and step.perm == tuple(range(len(step.perm))) and view.ndim:
        # v.T of a 1-D array or view is the same mapping: a loop's `t = t.T` keeps one (no
        # chain as long as the loop ran, which could not be followed)
        state.register(view, buffer, steps)
        return view
    state.register(view, buffer, steps + (step,))
    return view


def entry_of(ctx, a: Any) -> tuple[Buffer, tuple] | None:
    return ctx.aliases.lookup(a) if isinstance(a, Array) else None


def write(lowering, target: Any, index: Any, value: Any, loc_text: str) -> None:
    """``target[index] = value``: updates the target's buffer and rebinds every name of it.

    Raises:
        ConversionError: see :func:`write_with`.
    """
    from pyonnx.frontend.lower.setitem import setitem

    write_with(lowering, target, lambda ctx, t: setitem(ctx, t, index, value), loc_text)


def write_with(lowering, target: Any, compute: Any, loc_text: str) -> None:
    """Replaces the contents of ``target`` (an array seen through names, views and aliases) by
    ``compute(ctx, target)``, and rebinds every name of its memory.

    Raises:
        ConversionError: the target's memory cannot be followed (an unmodelled view, an alias
            that depends on run-time data, a module constant).
    """
    ctx = lowering.ctx
    if isinstance(target, np.ndarray):
        target = materialize(lowering, target, loc_text)
    if not isinstance(target, Array):
        raise ctx.error(f"'{type(target).__name__}' object does not support item assignment "
                        "here; item assignment works on arrays")
    state: AliasState = ctx.aliases
    buffer, steps = state.buffer_of(target)
    if AMBIGUOUS in steps:
        raise ctx.error(
            f"{loc_text} may refer to different memory depending on run-time data (it was "
            "bound in a run-time 'if' or loop to different arrays or different parts of one "
            "array, or to a view on one path and a copy on the other), so which elements numpy "
            "writes depends on that data; write through each name explicitly, or take .copy() "
            "before writing")
    if UNKNOWN in steps:
        raise ctx.error(
            f"{loc_text} is a view numpy makes with a function whose memory layout pyonnx does "
            "not follow (only basic indexing, reshape/ravel of a whole array, transposes and "
            "flips are followed); write into the original array, or take .copy() first")
    if buffer.captured:
        raise ctx.error(
            f"{loc_text} was appended to a list built at run time and is written afterwards: "
            "numpy's list would see the new values, the model's list holds the old ones; "
            "append a copy (lst.append(x.copy()))")
    if any(isinstance(s, MaybeCopy) for s in steps):
        # (copy_or_view.detach, set by view_calls with the first MaybeCopy view)
        buffer, steps = state.detach(lowering, target, buffer, steps, loc_text)
    note_assumptions(state, steps)
    new = compute(ctx, target)
    # Back through the steps: the view chain's current values from the base, then each new
    # value written into its parent.
    chain = [state.memory.get(buffer, buffer.initial)]
    for step in steps[:-1]:
        chain.append(step.forward(ctx, chain[-1]))
    for step, parent in zip(reversed(steps), reversed(chain)):
        new = step.backward(ctx, parent, new)
    state.memory[buffer] = new
    state.register(new, buffer, ())
    # Memory chosen at run time that shares elements with this buffer (choices.py sets the
    # hook when it makes the first such name).
    touched = state.propagate(lowering, buffer) if state.propagate is not None else set()
    rederive(lowering, {buffer} | touched)


def note_assumptions(state: AliasState, steps: tuple) -> None:
    """Records the parameters whose C-contiguity makes ``steps`` views, for a write through
    them (or to their memory while they are in use): the call checks those arguments."""
    for s in steps:
        if isinstance(s, Reshape) and s.assumes:
            state.contiguous |= s.assumes


def materialize(lowering, target: np.ndarray, loc_text: str) -> Array:
    """A numpy array known at conversion time that the function writes into (``np.zeros(3)``
    made in the function) as a graph value; every name bound to the same object is rebound to
    it, so they stay aliases.

    Raises:
        ConversionError: the array is a module-level or closure array (writing would change it
            for every later call), or shares memory with another array known at conversion
            time (a view pyonnx cannot follow).
    """
    ctx = lowering.ctx
    frames = ctx.frames
    outside = [v for f in frames for v in (*f.src.globals.values(), *f.src.closure.values())
               if isinstance(v, np.ndarray)]
    if any(v is target or np.may_share_memory(v, target) for v in outside):
        raise ctx.error(f"{loc_text} is a module-level or closure array: writing into it would "
                        "change it for every later call, which a model cannot do; take "
                        "np.copy(...) of it and write into the copy")
    locals_ = [(f, n, v) for f in frames for n, v in f.env.locals.items()
               if isinstance(v, np.ndarray)]
    if any(v is not target and np.may_share_memory(v, target) for _, _, v in locals_):
        raise ctx.error(f"{loc_text} shares memory with another array computed at conversion "
                        "time in a way pyonnx does not follow; take .copy() before writing")
    arr = ctx.asarray(target)
    arr = Array(arr.value, arr.dtype, arr.shape)
    for f, n, v in locals_:
        if v is target:
            f.env.locals[n] = arr
    return arr


def current(ctx, a: Array) -> Array:
    """``a``'s value now: a view or alias of memory written since ``a`` was made is re-derived
    from the memory's current contents (a loop iterating over an array it writes into)."""
    state: AliasState = ctx.aliases
    hit = state.lookup(a)
    if hit is None:
        return a
    buffer, steps = hit
    value = state.memory.get(buffer, buffer.initial)
    if AMBIGUOUS in steps or UNKNOWN in steps or value is buffer.initial and not steps:
        return a
    if any(isinstance(s, MaybeCopy) and s.base is not value for s in steps):
        raise ctx.error("this array is the reshape of an array whose memory order is not C, "
                        "and that array was written after the reshape was made: numpy's "
                        "reshape is a copy or a view depending on the strides; reshape a "
                        "C-ordered copy (y.copy().reshape(...)) or take .copy() of the reshape")
    for step in steps:
        value = step.forward(ctx, value)
    if steps:
        state.register(value, buffer, steps)  # the same view, of the current contents
    return value


def rederive(lowering, buffers: set[Buffer]) -> None:
    """Rebinds every name (in the function being lowered and the functions inlining it) whose
    value is a view of one of ``buffers`` to that view of the buffer's current contents."""
    ctx = lowering.ctx
    state: AliasState = ctx.aliases
    cache: dict[tuple[int, int], Any] = {}

    def fresh(value: Any) -> Any:
        if isinstance(value, Array):
            hit = state.lookup(value)
            if hit is None or hit[0] not in buffers and not _may_view(hit[0], buffers):
                return value
            buffer, steps = hit
            if AMBIGUOUS in steps or UNKNOWN in steps or any(
                    isinstance(s, MaybeCopy) for s in steps):
                return _stale(ctx, steps)
            note_assumptions(state, steps)
            key = (buffer.id, id(steps))
            got = cache.get(key)
            if got is None:
                got = state.memory[buffer]
                for step in steps:
                    got = step.forward(ctx, got)
                if steps:
                    got = Array(got.value, got.dtype, got.shape, got.weak)
                state.register(got, buffer, steps)
                cache[key] = got
            return got
        if isinstance(value, tuple):
            items = tuple(_refuse_stale(ctx, fresh(v)) for v in value)
            return value if all(a is b for a, b in zip(items, value)) else items
        if isinstance(value, list):
            for i, v in enumerate(value):  # a Python list is mutable: it sees the write too
                value[i] = _refuse_stale(ctx, fresh(v))
            return value
        if type(value) is dict:  # as a list: every name holding the dict sees the write
            for k, v in value.items():
                value[k] = _refuse_stale(ctx, fresh(v))
            return value
        return value

    for frame in ctx.frames:
        env = frame.env.locals
        for name, value in list(env.items()):
            new = fresh(value)
            if isinstance(new, Undefined):
                new = Undefined(new.message.replace("this name", f"'{name}'", 1))
            if new is not value:
                env[name] = new


def _may_view(buffer: Buffer, buffers: set[Buffer]) -> bool:
    """Whether an AMBIGUOUS name's buffer may view one of ``buffers``."""
    return buffer.maybe is None or not buffer.maybe.isdisjoint(buffers)


def candidates(ctx, *values: Any) -> frozenset | None:
    """The buffers that ``values`` may view (their own buffers, the candidates of memory
    chosen at run time, an AMBIGUOUS one's candidates), or None when that is not known (an
    array made where no name outside can be followed). Input of :func:`mark_ambiguous`."""
    state: AliasState = ctx.aliases
    found: set[Buffer] = set()
    for v in values:
        if isinstance(v, (tuple, list, dict)):
            inner = candidates(ctx, *(v.values() if type(v) is dict else v))
            if inner is None:
                return None
            found |= inner
            continue
        if not isinstance(v, Array):
            continue
        hit = state.lookup(v)
        if hit is None:
            if id(v) in state.params:
                found.add(state.buffer_of(v)[0])
            continue
        buffer = hit[0]
        if AMBIGUOUS in hit[1]:
            if buffer.maybe is None:
                return None
            found |= buffer.maybe
        found.add(buffer)
        found |= {alt[0] for _, alt in buffer.choice}
    return frozenset(found)


def mark_ambiguous(ctx, value: Array, maybe: frozenset | None) -> None:
    """Registers ``value`` as a name whose memory run-time data chose in a way pyonnx cannot
    follow: writes through it are refused, and a write to any buffer in ``maybe`` (any write,
    when None) makes it stale (reading it afterwards is refused), as numpy would show the new
    values through it on some paths."""
    buffer = Buffer(value)
    buffer.maybe = maybe
    ctx.aliases.register(value, buffer, (AMBIGUOUS,))


def _stale(ctx, steps: tuple) -> Undefined:
    """What a name becomes when the memory it views was just written but pyonnx cannot
    re-derive it (an unmodelled view, or memory chosen by run-time data): reading it later is
    a ConversionError, not the old values numpy would not show."""
    line = ctx.loc.lineno if ctx.loc is not None else "?"
    if UNKNOWN in steps:
        why = ("is a view made by a numpy function whose memory layout pyonnx does not follow "
               "(np.split, the ravel of a view, ...)")
    elif any(isinstance(s, MaybeCopy) for s in steps):
        return Undefined(
            "this name is the reshape of an array whose memory order is not C (a transpose, or "
            "an elementwise result of one), which numpy makes a copy or a view depending on the "
            f"strides, and that array was written at line {line}: whether numpy shows the new "
            "values through it is not known; reshape a C-ordered copy (y.copy().reshape(...)) "
            "for a view, or take .copy() of the reshape for an independent array")
    else:
        why = ("was bound in a run-time 'if' or loop to a view of some memory on some paths "
               "only (which one depends on run-time data)")
    return Undefined(f"this name {why}, and the memory it views was written at line {line} "
                     "after it was made: numpy shows the new values through it, which pyonnx "
                     "cannot re-derive; take .copy() of it before that write, or make it after")


def _refuse_stale(ctx, value: Any) -> Any:
    if isinstance(value, Undefined):
        raise ctx.error(value.message.replace("this name", "an item of a list, tuple or dict", 1))
    return value


def steps_equal(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))





def shares_memory(ctx, value: Any, name: Any, env: dict | None = None) -> bool:
    """Whether ``value`` (bound to ``name``) shares its memory with something else: a view or
    a base with views, a function argument (the caller's memory), or an Array another name
    holds (in ``env``, or in any active frame)."""
    if isinstance(value, (tuple, list)):
        return any(shares_memory(ctx, v, name, env) for v in value)
    if type(value) is dict:
        return any(shares_memory(ctx, v, name, env) for v in value.values())
    if not isinstance(value, Array):
        return False
    state: AliasState = ctx.aliases
    if id(value) in state.params:
        return True
    entry = state.lookup(value)
    if entry is not None:
        buffer, steps = entry
        if steps or buffer.shared or buffer.param is not None or buffer.choice:
            return True
    # (the same name in another frame is another variable: a helper's parameter 'out' bound
    # to the caller's 'out' shares its memory)
    current = ctx.frames[-1] if ctx.frames else None
    envs = ([(env, True)] if env is not None else []) + [
        (f.env.locals, f is current) for f in ctx.frames]
    for e, own in envs:
        for n, v in e.items():
            if v is value:
                if n != name or not own:
                    return True
            elif entry is not None and isinstance(v, Array):
                if _same_memory(state, v, entry[0]):
                    return True
            elif isinstance(v, (tuple, list, dict)):
                # an item of a list, tuple or dict another name holds (``d = {"u": t}``,
                # ``L = [t]``): it sees a write to ``t`` as numpy does
                for w in _arrays_in(v):
                    if w is value or entry is not None and _same_memory(state, w, entry[0]):
                        return True
    return False


def _same_memory(state: AliasState, other_value: Array, buffer: Buffer) -> bool:
    """Whether ``other_value`` is a view or the base of ``buffer``'s memory, a name whose memory
    run-time data chooses among candidates including it (choices.py), or an AMBIGUOUS value
    that may view it."""
    other = state.lookup(other_value)
    if other is None:
        return False
    return other[0] is buffer or any(alt[0] is buffer for _, alt in other[0].choice) or (
        AMBIGUOUS in other[1] and _may_view(other[0], {buffer}))


def _arrays_in(v: Any, depth: int = 0):
    """The Arrays held in a (nested) tuple, list or dict."""
    items = v.values() if type(v) is dict else v
    for w in items:
        if isinstance(w, Array):
            yield w
        elif isinstance(w, (tuple, list, dict)) and depth < 8:
            yield from _arrays_in(w, depth + 1)

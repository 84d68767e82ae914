"""A write through a name, and what it does to every other name of the same memory.

Input: ``target[index] = value`` (or any new contents of ``target``) during lowering, with the
buffers and views of :mod:`aliases`. Output: the buffer's new contents pushed back through the
view's steps, and every name (in every active frame, also items of lists, tuples and dicts)
that sees the buffer rebound to its view of the new contents; a name that cannot be re-derived
becomes stale (:class:`~pyonnx.frontend.graph.values.Undefined`: reading it is refused).
A numpy array made at conversion time that the function writes into becomes a graph value
first (:func:`materialize`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.canonicalize.early_return import RETURN_VALUE
from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array, Stale, Undefined
from pyonnx.frontend.lower.aliases import (
    AMBIGUOUS, UNKNOWN, AliasState, Buffer, MaybeCopy, Reshape)
from pyonnx.frontend.lower import const_views
from pyonnx.frontend.lower.memory_sharing import may_view

__all__ = ["write", "write_with", "note_assumptions", "materialize", "held_elsewhere", "current",
           "rederive", "refuse_outside"]


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
    owned = getattr(ctx, "complex_buffers", None)
    if owned and owned.get(buffer) is not None:
        # a part of a complex argument (written through ``z.real`` held by a name): the
        # argument is written back (complex_boundary)
        from pyonnx.frontend.lower.complex_state import written_arguments
        written_arguments(ctx).add(owned[buffer])
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
    refuse_outside(ctx, target, loc_text)
    # (arrays held in lists, tuples and dicts count too: d = {'u': np.zeros(3)} then
    # d['u'][1] = 5 must show through d)
    locals_ = [(f, n, v) for f in frames for n, v in f.env.locals.items()
               if isinstance(v, (np.ndarray, tuple, list, dict))]
    held = [w for _, _, v in locals_ for w in _numpy_arrays_in(v)]
    if any(w is not target and np.may_share_memory(w, target) for w in held):
        # one buffer for their common base, each of them a view of it at the positions
        # numpy's strides give (fuzz seeds 20001083, 20001250)
        views = const_views.group_views(ctx, target, held)
        if views is None:
            raise ctx.error(f"{loc_text} shares memory with another array computed at "
                            "conversion time in a way pyonnx does not follow; take .copy() "
                            "before writing")
        for f, n, v in locals_:
            for w in list(_numpy_arrays_in(v)):
                if id(w) in views:
                    v = _swap(v, w, views[id(w)])
            f.env.locals[n] = v
        return views[id(target)]
    arr = ctx.asarray(target)
    arr = Array(arr.value, arr.dtype, arr.shape)
    if arr.ndim == 0:  # np.zeros(()) is a 0-d array, not a numpy scalar
        from pyonnx.frontend.graph.scalar_kinds import mark_array0d
        mark_array0d(ctx, arr)
    for f, n, v in locals_:
        new = _swap(v, target, arr)
        if new is not v:
            f.env.locals[n] = new
    return arr


def refuse_outside(ctx, target: np.ndarray, loc_text: str) -> None:
    """Raises ConversionError where ``target`` shares memory with a module-level or closure
    array: writing into it would change it for every later call."""
    outside = [v for f in ctx.frames for v in (*f.src.globals.values(), *f.src.closure.values())
               if isinstance(v, np.ndarray)]
    if any(v is target or np.may_share_memory(v, target) for v in outside):
        raise ctx.error(f"{loc_text} is a module-level or closure array: writing into it would "
                        "change it for every later call, which a model cannot do; take "
                        "np.copy(...) of it and write into the copy")


def held_elsewhere(lowering, target: np.ndarray, name: str) -> bool:
    """Whether anything but the name ``name`` of the current frame sees conversion-time array
    ``target``'s memory: another name or an item of a list, tuple or dict (the same object or
    a view), or a module-level or closure array. Such an array is written through
    :func:`materialize`; one only the name sees is rebound to its new value."""
    frames = lowering.ctx.frames
    current = frames[-1] if frames else None
    for f in frames:
        for w in (*f.src.globals.values(), *f.src.closure.values()):
            if isinstance(w, np.ndarray) and (w is target or np.may_share_memory(w, target)):
                return True
        for n, v in f.env.locals.items():
            if f is current and n == name and v is target:
                continue
            if isinstance(v, (np.ndarray, tuple, list, dict)) and any(
                    w is target or np.may_share_memory(w, target) for w in _numpy_arrays_in(v)):
                return True
    return False


def _numpy_arrays_in(v: Any, depth: int = 0):
    """The numpy arrays ``v`` is or holds (in nested tuples, lists and dicts)."""
    if isinstance(v, np.ndarray):
        yield v
    elif isinstance(v, (tuple, list, dict)) and depth < 8:
        for w in (v.values() if type(v) is dict else v):
            yield from _numpy_arrays_in(w, depth + 1)


def _swap(v: Any, target: np.ndarray, arr: Array, depth: int = 0) -> Any:
    """``v`` with ``target`` replaced by ``arr``: lists and dicts in place (every name
    holding them sees it), tuples rebuilt."""
    if v is target:
        return arr
    if depth >= 8:
        return v
    if isinstance(v, list) or type(v) is dict:
        keys = list(v) if type(v) is dict else range(len(v))
        for k in keys:
            v[k] = _swap(v[k], target, arr, depth + 1)
        return v
    if isinstance(v, tuple) and type(v) is tuple:
        items = tuple(_swap(w, target, arr, depth + 1) for w in v)
        return v if all(a is b for a, b in zip(items, v)) else items
    return v


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
    rebuilt: dict[int, Any] = {}  # id(Complex) → its rebuilt value (one per object: aliases)

    def fresh(value: Any) -> Any:
        if isinstance(value, Complex):
            for part in (value.re, value.im):  # (a loop's watched state input: stale)
                hit = state.lookup(part)
                if hit is not None and AMBIGUOUS in hit[1] and may_view(hit[0], buffers):
                    return _stale(ctx, hit[1])
            # a complex array is its two parts' memory when complex_aliases registered them
            # as its own buffers; else a part may be a real array's object (x.astype(complex)
            # reuses x's values) whose writes the complex copy must not see
            if not _complex_owned(ctx, value):
                return value
            got = rebuilt.get(id(value))
            if got is None:
                got = rebuilt[id(value)] = rebuild_complex(value, fresh(value.re),
                                                           fresh(value.im))
            return got
        if isinstance(value, Array):
            hit = state.lookup(value)
            if hit is None or hit[0] not in buffers and not may_view(hit[0], buffers):
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
            if isinstance(name, str) and name.startswith(RETURN_VALUE):
                # the value of a 'return' already taken: no write runs after it on the path
                # that returns it (the rest is under the return flag), so it is never stale
                continue
            new = fresh(value)
            if isinstance(new, Undefined) and new is not value:  # (stale just now)
                new = Stale(new.message.replace("this name", f"'{name}'", 1))
            if new is not value:
                env[name] = new



def _complex_owned(ctx, z: Complex) -> bool:
    owned = getattr(ctx, "complex_buffers", None)
    if not owned:
        return False
    hits = [ctx.aliases.lookup(z.re), ctx.aliases.lookup(z.im)]
    return all(h is not None and h[0] in owned for h in hits)


def rebuild_complex(z: Complex, re: Any, im: Any) -> Any:
    """``z`` with re-derived parts (``z`` itself when neither changed; a stale part makes
    the whole value stale)."""
    if re is z.re and im is z.im:
        return z
    for part in (re, im):
        if isinstance(part, Undefined):
            return part
    out = Complex(re, im, z.dtype, z.weak)
    out.base, out.param, out.shared, out.mem = z.base, z.param, z.shared, z.mem
    out.zero_d = z.zero_d
    return out


def _stale(ctx, steps: tuple) -> Stale:
    """What a name becomes when the memory it views was just written but pyonnx cannot
    re-derive it (an unmodelled view, or memory chosen by run-time data): reading it later is
    a ConversionError, not the old values numpy would not show."""
    line = ctx.loc.lineno if ctx.loc is not None else "?"
    if UNKNOWN in steps:
        why = ("is a view made by a numpy function whose memory layout pyonnx does not follow "
               "(np.split, the ravel of a view, ...)")
    elif any(isinstance(s, MaybeCopy) for s in steps):
        return Stale(
            "this name is the reshape of an array whose memory order is not C (a transpose, or "
            "an elementwise result of one), which numpy makes a copy or a view depending on the "
            f"strides, and that array was written at line {line}: whether numpy shows the new "
            "values through it is not known; reshape a C-ordered copy (y.copy().reshape(...)) "
            "for a view, or take .copy() of the reshape for an independent array")
    else:
        why = ("was bound in a run-time 'if' or loop to a view of some memory on some paths "
               "only (which one depends on run-time data)")
    return Stale(f"this name {why}, and the memory it views was written at line {line} "
                     "after it was made: numpy shows the new values through it, which pyonnx "
                     "cannot re-derive; take .copy() of it before that write, or make it after")


def _refuse_stale(ctx, value: Any) -> Any:
    if isinstance(value, Undefined):
        raise ctx.error(value.message.replace("this name", "an item of a list, tuple or dict", 1))
    return value

"""Complex arrays in numpy's memory model: views and aliases of a complex array followed by
the real machinery of :mod:`aliases` / :mod:`alias_writes`, one buffer per part.

Input: a complex view being made (``z[1:]``, ``z[i, :]``, ``z.T``) and writes into complex
arrays, outside run-time ``if``/loop bodies. Output: views whose parts are registered as views of
the base's parts (``GetItem``/``Transpose`` steps of the base parts' buffers), and writes that
go through :func:`alias_writes.write_with` once per part, so a write through a view reaches the
base, a write into the base shows through every view, and every name holding the array (an
alias, a helper's parameter) is rebound (``alias_writes.rederive`` rebuilds a Complex from its
re-derived parts).

Run-time ``if``/loop bodies: before a block is lowered in isolation (control_flow.common.
isolated) and before a run-time loop takes its entry values, :func:`prepare` registers every
complex value the names of every frame hold, so a write inside the body goes through the same
buffers the names outside see (the real machinery then carries the written part buffers out of
the ``If``/``Loop`` and re-derives every name of them). Inside a body a value the names outside
hold is never registered anew (its new part objects would replace it in the body's copy of the
bindings only): :func:`registrable`.

Values out of a run-time ``if``/loop that were different memory on different paths or a view
on some path are made choice buffers part by part by :mod:`complex_choices` where each path can
be followed; the others keep ``Complex.shared`` (their parts are new graph values the buffers
do not know) and complex_writes refuses writes through them, as through views made by other
functions (``reshape``: ``Complex.base`` without registered parts).
"""

from __future__ import annotations

from typing import Any

from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.aliases import AMBIGUOUS, UNKNOWN, MaybeCopy, Reshape, Step, register_view

__all__ = ["static_code", "followed", "register", "registrable", "prepare", "view", "write",
           "holders", "argument_memory", "buffer_param", "one_memory", "same_view",
           "rederived", "part_alias", "view_call"]


def static_code(ctx) -> bool:
    """Whether lowering is outside every run-time ``if``/loop body (of every active frame)."""
    return not any(getattr(f, "dynamic_depth", 0) for f in ctx.frames)


def _entry(ctx, a: Any):
    return ctx.aliases.lookup(a) if isinstance(a, Array) else None


def _table(ctx, name: str) -> dict:
    """This module's state on the lowering context, made empty on first use."""
    return ctx.__dict__.setdefault(name, {})


def _owned(ctx) -> dict:
    """The buffers of complex parts this module made: buffer → the parameter whose memory it
    is (None for an array the function made)."""
    return _table(ctx, "complex_buffers")


def followed(ctx, z: Complex) -> bool:
    """Whether both parts of ``z`` are in buffers this module made (two different ones) with
    steps a write can follow, and ``z`` did not come out of a run-time if/loop. (A part
    registered otherwise may be a real array's object: ``np.complex128(x).real`` can be
    ``x``'s Array, whose memory is not ``z``'s.)"""
    if z.shared:
        return False
    hits = [_entry(ctx, z.re), _entry(ctx, z.im)]
    owned = _owned(ctx)
    if any(h is None or h[0] not in owned for h in hits) or hits[0][0] is hits[1][0]:
        return False
    # (a reshape numpy makes a view or a copy as the strides say, MaybeCopy, is decided per
    # real array by copy_or_view, which does not see the complex value holding the buffer)
    return not any(AMBIGUOUS in h[1] or UNKNOWN in h[1] or
                   any(isinstance(s, MaybeCopy) for s in h[1]) for h in hits)


def _seen(ctx) -> dict:
    """id → Complex of the values :func:`prepare` saw (held: the ids stay unique)."""
    return _table(ctx, "complex_seen")


def registrable(ctx, z: Complex) -> bool:
    """Whether ``z`` is followed or may be registered now: not out of a run-time if/loop
    (``shared``), not an unfollowed view, and, inside a run-time body, not a value the names
    outside the body hold (:func:`prepare` registered those it could before the body), and
    no other value is registered on the buffers of its memory (:func:`other_holder`)."""
    if followed(ctx, z):
        return True
    if z.shared or z.base is not None:
        return False
    if not static_code(ctx) and id(z) in _seen(ctx):
        return False
    return not other_holder(ctx, z)


def prepare(ctx) -> None:
    """Registers every complex value held by a name of any frame (in lists, tuples and dicts
    too) that is not yet followed and can be: called before a run-time block is lowered on
    copies of the bindings, so writes in it reach the buffers the names outside see."""
    seen = _seen(ctx)
    for frame in ctx.frames:
        for value in list(frame.env.locals.values()):
            stack = [value]
            while stack:
                v = stack.pop()
                if isinstance(v, (list, tuple)):
                    stack.extend(v)
                elif type(v) is dict:
                    stack.extend(v.values())
                elif isinstance(v, Complex) and id(v) not in seen:
                    seen[id(v)] = v
                    if registrable(ctx, v) and not followed(ctx, v):
                        new = register(ctx, v)
                        seen[id(new)] = new


def register(ctx, z: Complex) -> Complex:
    """``z`` with its parts the bases of two buffers of its own: ``z`` itself when
    :func:`followed`, else a Complex of new part objects that replaces ``z`` in every name of
    every frame (lists, tuples and dicts included), so those names are rebound by later writes.
    """
    if followed(ctx, z):
        return z
    new = Complex(Array(z.re.value, z.re.dtype, z.re.shape),
                  Array(z.im.value, z.im.dtype, z.im.shape), z.dtype, z.weak)
    new.base, new.param, new.shared, new.mem = z.base, z.param, z.shared, z.mem
    new.zero_d = z.zero_d
    owned = _owned(ctx)
    pair = []
    for part in (new.re, new.im):
        pair.append(ctx.aliases.buffer_of(part)[0])
        owned[pair[-1]] = z.param
        # the complex value sees the part's memory: a real alias of it (``r = z.real``)
        # shares memory (memory_sharing), its in-place operators write through
        pair[-1].shared = True
    if z.base is None:
        for m in z.mem:  # (memory_buffers: a later value of this memory carried by value)
            _mem_buffers(ctx).setdefault(m, set()).update(pair)
    _replaced(ctx)[id(z)] = (z, new)
    for frame in ctx.frames:
        env = frame.env.locals
        for name, value in list(env.items()):
            swapped = _swap(value, z, new)
            if swapped is not value:
                env[name] = swapped
    return new


def _mem_buffers(ctx) -> dict:
    return _table(ctx, "complex_mem_buffers")


def other_holder(ctx, z: Complex) -> str:
    """For ``z`` not :func:`followed`: the name of a value other than ``z`` (a complex value or
    a real ``.real``/``.imag`` alias, in any frame) that is registered on the part buffers of
    memory ``z`` may be (``Complex.mem``), "" when none is. ``z`` carried by value through a
    run-time loop (new part objects) still is that memory: a write into it must reach them."""
    buffers = set()
    for m in z.mem:
        buffers |= _mem_buffers(ctx).get(m, set())
    if not buffers:
        return ""
    for _, name, value in bindings(ctx):
        stack = [value]
        while stack:
            v = stack.pop()
            if isinstance(v, (list, tuple)):
                stack.extend(v)
            elif type(v) is dict:
                stack.extend(v.values())
            elif isinstance(v, Complex) and v is not z:
                stack.extend((v.re, v.im))
            elif isinstance(v, Array):
                hit = _entry(ctx, v)
                if hit is not None and hit[0] in buffers:
                    return name
    return ""


def _replaced(ctx) -> dict:
    return _table(ctx, "complex_replaced")


def latest(ctx, z: Any) -> Any:
    """``z``, or the registered value that replaced it in every name (:func:`register`; a
    write's target read before its index registered it: ``w[w.real < 0] = 0``)."""
    while isinstance(z, Complex):
        hit = _replaced(ctx).get(id(z))
        if hit is None or hit[0] is not z:
            return z
        z = hit[1]
    return z


def buffer_param(ctx, buffer) -> str | None:
    """The complex parameter whose memory part ``buffer`` is (None: not an argument's)."""
    return _owned(ctx).get(buffer)


def one_memory(ctx, values: list) -> bool:
    """Whether ``values`` (Complex) are all this module's views of the same part buffers with
    the same steps (the same numpy array seen through several names: the same contents)."""
    keys = set()
    for z in values:
        if not followed(ctx, z):
            return False
        (br, sr), (bi, si) = _entry(ctx, z.re), _entry(ctx, z.im)
        keys.add((br, tuple(map(id, sr)), bi, tuple(map(id, si))))
    return len(keys) == 1


def argument_memory(ctx, param: str, dtype) -> Complex | None:
    """The current contents of the complex argument ``param``'s memory when its parts are
    followed here (a write through a view after the name was rebound), else None."""
    owned = _owned(ctx)
    mine = [b for b, p in owned.items() if p == param]
    if len(mine) != 2:
        return None
    memory = ctx.aliases.memory
    re, im = (memory.get(b, b.initial) for b in mine)
    return Complex(re, im, dtype)


def _swap(v: Any, old: Complex, new: Complex, depth: int = 0) -> Any:
    if v is old:
        return new
    if depth >= 8:
        return v
    if isinstance(v, list) or type(v) is dict:
        for k in (list(v) if type(v) is dict else range(len(v))):
            v[k] = _swap(v[k], old, new, depth + 1)
        return v
    if type(v) is tuple:
        items = tuple(_swap(w, old, new, depth + 1) for w in v)
        return v if all(a is b for a, b in zip(items, v)) else items
    return v


def view(ctx, z: Complex, out: Complex, step: Step) -> Complex:
    """``out`` (just made from ``z`` by ``step`` on each part) registered as a view of ``z``'s
    memory when that can be followed (``z`` :func:`registrable`); else ``out`` with ``base``
    set, which makes writes refused."""
    out.base, out.mem = z, z.mem
    if not registrable(ctx, z):
        return out
    z = register(ctx, z)
    re = register_view(ctx, out.re, z.re, step)
    im = register_view(ctx, out.im, z.im, step)
    res = Complex(re, im, out.dtype, out.weak)
    res.base, res.mem, res.param = z, z.mem, None
    return res


def bindings(ctx):
    """(name, value) of every name of every frame that a later write may reach: not a
    'return' value already taken (early_return: the code after it runs on the other path
    only, as alias_writes.rederive says)."""
    from pyonnx.frontend.canonicalize.early_return import RETURN_VALUE
    for frame in ctx.frames:
        for name, value in frame.env.locals.items():
            if not (isinstance(name, str) and name.startswith(RETURN_VALUE)):
                yield frame, name, value


def holders(ctx, target: Complex) -> list[tuple[str, Any]]:
    """(name, value) of every Complex held by a name (or in a list, tuple or dict held by a
    name) of any frame whose memory may meet ``target``'s."""
    out = []
    for _, name, value in bindings(ctx):
        stack = [value]
        while stack:
            v = stack.pop()
            if isinstance(v, (list, tuple)):
                stack.extend(v)
            elif type(v) is dict:
                stack.extend(v.values())
            elif isinstance(v, Complex) and (v is target or v.mem & target.mem):
                out.append((name, v))
    return out


def write(lowering, target: Complex, compute_re, compute_im, loc_text: str) -> Complex:
    """Writes ``compute_re(ctx, re)`` / ``compute_im(ctx, im)`` into the parts of ``target``'s
    memory (each None: that part unchanged) and rebinds every name that sees it; returns
    ``target`` as registered (its parts' entries name the buffers and steps written).

    Preconditions: ``target`` is :func:`registrable`, and each of its :func:`holders` is
    :func:`followed` (checked by complex_writes.write)."""
    from pyonnx.frontend.lower import alias_writes

    ctx = lowering.ctx
    if target.base is None and not followed(ctx, target):
        target = register(ctx, target)
    if compute_re is not None:
        alias_writes.write_with(lowering, target.re, compute_re, loc_text)
    if compute_im is not None:
        alias_writes.write_with(lowering, target.im, compute_im, loc_text)
    return target


def same_view(ctx, a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` (a name's values on two paths) are both complex values whose
    parts are the same views of the same part buffers (re-derived from them after a join, as
    a real name that is the same view on both paths)."""
    if not (isinstance(a, Complex) and isinstance(b, Complex)) or a.dtype != b.dtype:
        return False
    if not (followed(ctx, a) and followed(ctx, b)) or a.weak != b.weak:
        return False
    from pyonnx.frontend.lower.aliases import steps_equal
    for pa, pb in ((a.re, b.re), (a.im, b.im)):
        ea, eb = _entry(ctx, pa), _entry(ctx, pb)
        if ea[0] is not eb[0] or not steps_equal(ea[1], eb[1]) or \
                not all(hasattr(s, "forward") for s in ea[1]):
            return False
    return a.param == b.param and a.base is b.base


def rederived(ctx, z: Complex) -> Complex:
    """``z`` (:func:`followed`) with its parts re-derived from its buffers' current contents."""
    from pyonnx.frontend.lower.alias_writes import current, rebuild_complex

    out = rebuild_complex(z, current(ctx, z.re), current(ctx, z.im))
    if out is z:
        return z
    out.mem = z.mem
    return out


def part_alias(ctx, z: Complex, which: str) -> Array | None:
    """``z.real`` / ``z.imag`` as numpy's view: an alias of the part's buffer (the same
    mapping), so a write through it reaches ``z`` and a write into ``z`` shows through it;
    None when ``z``'s memory is not followed."""
    if not registrable(ctx, z):
        return None
    z = register(ctx, z)
    part = z.re if which == "re" else z.im
    buffer, steps = ctx.aliases.buffer_of(part)
    view = Array(part.value, part.dtype, part.shape)
    ctx.aliases.register(view, buffer, steps)
    return view


def loop_derived(ctx, names, entry: dict, pending, body: list) -> list:
    """The complex names a run-time loop carries through their part buffers rather than as
    values: followed before the loop and written in the body (``z[i] = v``, ``z.real[i] = v``,
    ``z op= v``: writes into the buffers, re-derived into every name). A name the body only
    rebinds (an accumulator, ``s = s + v``) is carried as a value, without lowering the body
    twice to find that out."""
    import ast

    written = set()
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and (
                    getattr(node.targets[0], "pyonnx_setitem_root", False)
                    or getattr(node.value, "pyonnx_inplace", None) is True):
            written.add(node.targets[0].id)
    return [n for n in names if n in written and n not in pending
            and isinstance(entry.get(n), Complex) and followed(ctx, entry[n])]


def part_buffers(ctx, z: Complex) -> list:
    """The buffers of ``z``'s parts (``z`` :func:`followed`)."""
    return [_entry(ctx, z.re)[0], _entry(ctx, z.im)[0]]


def view_call(ctx, z: Complex, name: str, fn) -> Complex:
    """The view numpy function or method ``name`` makes of ``z`` (``z.T``, ``z.reshape(...)``,
    ``np.flip(z)``...), ``fn(part)`` computing each part's: each part registered as the real
    call's view of the part buffer (view_calls.after_call: transposes, reshapes of a whole
    array, flips followed; the others UNKNOWN, which makes the view not :func:`followed`).
    A reshape of a complex argument assumes it C-contiguous, which the call checks, as for
    a real argument."""
    import dataclasses

    from pyonnx.frontend.lower import view_calls

    if registrable(ctx, z):
        z = register(ctx, z)
    re, im = fn(z.re), fn(z.im)
    if followed(ctx, z) and isinstance(re, Array) and isinstance(im, Array):
        re = view_calls.after_call(ctx, name, [z.re], re, lambda c, b: fn(b))
        im = view_calls.after_call(ctx, name, [z.im], im, lambda c, b: fn(b))
        param = buffer_param(ctx, _entry(ctx, z.re)[0])
        if param is not None:
            for part in (re, im):
                hit = _entry(ctx, part)
                if hit is not None and hit[1] and type(hit[1][-1]) is Reshape:
                    step = dataclasses.replace(hit[1][-1],
                                               assumes=hit[1][-1].assumes | {param})
                    ctx.aliases.register(part, hit[0], hit[1][:-1] + (step,))
    if not (isinstance(re, Array) and isinstance(im, Array)):
        raise ctx.error("pyonnx bug: a complex view gave mismatched parts")
    out = Complex(re, im, z.dtype, z.weak and re.ndim == 0)
    out.base, out.mem = z, z.mem
    return out

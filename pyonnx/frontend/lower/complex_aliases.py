"""Complex arrays in numpy's memory model: views and aliases of a complex array followed by
the real machinery of :mod:`aliases` / :mod:`alias_writes`, one buffer per part.

Input: a complex view being made (``z[1:]``, ``z[i, :]``, ``z.T``) and writes into complex
arrays, outside run-time ``if``/loop bodies. Output: views whose parts are registered as views of
the base's parts (``GetItem``/``Transpose`` steps of the base parts' buffers), and writes that
go through :func:`alias_writes.write_with` once per part, so a write through a view reaches the
base, a write into the base shows through every view, and every name holding the array (an
alias, a helper's parameter) is rebound (``alias_writes.rederive`` rebuilds a Complex from its
re-derived parts).

Not followed here (complex_writes keeps refusing them): values out of a run-time ``if``/loop
(``Complex.shared``; their parts are new graph values the buffers do not know), writes inside a
run-time body (a loop carries buffers and names separately, and a Complex's parts are carried
as the name's), views made by other functions (``reshape``: ``Complex.base`` without registered
parts), and ``.real``/``.imag`` views held by a name (registered as unknown views: a write into
the array makes them stale, reading one afterwards is refused).
"""

from __future__ import annotations

from typing import Any

from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower.aliases import AMBIGUOUS, UNKNOWN, Step, register_view

__all__ = ["static_code", "followed", "register", "view", "write", "holders",
           "argument_memory", "buffer_param", "one_memory"]


def static_code(ctx) -> bool:
    """Whether lowering is outside every run-time ``if``/loop body (of every active frame)."""
    return not any(getattr(f, "dynamic_depth", 0) for f in ctx.frames)


def _entry(ctx, a: Any):
    return ctx.aliases.lookup(a) if isinstance(a, Array) else None


def _owned(ctx) -> dict:
    """The buffers of complex parts this module made: buffer → the parameter whose memory it
    is (None for an array the function made)."""
    found = getattr(ctx, "complex_buffers", None)
    if found is None:
        found = ctx.complex_buffers = {}
    return found


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
    return not any(AMBIGUOUS in h[1] or UNKNOWN in h[1] for h in hits)


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
    owned = _owned(ctx)
    for part in (new.re, new.im):
        owned[ctx.aliases.buffer_of(part)[0]] = z.param
    for frame in ctx.frames:
        env = frame.env.locals
        for name, value in list(env.items()):
            swapped = _swap(value, z, new)
            if swapped is not value:
                env[name] = swapped
    return new


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
    memory when that can be followed (outside run-time bodies, ``z`` itself followed or a
    fresh array); else ``out`` with ``base`` set, which makes writes refused."""
    out.base, out.mem = z, z.mem
    if not static_code(ctx) or z.shared or (z.base is not None and not followed(ctx, z)):
        return out
    z = register(ctx, z)
    re = register_view(ctx, out.re, z.re, step)
    im = register_view(ctx, out.im, z.im, step)
    res = Complex(re, im, out.dtype, out.weak)
    res.base, res.mem, res.param = z, z.mem, None
    return res


def holders(ctx, target: Complex) -> list[tuple[str, Any]]:
    """(name, value) of every Complex held by a name (or in a list, tuple or dict held by a
    name) of any frame whose memory may meet ``target``'s."""
    out = []
    for frame in ctx.frames:
        for name, value in frame.env.locals.items():
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

    Preconditions: :func:`static_code`, and ``target`` and each of its :func:`holders` are
    :func:`followed` or fresh (checked by complex_writes.write)."""
    from pyonnx.frontend.lower import alias_writes

    ctx = lowering.ctx
    if target.base is None and not followed(ctx, target):
        target = register(ctx, target)
    if compute_re is not None:
        alias_writes.write_with(lowering, target.re, compute_re, loc_text)
    if compute_im is not None:
        alias_writes.write_with(lowering, target.im, compute_im, loc_text)
    return target

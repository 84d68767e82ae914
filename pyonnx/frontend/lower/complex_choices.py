"""Complex names whose memory is chosen at run time: the choice buffers of :mod:`choices`, one
per part.

Input: a name's values at the end of the two paths of a run-time ``if`` (``t = z if c else
z[::-1]``, also as items of a list, tuple or dict: ``d = {'u': z}`` / ``{'u': z[::-1]}``), or
before and after a run-time loop that may rebind it (``t = z``, then ``t = z[::-1]`` in the
body: a choice on "the loop ran"). Output: the merged Complex with each part registered as a
choice buffer of the memory the part saw on each path, made a complex array complex_aliases
follows, so a write through it reaches, part by part and under the path's condition, the memory
numpy writes (:func:`choices.propagate`), and every name of that memory is re-derived.

A path whose complex value cannot be followed part by part (a view complex_aliases does not
follow, a value made on the path that another name also holds, the two parts seeing different
kinds of memory) leaves the merged value with its ``Complex.shared`` note: writes through it
stay refused (complex_writes), never guessed.
"""

from __future__ import annotations

from typing import Any

from pyonnx.frontend.graph.complex_values import Complex
from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.lower import choices, memory_sharing
from pyonnx.frontend.lower import complex_aliases as CA

__all__ = ["ComplexChoice", "join_alternatives", "follow_loop", "linked"]

# A complex item's part on a path of keys (resolved with getattr, not indexing)
_PARTS = ("re", "im")


class ComplexChoice(choices.Leaves):
    """The alternatives of a name that holds complex values (itself, or as items of a
    container) on both paths of a run-time ``if``: :class:`choices.Leaves` whose items are the
    parts of complex leaves (their path ends with ``"re"``/``"im"``) and the real items that
    share memory; ``refused``: paths of complex leaves that cannot be followed."""

    def __init__(self, items: list, complex_paths: list, refused: list):
        super().__init__(items)
        self.complex_paths = complex_paths
        self.refused = refused

    def resolve(self, merged: Any):
        for path, alts, sides in self.items:
            leaf = _at(merged, path)
            if isinstance(leaf, Array):
                yield leaf, alts, sides

    def choose(self, ctx, merged: Any, cond, exported: dict, choose) -> list:
        """Registers the choice buffers (``choose`` is join_memory.choose) of every followed
        item and makes each complex leaf of ``merged`` whose two parts both became choice
        buffers followed by complex_aliases; returns ``(item, sides)`` of the real items that
        could not be followed (the caller marks them AMBIGUOUS after its re-derivation)."""
        unfollowed = []
        for item, pair, item_sides in self.resolve(merged):
            if pair is None:
                unfollowed.append((item, item_sides))
            else:
                choose(ctx, item, cond, pair, exported)
        for path in self.complex_paths:
            z = _at(merged, path)
            if isinstance(z, Complex):
                _adopt(ctx, z)
        return unfollowed


def _at(value: Any, path: tuple) -> Any:
    for key in path:
        if key in _PARTS and isinstance(value, Complex):
            value = getattr(value, key)
        elif isinstance(value, (list, tuple, dict)):
            value = value[key]
        else:
            return None
    return value


def _adopt(ctx, z: Complex) -> None:
    """``z`` (just merged; its parts registered as choice buffers) as a complex array
    complex_aliases follows: its part buffers are complex buffers of no parameter (a write
    reaches an argument's through the choice, complex_writes collects the parameters), and
    the notes that refused writes are dropped."""
    hits = [ctx.aliases.lookup(z.re), ctx.aliases.lookup(z.im)]
    if any(h is None or not h[0].choice or h[1] for h in hits) or hits[0][0] is hits[1][0]:
        return
    owned = CA._owned(ctx)
    for buffer, _ in hits:
        owned.setdefault(buffer, None)
        buffer.shared = True  # (memory other names see: in-place operators write through)
    z.shared, z.base, z.param = "", None, None


def _complex_leaves(a: Any, b: Any, path: tuple, out: list, depth: int = 0) -> bool:
    """Appends (path, a's leaf, b's leaf) for every leaf that is complex on some path; False
    when the containers' structures differ (the join refuses or joins them otherwise)."""
    if depth > 8:
        return False
    if isinstance(a, Complex) or isinstance(b, Complex):
        out.append((path, a, b))
        return True
    if type(a) is dict and type(b) is dict:
        return list(a) == list(b) and all(
            _complex_leaves(a[k], b[k], path + (k,), out, depth + 1) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(
            _complex_leaves(x, y, path + (i,), out, depth + 1)
            for i, (x, y) in enumerate(zip(a, b)))
    return True


def join_alternatives(ctx, a: Any, b: Any, name: Any, envs: tuple, outer: set[int]
                      ) -> ComplexChoice | None:
    """The :class:`ComplexChoice` of a name bound to ``a`` and ``b`` at the end of the two
    paths (``envs``: their bindings), or None when neither holds a complex value that may share
    memory (the real machinery decides alone)."""
    leaves: list = []
    if not _complex_leaves(a, b, (), leaves):
        return None
    items, complex_paths, refused = [], [], []
    for path, x, y in leaves:
        if not (isinstance(x, Complex) and isinstance(y, Complex)):
            continue  # (the join refuses a real value on one path: numpy's dtype differs)
        sides = [_value_alternative(ctx, v, name, env, outer, holder=None if not path else c)
                 for v, env, c in ((x, envs[0], a), (y, envs[1], b))]
        if all(s == "private" for s in sides):
            continue  # memory of its own on both paths
        if None in sides:
            refused.append(path)
            continue
        complex_paths.append(path)
        for i, part in enumerate(_PARTS):
            pair = tuple(choices.PRIVATE if s == "private" else s[i] for s in sides)
            items.append((path + (part,), pair, (getattr(x, part), getattr(y, part))))
    if not items and not refused:
        return None
    if isinstance(a, (tuple, list, dict)) and (
            memory_sharing.shares_memory(ctx, a, name, envs[0])
            or memory_sharing.shares_memory(ctx, b, name, envs[1])):
        real = choices.container_alternatives(ctx, a, b, name, envs, outer)
        if real is None:
            return None
        items += real.items
    return ComplexChoice(items, complex_paths, refused)


def _value_alternative(ctx, z: Complex, name: Any, env: dict | None, outer: set[int],
                       holder: Any = None, made_here: bool = True, merged: Any = None) -> Any:
    """What complex value ``z`` (bound to ``name`` at a path's end, as an item of ``holder``
    when given; ``env``: the path's bindings, None for the frames' own) saw: "private" (memory
    of its own no other name holds), a pair of part alternatives (:func:`choices.alternative`
    of each part: ``(buffer, steps)`` or :class:`choices.Nested`), or None when that cannot be
    followed. ``made_here``: as choices.alternative (memory made on an if's path).
    ``merged``: the value after the loop whose paths these are (not another holder)."""
    if not _shares(ctx, z, name, env, holder, merged):
        return "private"
    if not CA.followed(ctx, z):
        return None
    alts = tuple(choices.alternative(ctx, part, name, env, outer, shared=True,
                                     made_here=made_here, holder=holder)
                 for part in (z.re, z.im))
    # (a private part of a value that shares memory: choices.alternative sees real holders
    # only, the complex ones it missed make it not followed)
    if any(alt is None or alt is choices.PRIVATE for alt in alts) or \
            type(alts[0]) is not type(alts[1]):
        return None
    return alts


def _shares(ctx, z: Complex, name: Any, env: dict | None, holder: Any,
            merged: Any = None) -> bool:
    """Whether numpy's memory of ``z`` may be seen through something other than ``name``'s
    own place of it: an argument, a view, memory chosen at run time, or another binding (in
    ``env`` or any active frame, also inside lists, tuples and dicts) of a complex value whose
    memory may meet ``z``'s, or of a real array on its part buffers (``r = z.real``)."""
    if z.shared or z.base is not None or z.param is not None:
        return True
    buffers = set()
    if CA.followed(ctx, z):
        for part in (z.re, z.im):
            buffer, steps = ctx.aliases.lookup(part)
            if steps or buffer.choice or CA.buffer_param(ctx, buffer) is not None:
                return True
            buffers.add(buffer)
    current = ctx.frames[-1] if ctx.frames else None
    envs = ([(env, True)] if env is not None else []) + [
        (f.env.locals, env is None and f is current) for f in ctx.frames]
    for e, mine in envs:
        for n, v in e.items():
            own = mine and n == name
            skipped = False
            stack = [v]
            while stack:
                w = stack.pop()
                if isinstance(w, (list, tuple)):
                    stack.extend(w)
                elif type(w) is dict:
                    stack.extend(w.values())
                elif isinstance(w, Complex) and w is not merged and (w is z or w.mem & z.mem):
                    if own and not skipped and (w is z or env is None) and \
                            (holder is None or v is holder):
                        skipped = True  # its own place
                        continue
                    return True
                elif isinstance(w, Array) and buffers:
                    hit = ctx.aliases.lookup(w)
                    if hit is not None and hit[0] in buffers:
                        return True
    return False


def follow_loop(ctx, name: str, value: Complex, before: Any, after: Any, exits: dict,
                outer: set[int], ran) -> bool:
    """A complex name carried by a run-time loop that may rebind it to other memory: ``before``
    (its value before the loop, None when the loop runs at least once) and ``after`` (at an
    iteration's end). Makes ``value`` (after the loop) a choice on "the loop ran" (``ran()``
    gives that condition) where both can be followed part by part; True when it did (else
    ``value`` keeps its note: writes through it are refused)."""
    if not isinstance(after, Complex) or before is not None and not isinstance(before, Complex):
        return False
    was = "private" if before is None else _value_alternative(
        ctx, before, name, None, outer, made_here=False, merged=value)
    now = _value_alternative(ctx, after, name, exits, outer, made_here=False, merged=value)
    if was is None or now is None or was == "private" and now == "private":
        return False
    if any(isinstance(alt, choices.Nested) for side in (was, now) if side != "private"
           for alt in side):
        return False
    cond = ran()
    for i, part in enumerate((value.re, value.im)):
        pairs = [] if was == "private" else [(ctx.op("Not", cond), was[i])]
        pairs += [] if now == "private" else [(cond, now[i])]
        choices.make_choice(ctx, part, pairs)
    _adopt(ctx, value)
    return True


def linked(ctx, mine: tuple, theirs: tuple) -> bool:
    """Whether the part buffers ``theirs`` (of another complex value) are written whenever
    ``mine`` are, part by part: the same buffers, or buffers a choice connects to them
    (``choices.propagate`` writes a choice's alternatives and re-derives the choices that saw
    written memory, so the other value is re-derived from its buffers)."""
    return all(_connected(ctx, m, t) for m, t in zip(mine, theirs))


def _connected(ctx, a, b) -> bool:
    if a is b:
        return True
    seen, stack = {a}, [a]
    while stack:
        x = stack.pop()
        near = [alt[0] for _, alt in x.choice]
        near += [q for q in ctx.aliases.choices if any(alt[0] is x for _, alt in q.choice)]
        for y in near:
            if y is b:
                return True
            if y not in seen:
                seen.add(y)
                stack.append(y)
    return False


def reached_params(ctx, buffers) -> set[str]:
    """The complex parameters whose part buffers a write to ``buffers`` reaches through the
    choices it is made of (:func:`choices.propagate` writes each alternative under its
    condition): the caller's arrays to write back."""
    found, seen, stack = set(), set(), list(buffers or ())
    while stack:
        b = stack.pop()
        if b in seen:
            continue
        seen.add(b)
        param = CA.buffer_param(ctx, b)
        if param is not None:
            found.add(param)
        stack.extend(alt[0] for _, alt in b.choice)
    return found

"""Item assignment into complex arrays: ``z[index] = v`` on a :class:`Complex`.

Input: the assignment's target (its AST node and value), the index and the value. Output: the
name rebound to the written Complex (each part written by the real item assignment,
:func:`pyonnx.frontend.lower.setitem.setitem`), or a ConversionError.

A complex array whose parts complex_aliases registered as buffers of :mod:`aliases` is written
through the real machinery, part by part (views, aliases, ``.real``/``.imag`` views, writes in
run-time ``if``/loop bodies). Otherwise a write is converted only when no other name or view can
see the memory: the target is a local name, no view of it was taken (``z[1:]``, ``z.real``,
``z.reshape``), no other name holds it. A written argument (the caller's memory) is followed by
its name, also out of a run-time ``if`` (branches keep the name although nothing reads it later)
and loop, and written back at the end (complex_boundary). Everything else is refused with what
to write instead, never converted into a model that misses numpy's shared write.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from pyonnx.frontend.graph import complex_kinds
from pyonnx.frontend.graph.complex_values import Complex, is_complex, make, memory_note, parts
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.lower.complex_choices import reached_params
from pyonnx.frontend.lower.complex_state import written_arguments

__all__ = ["handles", "write", "is_part", "write_part", "written_arguments", "inplace_binary",
           "shared", "followable", "write_whole", "value_parts", "params_of"]


def handles(target: Any, value: Any) -> bool:
    """Whether ``target[...] = value`` is this module's (a complex target or value)."""
    if isinstance(target, Complex):
        return True
    if isinstance(target, np.ndarray) and target.dtype.kind == "c":
        return True
    return isinstance(target, (Array, np.ndarray)) and is_complex(value)


def is_part(target_node: ast.expr) -> bool:
    """Whether a write's target is ``name.real`` or ``name.imag`` (canonicalize/setitem)."""
    return isinstance(target_node, ast.Attribute) and target_node.attr in ("real", "imag") \
        and isinstance(target_node.value, ast.Name)


def write_part(lowering, target_node: ast.Attribute, base: Any, index: Any, value: Any) -> None:
    """``z.real[index] = v`` / ``z.imag[index] = v``: numpy writes into ``z``'s memory, so the
    name is rebound to ``z`` with that part written (the same checks as :func:`write`)."""
    ctx = lowering.ctx
    text = ast.unparse(target_node)
    if not isinstance(base, Complex):
        if target_node.attr == "imag":
            raise ctx.error(f"'{text}[...] = ...': the imaginary part of a real array is "
                            "read-only (numpy raises ValueError)")
        raise ctx.error(f"item assignment through '.real' of a real array ('{text}[...] = "
                        "...') is not supported; write into the array itself (x[...] = v)")
    if isinstance(value, Complex) or is_complex(value) or \
            isinstance(value, (list, tuple)) and any(is_complex(v) for v in value):
        raise ctx.error(f"'{text}[...] = <complex>': numpy raises TypeError (a part holds "
                        "real numbers); assign np.real(v) or np.imag(v)")
    write(lowering, target_node.value, base, index, value, part=target_node.attr)


def write(lowering, target_node: ast.expr, target: Any, index: Any, value: Any,
          part: str | None = None) -> None:
    """``target[index] = value`` into a complex array (``part``: only into its real or
    imaginary part, for ``z.real[index] = value``)."""
    ctx = lowering.ctx
    if not isinstance(target, Complex) and not (isinstance(target, np.ndarray)
                                                and target.dtype.kind == "c"):
        raise ctx.error("assigning complex values into a real array would drop their imaginary "
                        "parts (numpy raises TypeError or warns ComplexWarning); write "
                        "np.real(v) explicitly, or make the array complex")
    name = ast.unparse(target_node)
    from pyonnx.frontend.lower.complex_aliases import latest
    target = latest(ctx, target)  # (registered while the index or value was evaluated)
    if getattr(ctx, "complex_scalar_items", {}).get(id(target)) is target:
        raise ctx.error(f"'{name}' is a numpy scalar (an element z[i] of a complex array, a "
                        "copy): numpy raises TypeError for item assignment into it; write into "
                        "the array (z[i] = v)")
    if isinstance(target, np.ndarray) and _held_elsewhere(lowering, target, name):
        # (a conversion-time array other names see, or a view of one: complex_materialize)
        from pyonnx.frontend.lower.complex_materialize import materialize
        held = materialize(lowering, target, f"'{name}'")
        target = target if held is None else held
    if isinstance(target, Complex) and _followable(ctx, target):
        # (through the memory model: every name and container item of it is re-derived, so
        # an item of a list or dict, d['u'][i] = v, is written too)
        _write_followed(lowering, name, target, index, value, part)
        return
    if not isinstance(target_node, ast.Name):
        raise ctx.error(f"item assignment into '{name}' of a complex array is not supported "
                        "here: pyonnx does not follow this array's memory (a view or a value "
                        "out of a run-time if/loop that it cannot follow); write into the "
                        "array's own name (z[i] = v)")
    why = shared(lowering, target)
    if why:
        raise ctx.error(f"item assignment into the complex array '{name}' is not supported: "
                        f"{why}; write into a copy (z = z.copy()) before the views are taken")
    from pyonnx.frontend.lower.complex_aliases import bindings
    others = [n for f, n, v in bindings(ctx)
              if (v is target or _meets(v, target)) and (f is not lowering or n != name)]
    if others:
        raise ctx.error(f"item assignment into the complex array '{name}', which the name "
                        f"'{others[0]}' also holds (numpy would change both); write into a copy "
                        f"({name} = {name}.copy())")
    if not isinstance(target, Complex):
        re, im = parts(ctx, target, target.dtype)
        target = make(ctx, re, im, target.dtype)
    from pyonnx.frontend.lower.setitem import setitem

    vr, vi = _value_parts(ctx, value, target.dtype)
    re = setitem(ctx, target.re, index, vr) if part != "imag" else target.re
    im = setitem(ctx, target.im, index, vr if part == "imag" else vi) if part != "real" \
        else target.im
    out = Complex(re, im, target.dtype)
    out.mem, out.param = target.mem, target.param  # the same numpy memory, new contents
    out.zero_d = target.zero_d
    if out.param is not None:  # the caller's array: written back (complex_boundary)
        written_arguments(ctx).add(out.param)
    lowering.env.bind(name, out)


def _held_elsewhere(lowering, target: np.ndarray, name: str) -> bool:
    """Whether a name other than ``name`` (or a container item) holds conversion-time
    ``target``'s memory, or ``target`` is a view of another array."""
    from pyonnx.frontend.lower.complex_aliases import bindings

    if isinstance(target.base, np.ndarray):
        return True
    return any((v is target or _meets(v, target)) and (f is not lowering or n != name)
               for f, n, v in bindings(lowering.ctx))


def _followable(ctx, target: Complex) -> bool:
    """Whether complex_aliases follows a write into ``target``: not out of a run-time if/loop
    as different memory on different paths, not iterated by a run-time loop, a followed array
    or view (or one complex_aliases may register here), and every other value that may share
    its memory a followed view of the same parts' buffers."""
    from pyonnx.frontend.lower import complex_aliases as CA
    from pyonnx.frontend.lower.complex_iteration import iterated

    if target.mem & iterated(ctx) or not CA.registrable(ctx, target):
        return False
    from pyonnx.frontend.lower.complex_choices import linked

    mine = _buffers(ctx, target)
    for _, v in CA.holders(ctx, target):
        # (another value of memory chosen at run time is re-derived through the choice)
        if v is not target and (not CA.followed(ctx, v) or mine is None
                                or not linked(ctx, mine, _buffers(ctx, v))):
            return False
    return True


def followable(ctx, target: Complex) -> bool:
    """Whether a write into ``target`` goes through complex_aliases (see :func:`_followable`):
    the writes of out= (complex_out) need it, having no name to rebind."""
    return _followable(ctx, target)


def write_whole(lowering, target: Complex, value: Complex, loc_text: str) -> None:
    """``target[...] = value`` through numpy's memory (``target`` :func:`followable`)."""
    _write_followed(lowering, loc_text, target, Ellipsis, value, None)


def _buffers(ctx, z: Complex):
    hits = [ctx.aliases.lookup(z.re), ctx.aliases.lookup(z.im)]
    return None if None in hits else (hits[0][0], hits[1][0])


def params_of(ctx, target: Complex) -> set[str]:
    """The complex parameters whose memory a write into ``target`` (followed) reaches: the
    caller's arrays to write back."""
    from pyonnx.frontend.lower import complex_aliases as CA

    params = {v.param for _, v in CA.holders(ctx, target) if v.param is not None}
    # (an argument's memory written through a view after its name was rebound)
    return params | reached_params(ctx, _buffers(ctx, target))  # (also through a choice)


def _write_followed(lowering, name: str, target: Complex, index: Any, value: Any,
                    part: str | None) -> None:
    """``target[index] = value`` through numpy's memory (complex_aliases.write)."""
    from pyonnx.frontend.lower import complex_aliases as CA
    from pyonnx.frontend.lower.setitem import setitem

    ctx = lowering.ctx
    vr, vi = _value_parts(ctx, value, target.dtype)
    params = params_of(ctx, target)
    written = vr if part == "imag" else vi
    CA.write(lowering, target,
             None if part == "imag" else (lambda c, t: setitem(c, t, index, vr)),
             None if part == "real" else (lambda c, t: setitem(c, t, index, written)),
             f"'{name}'")
    written_arguments(ctx).update(params)  # the caller's arrays: written back


def _inplace_followed(lowering, left: Complex, result: Complex) -> Complex:
    """``x op= v`` on a complex array other names or views share: the result written into
    ``x``'s memory (numpy's in-place ufunc), the name's new value re-derived from it."""
    from pyonnx.frontend.lower import complex_aliases as CA
    from pyonnx.frontend.lower.alias_writes import current
    from pyonnx.frontend.lower.setitem import setitem

    ctx = lowering.ctx
    if result.dtype != left.dtype:
        result = make(ctx, result.re, result.im, left.dtype)
    params = {v.param for _, v in CA.holders(ctx, left) if v.param is not None}
    params |= reached_params(ctx, _buffers(ctx, left))  # (also through a choice)
    target = CA.write(lowering, left, lambda c, t: setitem(c, t, Ellipsis, result.re),
                      lambda c, t: setitem(c, t, Ellipsis, result.im), "'x op= ...'")
    written_arguments(ctx).update(params)
    out = Complex(current(ctx, target.re), current(ctx, target.im), left.dtype)
    out.base, out.param, out.shared, out.mem = target.base, target.param, "", target.mem
    out.zero_d = left.zero_d if left.zero_d is not None else complex_kinds.kind(left)
    return out


def value_parts(ctx, value: Any, dtype) -> tuple:
    """:func:`_value_parts` (complex_fill: the values numpy's writing functions write)."""
    return _value_parts(ctx, value, dtype)


def _value_parts(ctx, value: Any, dtype) -> tuple:
    """The real and imaginary parts of a written value: a complex or real value, or a list or
    tuple of them (``z[idx] = [1j, 2]``: numpy's array of the items, complex ones included)."""
    if isinstance(value, (list, tuple)) and not _direct(value):
        if is_static(value):
            value = np.asarray(value)
        elif any(is_complex(v) for v in _leaves(value)):
            from pyonnx.frontend.lower.complex_stats import array
            value = array(ctx, list(value))
    return parts(ctx, value if _direct(value) else ctx.asarray(value), dtype)


def _leaves(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return [w for v in value for w in _leaves(v)]
    return [value]


def _direct(value: Any) -> bool:
    return isinstance(value, (Complex, Array, bool, int, float, complex, np.generic,
                              np.ndarray))


def _meets(v: Any, target: Any) -> bool:
    """Whether ``v`` may be (part of) the memory of ``target``: a Complex whose buffers meet,
    or, for an array computed at conversion time, a numpy array that may share its memory
    (``w = np.atleast_2d(t)``, ``t[1:]``; also inside a list, tuple or dict): numpy would show
    the write through it (a silently stale view before)."""
    if isinstance(target, np.ndarray):
        if isinstance(v, np.ndarray):
            return np.may_share_memory(v, target)
        if isinstance(v, (tuple, list)):
            return any(_meets(w, target) for w in v)
        if type(v) is dict:
            return any(_meets(w, target) for w in v.values())
        return False
    return isinstance(v, Complex) and isinstance(target, Complex) and bool(v.mem & target.mem)


def shared(lowering, target: Any) -> str:
    """Why numpy's write into ``target`` could be seen elsewhere ("" when it cannot): an
    argument, a view, a complex view held by a name whose memory (``Complex.mem``) meets the
    target's, any ``.real``/``.imag`` part view held by a name (not traced), or a run-time loop
    iterating over it."""
    if not isinstance(target, Complex):
        return ""
    note = memory_note(target)
    if note:
        return note
    from pyonnx.frontend.lower.complex_functions import part_views
    from pyonnx.frontend.lower.complex_iteration import iterated

    ctx = lowering.ctx
    from pyonnx.frontend.lower import complex_aliases as CA
    holder = "" if CA.followed(ctx, target) else CA.other_holder(ctx, target)
    if holder:
        return (f"'{holder}' holds its memory too (a view or an alias, also of its .real or "
                ".imag part), and this value came out of a run-time if/loop (a value carried "
                "by a loop, or a different array on each path), whose memory pyonnx does not "
                "follow")
    if target.mem & iterated(ctx):
        return ("a run-time loop iterates over it ('for v in z'), and reads its items from "
                "the array as it was before the loop")
    parts_ = part_views(ctx)
    stack = [v for _, _, v in CA.bindings(ctx)]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, Complex) and v.base is not None and bool(v.mem & target.mem) or \
                isinstance(v, Array) and id(v) in parts_:
            # (a complex view shares the memory it came from, ``mem``, joined over run-time
            # if/loop paths; a part view, a real Array, is not traced: any one refuses)
            return ("a view of a complex array (z[1:], z.real, z.T...) is held by a name, "
                    "whose memory numpy may share")
    return ""


def inplace_binary(lowering, op: type, left: Any, right: Any, inplace: Any) -> Any:
    """``left <op> right`` with a complex side; ``inplace`` as ExprLowering.binary takes it
    (True for ``x op= v`` on a name, "subscript" for ``x[i] op= v``)."""
    from pyonnx.frontend.lower import complex_ops

    ctx = lowering.ctx
    if op is ast.MatMult:
        from pyonnx.frontend.lower.complex_linalg import matmul
        result = matmul(ctx, left, right)
    else:
        result = complex_ops.binary(ctx, op, left, right)
    if not inplace:
        return result
    if isinstance(left, Array) and not left.weak and isinstance(result, Complex):
        raise ctx.error(f"Cannot cast ufunc output from dtype('{result.dtype}') to "
                        f"dtype('{left.dtype}') with casting rule 'same_kind' (numpy raises "
                        "UFuncTypeError for 'x op= <complex>' on a real array); write "
                        "x = x op ... to get a complex result")
    if isinstance(left, np.ndarray) and left.dtype.kind == "c" and isinstance(result, Complex) \
            and inplace is True:
        # an array made at conversion time (m = np.zeros((), np.complex64)): numpy writes into
        # it, keeping its dtype and its kind (a 0-d array)
        if result.dtype != left.dtype:
            result = make(ctx, result.re, result.im, left.dtype)
        return complex_kinds.mark(result, complex_kinds.static_kind(left))
    if isinstance(left, Complex) and isinstance(result, Complex):
        from pyonnx.frontend.lower.complex_aliases import latest
        left = latest(ctx, left)  # (registered while the right side was evaluated)
        kind = complex_kinds.kind(left)  # (z[i, j] items are marked "scalar" too)
        if inplace is True and kind == "scalar":
            # a numpy scalar (z[i, j], an operation's result): immutable, 'v op= x' binds v
            # to a new scalar of the promoted dtype (v - np.int64(2) * 1j is complex128 for a
            # complex64 v; fuzz seed 27000571: m /= np.float64(1) after m = max(...))
            return Complex(result.re, result.im, result.dtype)
        if inplace is True:
            from pyonnx.frontend.lower.complex_aliases import bindings
            holders = sum(1 for _, _, v in bindings(ctx) if v is left or _meets(v, left))
            if kind == "unknown" and (result.dtype != left.dtype or holders > 1):
                raise ctx.error(
                    "'x op= ...' on a 0-d complex value that numpy makes a 0-d array on some "
                    "paths of a run-time 'if' or loop (np.zeros(()), an argument, a view) and a "
                    "numpy scalar on others (an operation's result): numpy writes into the one "
                    f"({left.dtype}) and rebinds the other ({result.dtype}, other names keep the "
                    "old value); write x = x op ... , or make it np.asarray(x) on every path")
            # (an argument whose parts complex_aliases follows, inside a run-time if/loop
            # body, is written through them too: its memory is what is written back, also
            # after the name is rebound (fuzz seed 30010167: a lost write); so is a choice
            # made by a run-time if that is an argument on some path (seeds 30015733,
            # 30018819: 'if c: z = z * 2' then 'z /= 2' left the argument unwritten))
            from pyonnx.frontend.lower.complex_aliases import followed
            followed_argument = left.param is not None and followed(ctx, left) or \
                bool(reached_params(ctx, _buffers(ctx, left)))
            if (shared(lowering, left) or holders > 1 or followed_argument) and \
                    _followable(ctx, left):
                return _inplace_followed(lowering, left, result)
            if shared(lowering, left) or holders > 1:
                raise ctx.error("'x op= ...' on a complex array whose memory another name, a "
                                "view or the caller shares is not supported (numpy would change "
                                "them all); write x = x op ... (a new array)")
        if result.dtype != left.dtype and not left.weak:
            result = make(ctx, result.re, result.im, left.dtype)
        if inplace is True:
            result.mem, result.param = left.mem, left.param  # x op= v writes into x's memory
            complex_kinds.mark(result, kind)
            if left.param is not None:
                written_arguments(ctx).add(left.param)
    return result

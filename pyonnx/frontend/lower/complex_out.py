"""``out=`` on reductions of complex arrays: ``np.sum(z, axis=0, out=o)``, ``z.prod(out=o)``,
``np.mean(z, 0, out=o)``.

Input: the call (a numpy function or a complex array's method) with ``out`` given. Output: the
reduction computed as without ``out`` (``sum``/``prod`` accumulate in ``out``'s dtype, as
numpy's do), written into ``out``'s memory through complex_aliases (every name and view of it
sees the write, a complex argument is written back), and ``out`` after the write returned
(numpy returns the same object).

Refused at the line: a real ``out`` (numpy raises UFuncTypeError: complex results do not cast
to a real dtype with 'same_kind'), an ``out`` of another rank or shape (ValueError), and an
``out`` whose memory pyonnx does not follow (a value out of a run-time if/loop it cannot
follow): there the result must be assigned instead.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex, is_complex, make
from pyonnx.frontend.graph.values import Array

__all__ = ["handles", "call_with_out"]

_ACCUMULATING = ("sum", "prod")
_REDUCTIONS = ("sum", "prod", "mean")


def _method(func: Any) -> bool:
    """Whether ``func`` is complex_calls.ComplexMethod (``z.sum``; not imported: complex_calls
    imports this module)."""
    return isinstance(getattr(func, "array", None), Complex) and hasattr(func, "name")


def handles(func: Any, args: list, kwargs: dict) -> bool:
    """Whether ``func(*args, **kwargs)`` is a complex reduction with ``out`` given."""
    if kwargs.get("out") is None:
        return False
    if _method(func):
        return func.name in _REDUCTIONS
    try:
        known = func in (np.sum, np.prod, np.mean)
    except TypeError:
        return False
    return known and bool(args) and isinstance(args[0], Complex)


def call_with_out(lowering, func: Any, args: list, kwargs: dict,
                  plain_call: Callable[[Any, list, dict], Any]) -> Any:
    """The reduction with ``out=`` (see the module docstring); ``plain_call(func, args,
    kwargs)`` lowers it without ``out``."""
    from pyonnx.frontend.lower import complex_aliases as CA
    from pyonnx.frontend.lower import complex_writes

    ctx = lowering.ctx
    kwargs = dict(kwargs)
    name = func.name if _method(func) else func.__name__
    shown = f"z.{name}" if _method(func) else f"np.{name}"
    out = kwargs.pop("out")
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if isinstance(out, (Array, np.ndarray)) and not is_complex(out):
        raise ctx.error(f"Cannot cast ufunc '{'add' if name != 'prod' else 'multiply'}' "
                        f"output from complex to dtype('{out.dtype}') with casting rule "
                        f"'same_kind' (numpy raises UFuncTypeError for {shown}(..., out=) of "
                        "a complex array into a real one); take np.real(...) of the result")
    if isinstance(out, np.ndarray) and out.dtype.kind == "c":
        out = _materialize(lowering, out, shown)
    if not isinstance(out, Complex):
        raise ctx.error(f"{shown}(..., out=): out= must be a complex array made in the function "
                        "or passed to it (numpy raises TypeError otherwise); assign the result")
    if name in _ACCUMULATING and kwargs.get("dtype") is None:
        # numpy accumulates in out's dtype: the items cast to it first (the same products
        # and sums; prod takes no dtype= here)
        z = func.array if _method(func) else args[0]
        if isinstance(z, Complex) and z.dtype != out.dtype:
            z = make(ctx, z.re, z.im, out.dtype)
            if _method(func):
                func = type(func)(z, func.name)
            else:
                args = [z, *args[1:]]
    result = plain_call(func, args, kwargs)
    if not isinstance(result, Complex):
        result = make(ctx, result, 0.0, out.dtype)
    if result.ndim != out.ndim:
        raise ctx.error(f"{shown}(..., out=...): the output parameter has {out.ndim} "
                        f"dimension(s), the reduction gives {result.ndim} (numpy raises "
                        "ValueError); pass keepdims= or an out= of the reduced shape")
    if None not in result.shape and None not in out.shape and result.shape != out.shape:
        raise ctx.error(f"{shown}(..., out=...): out= has shape {out.shape}, the reduction gives "
                        f"{result.shape} (numpy raises ValueError)")
    out = CA.latest(ctx, out)
    if not complex_writes.followable(ctx, out):
        raise ctx.error(f"{shown}(..., out=) into a complex array whose memory pyonnx does not "
                        "follow here (a value out of a run-time if/loop, a view made by a "
                        "function it does not model); assign the result instead")
    if result.dtype != out.dtype:
        result = make(ctx, result.re, result.im, out.dtype)
    complex_writes.write_whole(lowering, out, result, f"the out= array of {shown}")
    return CA.rederived(ctx, CA.latest(ctx, out)) if CA.followed(ctx, CA.latest(ctx, out)) \
        else CA.latest(ctx, out)


def _materialize(lowering, out: np.ndarray, shown: str) -> Complex:
    """A complex array computed at conversion time (``o = np.zeros(3, complex)``) as a graph
    value, every name bound to that object rebound to it (as alias_writes.materialize does
    for real arrays); refused when another array known at conversion time shares its memory
    (a view, ``v = o[1]``), or it is a module-level or closure array."""
    from pyonnx.frontend.lower.complex_aliases import _swap

    ctx = lowering.ctx
    outside = [v for f in ctx.frames for v in (*f.src.globals.values(), *f.src.closure.values())]
    held = []
    for f in ctx.frames:
        for v in f.env.locals.values():
            stack = [v]
            while stack:
                w = stack.pop()
                if isinstance(w, (list, tuple)):
                    stack.extend(w)
                elif type(w) is dict:
                    stack.extend(w.values())
                elif isinstance(w, np.ndarray):
                    held.append(w)
    if any(isinstance(v, np.ndarray) and (v is out or np.may_share_memory(v, out))
           for v in outside) or any(w is not out and np.may_share_memory(w, out) for w in held):
        raise ctx.error(f"{shown}(..., out=) into a complex array computed at conversion time "
                        "that another array shares memory with (a view), or a module-level "
                        "array: pyonnx does not follow it; make out= with np.zeros(...) and "
                        "take views after the call, or assign the result")
    z = make(ctx, out.real, out.imag, out.dtype)
    for f in ctx.frames:
        env = f.env.locals
        for name, value in list(env.items()):
            swapped = value if value is not out and not isinstance(value, (list, tuple, dict)) \
                else _swap(value, out, z)
            if swapped is not value:
                env[name] = swapped
    return z

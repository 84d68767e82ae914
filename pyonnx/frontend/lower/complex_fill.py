"""numpy's writing functions on complex arrays: ``z.fill(v)``, ``z.put(ind, v)``,
``np.copyto(z, v, where=m)``, ``np.put``, ``np.putmask``, ``np.place``, ``np.put_along_axis``,
``np.fill_diagonal``.

Input: the call, its target a complex array (a graph value, or one computed at conversion
time). Output: None (numpy's), the target's memory written through complex_aliases: the real
writer of :mod:`writers` runs once per part (the value's real part into the real part, its
imaginary part into the imaginary part), so views and names of the memory see the write and a
complex argument is written back. Refused at the line: a target whose memory pyonnx does not
follow (then write with ``z[...] = ...``), complex values written into a real array (numpy's
TypeError or ComplexWarning, complex_into_real's rules), a complex index or mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex, is_complex

__all__ = ["handles", "call"]

# function → the position of the written value among its arguments (the target is first)
_FUNCTIONS = {np.copyto: 1, np.put: 2, np.putmask: 2, np.place: 2, np.put_along_axis: 2,
              np.fill_diagonal: 1}
_METHODS = {"fill": 0, "put": 1}  # method → the value's position (after the array)


def receiver(func: Any) -> tuple | None:
    """``(array, method name)`` of ``z.name`` on a complex array (complex_calls.ComplexMethod,
    or the bound method of one computed at conversion time: ``o = np.zeros(3, complex)``),
    else None."""
    array, name = getattr(func, "array", None), getattr(func, "name", None)
    if array is None and isinstance(getattr(func, "__self__", None), np.ndarray):
        array, name = func.__self__, getattr(func, "__name__", None)
    if isinstance(array, Complex) or isinstance(array, np.ndarray) and array.dtype.kind == "c":
        return array, name
    return None


def _method(func: Any) -> bool:
    return receiver(func) is not None


def handles(func: Any, args: list) -> bool:
    """Whether this call is a writing function or method of a complex array."""
    if _method(func):
        return receiver(func)[1] in _METHODS
    try:
        known = func in _FUNCTIONS
    except TypeError:
        return False
    return known and bool(args) and (isinstance(args[0], Complex) or is_complex(args[0])
                                     or any(is_complex(a) for a in args[1:]))


def call(lowering, func: Any, args: list, kwargs: dict) -> None:
    """``func(*args, **kwargs)`` (see the module docstring)."""
    from pyonnx.frontend.lower import complex_aliases as CA
    from pyonnx.frontend.lower import complex_writes, writers
    from pyonnx.frontend.lower.complex_out import _materialize

    ctx = lowering.ctx
    if _method(func):
        target, name = receiver(func)
        rest, at = list(args), _METHODS[name]
        writer, shown = writers.METHODS[name], f"z.{name}"
    else:
        name, target, rest, at = func.__name__, args[0], list(args[1:]), _FUNCTIONS[func] - 1
        writer, shown = writers.function_writer(func), f"np.{func.__name__}"
    if isinstance(target, np.ndarray) and target.dtype.kind == "c":
        target = _materialize(lowering, target, shown)
    if not isinstance(target, Complex):
        raise ctx.error(f"{shown}: writing complex values into a real array would drop their "
                        "imaginary parts (numpy raises TypeError or warns ComplexWarning); "
                        "write np.real(v) explicitly, or make the array complex")
    keys = [k for k in ("src", "v", "values", "vals", "val", "value") if k in kwargs]
    if at >= len(rest) and not keys:
        raise ctx.error(f"{shown}: the values to write are missing")
    value = kwargs[keys[0]] if at >= len(rest) else rest[at]
    if any(isinstance(v, Complex) for i, v in enumerate(rest) if i != at) or \
            any(isinstance(v, Complex) for k, v in kwargs.items() if k not in keys):
        raise ctx.error(f"{shown}: an index, mask or option is complex (numpy raises "
                        "TypeError); only the written values may be complex")
    target = CA.latest(ctx, target)
    if not CA.followed(ctx, target) and CA.registrable(ctx, target):
        target = CA.register(ctx, target)
    if not complex_writes.followable(ctx, target):
        raise ctx.error(f"{shown} into a complex array whose memory pyonnx does not follow here "
                        "(a value out of a run-time if/loop, a view made by a function it does "
                        "not model); write into the array with z[...] = ... instead")
    vr, vi = complex_writes.value_parts(ctx, value, target.dtype)
    params = complex_writes.params_of(ctx, target)
    for part, v in ((target.re, vr), (target.im, vi)):
        part_args = list(rest)
        part_kwargs = dict(kwargs)
        if keys:
            part_kwargs[keys[0]] = v
        else:
            part_args[at] = v
        writer(lowering, part, *part_args, **part_kwargs)
    from pyonnx.frontend.lower.complex_state import written_arguments
    written_arguments(ctx).update(params)
    return None

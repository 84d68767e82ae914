"""The ufunc machinery: numpy's loop resolution, operand conversion and registration.

Input: a numpy ufunc and its operands as frontend values (Arrays, static scalars and arrays,
lists holding Arrays), at least one an Array. Output: Arrays (a tuple for two-output ufuncs) with
numpy's value, dtype and broadcast shape, weak when every operand was a Python scalar.

:func:`ufunc_call` resolves the loop with numpy's own ``ufunc.resolve_dtypes`` (NEP 50 weak
Python scalars included, ``dtype=`` and ``casting=`` as numpy takes them), converts the operands
to the loop dtypes and calls the ufunc's emitter from :data:`UFUNCS`. The family modules fill
:data:`UFUNCS` with :func:`_register`, which also registers ``np.<ufunc>(...)`` and, for binary
ufuncs, ``np.<ufunc>.outer(a, b)``. ``out=``, ``where=`` and ``signature=`` are refused with a
hint; a dynamic Python-int operand out of range of an integer loop dtype fails at run time
(numpy raises OverflowError).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from pyonnx.frontend.graph import dtypes, path_weak
from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.numpy_calls.registry import lookup, register
from pyonnx.frontend.numpy_calls.elementwise.common import _logic, runtime_check

__all__ = ["ufunc_call", "UFUNCS"]


@dataclasses.dataclass(frozen=True)
class _UfuncSpec:
    """How one ufunc is lowered.

    ``emit(ctx, arrays, ins, outs)`` gets the operands already converted to numpy's loop dtypes
    ``ins`` and returns an Array (or a tuple for two-output ufuncs) of dtypes ``outs``. With
    ``raw`` it gets the operands as given (comparisons decide themselves how to convert).
    """

    emit: Callable[..., Any]
    raw: bool = False


UFUNCS: dict[np.ufunc, _UfuncSpec] = {}


def ufunc_call(ctx, ufunc: np.ufunc, *operands, out=None, where=True, dtype=None,
               casting="same_kind", order="K", subok=True, signature=None):
    """Lowers ``ufunc(*operands)`` with numpy's promotion.

    Args:
        ctx: the Lowering.
        ufunc: a numpy ufunc registered in :data:`UFUNCS`.
        operands: frontend values (Arrays or static scalars/arrays, at least one Array).
        dtype: numpy's ``dtype=`` (the output dtype; the loop is resolved for it).
        casting: numpy's input casting rule for ``dtype=``.

    Returns:
        An Array (a tuple for ``divmod``/``modf``/``frexp``); weak when every operand was a
        Python scalar (the result then promotes as a Python scalar again).

    Raises:
        ConversionError: numpy has no loop for these dtypes, an unsupported keyword is given, or
            a static Python int does not fit the loop dtype (numpy's OverflowError).
    """
    if len(operands) != ufunc.nin or out is not None or where is not True \
            or signature is not None:
        _refuse(ctx, ufunc, operands, out, where, signature)
    if any(hasattr(type(o), "__pyonnx_array__") for o in operands):  # np.poly1d: its coeffs
        operands = tuple(ctx.asarray(o) if hasattr(type(o), "__pyonnx_array__") else o
                         for o in operands)
    for o in operands:
        if isinstance(o, (list, tuple)) and not is_static(o):
            operands = tuple(ctx.asarray(o) if isinstance(o, (list, tuple)) and not is_static(o)
                             else o for o in operands)
            break
    spec = UFUNCS.get(ufunc)
    if spec is None:
        raise ctx.error(f"np.{ufunc.__name__} is not supported yet")
    if dtype is None:
        try:
            ins, outs, weak = dtypes.ufunc_dtypes(ufunc, *operands)
        except (TypeError, ValueError):      # numpy's no-loop errors, reported by _resolve
            ins, outs, weak = _resolve(ctx, ufunc, operands, dtype, casting)
    else:
        ins, outs, weak = _resolve(ctx, ufunc, operands, dtype, casting)
    # (an operand that is a Python number on some run-time paths only: graph/path_weak.py)
    finish = path_weak.check(ctx, ufunc, operands, outs) if ctx.path_weak and dtype is None \
        else None
    if spec.raw:
        result = spec.emit(ctx, operands, ins, outs)
    else:
        # A strong Array already in its loop dtype is its own operand (the common case).
        arrays = [o if isinstance(o, Array) and not o.weak and o.dtype == dt
                  else _operand(ctx, o, dt) for o, dt in zip(operands, ins)]
        result = spec.emit(ctx, arrays, ins, outs)
    if not isinstance(result, tuple):
        if result.dtype != outs[0]:
            result = ctx.cast(result, outs[0])
        result = Array(result.value, result.dtype, result.shape, weak=weak)
        return result if finish is None else finish(result)
    results = result
    fixed = []
    for r, dt in zip(results, outs):
        if r.dtype != dt:
            r = ctx.cast(r, dt)
        r = Array(r.value, r.dtype, r.shape, weak=weak)
        fixed.append(r if finish is None else finish(r))
    return tuple(fixed)


def _refuse(ctx, ufunc, operands, out, where, signature):
    """Raises the error for a call with the wrong operand count or an unsupported keyword."""
    name = ufunc.__name__
    if len(operands) != ufunc.nin:
        raise ctx.error(f"np.{name}() takes {ufunc.nin} positional argument"
                        f"{'s' if ufunc.nin > 1 else ''} ({len(operands)} given)")
    if out is not None:
        raise ctx.error(f"np.{name}(..., out=...) is not supported; assign the result instead")
    if where is not True:
        raise ctx.error(f"np.{name}(..., where=...) is not supported; use np.where(cond, "
                        f"np.{name}(...), other)")
    if signature is not None:
        raise ctx.error(f"np.{name}(..., signature=...) is not supported; cast the operands or "
                        "pass dtype=")


def _resolve(ctx, ufunc, operands, dtype, casting):
    name = ufunc.__name__
    try:
        if dtype is not None:
            dt = np.dtype(ctx.static(dtype, "dtype"))
            if dt not in dtypes.SUPPORTED_DTYPES:
                raise ctx.error(f"dtype {dt} is not supported")
            proxies = tuple(dtypes.proxy(o) for o in operands)
            if all(isinstance(p, type) for p in proxies):   # all Python scalars: their defaults
                proxies = tuple(dtypes.default_dtype_of_scalar(p(0)) for p in proxies)
            # dtype= fixes the outputs only (numpy's signature=(None, ..., dt)).
            resolved = ufunc.resolve_dtypes(proxies + (None,) * ufunc.nout,
                                            signature=(None,) * ufunc.nin + (dt,) * ufunc.nout,
                                            casting=ctx.static(casting, "casting"))
            return tuple(resolved[:ufunc.nin]), tuple(resolved[ufunc.nin:]), False
        return dtypes.ufunc_dtypes(ufunc, *operands)
    except (TypeError, ValueError) as e:     # numpy's no-loop and casting errors
        names = ", ".join(_describe_operand(o) for o in operands)
        raise ctx.error(f"numpy has no '{name}' for ({names}) (numpy raises "
                        f"{type(e).__name__}: {e})") from None


def _describe_operand(o) -> str:
    p = dtypes.proxy(o)
    if isinstance(p, type):
        return f"Python {p.__name__}"
    return str(p)


def _operand(ctx, o, dt: np.dtype) -> Array:
    """An operand converted to its loop dtype, as numpy converts it."""
    if not isinstance(o, Array):
        return ctx.asarray(o, dt)        # static Python ints out of range: OverflowError
    if o.weak and o.dtype.kind in "iu" and dt.kind in "iu" and dt != o.dtype \
            and o.value.const_value is None:
        # A Python-int argument (dynamic): numpy raises OverflowError when it does not fit.
        info = np.iinfo(dt)
        bad = lookup(np.less).fn(ctx, o, int(info.min))
        bad = _logic(ctx, "Or", bad, lookup(np.greater).fn(ctx, o, int(info.max)))
        o = runtime_check(ctx, bad, o, f"Python_integer_out_of_bounds_for_{dt.name}",
                          f"OverflowError: Python integer out of bounds for {dt.name}")
    return ctx.cast(o, dt)


def _register(ufunc: np.ufunc, emit: Callable[..., Any], methods: tuple[str, ...] = (),
              raw: bool = False) -> None:
    UFUNCS[ufunc] = _UfuncSpec(emit, raw)

    def lower(ctx, *args, **kwargs):
        return ufunc_call(ctx, ufunc, *args, **kwargs)

    lower.__name__ = ufunc.__name__
    lower.__doc__ = (f"``np.{ufunc.__name__}`` (see "
                     "pyonnx.frontend.numpy_calls.elementwise).")
    register(ufunc, methods=methods)(lower)
    if ufunc.nin == 2:
        register(ufunc.outer, name=f"numpy.{ufunc.__name__}.outer")(_outer(ufunc))


def _outer(ufunc: np.ufunc):
    def lower(ctx, A, B, **kwargs):
        """``np.<ufunc>.outer(A, B)``: ``ufunc(A[..., None, ...], B)``; both operands are
        arrays first (a Python scalar is not weak here, as in numpy)."""
        a, b = (ctx.asarray(v) for v in (A, B))
        a, b = (Array(v.value, v.dtype, v.shape) for v in (a, b))
        if b.ndim:
            axes = ctx.const(np.arange(a.ndim, a.ndim + b.ndim, dtype=np.int64))
            a = Array(ctx.op("Unsqueeze", a, axes), a.dtype, a.shape + (1,) * b.ndim)
        return _strong(ufunc_call(ctx, ufunc, a, b, **kwargs))

    lower.__name__ = f"{ufunc.__name__}_outer"
    return lower


def _strong(result):
    """numpy functions return numpy values, strong in promotion even from Python scalars (a
    ufunc call's operands may have been weak)."""
    for r in result if isinstance(result, tuple) else (result,):
        if isinstance(r, Array):
            r.weak = False
    return result

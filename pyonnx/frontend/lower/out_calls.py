"""``out=`` (and ``where=``) on ufuncs and reductions: numpy writes the result into an array.

Input: ``np.exp(a, out=b)``, ``np.add(a, b, out=a)``, ``np.add(a, 1, out=b, where=m)``,
``np.sum(x, axis=0, out=r)``, ``out=(r,)``. Output: the result computed as without ``out``,
written into ``out``'s memory (views and aliases included, :func:`alias_writes.write_with`), and
``out`` after the write returned (numpy returns the same object, so the returned name aliases
it).

numpy's rules kept:

* ufuncs compute in the dtype the inputs resolve to and cast into ``out`` with
  ``casting='same_kind'`` (or the ``casting=`` given): what numpy refuses is refused at the
  line;
* ``where=`` writes only where true, the other elements keep ``out``'s values; without ``out``
  numpy leaves those elements uninitialized, so ``where=`` without ``out`` is refused;
* ``np.sum``/``np.prod`` accumulate in ``out``'s dtype when no ``dtype=`` is given (an int8
  ``out`` wraps as numpy's does); the result's rank must be ``out``'s;
* ``out`` broadcasts the result to its own shape (ufuncs), as numpy's output operand does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array, is_static
from pyonnx.frontend.lower import alias_writes

__all__ = ["REDUCTIONS", "handles", "call_with_out"]

# Reductions whose out= is supported; the first two accumulate in out's dtype.
_ACCUMULATING = (np.sum, np.prod)
REDUCTIONS = frozenset({np.sum, np.prod, np.max, np.min, np.amax, np.amin, np.any, np.all})


def handles(func: Any, kwargs: dict[str, Any]) -> bool:
    """Whether this call is one :func:`call_with_out` converts (``out`` given, not None, or a
    ufunc's ``where`` given)."""
    if isinstance(func, np.ufunc):
        return kwargs.get("out") is not None or (
            "where" in kwargs and not (is_static(kwargs["where"]) and kwargs["where"] is True))
    try:
        return func in REDUCTIONS and kwargs.get("out") is not None
    except TypeError:  # unhashable
        return False


def call_with_out(lowering, func: Any, args: list[Any], kwargs: dict[str, Any],
                  plain_call: Any) -> Any:
    """``func(*args, out=..., where=...)``; ``plain_call(func, args, kwargs)`` lowers the call
    without them."""
    ctx = lowering.ctx
    kwargs = dict(kwargs)
    name = f"np.{func.__name__}"
    ufunc = isinstance(func, np.ufunc)
    out = kwargs.pop("out", None)
    where = kwargs.pop("where", True) if ufunc else True
    casting = ctx.static(kwargs.pop("casting", "same_kind"), "casting") if ufunc else "unsafe"
    if ufunc and func.nout != 1:
        raise ctx.error(f"{name}(..., out=...) of a ufunc with {func.nout} outputs is not "
                        "supported; assign the results instead")
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ctx.error(f"{name}: the 'out' tuple must have exactly one entry per ufunc "
                            "output (numpy raises ValueError)")
        out = out[0]
    if out is None:
        # where= without out=: numpy leaves the unselected elements uninitialized
        raise ctx.error(f"{name}(..., where=...) without out=: numpy leaves the elements where "
                        "the mask is false uninitialized; pass out= (e.g. out=np.zeros_like(x)) "
                        f"or write np.where(mask, {name}(...), other)")
    if isinstance(out, np.ndarray):
        out = alias_writes.materialize(lowering, out, f"the out= array of {name}")
    if not isinstance(out, Array) or out.weak:
        raise ctx.error(f"{name}: out= must be an array (numpy raises TypeError: return "
                        "arrays must be of ArrayType)")
    if not ufunc:
        if func in _ACCUMULATING and kwargs.get("dtype") is None:
            kwargs["dtype"] = out.dtype  # numpy accumulates in out's dtype
        result = ctx.asarray(plain_call(func, args, kwargs))
        if result.ndim != out.ndim:
            raise ctx.error(f"{name}(..., out=...): the output parameter has {out.ndim} "
                            f"dimension(s), the reduction gives {result.ndim} (numpy raises "
                            "ValueError); pass keepdims= or an out= of the reduced shape")
        if None not in result.shape and None not in out.shape and result.shape != out.shape:
            raise ctx.error(f"{name}(..., out=...): out= has shape {out.shape}, the reduction "
                            f"gives {result.shape} (numpy raises ValueError)")
    else:
        result = ctx.asarray(plain_call(func, args, kwargs))
        if not np.can_cast(result.dtype, out.dtype, casting):
            raise ctx.error(f"Cannot cast ufunc '{func.__name__}' output from "
                            f"dtype('{result.dtype}') to dtype('{out.dtype}') with casting rule "
                            f"'{casting}' (numpy raises UFuncTypeError)")
        if result.ndim > out.ndim or any(
                r is not None and o is not None and r not in (1, o)
                for r, o in zip(result.shape[::-1], out.shape[::-1])):
            raise ctx.error(f"{name}: non-broadcastable output operand with shape {out.shape} "
                            f"doesn't match the broadcast shape {result.shape} (numpy raises "
                            "ValueError)")
    from pyonnx.frontend.lower.writers import copyto

    copyto(lowering, out, result, casting="unsafe", where=where)
    return alias_writes.current(ctx, out)

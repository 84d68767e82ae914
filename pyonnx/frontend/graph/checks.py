"""Run-time checks: where numpy raises on values only known at run time, the model fails.

Used by the numpy registry (division by zero, out-of-range conversions...) and by statement
lowering (``range`` with a run-time step of 0), so it lives in the builder layer under both.
"""

from __future__ import annotations

import numpy as np

from pyonnx.frontend.graph import kernels
from pyonnx.frontend.graph.values import Array

__all__ = ["runtime_check"]

_I64 = np.dtype(np.int64)


def runtime_check(ctx, bad: Array, result: Array, what: str, raises: str | None = None) -> Array:
    """``result``, made to fail at run time where any element of ``bad`` is true.

    ONNX cannot raise, so a Gather with an out-of-range index stands in for numpy's exception:
    onnxruntime then reports the failing node, whose name carries the source line and ``what``
    (the runtime maps it back to the user's line). The result goes through an added zero so the
    check cannot be pruned (``-0.0`` for floats, which keeps the sign of every zero; bool
    results are or'ed with False).

    ``raises``: numpy's exception as ``"ValueError: message"``, kept in the failing node's
    ``metadata_props`` (``pyonnx.raises``): the runtime then raises that exception (chained to
    the ExecutionError that names the line) instead of onnxruntime's Gather message.
    """
    count = Array(ctx.op("ReduceSum", ctx.cast(bad, _I64), keepdims=0), _I64, ())
    index = ctx.op("Min", count, ctx.const(np.array(1, np.int64)))
    # (-0.0 for floats: x + -0.0 is x for every x, -0.0 included; x + 0.0 is not)
    fill = np.full(1, -0.0 if result.dtype.kind == "f" else 0, result.dtype)
    zero = ctx.op("Gather", ctx.const(fill), index)
    zero.producer().name += f"_{what}"
    if raises is not None:
        zero.producer().metadata_props["pyonnx.raises"] = raises
    if result.dtype.kind == "b":
        return Array(ctx.op("Or", result.value, zero), result.dtype, result.shape, result.weak)
    return kernels.emit(ctx, "Add", [result, Array(zero, result.dtype, ())], result.dtype) \
        if result.dtype.kind in "iuf" else result

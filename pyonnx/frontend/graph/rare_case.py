"""A result whose exact rule is only needed for rare inputs: ``If(flag, exact, plain)``.

Input: a 0-d bool Array ``flag`` (true whenever the plain result may differ from the exact
one), the plain result, and a function emitting the exact result. Output: an Array with the
exact result for every input; the exact rule's nodes run only when ``flag`` holds.

Why: numpy's rules for NaN (``np.argmax``'s first NaN) and for the sign of a zero
(``np.maximum`` of ``+0.0`` and ``-0.0``) cost several full passes each in onnxruntime, where
real inputs almost never need them (FACTS.md: an ``If`` costs 1.3-2.6 µs, a full pass over
10^4 elements more). The flag is the caller's, computed from the inputs in one cheap pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import onnx_ir as ir

from pyonnx.frontend.graph import dtypes
from pyonnx.frontend.graph.values import Array

__all__ = ["only_if"]


def only_if(ctx, flag: Array | Any, plain: Array, exact: Callable[[Any], Array],
            name: str) -> Array:
    """``exact(ctx)`` when the 0-d bool ``flag`` holds at run time, else ``plain``.

    Preconditions: ``exact(ctx)`` has ``plain``'s dtype and shape, and equals ``plain``
    whenever ``flag`` is false. ``name`` names the branch graphs.
    """
    branches = []
    for label, compute in (("then", exact),
                           ("else", lambda ctx: Array(ctx.op("Identity", plain), plain.dtype,
                                                      plain.shape))):
        with ctx.subgraph() as nodes:
            out = compute(ctx).value
        out.type = ir.TensorType(dtypes.to_ir(plain.dtype))
        branches.append(ir.Graph([], [out], nodes=nodes,
                                 name=f"{ctx.function_name}_{name}_{label}"))
    cond = flag.value if isinstance(flag, Array) else flag
    value = ctx.op("If", cond, then_branch=branches[0], else_branch=branches[1])
    value.type = ir.TensorType(dtypes.to_ir(plain.dtype))
    value.shape = ir.Shape(list(plain.shape))
    return Array(value, plain.dtype, plain.shape)

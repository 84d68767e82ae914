"""Emit an ONNX op in a dtype onnxruntime has a kernel for, keeping numpy's result.

Input: an op, Arrays, the dtype numpy computes in. Output: the op's value in that dtype. When the
CPU provider lacks a kernel for the dtype (``ort_kernels.CPU_KERNELS``, measured), the inputs are
widened along a ladder that preserves the op's result (int8 → int16 → int32 → int64, float16 →
float32 → float64, bool → uint8/int32) and the result cast back; numpy itself computes float16
ufuncs through float32, so this matches it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from pyonnx.frontend.graph.ort_kernels import CPU_KERNELS
from pyonnx.frontend.graph.shapes import broadcast_shapes
from pyonnx.frontend.graph.values import Array

__all__ = ["compute_dtype", "emit", "has_kernel"]

_WIDER: dict[str, tuple[str, ...]] = {
    "bool": ("uint8", "int32", "int64", "float32"),
    "int8": ("int16", "int32", "int64", "float64"),
    "int16": ("int32", "int64", "float64"),
    "int32": ("int64", "float64"),
    "int64": ("float64",),
    "uint8": ("uint16", "int16", "uint32", "int32", "int64", "float64"),
    "uint16": ("uint32", "int32", "int64", "float64"),
    "uint32": ("uint64", "int64", "float64"),
    "uint64": (),
    "float16": ("float32", "float64"),
    "float32": ("float64",),
    "float64": (),
}


# Ops that keep float16 values exactly on onnxruntime's CPU provider, each checked by running
# Cast(f32→f16) → op → Cast(→f64) on values that change when rounded to float16. Tile, Trilu,
# Pad, Where, Neg and Abs fail that check (onnxruntime fuses their float32 detour with the
# Cast before them), so they run in float32 between explicit Casts like arithmetic does.
_FLOAT16_EXACT = frozenset({
    "Identity", "Reshape", "Slice", "Gather", "GatherND", "GatherElements", "Transpose",
    "Unsqueeze", "Squeeze", "Concat", "Expand", "Compress", "Flatten", "Split",
    "ReverseSequence", "ScatterND", "Cast", "Shape", "Size", "ConstantOfShape", "BitCast",
})


@functools.cache
def has_kernel(op: str, dtype: np.dtype) -> bool:
    """True when onnxruntime's CPU provider runs ``op`` in ``dtype`` (unknown ops: assumed).

    float16 counts as having no kernel for ops that compute new values: onnxruntime runs them
    through float32 and, in a chain of such ops, drops the rounding to float16 between them,
    which numpy does after every op. Computing in float32 between explicit Casts keeps it.
    """
    name = np.dtype(dtype).name
    if name == "float16" and op not in _FLOAT16_EXACT:
        return False
    kernels = CPU_KERNELS.get(op)
    return kernels is None or name in kernels


@functools.cache
def compute_dtype(op: str, dtype: np.dtype, exact_ints: bool = True) -> np.dtype | None:
    """The dtype to run ``op`` in for numpy dtype ``dtype``, or None if none has a kernel.

    Args:
        op: ONNX op type (a key of ``CPU_KERNELS``).
        dtype: the dtype numpy computes in.
        exact_ints: refuse a float detour for integers (float64 cannot hold every int64).
    """
    dtype = np.dtype(dtype)
    if has_kernel(op, dtype):
        return dtype
    for name in _WIDER[dtype.name]:
        wider = np.dtype(name)
        if exact_ints and dtype.kind in "iub" and wider.kind == "f" and dtype.itemsize >= 4:
            continue
        if has_kernel(op, wider):
            return wider
    return None


def emit(ctx, op: str, inputs: Sequence[Array], dtype: np.dtype,
         out_dtype: np.dtype | None = None, exact_ints: bool = True, **attrs) -> Array:
    """Emits ``op`` on ``inputs`` computed as numpy would in ``dtype``.

    Args:
        ctx: the Lowering.
        op: ONNX op type; every input is cast to the same computation dtype.
        inputs: the operands (already broadcast-compatible).
        dtype: numpy's loop dtype.
        out_dtype: the result dtype when it differs from ``dtype`` (bool for comparisons).
        attrs: node attributes.

    Returns:
        An Array of ``out_dtype`` (default ``dtype``) with the broadcast static shape.

    Raises:
        ConversionError: onnxruntime has no kernel for this op in any exact wider dtype.
    """
    if not isinstance(dtype, np.dtype):
        dtype = np.dtype(dtype)
    out_dtype = dtype if out_dtype is None else np.dtype(out_dtype)
    run = compute_dtype(op, dtype, exact_ints)
    if run is None:
        raise ctx.error(f"onnxruntime has no {op} kernel for {dtype} (nor a wider exact one)")
    try:
        shape = broadcast_shapes(*[a.shape for a in inputs])
    except ValueError as e:
        raise ctx.error(str(e)) from None
    # An input already in ``run`` needs no cast (ctx.op reads only its value, so its weak flag
    # does not matter).
    cast = ctx.cast
    value = ctx.op(op, *[a if a.dtype == run else cast(a, run) for a in inputs],
                   **attrs)
    produced = out_dtype if out_dtype.kind == "b" and dtype.kind != "b" else run
    result = Array(value, produced, shape)
    if produced != out_dtype:
        result = ctx.cast(result, out_dtype)
    return result


def where(ctx, cond: Array, a: Array, b: Array) -> Array:
    """``Where(cond, a, b)`` for Arrays of one dtype, exact for float16 (selected in float32).

    Args:
        cond: a bool Array.
        a, b: the values, already of the result dtype.
    """
    from pyonnx.frontend.graph.shapes import broadcast_shapes

    dtype = a.dtype
    run = compute_dtype("Where", dtype) or dtype
    if run == np.uint64 and not has_kernel("Where", run):
        # (onnxruntime has no uint64 Where; int64 carries its bit pattern both ways exactly)
        run = np.dtype(np.int64)
    try:
        shape = broadcast_shapes(cond.shape, a.shape, b.shape)
    except ValueError as e:
        raise ctx.error(str(e)) from None
    out = Array(ctx.op("Where", cond, ctx.cast(a, run), ctx.cast(b, run)), run, shape)
    return ctx.cast(out, dtype)

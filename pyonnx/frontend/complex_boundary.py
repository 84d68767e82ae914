"""Complex values at the model boundary: inputs and outputs as trailing-2 real tensors.

Input: a complex parameter's spec, or a returned Complex. Output: the model input (float32/64 of
shape ``spec.shape + (2,)``) and the Complex the lowering sees; the packed output Array. The
model records the convention (see :func:`record`): the doc string, each complex input's and
output's ``metadata_props`` (``pyonnx.complex`` = the numpy dtype), and the model's
``pyonnx.complex_inputs`` / ``pyonnx.complex_outputs`` (read by :mod:`pyonnx.complex_io` on
the call path).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph import complex_kinds, dtypes
from pyonnx.frontend.graph.complex_values import (
    TRAILING_DOC, Complex, make, pack, real_dtype, unpack)
from pyonnx.frontend.graph.values import Array

__all__ = ["input_value", "output_array", "record", "returned_as_array", "python_flag",
           "array_flag"]


def input_value(ctx, name: str, dtype: np.dtype, shape: tuple,
                numpy_scalar: bool = False) -> tuple[ir.Value, Complex]:
    """The model input of a complex parameter and its Complex value (``numpy_scalar``: the
    caller passed a numpy scalar, ``np.complex64(1j)``: immutable, no memory of the caller's,
    returned as a numpy scalar)."""
    rd = real_dtype(dtype)
    value = ir.Value(name=name, shape=ir.Shape(tuple(shape) + (2,)),
                     type=ir.TensorType(dtypes.to_ir(rd)))
    value.metadata_props["pyonnx.complex"] = np.dtype(dtype).name
    value.doc_string = f"{np.dtype(dtype).name}: {TRAILING_DOC}"
    static_shape = tuple(d if isinstance(d, int) else None for d in shape)
    z = unpack(ctx, Array(value, rd, static_shape + (2,)), dtype)
    if numpy_scalar:
        complex_kinds.mark(z, "scalar")
        return value, z
    z.param = name
    # the caller's array, taken as C-ordered where a reshape view depends on it (layout.py;
    # the call checks it, as for a real argument)
    ctx.aliases.param_values[value] = name
    if not hasattr(ctx, "complex_param_dtypes"):
        ctx.complex_param_dtypes = {}
    ctx.complex_param_dtypes[name] = np.dtype(dtype)
    return value, z


def output_array(ctx, item: Any) -> tuple[Array, np.dtype] | None:
    """A returned complex value (Complex or a static complex number/array) packed, and its
    dtype; None for other values."""
    if isinstance(item, Complex):
        return pack(ctx, item), item.dtype
    if isinstance(item, (complex, np.complexfloating)) or (
            isinstance(item, np.ndarray) and item.dtype.kind == "c"):
        arr = np.asarray(item)
        return pack(ctx, make(ctx, arr.real, arr.imag, arr.dtype)), arr.dtype
    return None


def returned_as_array(fn, item: Any, loc) -> bool:
    """Whether a returned 0-d complex value is numpy's 0-d ndarray (an argument, a view,
    np.zeros(())) rather than a numpy scalar (an operation's result): graph/complex_kinds.
    Raises ConversionError where it is one on some paths and the other on others."""
    from pyonnx.errors import ConversionError

    kind = complex_kinds.kind(item) if isinstance(item, Complex) else \
        complex_kinds.static_kind(item)
    if kind == "unknown" and array_flag(item) is not None:
        return False  # (a 0-d array where the flag output holds: the call rebuilds it)
    if kind == "unknown":
        raise ConversionError(
            f"{fn.__qualname__} returns a complex value that numpy makes a 0-d array on some "
            "paths of a run-time 'if' or loop (an argument, a view, np.zeros(())) and a numpy "
            "scalar on others (the result of an operation); return np.asarray(v) for a 0-d "
            "array on every path, or v[()] for a numpy scalar", loc)
    return kind == "array"


def python_flag(z: Complex) -> Any:
    """The 0-d bool graph value, true where the returned ``z`` is a Python complex (a run-time
    path kept ``s = 0j``: lower/control_flow/complex_paths), or None (numpy's value on every
    path, or not known: returned as the numpy scalar, which subclasses complex)."""
    if z.py_path is None or z.ndim or complex_kinds.kind(z) == "unknown":
        return None
    return z.py_path[1]


def array_flag(z: Complex) -> Any:
    """The 0-d bool graph value, true where the returned ``z`` is a 0-d array (it is a numpy
    scalar on other run-time paths), or None (one kind on every path, or not known; a value
    that may also be a Python complex is refused: returned_as_array)."""
    if z.ndim or complex_kinds.kind(z) != "unknown" or z.py_path is not None:
        return None
    return z.kind_flag


def written_arguments(ctx, lowering, taken: set[str]) -> list[tuple[str, Array, np.dtype]]:
    """The complex arguments the function wrote into, with their final values packed: the
    value of the argument's memory is the Complex with that ``param`` bound to a name at the
    end (after a write the argument's name holds it, also out of a run-time if/loop).

    Raises:
        ConversionError: the written argument's memory is no longer held by a name, or by
            two different values (rebinding the name after writing), which is not followed.
    """
    from pyonnx.errors import ConversionError
    from pyonnx.frontend.lower.complex_state import written_arguments as names

    out = []
    for name in sorted(names(ctx)):
        found = {id(v): v for v in lowering.env.locals.values()
                 if isinstance(v, Complex) and v.param == name}
        if not found:  # written through a view after the name was rebound
            from pyonnx.frontend.lower.complex_aliases import argument_memory
            memory = argument_memory(ctx, name, ctx.complex_param_dtypes.get(name)) \
                if name in getattr(ctx, "complex_param_dtypes", {}) else None
            if memory is not None:
                found = {id(memory): memory}
        if len(found) > 1:
            from pyonnx.frontend.lower.complex_aliases import one_memory
            if one_memory(ctx, list(found.values())):  # aliases of the argument's memory
                found = dict([next(iter(found.items()))])
        if len(found) != 1:
            raise ConversionError(
                f"the function writes into its complex argument '{name}' and then binds the "
                "name to another array: pyonnx does not follow which memory holds the written "
                f"values; write into a copy ({name} = {name}.copy()) or keep the name")
        z = next(iter(found.values()))
        packed = pack(ctx, z)
        value = ctx.op("Identity", packed)
        value.name = f"{name}_written" if f"{name}_written" not in taken else f"{name}_written_"
        value.type = ir.TensorType(dtypes.to_ir(packed.dtype))
        value.shape = ir.Shape(list(packed.shape))
        out.append((name, Array(value, packed.dtype, packed.shape), z.dtype))
    return out


def record(model: ir.Model, inputs: dict[str, np.dtype], outputs: dict[int, np.dtype],
           values: list[ir.Value]) -> None:
    """Writes the trailing-2 convention into the model (doc string and metadata)."""
    if not inputs and not outputs:
        return
    for k, dt in outputs.items():
        values[k].metadata_props["pyonnx.complex"] = dt.name
        values[k].doc_string = f"{dt.name}: {TRAILING_DOC}"
    model.metadata_props["pyonnx.complex_inputs"] = ",".join(
        f"{n}:{dt.name}" for n, dt in inputs.items())
    model.metadata_props["pyonnx.complex_outputs"] = ",".join(
        f"{k}:{dt.name}" for k, dt in outputs.items())
    note = ("Complex inputs " + ", ".join(inputs) + "; " if inputs else "") + \
        ("complex outputs " + ", ".join(values[k].name for k in outputs) + ": "
         if outputs else ": ") + TRAILING_DOC + "."
    model.doc_string = f"{model.doc_string}\n\n{note}" if model.doc_string else note

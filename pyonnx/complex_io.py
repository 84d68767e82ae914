"""Complex arguments and results on the call path: numpy complex arrays ↔ the model's real
tensors with a trailing dimension of 2 (numpy's own memory layout, so no copy for
C-contiguous data).

Input: the session of a compiled signature (its model metadata names the complex inputs and
outputs, see ``frontend/complex_boundary.py``), arguments and outputs. Output: the feeds and
results. Imported by ``call_path`` only; imports neither the frontend nor onnxruntime.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["plan", "plan_of_model", "to_pairs", "from_pairs", "outputs_converter"]


def plan(session: Any) -> tuple[frozenset[str], dict[int, np.dtype]]:
    """(names of complex inputs, {output index: complex dtype}) of a session's model; empty
    for models without complex values (or sessions that do not expose metadata)."""
    try:
        meta = session._sess.get_modelmeta().custom_metadata_map
    except AttributeError:
        return frozenset(), {}
    return _parse(meta)


def plan_of_model(model: Any) -> tuple[frozenset[str], dict[int, np.dtype]]:
    """:func:`plan` of an ``onnx.ModelProto`` (its ``metadata_props``)."""
    return _parse({p.key: p.value for p in model.metadata_props})


def _parse(meta: dict) -> tuple[frozenset[str], dict[int, np.dtype]]:
    ins = meta.get("pyonnx.complex_inputs", "")
    outs = meta.get("pyonnx.complex_outputs", "")
    names = frozenset(item.split(":")[0] for item in ins.split(",") if item)
    dtypes = {int(k): np.dtype(dt) for k, dt in (item.split(":") for item in outs.split(",")
                                                  if item)}
    return names, dtypes


def to_pairs(z: Any) -> np.ndarray:
    """A complex array as the real ``(*z.shape, 2)`` array sharing its memory (copied only
    when not C-contiguous). Real input is made complex first, as numpy would promote it."""
    a = np.asarray(z)
    if a.dtype.kind != "c":
        raise TypeError(f"a complex argument is expected here, got {a.dtype}")
    if not a.flags.c_contiguous or not a.dtype.isnative:
        a = np.ascontiguousarray(a, a.dtype.newbyteorder("="))
    return a.reshape(a.shape + (1,)).view(a.real.dtype)


def from_pairs(o: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The complex array whose memory is the real ``(..., 2)`` output ``o`` (no copy); a
    list of them for a sequence output (a list of complex values built at run time)."""
    if isinstance(o, list):
        return [from_pairs(item, dtype) for item in o]
    o = np.ascontiguousarray(o, real_dtype_of(dtype))
    return o.view(dtype).reshape(o.shape[:-1])


def real_dtype_of(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if dtype == np.complex64 else np.dtype(np.float64)


def outputs_converter(outputs: dict[int, np.dtype]):
    """A function converting the complex outputs of a run's output list in place."""
    items = tuple(outputs.items())

    def convert(outs: list) -> list:
        for k, dt in items:
            outs[k] = from_pairs(outs[k], dt)
        return outs
    return convert

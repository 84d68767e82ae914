"""Which onnxruntime execution providers to try, in which order.

Order: the explicit argument, else the ``PYONNX_PROVIDERS`` environment variable (comma
separated), else every available provider in :data:`PREFERENCE` order, CPU last.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = ["PREFERENCE", "default_providers", "resolve_providers"]

PREFERENCE = (
    "TensorrtExecutionProvider",
    "CUDAExecutionProvider",
    "ROCMExecutionProvider",
    "MIGraphXExecutionProvider",
    "DmlExecutionProvider",
    "CoreMLExecutionProvider",
    "OpenVINOExecutionProvider",
    "QNNExecutionProvider",
    "WebGpuExecutionProvider",
    "XnnpackExecutionProvider",
    "CPUExecutionProvider",
)


def default_providers() -> tuple[str, ...]:
    """Available providers, best first, CPU always last."""
    import onnxruntime as ort

    available = set(ort.get_available_providers())
    ordered = [p for p in PREFERENCE if p in available]
    ordered += sorted(p for p in available if p not in PREFERENCE)
    if "CPUExecutionProvider" in ordered:
        ordered.remove("CPUExecutionProvider")
    return tuple(ordered) + ("CPUExecutionProvider",)


def resolve_providers(explicit: Sequence[str] | str | None) -> tuple[str, ...]:
    """The providers to try for an explicit choice (a name or a list), or the defaults.

    Raises:
        ValueError: a named provider is not known to this onnxruntime build.
    """
    if explicit is None:
        env = os.environ.get("PYONNX_PROVIDERS", "").strip()
        if not env:
            return default_providers()
        explicit = [p.strip() for p in env.split(",") if p.strip()]
    if isinstance(explicit, str):
        explicit = [explicit]
    import onnxruntime as ort

    known = set(ort.get_all_providers())
    out = []
    for p in explicit:
        name = p if p.endswith("ExecutionProvider") else f"{p}ExecutionProvider"
        if name not in known:
            raise ValueError(f"unknown onnxruntime provider {p!r}; known: {sorted(known)}")
        out.append(name)
    return tuple(out)

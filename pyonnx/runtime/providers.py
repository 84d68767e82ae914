"""Which onnxruntime execution providers to try, in which order.

Input: an explicit choice (a provider name or a list of names, with or without the
``ExecutionProvider`` suffix, any case: ``"cuda"``, ``"CUDA"``, ``"CUDAExecutionProvider"``), or
nothing. Output: a tuple of full provider names, best first, CPU always last.

Order: the explicit argument, else the ``PYONNX_PROVIDERS`` environment variable (comma separated,
same spelling), else every available provider in :data:`PREFERENCE` order. CPU is appended when
missing: onnxruntime itself assigns to CPU every node another provider cannot take, and it is the
last resort when the others fail (see :mod:`pyonnx.runtime.session`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = ["PREFERENCE", "CPU", "ENV_VAR", "default_providers", "resolve_providers"]

CPU = "CPUExecutionProvider"
ENV_VAR = "PYONNX_PROVIDERS"

# Accelerators first (fastest first when several are installed), CPU-side providers after.
PREFERENCE = (
    "TensorrtExecutionProvider",
    "NvTensorRTRTXExecutionProvider",
    "CUDAExecutionProvider",
    "ROCMExecutionProvider",
    "MIGraphXExecutionProvider",
    "DmlExecutionProvider",
    "CoreMLExecutionProvider",
    "OpenVINOExecutionProvider",
    "QNNExecutionProvider",
    "CANNExecutionProvider",
    "WebGpuExecutionProvider",
    "DnnlExecutionProvider",
    "XnnpackExecutionProvider",
    CPU,
)

# Available in stock wheels but not a compute device: the Azure provider only runs remote
# endpoint operators, so picking it by default would just add a provider that takes no node.
_NOT_DEFAULT = frozenset({"AzureExecutionProvider"})


def default_providers() -> tuple[str, ...]:
    """Available providers, best first, CPU always last.

    Providers not in :data:`PREFERENCE` (other than the Azure remote-call provider) come after
    the known ones, alphabetically.
    """
    import onnxruntime as ort

    available = set(ort.get_available_providers()) - _NOT_DEFAULT - {CPU}
    ordered = [p for p in PREFERENCE if p in available]
    ordered += sorted(available - set(PREFERENCE))
    return tuple(ordered) + (CPU,)


def resolve_providers(explicit: Sequence[str] | str | None) -> tuple[str, ...]:
    """The providers to try for an explicit choice (a name or a list), or the defaults.

    Args:
        explicit: provider names best first, a single name, or None for
            ``PYONNX_PROVIDERS`` / :func:`default_providers`.

    Returns:
        Full provider names without duplicates, CPU last unless the choice places it.

    Raises:
        ValueError: a named provider is not known to onnxruntime (the message lists the known
            names), or the list is empty.
    """
    source = "providers"
    if explicit is None:
        env = os.environ.get(ENV_VAR, "").strip()
        if not env:
            return default_providers()
        explicit = [p for p in env.split(",") if p.strip()]
        source = f"environment variable {ENV_VAR}={env!r}"
    if isinstance(explicit, str):
        explicit = [explicit]
    explicit = list(explicit)
    if not explicit:
        raise ValueError("providers is empty; pass None for the default providers")
    import onnxruntime as ort

    known = {_short(p).lower(): p for p in ort.get_all_providers()}
    out: list[str] = []
    for p in explicit:
        if not isinstance(p, str):
            raise ValueError(f"a provider must be a name (str), not {p!r}")
        name = known.get(_short(p.strip()).lower())
        if name is None:
            raise ValueError(
                f"unknown onnxruntime provider {p!r} in {source}; known providers: "
                f"{', '.join(sorted(_short(k) for k in known.values()))} (onnxruntime "
                f"{ort.__version__} here has {', '.join(ort.get_available_providers())})")
        if name not in out:
            out.append(name)
    # An explicit order is kept as given; CPU is only added when missing.
    return tuple(out) if CPU in out else tuple(out) + (CPU,)


def _short(name: str) -> str:
    return name[: -len("ExecutionProvider")] if name.endswith("ExecutionProvider") else name

"""Observing conversions: ``PYONNX_LOG_COMPILES=1``, ``f.stats()`` and the recompile warning.

Input: each conversion (or disk-cache hit) of a compiled function with its parameters and
time. Output: a log line per conversion when ``PYONNX_LOG_COMPILES=1`` (like jax's
``log_compiles``; logger ``pyonnx.compiles`` at WARNING, so it shows without logging set up),
counters for :meth:`CompiledFunction.stats`, and, when a function has been converted 16, 64,
256 or 1024 times, a warning naming the argument whose signature keeps changing.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

__all__ = ["Recorder", "describe"]

logger = logging.getLogger("pyonnx.compiles")
_storm_logger = logging.getLogger("pyonnx.api")

# Warn when a function has been converted this many times (a recompile storm).
STORM_THRESHOLDS = (16, 64, 256, 1024)
_MAX_VALUES = 1024  # distinct descriptions remembered per argument


def describe(p: Any) -> str:
    """One parameter's part of the signature: ``x: float32[x_0,3]``, ``n: int``, ``k=3``."""
    if p.kind == "static":
        text = repr(p.value)
        return f"{p.name}={text if len(text) <= 40 else text[:37] + '...'}"
    if p.kind == "alias":
        return f"{p.name} is {p.value}"
    if p.kind == "scalar":
        return f"{p.name}: {p.spec.dtype.name} (Python scalar)"
    return f"{p.name}: {p.spec}"


class Recorder:
    """The counters of one compiled function (thread-safe)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.conversions = 0
        self.disk_hits = 0
        self.seconds = 0.0
        self._values: dict[str, set[str]] = {}

    def converted(self, qualname: str, params: list, seconds: float, source: str) -> int:
        """Records one conversion (``source``: "converted" or "disk cache"); logs it when
        asked; warns at the storm thresholds. Returns the number of conversions so far."""
        parts = [describe(p) for p in params]
        with self._lock:
            if source == "converted":
                self.conversions += 1
                self.seconds += seconds
            else:
                self.disk_hits += 1
            for p, text in zip(params, parts):
                seen = self._values.setdefault(p.name, set())
                if len(seen) < _MAX_VALUES:
                    seen.add(text)
            conversions = self.conversions
            changing = max(self._values.items(), key=lambda kv: len(kv[1]), default=None)
        if os.environ.get("PYONNX_LOG_COMPILES", "") not in ("", "0"):
            logger.warning("pyonnx: %s %s for (%s) in %.1f ms", source, qualname,
                           ", ".join(parts), seconds * 1e3)
        if source == "converted" and conversions in STORM_THRESHOLDS and changing is not None:
            name, values = changing
            _storm_logger.warning(
                "%s has been converted %d times (one per new input signature); argument '%s' "
                "took %d different signatures (e.g. %s). Pass values that change as arrays, "
                "not Python numbers or tuples, to reuse one model.", qualname, conversions,
                name, len(values), ", ".join(sorted(values)[:3]))
        return conversions

    def stats(self, signatures: int) -> dict[str, Any]:
        with self._lock:
            return {"signatures": signatures, "conversions": self.conversions,
                    "disk_cache_hits": self.disk_hits,
                    "misses": self.conversions + self.disk_hits,
                    "seconds_converting": self.seconds}

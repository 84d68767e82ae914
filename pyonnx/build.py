"""Building one signature's model: frontend → (transforms) → passes → bytes, and the
process-wide session cache.

Input: a Python function, its parameters (:class:`pyonnx.specs.Param`) and the opset. Output:
the serialized model, its output structure and 0-d flags; sessions for model bytes. Split
from ``api.py`` (which re-exports ``_build_model`` and ``_SESSIONS``); imports the converter
only when a model is built.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Sequence

__all__ = ["_build_model", "_SESSIONS"]

_gc_lock = threading.Lock()
_gc_pauses = 0            # conversions running with the collector paused (threads nest)
_gc_resume = False        # whether the first of them found the collector enabled


def _build_model(fn, params, opset: int,
                 transforms: Sequence[Callable] = ()) -> tuple[bytes, str, tuple[bool, ...]]:
    """:func:`_build_model_now` with the cyclic garbage collector paused.

    A conversion allocates thousands of onnx-ir objects in reference cycles (nodes <-> values)
    that are all garbage once the bytes exist. Collections during the conversion find them
    alive, promote them, and collect them again later in older generations (a full collection
    every ~200 conversions): 0.5 ms a conversion of a 15-line function, a fifth of its time.
    Paused, the next young collection after it frees them in one pass. (The collector is
    resumed after the model's last reference is gone: resuming inside would collect it alive.)
    """
    global _gc_pauses, _gc_resume
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_resume = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        return _build_model_now(fn, params, opset, transforms)
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_resume:
                gc.enable()


def _build_model_now(fn, params, opset: int,
                     transforms: Sequence[Callable] = ()) -> tuple[bytes, str, tuple[bool, ...]]:
    """Frontend → (transforms, e.g. differentiation) → passes → serialized bytes."""
    from pyonnx.frontend.convert import convert
    from pyonnx.passes.pipeline import optimize, to_bytes

    converted = convert(fn, params, opset)
    for transform in transforms:  # Converted -> Converted (pyonnx.transforms)
        converted = transform(converted)
    model = optimize(converted.model)
    return to_bytes(model), converted.structure, converted.output_is_scalar


class _LazySessions:
    """The process-wide session cache, created on first use so ``import pyonnx`` does not
    import onnxruntime."""

    def __init__(self):
        self._cache = None

    def get(self, model: bytes, providers, options=()):
        if self._cache is None:
            from pyonnx.runtime import SessionCache

            self._cache = SessionCache()
        return self._cache.get(model, providers, options)


_SESSIONS = _LazySessions()

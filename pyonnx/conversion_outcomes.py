"""What an exception from the converter means to a call: the user's error, or "convert again".

Input: an exception raised while converting a signature. Output: the ConversionError to raise
at the user's level (without pyonnx's frames), or the decision to convert again with the input
shapes (:func:`_shapes_needed`) or with run-time rank checks (:func:`_checkable`,
:func:`_rank_checks`). The frontend's exception types are imported only once an exception is
raised, so a call served by the disk cache never imports the converter.
"""

from __future__ import annotations

import contextlib
import logging
import os
from typing import Any

from pyonnx.errors import ConversionError

__all__ = ["_at_user_level", "_shapes_needed", "_checkable", "_rank_checks", "_need_static"]

logger = logging.getLogger("pyonnx.api")

# ``fn`` below is a pyonnx.api.CompiledFunction (api imports this module).
CompiledFunction = Any


def _at_user_level(error: ConversionError) -> ConversionError:
    """The error without pyonnx's internal frames: its message already names the user's line.
    ``PYONNX_FULL_TRACEBACK=1`` keeps them (for debugging pyonnx itself)."""
    if os.environ.get("PYONNX_FULL_TRACEBACK"):
        return error
    return error.with_traceback(None)


def _shapes_needed(fn: CompiledFunction, e: Exception) -> bool:
    """Whether ``e`` is the frontend's NeedStaticShapes (``np.squeeze`` without axis on a
    symbolic shape, whose result rank depends on the sizes): the first time, the input shapes
    join ``fn``'s signature (``static_shapes``: one model per shape) and True says "convert
    again"; when the shapes were static already, its ConversionError is raised. Only called
    with exceptions the converter raised (so importing it costs nothing)."""
    from pyonnx.frontend.graph.context import NeedStaticShapes

    if not isinstance(e, NeedStaticShapes):
        return False
    with fn._lock:
        if fn.static_shapes:
            raise e.error
        logger.info("%s: the conversion needs the input shapes; they become part of the "
                    "signature", fn.fn.__qualname__)
        fn.static_shapes = True
        fn._cache.clear()
        fn.__dict__.pop("_key", None)  # generated for rank-only keys
    return True


def _checkable(e: Exception) -> bool:
    """Whether ``e`` is a NeedStaticShapes the lowering can also meet with run-time checks."""
    return getattr(e, "checkable", False) is True and type(e).__name__ == "NeedStaticShapes"


@contextlib.contextmanager
def _rank_checks(on: bool):
    """Converts with the frontend's RANK_CHECKS set when ``on`` (imported only then)."""
    if not on:
        yield
        return
    from pyonnx.frontend.graph.context import RANK_CHECKS

    token = RANK_CHECKS.set(True)
    try:
        yield
    finally:
        RANK_CHECKS.reset(token)


def _need_static() -> type:
    """The frontend's NeedStatic, imported only once an exception is raised (so that a call
    served by the disk cache never imports the converter)."""
    from pyonnx.frontend.graph.context import NeedStatic

    return NeedStatic

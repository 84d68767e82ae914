"""Refusals inside followed calls, reported as a traceback from the user's line.

Input: a :class:`~pyonnx.errors.ConversionError` leaving an inlined call (a user helper, a
nested function, or library code whose Python source pyonnx follows: scikit-learn, scipy, a
helper module), the caller's location at the call, and the callee. Output: the error to raise
in the caller: its ``frames`` gain the call site (outermost first), and a refusal that leaves
library code for the user's code is placed at the user's line, naming the library function,
the line inside it that refused, and what to change in the user's code.

Modules that know a library (``pyonnx.sklearn``) add advice for its functions and classes with
:func:`add_advice`; :func:`advice_for` is also what a refused ``SomeClass(...)`` call says.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyonnx.errors import ConversionError, short_filename
from pyonnx.loc import SourceLoc

__all__ = ["followed_error", "in_library", "add_advice", "advice_for"]

# (module prefix, advice(qualified name) -> str | None), consulted in order.
_ADVICE: list[tuple[str, Callable[[str], str | None]]] = []
# Advice for objects people build inside a method (consulted after the registered advice).
_BUILT_IN_ADVICE = {
    "collections.Counter": "counts of array values are np.unique(x, return_counts=True) (or "
                           "np.bincount(x) for small non-negative integers)",
    "collections.defaultdict": "use a dict with keys known at conversion time, or arrays",
}


def add_advice(module_prefix: str, advice: Callable[[str], str | None]) -> None:
    """Registers what to tell the user when a followed function of ``module_prefix`` refuses.

    ``advice`` gets the function's qualified name (``sklearn.utils.validation.as_float_array``)
    and returns a sentence, or None for the generic advice.
    """
    _ADVICE.append((module_prefix, advice))


def in_library(filename: str | None) -> bool:
    """Whether a source file belongs to an installed package (numpy's, scikit-learn's own
    source), not to the user's code."""
    return filename is not None and any(
        part in ("site-packages", "dist-packages") for part in Path(filename).parts)


def _qualified(fn: Any) -> str:
    module = getattr(fn, "__module__", "") or ""
    if module.startswith("numpy"):
        return f"np.{fn.__name__}"
    return f"{module}.{fn.__qualname__}" if module else fn.__qualname__


def advice_for(name: str) -> str | None:
    """What to write instead of calling (or creating) ``name``, when a module registered it."""
    for prefix, advice in _ADVICE:
        if name.startswith(prefix):
            text = advice(name)
            if text:
                return text
    return _BUILT_IN_ADVICE.get(name)


def _advice(name: str, call: SourceLoc) -> str:
    short = name.rsplit(".", 1)[-1]
    text = advice_for(name) or (f"compute what {short}() does with numpy operations pyonnx "
                                "converts, or pass it arguments that take a path it converts")
    return f"change the call at {short_filename(call.filename)}:{call.lineno}: {text}"


def followed_error(e: ConversionError, call: SourceLoc | None, fn: Any) -> ConversionError:
    """The error ``e`` raised inside a call made at ``call`` to ``fn`` (None: a nested
    function), as the caller raises it."""
    if call is None:
        return e
    inner = e.frames or ((e.loc,) if e.loc is not None else ())
    frames = inner if inner and inner[0] == call else (call, *inner)
    cause = e.cause or e.message
    callee_file = getattr(getattr(fn, "__code__", None), "co_filename", None)
    if fn is not None and in_library(callee_file) and not in_library(call.filename):
        # The user called a library function whose source pyonnx followed: say so at the
        # user's line, with the library's line that refused in the chain.
        name = _qualified(fn)
        where = ""
        if e.loc is not None:
            where = f" (at {short_filename(e.loc.filename)}:{e.loc.lineno} in {e.loc.function})"
        return ConversionError(
            f"{name} is not supported: pyonnx follows its Python source, and refuses "
            f"inside it{where}: {cause}. What to change: {_advice(name, call)}",
            call, frames, cause)
    return ConversionError(e.message, e.loc if e.loc is not None else call, frames, cause)

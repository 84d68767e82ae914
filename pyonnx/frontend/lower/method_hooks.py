"""Method calls on conversion-time objects that a library converts its own way.

Input: a bound method of an object known at conversion time (``self.scaler_.transform``) with
the call's frontend arguments. Output: the call's frontend value from the first hook that takes
it, or ``NotImplemented`` (then the method's Python source is inlined as usual).

``pyonnx.sklearn`` adds a hook that turns a fitted scikit-learn estimator's ``transform``/
``predict``/``predict_proba`` into that estimator's converted graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["add_hook", "call_hooked"]

# hook(lowering, bound method, args, kwargs) -> value or NotImplemented
_HOOKS: list[Callable[..., Any]] = []


def add_hook(hook: Callable[..., Any]) -> None:
    """Registers ``hook`` (consulted in registration order; registering twice is a no-op)."""
    if hook not in _HOOKS:
        _HOOKS.append(hook)


def call_hooked(lowering, method: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """The first hook's value for ``method(*args, **kwargs)``, or NotImplemented."""
    for hook in _HOOKS:
        result = hook(lowering, method, args, kwargs)
        if result is not NotImplemented:
            return result
    return NotImplemented

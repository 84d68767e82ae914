"""The numpy registry as statement lowering sees it: look-ups that load every family first.

The table and ``register`` are in :mod:`.registry` (the families import it); this package
module loads the families listed in ``_MODULES`` on the first look-up, so that nothing imports
the package module back (no import cycle; ``tests/test_architecture.py`` reads ``_MODULES``).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

from pyonnx.frontend.numpy_calls import registry
from pyonnx.frontend.numpy_calls.registry import CallEntry

__all__ = ["CallEntry", "lookup", "lookup_method", "lookup_attribute", "lookup_steps", "refusal",
           "registered_names"]

_MODULES = ("elementwise", "reductions", "creation", "shape", "linalg", "sorting", "builtins_",
            "attributes", "misc", "indexing_calls", "type_queries", "science", "scope",
            "nan_reductions",
            "ufunc_methods",
            "windows",
            "array_methods",
            "selection",
            "index_grids",
            "arrangement",
            "series",
            "array_forms",
            "poly1d",
            "linalg_lu",
            "linalg_forms",
            "unsupported")
_loaded = False
_load_lock = threading.Lock()


def _load() -> None:
    """Imports the families once. ``_loaded`` is set only after the last one registered, under
    a lock: concurrent first conversions (threads) otherwise saw ``_loaded`` already True and
    looked names up in a half-filled table ("'.mean' is not supported")."""
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if not _loaded:
            for m in _MODULES:
                importlib.import_module(f"{__name__}.{m}")
            _loaded = True


def lookup(target: Any) -> CallEntry | None:
    """The entry for a callable, or None."""
    _load()
    return registry.lookup(target)


def lookup_method(name: str) -> CallEntry | None:
    _load()
    return registry.lookup_method(name)


def lookup_attribute(name: str) -> Callable[..., Any] | None:
    _load()
    return registry.lookup_attribute(name)


def lookup_steps(name: str) -> Any:
    """A family's algorithm steps registered under ``name`` (``registry.register_steps``), or
    None."""
    _load()
    return registry.lookup_steps(name)


def refusal(target: Any) -> tuple[str, bool] | None:
    """``(reason, out_of_scope)`` when ``target`` is refused on purpose (``registry.refuse``),
    else None."""
    _load()
    return registry.refusal(target)


def registered_names() -> list[str]:
    """Every registered numpy-style name (for docs and coverage tests)."""
    _load()
    return sorted({e.name for e in registry._FUNCS.values()}
                  | {e.name for e in registry._METHODS.values()})

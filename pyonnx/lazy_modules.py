"""Deferred imports of modules pyonnx's dependencies import but rarely use.

onnx-ir imports sympy (0.15–0.2 s alone, 1.6 s measured on a loaded machine) for symbolic
dimension arithmetic that pyonnx's conversions do not use: ``install()`` registers ``sympy``
and ``onnx_ir._symbolic_shapes`` (which reads sympy at import) as modules that load on their
first attribute access, under a lock (the first access may come from any thread). Nothing is
changed for a module already imported, nor when the module cannot be found.

Input: nothing. Output: entries in ``sys.modules``. Imports nothing heavy itself.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import threading
import types

__all__ = ["install"]

_LOCK = threading.RLock()


class _LazyModule(types.ModuleType):
    """A module whose code runs on the first read of an attribute it does not have yet."""

    def __getattr__(self, attr: str):
        with _LOCK:
            state = self.__dict__.get("_pyonnx_lazy")
            if state == "pending":
                self.__dict__["_pyonnx_lazy"] = "loading"
                try:
                    self.__spec__.loader.exec_module(self)
                except BaseException:
                    self.__dict__["_pyonnx_lazy"] = "pending"
                    raise
                self.__dict__["_pyonnx_lazy"] = "loaded"
        try:
            return self.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}") \
                from None


def _defer(name: str, spec) -> None:
    if spec is None or spec.loader is None or name in sys.modules:
        return
    module = importlib.util.module_from_spec(spec)
    module.__class__ = _LazyModule
    module.__dict__["_pyonnx_lazy"] = "pending"
    sys.modules[name] = module


def install() -> None:
    """Defers sympy for onnx-ir (module docstring); a no-op once onnx-ir is imported."""
    if "onnx_ir" in sys.modules:
        return
    try:
        ir_spec = importlib.util.find_spec("onnx_ir")
        sympy_spec = importlib.util.find_spec("sympy")
    except (ImportError, ValueError):
        return
    if ir_spec is None or sympy_spec is None or not ir_spec.submodule_search_locations:
        return
    shapes = importlib.machinery.PathFinder.find_spec(
        "onnx_ir._symbolic_shapes", list(ir_spec.submodule_search_locations))
    if shapes is None:
        return
    _defer("sympy", sympy_spec)
    _defer("onnx_ir._symbolic_shapes", shapes)

"""Lowering of imports in the function body and of no-op ``with`` contexts.

Input: the calls :mod:`pyonnx.frontend.canonicalize.imports_contexts` marks. Output: the module
or attribute an import binds (resolved at conversion time, as a module-level import), or nothing
for a context that changes no value. ONNX raises no floating-point warnings, so
``np.errstate(...)`` and ``warnings.catch_warnings()`` are no-ops; any other context manager
(files, locks, timers) cannot run inside a model and is refused at the ``with``.
"""

from __future__ import annotations

import ast
import importlib
import warnings
from typing import Any

import numpy as np

__all__ = ["import_value", "enter_contexts", "ALLOWED_MODULES", "NOOP_CALLS"]

# Modules pyonnx converts calls into (numpy and its submodules, the scalar math of the standard
# library, and the helpers whose functions run on conversion-time values).
ALLOWED_MODULES = ("numpy", "math", "cmath", "operator", "functools", "itertools", "warnings")

# Calls that change no value of a model: warning filters (a model warns about nothing).
NOOP_CALLS = (warnings.simplefilter, warnings.filterwarnings, warnings.resetwarnings)

_CONTEXTS = (np.errstate, warnings.catch_warnings)


def import_value(lowering, node: ast.Call) -> Any:
    """The value ``import``/``from ... import`` binds for a ``pyonnx_import`` call."""
    module, attr = node.pyonnx_import
    if module.split(".")[0] not in ALLOWED_MODULES:
        raise lowering.ctx.error(
            f"importing '{module}' inside a compiled function is not supported: pyonnx converts "
            f"{', '.join(ALLOWED_MODULES[:2])} and the standard helpers "
            f"({', '.join(ALLOWED_MODULES[2:6])}); compute the value outside and pass it in")
    try:
        mod = importlib.import_module(module)
        if attr == "":  # import a.b binds a
            return importlib.import_module(module.split(".")[0])
        if attr is None:
            return mod
        if attr == "*":
            raise lowering.ctx.error("'from ... import *' is not supported inside a function; "
                                     "import the names you use")
        try:
            return getattr(mod, attr)
        except AttributeError:
            return importlib.import_module(f"{module}.{attr}")
    except ImportError as e:
        raise lowering.ctx.error(f"ImportError: {e}") from None


def enter_contexts(lowering, node: ast.Call) -> None:
    """Checks the contexts of a ``with`` (a ``pyonnx_context`` call): no-ops only."""
    for expr, target in zip(node.args, node.pyonnx_context):
        func = lowering.expr(expr.func) if isinstance(expr, ast.Call) else None
        if func not in _CONTEXTS:
            raise lowering.ctx.error(
                "'with' is supported for np.errstate(...) and warnings.catch_warnings() only "
                "(they change no value: an ONNX model raises no floating-point warnings); a "
                "compiled function cannot open files or other contexts: do that outside it and "
                "pass arrays in", lowering.loc_of(node))
        if target is not None:
            raise lowering.ctx.error(
                f"'with ... as {ast.unparse(target)}' is not supported: a model records no "
                "warnings; drop the 'as' target", lowering.loc_of(target))
        for a in expr.args:
            lowering.expr(a)  # (errors in the arguments are still the user's)
        for kw in expr.keywords:
            lowering.expr(kw.value)

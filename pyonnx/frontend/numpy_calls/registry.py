"""Registry: numpy (and builtin, math) callables → lowering functions.

A lowering function takes the :class:`~pyonnx.frontend.graph.context.Lowering` first, then the
call's arguments as frontend values (``Array`` or static Python values) under numpy's own
parameter names, so Python binds keywords and defaults exactly as numpy's signature does::

    @register(np.sum, methods=("sum",))
    def sum_(ctx, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
        ...

``methods`` also registers the callable as an array method (``x.sum(axis=1)`` calls it with
``x`` first). When every argument is static and ``static_eval`` is set, the call runs in
numpy at conversion time instead (``np.zeros((3, 4))`` becomes a constant). Array attributes
(``x.T``, ``x.shape``) are registered with :func:`register_attribute`.

Partial support is declared where the lowering is registered, so the coverage table
(``tools/numpy_coverage.py``) and the lowering cannot drift apart: a parameter of numpy's
signature that the lowering function does not take is found by comparing the two signatures;
one the lowering takes but supports only in some forms is named in ``limits``::

    @register(np.argsort, methods=("argsort",), limits={"kind": "ties in stable order"})

A numpy callable pyonnx refuses on purpose is registered with :func:`refuse` and the reason
(the call's ConversionError and the table's row both say it).

This module holds the tables: the families (``elementwise/``, ``reductions/``...) register into
it and look each other up through it (by then every family is loaded); statement lowering looks
up through the package (:mod:`pyonnx.frontend.numpy_calls`), which loads the families first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

__all__ = ["CallEntry", "register", "register_attribute", "refuse", "refusal", "lookup",
           "lookup_method", "lookup_attribute", "register_steps", "lookup_steps"]


@dataclasses.dataclass(frozen=True)
class CallEntry:
    """One registered callable.

    Attributes:
        fn: the lowering function ``fn(ctx, *args, **kwargs) -> frontend value``.
        name: the numpy name, for messages (``numpy.sum``).
        static_eval: evaluate with the real callable when every argument is static.
        target: the real callable (None for methods-only entries).
        limits: (parameter, what is not supported) pairs: the partial support the coverage
            table reports beyond the parameters the lowering does not take.
    """

    fn: Callable[..., Any]
    name: str
    static_eval: bool
    target: Any = None
    limits: tuple[tuple[str, str], ...] = ()


_FUNCS: dict[Any, CallEntry] = {}
_METHODS: dict[str, CallEntry] = {}
_ATTRS: dict[str, Callable[..., Any]] = {}
_REFUSED: dict[Any, tuple[str, bool]] = {}
_STEPS: dict[str, Any] = {}


def _name_of(target: Any) -> str:
    module = getattr(target, "__module__", None) or "numpy"
    if module.startswith("numpy"):
        module = "numpy"
    return f"{module}.{getattr(target, '__name__', repr(target))}"


def register(*targets: Any, methods: tuple[str, ...] = (), static_eval: bool = True,
             name: str | None = None, limits: dict[str, str] | None = None
             ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Registers a lowering function for ``targets`` (and as array ``methods``).

    ``limits`` maps a parameter the lowering takes to what of it is not supported (shown in
    the coverage table; the lowering itself refuses those forms at the call)."""
    lim = tuple((limits or {}).items())

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for t in targets:
            _FUNCS[t] = CallEntry(fn, name or _name_of(t), static_eval, t, lim)
        for m in methods:
            _METHODS[m] = CallEntry(fn, f"ndarray.{m}", False, None, lim)
        return fn

    return deco


def refuse(*targets: Any, reason: str, out_of_scope: bool = False) -> None:
    """Records numpy callables pyonnx refuses on purpose, with the reason the call's
    ConversionError and the coverage table give; ``out_of_scope``: no ONNX model could compute
    it (I/O, text, Python objects), so the table does not count it. A registered lowering wins
    over a refusal (a family that later supports the callable need not remove it)."""
    for t in targets:
        _REFUSED[t] = (reason, out_of_scope)


def refusal(target: Any) -> tuple[str, bool] | None:
    """``(reason, out_of_scope)`` when ``target`` is refused on purpose, else None."""
    try:
        return _REFUSED.get(target)
    except TypeError:  # unhashable
        return None


def register_attribute(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Registers ``fn(ctx, array)`` as the array attribute(s) ``names`` (``x.T``)."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for n in names:
            _ATTRS[n] = fn
        return fn

    return deco


def lookup(target: Any) -> CallEntry | None:
    """The entry for a callable, or None."""
    try:
        return _FUNCS.get(target)
    except TypeError:  # unhashable
        return None


def lookup_method(name: str) -> CallEntry | None:
    return _METHODS.get(name)


def lookup_attribute(name: str) -> Callable[..., Any] | None:
    return _ATTRS.get(name)


def register_steps(name: str, steps: Any) -> None:
    """Registers a family's algorithm steps under ``name``: an object whose attributes are the
    functions (and facade class) another lowering runs with its own facade (the complex
    ``np.gradient`` runs calculus's steps on complex values). Statement lowering may import the
    package's look-ups, never a family (tests/test_architecture.py); this is how it reaches
    them."""
    _STEPS[name] = steps


def lookup_steps(name: str) -> Any:
    """The steps registered under ``name`` (:func:`register_steps`), or None."""
    return _STEPS.get(name)

"""The public API: ``@pyonnx.compile`` and ``CompiledFunction``.

The only place that wires frontend → passes → runtime. The pipeline, in order:

1. the frontend lowers the function for one input signature (parse, syntax check,
   canonicalize, lower) into an onnx-ir model;
2. IR passes optimize it (fold constants, remove dead code, CSE, fix names);
3. it is serialized and checked;
4. the runtime opens (or reuses) a session for those bytes.

A signature is each array's dtype and rank, the type of each Python int/float/bool (passed as a
weak 0-d input), and the value of every static argument (strings, tuples, None,
``static_argnames``, and Python scalars whose value the conversion needed). Shapes stay
symbolic, so one model serves every size.
"""

from __future__ import annotations

import functools
import inspect
import logging
import operator
import threading
import time
import types
from collections.abc import Callable, Sequence
from typing import Any

from pyonnx import variadic
from pyonnx.build import _SESSIONS, _build_model  # noqa: F401  (re-exported)
from pyonnx.call_args import check_lists_unchanged, feed_plan, params_for
from pyonnx.call_path import _Compiled
from pyonnx.conversion_outcomes import (  # noqa: F401  (_at_user_level: re-exported)
    _at_user_level,
    _need_static,
    _shapes_needed,
)
from pyonnx.flight import _copy_error, _Flight
from pyonnx.errors import ConversionError
from pyonnx.inspection import Inspection
from pyonnx.observe import Recorder
from pyonnx.specs import Param, spec

__all__ = ["compile", "CompiledFunction", "spec", "DEFAULT_OPSET"]

logger = logging.getLogger(__name__)

DEFAULT_OPSET = 21


class CompiledFunction(Inspection):
    """A Python function compiled to ONNX per input signature; call it like the function.

    Attributes:
        fn: the original Python function.
        opset: the ONNX opset emitted.
        static_argnames: arguments whose value is part of the signature (given, plus Python
            scalar arguments whose value the conversion turned out to need).
    """

    def __init__(self, fn: Callable[..., Any], *, providers: Sequence[str] | str | None = None,
                 static_argnames: Sequence[str] | str = (), opset: int = DEFAULT_OPSET,
                 cache_size: int = 64, static_shapes: bool = False, cache: bool = False):
        if not isinstance(fn, types.FunctionType):
            raise TypeError(f"pyonnx.compile needs a Python function, got {type(fn).__name__}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.opset = opset
        self.static_shapes = static_shapes
        self._providers_arg = providers
        self._providers: tuple[str, ...] | None = None
        self._signature = inspect.signature(fn)
        self._params = list(self._signature.parameters)
        if isinstance(static_argnames, str):
            static_argnames = (static_argnames,)
        unknown = set(static_argnames) - set(self._params)
        if unknown:
            raise ValueError(f"static_argnames {sorted(unknown)} are not parameters of "
                             f"{fn.__qualname__}")
        self.static_argnames: set[str] = set(static_argnames)
        self._static_idx = frozenset(self._params.index(n) for n in self.static_argnames)
        self._cache: dict[tuple, _Compiled] = {}
        self._cache_size = cache_size
        # Guards _cache, _in_flight, static_argnames and the counters: many threads may call
        # one compiled function (see _miss); calls of converted signatures take no lock.
        self._lock = threading.RLock()
        self._in_flight: dict[tuple, _Flight] = {}
        self.cache = bool(cache)
        self._recorder = Recorder()
        self._last: _Compiled | None = None
        P = inspect.Parameter
        if any(p.kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD)
               for p in self._signature.parameters.values()):
            # *args/**kwargs: one flat variant per number of extra arguments and keyword names
            self._layouts: dict[tuple, _VariadicLayout] = {}
            self.__dict__["_call"] = self._variadic_call

    # ------------------------------------------------------------------ calls
    # ``f(...)`` runs ``f._call(...)``, looked up in C (property of an attrgetter): no Python
    # frame sits between the caller and ``_call``. ``_call`` is the generic method below until
    # the first call; from then on it is, in the instance dict, the fast entry of the last
    # signature called (_Compiled.make_fast): the function's own parameters, inline guards,
    # the feed dict and onnxruntime's C++ run.
    __call__ = property(operator.attrgetter("_call"),
                        doc="Calls the compiled function like the Python function.")

    def _call(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != len(self._params):
            args = self._bind(args, kwargs)
        return _Compiled.dispatch(self, args)

    def _bind(self, args: tuple, kwargs: dict) -> tuple:
        """Keyword and default arguments → the full positional tuple, as Python would bind."""
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.fn.__qualname__}(): {e}") from None
        bound.apply_defaults()
        return tuple(bound.arguments[p] for p in self._params)

    def _key(self, args: Sequence[Any]) -> tuple:
        """The signature key of ``args`` (a full positional tuple).

        Arrays contribute dtype and rank, Python scalars their type, static arguments their
        value. The first call (and the first after the static arguments change) replaces this
        method on the instance by a key function generated for the argument types seen
        (:meth:`_Compiled.make_key`), so later calls run no loop and no isinstance ladder.
        """
        key = _Compiled.make_key(self, args)
        self.__dict__["_key"] = key
        return key(args)

    def _miss(self, args: Sequence[Any]) -> _Compiled:
        """Converts ``args``' signature, once: concurrent first calls with the same signature
        wait for the one conversion (and share its result or its ConversionError); different
        signatures convert concurrently (each conversion has its own Lowering; what the
        frontend shares is loaded under locks and only read afterwards)."""
        while True:
            with self._lock:
                key = self._key(args)
                compiled = self._cache.get(key)
                if compiled is not None:
                    return compiled
                flight = self._in_flight.get(key)
                mine = flight is None
                if mine:
                    flight = self._in_flight[key] = _Flight(self._static_idx)
                    static = frozenset(self.static_argnames)
            if not mine:
                flight.done.wait()
                if flight.error is not None and flight.static_idx is self._static_idx:
                    raise _at_user_level(_copy_error(flight.error)) from None
                continue  # converted (look it up again) or the static arguments changed
            try:
                compiled = self._convert(args, static)
            except ConversionError as e:
                flight.error = e
                raise _at_user_level(e) from None
            except Exception as e:
                from pyonnx.cache import NeedsStatic  # light; the converter's is not

                if not isinstance(e, NeedsStatic):
                    try:
                        if _shapes_needed(self, e):
                            continue  # converted again with the shapes in the signature
                    except ConversionError as error:
                        flight.error = error
                        raise _at_user_level(error) from None

                # The disk cache's record first: checking it imports no converter.
                if not isinstance(e, NeedsStatic) and not isinstance(e, _need_static()):
                    raise
                with self._lock:
                    if not set(e.argnames) - static:  # pragma: no cover - a frontend bug
                        raise
                    logger.info("%s: argument(s) %s are needed at conversion time; their "
                                "values become part of the signature", self.fn.__qualname__,
                                sorted(e.argnames))
                    self._set_static(self.static_argnames | set(e.argnames))
                continue
            else:
                with self._lock:
                    # Under the static arguments of now: a conversion made with fewer static
                    # arguments serves every value of the new ones.
                    if len(self._cache) >= self._cache_size:
                        self._cache.pop(next(iter(self._cache)))
                    self._cache[self._key(args)] = compiled
                    self._last = compiled
                return compiled
            finally:
                # After the result is in the cache: the waiters look it up there.
                with self._lock:
                    del self._in_flight[key]
                flight.done.set()

    def _set_static(self, names: set[str]) -> None:
        """Makes ``names`` the static arguments (held ``self._lock``): keys made before this
        change mean something else now, so the cache is emptied."""
        if names == self.static_argnames:
            return
        self.static_argnames = set(names)
        self._static_idx = frozenset(self._params.index(n) for n in names)
        self._cache.clear()

    def _convert(self, args: Sequence[Any], static: frozenset[str]) -> _Compiled:
        params = self._params_for(args, symbolic=not self.static_shapes, static=static)
        entry = None
        if self.cache:
            from pyonnx import cache

            entry = cache.entry_for(self, params)
            stored = entry.load() if entry is not None else None  # may raise NeedsStatic
            if stored is not None:
                compiled = self._ready(args, params, *stored)
                if compiled is not None:
                    self._recorder.converted(self.fn.__qualname__, params, 0.0, "disk cache")
                    return compiled
        start = time.perf_counter()
        try:
            model_bytes, structure, scalars = self._build(params)
        except Exception as e:
            if entry is not None and isinstance(e, _need_static()):
                entry.store_needs_static(e.argnames)  # the next process skips this attempt
            raise
        elapsed = time.perf_counter() - start
        check_lists_unchanged(self.fn.__qualname__, params, args)
        if entry is not None:
            entry.store(model_bytes, structure, scalars, elapsed)
        self._recorder.converted(self.fn.__qualname__, params, elapsed, "converted")
        return self._ready(args, params, model_bytes, structure, scalars, elapsed, trusted=True)

    def _ready(self, args: Sequence[Any], params: list, model_bytes: bytes, structure: str,
               scalars: tuple[bool, ...], elapsed: float, trusted: bool = False):
        """The :class:`_Compiled` of a model: its session, feed plan and call. A model from the
        disk cache (not ``trusted``) that onnxruntime cannot load, or whose inputs are not the
        signature's, gives None (converted again) instead of an error."""
        try:
            session = _SESSIONS.get(model_bytes, self.providers_to_try)
        except Exception:
            if trusted:
                raise
            logger.warning("pyonnx cache: onnxruntime cannot load the cached model of %s; "
                           "converting again", self.fn.__qualname__)
            return None
        plan = feed_plan(args, params)
        if not trusted and [n for n, _, _ in plan] != list(session.input_names):
            return None
        compiled = _Compiled(model_bytes, session, plan, structure, scalars, elapsed)
        compiled.owner = self
        return compiled

    def _build(self, params: list) -> tuple[bytes, str, tuple[bool, ...]]:
        """Model bytes, output structure and scalar flags for one signature's ``params``.
        Subclasses (``pyonnx.transforms``: grad, vjp, jacobian) pass IR transforms here."""
        return _build_model(self.fn, params, self.opset)

    def _params_for(self, args: Sequence[Any], symbolic: bool,
                    static: frozenset[str] | None = None) -> list:
        """The signature's Params for ``args`` (:func:`pyonnx.call_args.params_for`)."""
        return params_for(self, args, symbolic, static)

    # ------------------------------------------------------------ inspection
    # (counters, providers, to_onnx, show, Jupyter's view: pyonnx.inspection.Inspection)
    def __repr__(self) -> str:
        return f"<pyonnx.CompiledFunction {self.fn.__qualname__}>"

    def __reduce__(self):
        """Pickles by reference when importable, else by value (see :mod:`pyonnx.pickling`)."""
        from pyonnx.pickling import reduce_compiled

        return reduce_compiled(self)

    def _pickle_options(self) -> dict[str, Any]:
        """The keyword arguments that rebuild this function's options (pickling by value)."""
        return dict(providers=self._providers_arg, static_argnames=tuple(sorted(
            self.static_argnames)), opset=self.opset, cache_size=self._cache_size,
            static_shapes=self.static_shapes)

    def _variadic_call(self, *args: Any, **kwargs: Any) -> Any:
        layout, flat = self._layout_for(args, kwargs)
        try:
            return layout(*flat)
        finally:
            self._last = layout._last  # (providers, structure: the last variant run)

    def _layout_for(self, args: tuple, kwargs: dict) -> tuple[_VariadicLayout, tuple]:
        """The flat variant for a call of a function with ``*args``/``**kwargs``, and the
        call's arguments in its order."""
        return variadic.layout_for(self, args, kwargs, _VariadicLayout)

    def _alias_call(self, args: tuple) -> Any:
        """Runs ``args`` in which some array arguments are the same object (``f(r, r)``) with
        a model variant where those parameters are one value (numpy's meaning: a write through
        one is seen through the other); one variant per alias pattern."""
        pattern = tuple(next(j for j in range(i + 1) if args[j] is a)
                        for i, a in enumerate(args))
        with self._lock:
            variants = self.__dict__.setdefault("_alias_variants", {})
            variant = variants.get(pattern)
            if variant is None:
                variant = variants[pattern] = _AliasVariant(self, pattern)
        return variant(*args)


class _AliasVariant(CompiledFunction):
    """``fn`` for calls whose arguments ``i`` are the objects of arguments ``pattern[i]``."""

    def __init__(self, owner: CompiledFunction, pattern: tuple[int, ...]):
        super().__init__(owner.fn, static_argnames=tuple(owner.static_argnames),
                         opset=owner.opset, static_shapes=owner.static_shapes)
        self._pattern = pattern

    def _params_for(self, args: Sequence[Any], symbolic: bool,
                    static: frozenset[str] | None = None) -> list:
        params = super()._params_for(args, symbolic, static)
        return [Param(p.name, "alias", value=self._params[j]) if j != i and p.kind == "tensor"
                else p for i, (p, j) in enumerate(zip(params, self._pattern))]


class _VariadicLayout(CompiledFunction):
    """``fn`` with ``*args``/``**kwargs`` for one number of extra positional arguments and one
    set of keyword names: a function of flat parameters (``args_0``, ``kwargs_alpha``) whose
    conversion regroups them into the tuple and dict the body reads."""

    def __init__(self, owner: CompiledFunction, names: list[str], groups: dict[str, tuple]):
        super().__init__(owner.fn, providers=owner._providers_arg, opset=owner.opset,
                         static_argnames=[n for n in owner.static_argnames if n in names],
                         cache_size=owner._cache_size, static_shapes=owner.static_shapes)
        del self.__dict__["_call"], self._layouts  # this variant's parameters are flat
        P = inspect.Parameter
        self._signature = inspect.Signature([P(n, P.POSITIONAL_OR_KEYWORD) for n in names])
        self._params = list(names)
        self._groups = groups
        for group in {g for g, _ in groups.values()} & owner.static_argnames:
            self.static_argnames |= {n for n, (g, _) in groups.items() if g == group}
        self._static_idx = frozenset(self._params.index(n) for n in self.static_argnames)

    def _params_for(self, args: Sequence[Any], symbolic: bool,
                    static: frozenset[str] | None = None) -> list:
        import dataclasses

        return [dataclasses.replace(p, group=self._groups.get(p.name))
                for p in super()._params_for(args, symbolic, static)]


def compile(fn: Callable[..., Any] | None = None, *, providers: Sequence[str] | str | None = None,
            static_argnames: Sequence[str] | str = (), opset: int = DEFAULT_OPSET,
            cache_size: int = 64, static_shapes: bool = False, cache: bool = False) -> Any:
    """Compiles a numpy-style Python function to ONNX, run by onnxruntime.

    Use as ``@pyonnx.compile`` or ``@pyonnx.compile(providers=["CUDA", "CPU"])``.

    Args:
        fn: the function (omit it to get a decorator with options).
        providers: onnxruntime execution providers to try in order (names with or without the
            ``ExecutionProvider`` suffix); default: ``PYONNX_PROVIDERS`` or the best available.
        static_argnames: arguments whose values are fixed at conversion time (part of the
            signature), like ``jax.jit``'s. Python scalars are found automatically when needed.
        opset: the ONNX opset to emit.
        cache_size: converted signatures kept per function.
        static_shapes: convert one model per input shape, as ``jax.jit`` does, instead of one
            model for every size: shape arithmetic and run-time shape checks fold away (fewer
            nodes per call), at the cost of a conversion per new shape.
        cache: keep each signature's converted model on disk (``PYONNX_CACHE_DIR``, default
            ``~/.cache/pyonnx``) for later processes; see :mod:`pyonnx.cache` for the key.

    Returns:
        A :class:`CompiledFunction` (or a decorator making one).

    Raises:
        ConversionError: at the first call with a signature whose conversion fails.
    """
    options = dict(providers=providers, static_argnames=static_argnames, opset=opset,
                   cache_size=cache_size, static_shapes=static_shapes, cache=cache)
    if fn is None:
        return lambda f: CompiledFunction(f, **options)
    return CompiledFunction(fn, **options)

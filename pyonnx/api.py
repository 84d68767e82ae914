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
import gc
import inspect
import logging
import os
import operator
import threading
import time
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyonnx.call_path import _SCALAR_TYPES, _Compiled
from pyonnx.errors import ConversionError
from pyonnx.specs import TensorSpec, spec

__all__ = ["compile", "CompiledFunction", "spec", "DEFAULT_OPSET"]

logger = logging.getLogger(__name__)

DEFAULT_OPSET = 21
_SCALAR_DTYPES = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64)}
# Log a warning when a function has been converted this many times (a recompile storm).
_STORM_THRESHOLDS = (16, 64, 256, 1024)


class CompiledFunction:
    """A Python function compiled to ONNX per input signature; call it like the function.

    Attributes:
        fn: the original Python function.
        opset: the ONNX opset emitted.
        static_argnames: arguments whose value is part of the signature (given, plus Python
            scalar arguments whose value the conversion turned out to need).
    """

    def __init__(self, fn: Callable[..., Any], *, providers: Sequence[str] | str | None = None,
                 static_argnames: Sequence[str] | str = (), opset: int = DEFAULT_OPSET,
                 cache_size: int = 64, static_shapes: bool = False):
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
        self.conversions = 0
        self._last: _Compiled | None = None

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
        from pyonnx.frontend.graph.context import NeedStatic, NeedStaticShapes

        while True:
            try:
                compiled = self._convert(args)
                break
            except ConversionError as e:
                raise _at_user_level(e) from None
            except NeedStaticShapes as e:
                if self.static_shapes:
                    raise _at_user_level(e.error) from None
                logger.info("%s: the conversion needs the input shapes; they become part of "
                            "the signature", self.fn.__qualname__)
                self.static_shapes = True
                self._cache.clear()
                self.__dict__.pop("_key", None)  # generated for rank-only keys
            except NeedStatic as e:
                new = set(e.argnames) - self.static_argnames
                if not new:  # pragma: no cover - a frontend bug: the value was already static
                    raise
                logger.info("%s: argument(s) %s are needed at conversion time; their values "
                            "become part of the signature", self.fn.__qualname__, sorted(new))
                self.static_argnames |= new
                self._static_idx = frozenset(self._params.index(n) for n in self.static_argnames)
                # Keys made before this change mean something else now.
                self._cache.clear()
        key = self._key(args)
        if len(self._cache) >= self._cache_size:
            self._cache.pop(next(iter(self._cache)))
        self._cache[key] = compiled
        self._last = compiled
        return compiled

    def _convert(self, args: Sequence[Any]) -> _Compiled:
        params = self._params_for(args, symbolic=not self.static_shapes)
        start = time.perf_counter()
        model_bytes, structure, scalars = self._build(params)
        elapsed = time.perf_counter() - start
        self.conversions += 1
        if self.conversions in _STORM_THRESHOLDS:
            logger.warning(
                "%s has been converted %d times (one per new input signature); static "
                "arguments %s take many values. Pass values that change as arrays, not Python "
                "numbers, to reuse one model.", self.fn.__qualname__, self.conversions,
                sorted(self.static_argnames) or "none")
        session = _SESSIONS.get(model_bytes, self.providers_to_try)
        feed_plan = []
        for i, p in enumerate(params):
            if p.kind in ("static", "alias"):
                continue
            dtype = p.spec.dtype if (p.kind == "scalar" or not isinstance(args[i], np.ndarray)) \
                else None
            feed_plan.append((p.name, i, dtype))
        compiled = _Compiled(model_bytes, session, feed_plan, structure, scalars, elapsed)
        compiled.owner = self
        return compiled

    def _build(self, params: list) -> tuple[bytes, str, tuple[bool, ...]]:
        """Model bytes, output structure and scalar flags for one signature's ``params``.
        Subclasses (``pyonnx.transforms``: grad, vjp, jacobian) pass IR transforms here."""
        return _build_model(self.fn, params, self.opset)

    def _params_for(self, args: Sequence[Any], symbolic: bool) -> list:
        from pyonnx.frontend.convert import Param

        params = []
        for i, (name, a) in enumerate(zip(self._params, args)):
            if name in self.static_argnames:
                params.append(Param(name, "static", value=a))
            elif isinstance(a, TensorSpec):
                params.append(Param(name, "tensor", spec=a))
            elif isinstance(a, np.ndarray) and type(a) not in (np.ndarray, np.memmap):
                # np.matrix multiplies with *, masked arrays carry masks: numpy's meaning for
                # them is not the plain-array meaning pyonnx converts.
                raise ConversionError(
                    f"argument '{name}' is a {type(a).__name__}, an ndarray subclass pyonnx does "
                    "not convert; pass np.asarray(...) of it")
            elif isinstance(a, np.ndarray) or isinstance(a, np.generic):
                arr = np.asarray(a)
                if arr.dtype.kind not in "biuf":
                    raise ConversionError(f"argument '{name}' has dtype {arr.dtype}, which pyonnx "
                                          "does not support (bool, ints, floats)")
                dims = tuple(f"{name}_{d}" for d in range(arr.ndim)) if symbolic else arr.shape
                # Byte order is the feed's concern (native in the model; see _Compiled.normalize).
                params.append(Param(name, "tensor",
                                    spec=spec(arr.dtype.newbyteorder("="), dims)))
            elif type(a) in _SCALAR_TYPES:
                params.append(Param(name, "scalar", spec=spec(_SCALAR_DTYPES[type(a)], ())))
            elif isinstance(a, (list,)) and _is_numeric_list(a):
                raise ConversionError(
                    f"argument '{name}' is a list; pass a numpy array (np.asarray(...)) so its "
                    "values can change without a new conversion, or a tuple to make it static")
            else:
                params.append(Param(name, "static", value=a))
        return params

    # ------------------------------------------------------------ inspection
    @property
    def providers(self) -> tuple[str, ...]:
        """The providers running the last compiled signature (or those that would be tried)."""
        if self._last is not None:
            return self._last.session.providers
        return self.providers_to_try

    @property
    def providers_to_try(self) -> tuple[str, ...]:
        if self._providers is None:
            from pyonnx.runtime.providers import resolve_providers

            self._providers = resolve_providers(self._providers_arg)
        return self._providers

    def to_onnx(self, *args: Any, **kwargs: Any):
        """The ``onnx.ModelProto`` for example arguments or :func:`pyonnx.spec` specs.

        Arrays give symbolic dimensions (the model serves every size); specs keep their named
        and fixed dimensions.
        """
        import onnx

        if kwargs or len(args) != len(self._params):
            args = self._bind(args, kwargs)
        from pyonnx.frontend.graph.context import NeedStatic, NeedStaticShapes

        while True:
            try:
                params = self._params_for(args, symbolic=not self.static_shapes)
                model_bytes, _, _ = self._build(params)
                return onnx.load_from_string(model_bytes)
            except ConversionError as e:
                raise _at_user_level(e) from None
            except NeedStaticShapes as e:  # as _miss: the shapes join the signature
                if self.static_shapes:
                    raise _at_user_level(e.error) from None
                self.static_shapes = True
                self._cache.clear()
                self.__dict__.pop("_key", None)
            except NeedStatic as e:
                self.static_argnames |= set(e.argnames)
                self._static_idx = frozenset(self._params.index(n) for n in self.static_argnames)
                self._cache.clear()

    def __repr__(self) -> str:
        return f"<pyonnx.CompiledFunction {self.fn.__qualname__}>"

    def _alias_call(self, args: tuple) -> Any:
        """Runs ``args`` in which some array arguments are the same object (``f(r, r)``) with
        a model variant where those parameters are one value (numpy's meaning: a write through
        one is seen through the other); one variant per alias pattern."""
        pattern = tuple(next(j for j in range(i + 1) if args[j] is a)
                        for i, a in enumerate(args))
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

    def _params_for(self, args: Sequence[Any], symbolic: bool) -> list:
        from pyonnx.frontend.convert import Param

        params = super()._params_for(args, symbolic)
        return [Param(p.name, "alias", value=self._params[j]) if j != i and p.kind == "tensor"
                else p for i, (p, j) in enumerate(zip(params, self._pattern))]


def _at_user_level(error: ConversionError) -> ConversionError:
    """The error without pyonnx's internal frames: its message already names the user's line.
    ``PYONNX_FULL_TRACEBACK=1`` keeps them (for debugging pyonnx itself)."""
    if os.environ.get("PYONNX_FULL_TRACEBACK"):
        return error
    return error.with_traceback(None)


def _is_numeric_list(a: list) -> bool:
    return bool(a) and all(isinstance(v, (int, float, bool)) for v in a)


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


def compile(fn: Callable[..., Any] | None = None, *, providers: Sequence[str] | str | None = None,
            static_argnames: Sequence[str] | str = (), opset: int = DEFAULT_OPSET,
            cache_size: int = 64, static_shapes: bool = False) -> Any:
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

    Returns:
        A :class:`CompiledFunction` (or a decorator making one).

    Raises:
        ConversionError: at the first call with a signature whose conversion fails.
    """
    if fn is None:
        return lambda f: CompiledFunction(f, providers=providers, static_argnames=static_argnames,
                                          opset=opset, cache_size=cache_size,
                                          static_shapes=static_shapes)
    return CompiledFunction(fn, providers=providers, static_argnames=static_argnames, opset=opset,
                            cache_size=cache_size, static_shapes=static_shapes)

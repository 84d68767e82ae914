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

import contextlib
import copy
import functools
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

from pyonnx import variadic
from pyonnx.build import _SESSIONS, _build_model  # noqa: F401  (re-exported)
from pyonnx.call_path import _SCALAR_TYPES, _Compiled, _hashable
from pyonnx.flight import _copy_error, _Flight
from pyonnx.errors import ConversionError
from pyonnx.observe import Recorder
from pyonnx.specs import Param, TensorSpec, spec

__all__ = ["compile", "CompiledFunction", "spec", "DEFAULT_OPSET"]

logger = logging.getLogger(__name__)

DEFAULT_OPSET = 21
_SCALAR_DTYPES = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64)}


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
        for p, a in zip(params, args):
            if p.kind == "static" and isinstance(a, list) and not _same_list(p.value, a):
                raise ConversionError(
                    f"{self.fn.__qualname__} changes its list argument '{p.name}' (append, "
                    "item assignment): numpy code would change the caller's list on every "
                    f"call, a compiled model cannot; copy it first ({p.name} = list("
                    f"{p.name})) or pass a tuple")
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
        feed_plan = []
        for i, p in enumerate(params):
            if p.kind in ("static", "alias"):
                continue
            dtype = p.spec.dtype if (p.kind == "scalar" or not isinstance(args[i], np.ndarray)) \
                else None
            feed_plan.append((p.name, i, dtype))
        if not trusted and [n for n, _, _ in feed_plan] != list(session.input_names):
            return None
        compiled = _Compiled(model_bytes, session, feed_plan, structure, scalars, elapsed)
        compiled.owner = self
        return compiled

    def _build(self, params: list) -> tuple[bytes, str, tuple[bool, ...]]:
        """Model bytes, output structure and scalar flags for one signature's ``params``.
        Subclasses (``pyonnx.transforms``: grad, vjp, jacobian) pass IR transforms here."""
        return _build_model(self.fn, params, self.opset)

    def _params_for(self, args: Sequence[Any], symbolic: bool,
                    static: frozenset[str] | None = None) -> list:
        if static is None:
            static = frozenset(self.static_argnames)
        params = []
        for i, (name, a) in enumerate(zip(self._params, args)):
            if name in static:
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
                if arr.dtype.kind not in "biufc":
                    raise ConversionError(f"argument '{name}' has dtype {arr.dtype}, which pyonnx "
                                          "does not support (bool, ints, floats, complex)")
                dims = tuple(f"{name}_{d}" for d in range(arr.ndim)) if symbolic else arr.shape
                # Byte order is the feed's concern (native in the model; see _Compiled.normalize).
                params.append(Param(name, "tensor",
                                    spec=spec(arr.dtype.newbyteorder("="), dims)))
            elif type(a) in _SCALAR_TYPES:
                params.append(Param(name, "scalar", spec=spec(_SCALAR_DTYPES[type(a)], ())))
            elif isinstance(a, list):
                # A list (ratios=[0.5, 1, 2]) is a static value like a tuple: its value joins
                # the signature. The conversion sees a copy, so a function that changes its
                # list is found out (_convert) instead of changing the caller's list once.
                params.append(Param(name, "static", value=copy.deepcopy(a)))
            else:
                params.append(Param(name, "static", value=a))
        return params

    # ------------------------------------------------------------ inspection
    @property
    def conversions(self) -> int:
        """Signatures converted so far (disk-cache hits not included)."""
        return self._recorder.conversions

    @property
    def disk_hits(self) -> int:
        """Signatures read from the disk cache instead of converted."""
        return self._recorder.disk_hits

    def stats(self) -> dict[str, Any]:
        """Conversion counters: ``signatures`` (in memory now), ``conversions``,
        ``disk_cache_hits``, ``misses`` (first calls of a signature: conversions + disk hits)
        and ``seconds_converting``. ``PYONNX_LOG_COMPILES=1`` logs each conversion."""
        return self._recorder.stats(len(self._cache))

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
        and fixed dimensions. ``checks=False`` (a keyword, unless the function has a parameter
        of that name) drops the run-time check outputs (``check_<k>_failed``,
        ``check_<k>_value_<j>``: see ``pyonnx.check_protocol``) and their metadata; by default
        they are kept, for a deployment that wants to test them.
        """
        import onnx

        checks = True
        if "checks" in kwargs and "checks" not in self._params:
            checks = bool(kwargs.pop("checks"))
        if "_layouts" in self.__dict__:
            layout, flat = self._layout_for(args, kwargs)
            return layout.to_onnx(*flat, **({} if checks else {"checks": False}))
        from pyonnx.passes.name_output_dims import name_output_dims

        model = onnx.load_from_string(self._build_for(args, kwargs)[1])
        if not checks:
            model = _without_checks(model)
        return name_output_dims(model)

    def show(self, *args: Any, **kwargs: Any):
        """The model as a listing grouped by source line (:class:`pyonnx.show.Listing`: text
        when printed, HTML in Jupyter, ``.dot()`` for graphviz), for example arguments or
        specs, or without arguments for the signature called last."""
        import onnx

        from pyonnx.passes.name_output_dims import name_output_dims
        from pyonnx.show import Listing

        if args or kwargs or self._last is None:
            model = onnx.load_from_string(self._build_for(args, kwargs)[1])
        else:
            model = onnx.load_from_string(self._last.model)
        return Listing(name_output_dims(model), self.fn.__qualname__)

    def _repr_html_(self) -> str:
        """Jupyter's view: the listing of the signature called last (or, before any call, the
        function's name)."""
        import html

        if self._last is None:
            return f"<pre>{html.escape(repr(self))} (not called yet: no model)</pre>"
        return self.show().html()

    def _build_for(self, args: tuple, kwargs: dict) -> tuple[list, bytes, str, tuple[bool, ...]]:
        """(params, model bytes, structure, scalars) for example arguments or specs (not
        cached; Python scalars needed at conversion time become static as in a call)."""
        if kwargs or len(args) != len(self._params):
            args = self._bind(args, kwargs)
        rank_checks = False
        while True:
            try:
                params = self._params_for(args, symbolic=not self.static_shapes)
                with _rank_checks(rank_checks):
                    return (params, *self._build(params))
            except ConversionError as e:
                raise _at_user_level(e) from None
            except Exception as e:
                if not rank_checks and _checkable(e) and (self.static_shapes or not any(
                        isinstance(a, (np.ndarray, np.generic)) for a in args)):
                    # Static shapes cannot help (a spec names the dimensions): keep them
                    # symbolic and check at run time (np.squeeze without axis).
                    rank_checks = True
                    continue
                try:
                    if _shapes_needed(self, e):
                        continue
                except ConversionError as error:
                    raise _at_user_level(error) from None
                if not isinstance(e, _need_static()):
                    raise
                with self._lock:
                    self._set_static(self.static_argnames | set(e.argnames))

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


def _at_user_level(error: ConversionError) -> ConversionError:
    """The error without pyonnx's internal frames: its message already names the user's line.
    ``PYONNX_FULL_TRACEBACK=1`` keeps them (for debugging pyonnx itself)."""
    if os.environ.get("PYONNX_FULL_TRACEBACK"):
        return error
    return error.with_traceback(None)


def _same_list(a: Any, b: Any) -> bool:
    """True when the list ``a`` (the copy a conversion saw) still equals ``b`` (the caller's)."""
    try:
        return _hashable(a) == _hashable(b)
    except ConversionError:
        return False


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


def _is_numeric_list(a: list) -> bool:
    return bool(a) and all(isinstance(v, (int, float, bool)) for v in a)


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


def _without_checks(model):
    """``model`` (an ``onnx.ModelProto``) without its run-time check outputs, their metadata
    and the nodes only they used (``to_onnx(..., checks=False)``)."""
    import onnx
    import onnx_ir as ir

    from pyonnx import check_protocol
    from pyonnx.passes.pipeline import optimize, to_bytes

    if check_protocol.KEY not in {p.key for p in model.metadata_props}:
        return model
    return onnx.load_from_string(to_bytes(optimize(check_protocol.strip(ir.from_proto(model)))))

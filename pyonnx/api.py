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
import time
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyonnx.errors import ConversionError
from pyonnx.specs import TensorSpec, spec

__all__ = ["compile", "CompiledFunction", "spec", "DEFAULT_OPSET"]

logger = logging.getLogger(__name__)

DEFAULT_OPSET = 21
_SCALAR_TYPES = (bool, int, float)
_SCALAR_DTYPES = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64)}
# Log a warning when a function has been converted this many times (a recompile storm).
_STORM_THRESHOLDS = (16, 64, 256, 1024)


class _SourceName:
    """A default value that prints as a name, to spell a signature in generated source."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


class _Compiled:
    """One converted signature: its model and session, and how to feed and unpack it.

    Two generated functions run it (see :meth:`make_call`, :meth:`make_fast`): ``call(args)``
    feeds the arguments and unpacks the outputs with no loop or branch left per call; ``fast``
    does the same behind inline guards for one argument signature, and is what a compiled
    function calls directly while its arguments keep that signature (a monomorphic inline
    cache: no key tuple, no hashing, no dict lookup, one Python frame less).
    """

    __slots__ = ("model", "session", "feed_plan", "out_names", "structure", "scalars",
                 "input_names", "conversion_seconds", "call", "fast")

    def __init__(self, model_bytes: bytes, session, feed_plan, structure: str,
                 scalars: tuple[bool, ...], conversion_seconds: float):
        self.model = model_bytes
        self.session = session
        self.out_names = session.output_names
        self.feed_plan = feed_plan  # [(input name, arg index, dtype for Python scalars or None)]
        self.input_names = [name for name, _, _ in feed_plan]
        self.structure = structure
        self.scalars = scalars
        self.conversion_seconds = conversion_seconds
        self.call = self.make_call(self)
        self.fast = None  # made on first use, from the arguments of that call

    def __call__(self, args: Sequence[Any]) -> Any:
        return self.call(args)

    @property
    def run(self):
        """onnxruntime's C++ ``run(output_names, feeds, run_options)`` for this signature."""
        return self.session._run

    def _run_src(self, env: dict[str, Any], arg: Callable[[int], str]) -> str:
        """Source lines feeding the arguments (``arg(i)`` spells argument i), running the
        session and returning the unpacked outputs; fills ``env`` with what they use. Every
        name is ``_pyonnx_``-prefixed: the fast entry's locals are the user's parameter names.

        Python scalars are fed as 0-d arrays of their weak dtype; arrays as they are
        (onnxruntime copies non-contiguous and Fortran-ordered arrays itself, correctly; byte
        order is normalized before a signature is looked up). A failing run goes to
        ``session.recover``, which falls back to the next provider or raises ExecutionError.
        The session's ``_run`` is read per call (one attribute load) so a provider switch made
        through another function sharing the session takes effect here too.
        """
        env.update(_pyonnx_sess=self.session, _pyonnx_out_names=self.session.output_names,
                   _pyonnx_asarray=np.asarray)
        items = []
        for k, (name, i, dtype) in enumerate(self.feed_plan):
            if dtype is None:
                items.append(f"{name!r}: {arg(i)}")
            else:
                env[f"_pyonnx_dt{k}"] = np.dtype(dtype)
                items.append(f"{name!r}: _pyonnx_asarray({arg(i)}, _pyonnx_dt{k})")
        o = "_pyonnx_outs"
        if self.structure == "single":
            result = f"{o}[0][()]" if self.scalars[0] else f"{o}[0]"
        elif self.structure == "tuple":
            parts = [f"{o}[{k}][()]" if s else f"{o}[{k}]" for k, s in enumerate(self.scalars)]
            result = "(" + "".join(p + ", " for p in parts) + ")"
        else:
            raise AssertionError(f"unknown output structure {self.structure!r}")
        return (f"    _pyonnx_feeds = {{{', '.join(items)}}}\n"
                f"    _pyonnx_run = _pyonnx_sess._run\n"
                f"    try:\n"
                f"        {o} = _pyonnx_run(_pyonnx_out_names, _pyonnx_feeds, None)\n"
                f"    except Exception as _pyonnx_e:\n"
                f"        {o} = _pyonnx_sess.recover(_pyonnx_e, _pyonnx_run, _pyonnx_feeds)\n"
                f"    return {result}\n")

    @staticmethod
    def make_call(compiled: _Compiled):
        """Generates ``call(args)``: run this signature on a full positional tuple."""
        env: dict[str, Any] = {}
        exec("def call(args):\n" + compiled._run_src(env, lambda i: f"args[{i}]"), env)
        return env["call"]

    @staticmethod
    def make_fast(fn: CompiledFunction, compiled: _Compiled, args: Sequence[Any]):
        """Generates the fast entry: a function with ``fn``'s own parameters (Python binds
        keywords and defaults itself) running ``compiled`` behind guards that hold exactly
        for arguments of the signature of ``args``; other arguments go to :meth:`dispatch`.

        Guards: ``fn``'s static arguments unchanged; per parameter the type, and for arrays
        the dtype (by identity with the canonical dtype: an equal but distinct dtype object
        just takes the dispatch path) and rank, for static values their hashable value.

        Returns:
            The function, or None when ``fn``'s parameters cannot be spelled safely (``*args``,
            ``**kwargs``, names starting with ``_pyonnx_``).
        """
        sig = fn._signature
        P = inspect.Parameter
        if any(p.kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD) or p.name.startswith("_pyonnx_")
               for p in sig.parameters.values()):
            return None
        names = list(sig.parameters)
        static_idx = fn._static_idx
        env: dict[str, Any] = {"_pyonnx_fn": fn, "_pyonnx_static_idx": static_idx,
                               "_pyonnx_nd": np.ndarray, "_pyonnx_h": _hashable,
                               "_pyonnx_dispatch": _Compiled.dispatch}
        # The parameter list as the user wrote it, defaults read from env (same objects).
        params = []
        for i, p in enumerate(sig.parameters.values()):
            if p.default is not P.empty:
                env[f"_pyonnx_default{i}"] = p.default
                p = p.replace(default=_SourceName(f"_pyonnx_default{i}"))
            params.append(p.replace(annotation=P.empty))
        param_src = str(inspect.Signature(params))
        guards = ["_pyonnx_fn._static_idx is _pyonnx_static_idx"]
        for i, (name, a) in enumerate(zip(names, args)):
            t = type(a)
            if i in static_idx:
                env[f"_pyonnx_v{i}"] = _hashable(a)
                guards.append(f"_pyonnx_h({name}) == _pyonnx_v{i}")
                continue
            env[f"_pyonnx_t{i}"] = t
            guards.append(f"type({name}) is {'_pyonnx_nd' if t is np.ndarray else f'_pyonnx_t{i}'}")
            if t is np.ndarray:
                env[f"_pyonnx_d{i}"] = np.dtype(a.dtype.name) if a.dtype.isbuiltin else a.dtype
                guards += [f"{name}.dtype is _pyonnx_d{i}", f"{name}.ndim == {a.ndim}"]
            elif t not in _SCALAR_TYPES:
                env[f"_pyonnx_v{i}"] = _hashable(a)
                guards.append(f"_pyonnx_h({name}) == _pyonnx_v{i}")
        all_args = "(" + "".join(f"{n}, " for n in names) + ")"
        src = (f"def fast{param_src}:\n"
               f"    if not ({' and '.join(guards)}):\n"
               f"        return _pyonnx_dispatch(_pyonnx_fn, {all_args})\n"
               + compiled._run_src(env, names.__getitem__))
        exec(src, env)
        fast = env["fast"]
        # A wrong call then reads like one of the Python function ("f() missing ... 'y'").
        fast.__name__, fast.__qualname__ = fn.__name__, fn.__qualname__
        return fast

    @staticmethod
    def dispatch(fn: CompiledFunction, args: tuple) -> Any:
        """The call path when ``fn``'s inline cache does not fit ``args``: look the signature
        up (converting on a miss), make its ``fast`` the inline cache, and run it."""
        compiled = fn._cache.get(fn._key(args))
        if compiled is None:
            # Byte-swapped arrays, numpy scalars and memmaps are made plain first: onnxruntime
            # misreads or refuses them, and plain they share the signature of ordinary arrays.
            args = _Compiled.normalize(args)
            compiled = fn._cache.get(fn._key(args))
            if compiled is None:
                compiled = fn._miss(args)
        fast = compiled.fast
        if fast is None:
            fast = compiled.fast = _Compiled.make_fast(fn, compiled, args) or False
        if fast:
            fn.__dict__["_call"] = fast
        return compiled.call(args)

    @staticmethod
    def make_key(fn: CompiledFunction, args: Sequence[Any]):
        """Generates ``fn``'s signature-key function, specialized for the kinds of ``args``.

        The template fixes, per parameter, the argument type seen now: an ndarray contributes
        its dtype and rank, a Python scalar nothing (its type is checked, its value is fed),
        a static argument or any other object its hashable value. Calls whose types differ from
        the template take the generic :meth:`slow_key` (tagged so the two never collide). The
        key notices a change of ``fn``'s static arguments and regenerates itself (the cache was
        cleared by that change, so no key of the old form remains).
        """
        static_idx = fn._static_idx
        env: dict[str, Any] = {"fn": fn, "static_idx": static_idx, "nd": np.ndarray,
                               "h": _hashable, "slow": _Compiled.slow_key,
                               "rekey": type(fn)._key}
        guards, parts = [], []
        for i, a in enumerate(_Compiled.normalize(args)):
            t = type(a)
            if i in static_idx:
                parts.append(f"h(a{i})")
                continue
            env[f"t{i}"] = t
            if t is np.ndarray:
                guards.append(f"type(a{i}) is nd")
                parts += [f"a{i}.dtype", f"a{i}.ndim"]
            elif t in _SCALAR_TYPES:
                guards.append(f"type(a{i}) is t{i}")
            else:
                guards.append(f"type(a{i}) is t{i}")
                parts.append(f"h(a{i})")
        # Unpacking into locals once is cheaper than indexing args per use; callers always
        # pass the full positional tuple.
        unpack = "".join(f"a{i}, " for i in range(len(args)))
        guard = " and ".join(guards) or "True"
        src = (f"def key(args):\n"
               f"    if fn._static_idx is not static_idx:\n"
               f"        return rekey(fn, args)\n"
               + (f"    ({unpack}) = args\n" if args else "")
               + f"    if {guard}:\n"
               f"        return ({''.join(p + ', ' for p in parts)})\n"
               f"    return slow(args, static_idx)\n")
        exec(src, env)
        return env["key"]

    _SLOW = object()  # first item of every generic key

    @staticmethod
    def slow_key(args: Sequence[Any], static_idx: frozenset[int]) -> tuple:
        """The generic signature key, for argument types the specialized key does not cover."""
        key: list[Any] = [_Compiled._SLOW]
        for i, a in enumerate(args):
            t = type(a)
            if i in static_idx:
                key.append(_hashable(a))
            elif t is np.ndarray:
                key.append((t, a.dtype, a.ndim))
            elif t is float or t is int or t is bool:
                key.append(t)
            elif isinstance(a, np.generic):
                key.append((np.generic, a.dtype))
            else:
                key.append(_hashable(a))
        return tuple(key)

    @staticmethod
    def normalize(args: Sequence[Any]) -> tuple:
        """``args`` with the arrays onnxruntime would misread or refuse made plain.

        onnxruntime reads non-native byte order as native (silently wrong values) and refuses
        numpy scalars; ``np.memmap`` is an ndarray subclass numpy treats as a plain array. Other
        arrays pass unchanged: onnxruntime copies non-contiguous and Fortran-ordered ones into
        a contiguous buffer itself.
        """
        out = list(args)
        for i, a in enumerate(out):
            t = type(a)
            if t is np.ndarray:
                if not a.dtype.isnative:
                    out[i] = a.astype(a.dtype.newbyteorder("="))
            elif isinstance(a, np.generic):
                a = np.asarray(a)
                out[i] = a if a.dtype.isnative else a.astype(a.dtype.newbyteorder("="))
            elif t is np.memmap:
                out[i] = np.asarray(a)
        return tuple(out)


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
                 cache_size: int = 64):
        if not isinstance(fn, types.FunctionType):
            raise TypeError(f"pyonnx.compile needs a Python function, got {type(fn).__name__}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.opset = opset
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
        from pyonnx.frontend.lower.context import NeedStatic

        while True:
            try:
                compiled = self._convert(args)
                break
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
        params = self._params_for(args, symbolic=True)
        start = time.perf_counter()
        model_bytes, structure, scalars = _build_model(self.fn, params, self.opset)
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
            if p.kind == "static":
                continue
            dtype = p.spec.dtype if (p.kind == "scalar" or not isinstance(args[i], np.ndarray)) \
                else None
            feed_plan.append((p.name, i, dtype))
        return _Compiled(model_bytes, session, feed_plan, structure, scalars, elapsed)

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
        from pyonnx.frontend.lower.context import NeedStatic

        while True:
            try:
                params = self._params_for(args, symbolic=True)
                model_bytes, _, _ = _build_model(self.fn, params, self.opset)
                return onnx.load_from_string(model_bytes)
            except NeedStatic as e:
                self.static_argnames |= set(e.argnames)
                self._static_idx = frozenset(self._params.index(n) for n in self.static_argnames)
                self._cache.clear()

    def __repr__(self) -> str:
        return f"<pyonnx.CompiledFunction {self.fn.__qualname__}>"


def _is_numeric_list(a: list) -> bool:
    return bool(a) and all(isinstance(v, (int, float, bool)) for v in a)


def _hashable(a: Any) -> Any:
    """A hashable stand-in for a static argument's value, equal exactly when the values are.

    Containers are converted item by item and arrays by their bytes: a fallback to ``id()``
    could match a new object that reuses a freed one's id and run the wrong model.

    Raises:
        ConversionError: the value is unhashable and not a list, tuple, dict or ndarray.
    """
    if isinstance(a, np.ndarray):
        return (np.ndarray, a.dtype.str, a.shape, a.tobytes())
    if isinstance(a, (list, tuple)):
        return (type(a), tuple(_hashable(v) for v in a))
    if isinstance(a, dict):
        return (dict, tuple(sorted((repr(k), _hashable(v)) for k, v in a.items())))
    if isinstance(a, slice):  # unhashable before Python 3.12
        return (slice, _hashable(a.start), _hashable(a.stop), _hashable(a.step))
    try:
        hash(a)
    except TypeError:
        raise ConversionError(
            f"a static argument of type {type(a).__name__} must be hashable (it is part of the "
            "signature that selects the compiled model)") from None
    return (type(a), a)


def _build_model(fn, params, opset: int) -> tuple[bytes, str, tuple[bool, ...]]:
    """Frontend → passes → serialized bytes (deterministic)."""
    from pyonnx.frontend.convert import convert
    from pyonnx.passes.pipeline import optimize, to_bytes

    converted = convert(fn, params, opset)
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
            cache_size: int = 64) -> Any:
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

    Returns:
        A :class:`CompiledFunction` (or a decorator making one).

    Raises:
        ConversionError: at the first call with a signature whose conversion fails.
    """
    if fn is None:
        return lambda f: CompiledFunction(f, providers=providers, static_argnames=static_argnames,
                                          opset=opset, cache_size=cache_size)
    return CompiledFunction(fn, providers=providers, static_argnames=static_argnames, opset=opset,
                            cache_size=cache_size)

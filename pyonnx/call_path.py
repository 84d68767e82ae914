"""The per-call path of compiled functions: inline caches and the generated call per signature.

Input: a :class:`~pyonnx.api.CompiledFunction` and the arguments of one call. Output: the
results of running the signature's onnxruntime session. Everything here is on the hot path of
every call (the target is at most 1.2× onnxruntime's raw ``_sess.run``), which is why the key
and the call are generated Python functions specialized per signature: the keys are
:mod:`pyonnx.signature_keys`, the generated call's body :mod:`pyonnx.call_source`.
``pyonnx.api`` owns conversion and caching policy; this module only runs what it converted.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyonnx import call_source, complex_io, signature_keys
from pyonnx.signature_keys import SCALAR_TYPES, _SCALAR_TYPES, _hashable, _plain

# ``fn`` below is a pyonnx.api.CompiledFunction; not imported, even for typing: api imports
# this module, and pyonnx/ keeps no import cycle (tests/test_architecture.py).
CompiledFunction = Any

__all__ = ["_Compiled", "_hashable", "SCALAR_TYPES"]


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
                 "input_names", "conversion_seconds", "call", "fast", "owner", "complex_io")

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
        self.complex_io = complex_io.plan(session)  # complex inputs/outputs: (..., 2) reals
        self.call = self.make_call(self)
        self.fast: dict[tuple, Any] = {}  # per argument kinds, made on first use
        self.owner = None  # the CompiledFunction (set by it): its alias variants

    def __call__(self, args: Sequence[Any]) -> Any:
        return self.call(args)

    @property
    def run(self):
        """onnxruntime's C++ ``run(output_names, feeds, run_options)`` for this signature."""
        return self.session._run

    def _run_src(self, env: dict[str, Any], arg: Callable[[int], str], all_args: str,
                 scalars: frozenset[int] = frozenset()) -> str:
        """The generated call's body (:func:`pyonnx.call_source.run_src`)."""
        return call_source.run_src(self, env, arg, all_args, scalars)

    @staticmethod
    def make_call(compiled: _Compiled):
        """Generates ``call(args)``: run this signature on a full positional tuple."""
        env: dict[str, Any] = {}
        exec("def call(args):\n" + compiled._run_src(env, lambda i: f"args[{i}]", "args"), env)
        return env["call"]

    @staticmethod
    def make_fast(fn: CompiledFunction, compiled: _Compiled, args: Sequence[Any]):
        """Generates the fast entry: a function with ``fn``'s own parameters (Python binds
        keywords and defaults itself) running ``compiled`` behind guards that hold exactly
        for arguments of the signature of ``args``; other arguments go to :meth:`dispatch`.

        Guards: ``fn``'s static arguments unchanged; per parameter the type, and for arrays
        the dtype (by identity with the canonical dtype: an equal but distinct dtype object
        just takes the dispatch path) and rank, for static values their hashable value. A
        numpy scalar's exact type fixes its dtype (numpy scalars are always native-endian), so
        ``args`` are the arguments as the caller passed them, not normalized: a guard built
        from a normalized 0-d array would fail on every call with numpy scalars.

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
        scalars: set[int] = set()
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
                guards += [f"{name}.dtype is _pyonnx_d{i}",
                           f"{name}.shape == {a.shape!r}" if fn.static_shapes
                           else f"{name}.ndim == {a.ndim}"]
            elif issubclass(t, np.generic) and np.dtype(t).kind in "biuf":
                scalars.add(i)
            elif t not in _SCALAR_TYPES:
                env[f"_pyonnx_v{i}"] = _hashable(a)
                guards.append(f"_pyonnx_h({name}) == _pyonnx_v{i}")
        all_args = "(" + "".join(f"{n}, " for n in names) + ")"
        src = (f"def fast{param_src}:\n"
               f"    if not ({' and '.join(guards)}):\n"
               f"        return _pyonnx_dispatch(_pyonnx_fn, {all_args})\n"
               + compiled._run_src(env, names.__getitem__, all_args, frozenset(scalars)))
        exec(src, env)
        fast = env["fast"]
        # A wrong call then reads like one of the Python function ("f() missing ... 'y'").
        fast.__name__, fast.__qualname__ = fn.__name__, fn.__qualname__
        return fast

    @staticmethod
    def dispatch(fn: CompiledFunction, args: tuple) -> Any:
        """The call path when ``fn``'s inline cache does not fit ``args``: look the signature
        up (converting on a miss), make its ``fast`` the inline cache, and run it."""
        given = args  # the fast entry is built from these (its guards see them each call)
        compiled = fn._cache.get(fn._key(args))
        if compiled is None:
            # Byte-swapped arrays, numpy scalars and memmaps are made plain first: onnxruntime
            # misreads or refuses them, and plain they share the signature of ordinary arrays.
            args = _Compiled.normalize(args)
            compiled = fn._cache.get(fn._key(args))
            if compiled is None:
                compiled = fn._miss(args)
        # One fast entry per kind of arguments (a 0-d array and a numpy scalar share the
        # signature, not the guard).
        plain = _plain(given, args)
        kinds = tuple(map(type, plain))
        fast = compiled.fast.get(kinds)
        if fast is None:
            fast = compiled.fast[kinds] = _Compiled.make_fast(fn, compiled, plain) or False
        if fast:
            fn.__dict__["_call"] = fast
        return compiled.call(args)

    # Signature keys (pyonnx.signature_keys), kept here as the names api and saved use.
    make_key = staticmethod(signature_keys.make_key)
    slow_key = staticmethod(signature_keys.slow_key)
    normalize = staticmethod(signature_keys.normalize)
    _SLOW = signature_keys._SLOW

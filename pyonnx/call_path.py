"""The per-call path of compiled functions: signature keys, inline caches, feeding the session.

Input: a :class:`~pyonnx.api.CompiledFunction` and the arguments of one call. Output: the
results of running the signature's onnxruntime session. Everything here is on the hot path of
every call (the target is at most 1.2× onnxruntime's raw ``_sess.run``), which is why the key
and the call are generated Python functions specialized per signature. ``pyonnx.api`` owns
conversion and caching policy; this module only runs what it converted.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyonnx import complex_io
from pyonnx.errors import ConversionError

# ``fn`` below is a pyonnx.api.CompiledFunction; not imported, even for typing: api imports
# this module, and pyonnx/ keeps no import cycle (tests/test_architecture.py).
CompiledFunction = Any

__all__ = ["_Compiled", "_hashable", "SCALAR_TYPES"]

# Python scalars passed as weak 0-d inputs.
SCALAR_TYPES = (bool, int, float)
_SCALAR_TYPES = SCALAR_TYPES


class _SourceName:
    """A default value that prints as a name, to spell a signature in generated source."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


def _readonly(name: str) -> None:
    raise ValueError(f"assignment destination is read-only (the compiled function writes into "
                     f"its argument '{name}', as numpy would)")


def _not_contiguous(name: str) -> None:
    from pyonnx.errors import ExecutionError

    raise ExecutionError(
        f"error: the argument '{name}' is not C-contiguous (Fortran-ordered, transposed or "
        "strided), and the compiled function writes through a reshape of it (or into it while "
        "a reshape of it is in use): numpy's reshape of such an array is a copy, of a "
        "C-contiguous one a view, and the model was made for the view; pass "
        f"np.ascontiguousarray({name}) (then it is a view of that copy), or reshape a copy "
        "inside the function")


def _overlap(a: Any, b: Any) -> bool:
    """Whether two arguments share memory (exactly; too hard to decide counts as yes)."""
    if not np.may_share_memory(a, b):
        return False
    try:
        return np.shares_memory(a, b, max_work=10_000)
    except np.exceptions.TooHardError:
        return True


def _overlapping(compiled: _Compiled, args: tuple, written: str, other: str) -> Any:
    """The call whose argument ``written`` shares memory with ``other``: the same object
    runs numpy's meaning in a model variant (CompiledFunction._alias_call); a partial overlap
    is refused."""
    from pyonnx.errors import ExecutionError

    owner = compiled.owner
    names = owner._params if owner is not None else []
    if written in names and other in names and \
            args[names.index(written)] is args[names.index(other)] and \
            hasattr(owner, "_alias_call") and type(owner).__name__ == "CompiledFunction":
        return owner._alias_call(args)
    raise ExecutionError(
        f"error: the arguments '{written}' and '{other}' share memory and the compiled function "
        f"writes into '{written}': numpy would see its own writes through '{other}', the model "
        "reads the values from before the call; pass a copy (e.g. f(a, a.copy()))")


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
        """Source lines feeding the arguments (``arg(i)`` spells argument i), running the
        session and returning the unpacked outputs; fills ``env`` with what they use. Every
        name is ``_pyonnx_``-prefixed: the fast entry's locals are the user's parameter names.

        Python scalars are fed as 0-d arrays of their weak dtype; arrays as they are
        (onnxruntime copies non-contiguous and Fortran-ordered arrays itself, correctly; byte
        order is normalized before a signature is looked up). A failing run goes to
        ``session.recover``, which falls back to the next provider or raises ExecutionError.
        Arguments in ``scalars`` are numpy scalars (the fast entry's guard fixed their type):
        fed as ``np.asarray`` of them, which onnxruntime accepts (numpy scalars it refuses).
        The session's ``_run`` is read per call (one attribute load) so a provider switch made
        through another function sharing the session takes effect here too.
        """
        env.update(_pyonnx_sess=self.session, _pyonnx_out_names=self.session.output_names,
                   _pyonnx_asarray=np.asarray)
        items = []
        complex_in, complex_out = self.complex_io
        for k, (name, i, dtype) in enumerate(self.feed_plan):
            if name in complex_in:  # a complex argument: its (..., 2) real view
                env["_pyonnx_cin"] = complex_io.to_pairs
                items.append(f"{name!r}: _pyonnx_cin({arg(i)})")
            elif dtype is None and i in scalars:
                items.append(f"{name!r}: _pyonnx_asarray({arg(i)})")
            elif dtype is None:
                items.append(f"{name!r}: {arg(i)}")
            else:
                env[f"_pyonnx_dt{k}"] = np.dtype(dtype)
                items.append(f"{name!r}: _pyonnx_asarray({arg(i)}, _pyonnx_dt{k})")
        o = "_pyonnx_outs"
        tree = getattr(self.structure, "tree", None)
        if tree is not None:
            result = self._rebuild_src(tree, o, env)
        elif self.structure == "single":
            result = f"{o}[0][()]" if self.scalars[0] else f"{o}[0]"
        elif self.structure == "tuple":
            parts = [f"{o}[{k}][()]" if s else f"{o}[{k}]" for k, s in enumerate(self.scalars)]
            result = "(" + "".join(p + ", " for p in parts) + ")"
        elif self.structure == "none":
            result = "None"
        else:
            raise AssertionError(f"unknown output structure {self.structure!r}")
        # Arguments the function writes into: numpy's in-place meaning, by copying the final
        # values back after the run (refused up front for read-only arrays, as numpy refuses).
        check, copy, cplx = "", "", ""
        if complex_out:
            env["_pyonnx_cout"] = complex_io.outputs_converter(complex_out)
            cplx = f"    {o} = _pyonnx_cout({o})\n"
        arg_of = {name: i for name, i, _ in self.feed_plan}
        for name in getattr(self.structure, "contiguous", ()):
            if name in arg_of:
                # The model follows a reshape of this argument as a view (and writes through
                # it), which numpy's reshape is only for a C-contiguous array.
                env["_pyonnx_layout"] = _not_contiguous
                a = arg(arg_of[name])
                check += (f"    if not {a}.flags.c_contiguous:\n"
                          f"        _pyonnx_layout({name!r})\n")
        arrays = [(name, i) for name, i, dtype in self.feed_plan if dtype is None]
        first = len(self.scalars)
        for j, name in enumerate(getattr(self.structure, "writeback", ())):
            a = arg(arg_of[name])
            env["_pyonnx_copyto"] = np.copyto
            env["_pyonnx_readonly"] = _readonly
            check += (f"    if not {a}.flags.writeable:\n"
                      f"        _pyonnx_readonly({name!r})\n")
            # An argument written into that shares memory with another one: the model, which
            # reads all inputs before writing, cannot give numpy's answer (only functions that
            # write an argument pay for this check).
            env.update(_pyonnx_overlap=_overlap, _pyonnx_overlapping=_overlapping,
                       _pyonnx_self=self)
            for other, i in arrays:
                if other != name:
                    check += (f"    if _pyonnx_overlap({a}, {arg(i)}):\n"
                              f"        return _pyonnx_overlapping(_pyonnx_self, {all_args}, "
                              f"{name!r}, {other!r})\n")
            copy += f"    _pyonnx_copyto({a}, {o}[{first + j}], casting='unsafe')\n"
        return (check + f"    _pyonnx_feeds = {{{', '.join(items)}}}\n"
                f"    _pyonnx_run = _pyonnx_sess._run\n"
                f"    try:\n"
                f"        {o} = _pyonnx_run(_pyonnx_out_names, _pyonnx_feeds, None)\n"
                f"    except Exception as _pyonnx_e:\n"
                f"        {o} = _pyonnx_sess.recover(_pyonnx_e, _pyonnx_run, _pyonnx_feeds)\n"
                + self._checks_src(env, o) + cplx + copy + f"    return {result}\n")

    def _checks_src(self, env: dict[str, Any], o: str) -> str:
        """Source raising a failed run-time check's exception (pyonnx.check_protocol) right
        after the run: before the written arguments are copied back and before any result is
        returned."""
        from pyonnx import check_protocol

        sites = check_protocol.parse(getattr(self.session, "metadata", {}).get(
            check_protocol.KEY))
        if not sites:
            return ""
        checks = check_protocol.Checks(sites, list(self.session.output_names))
        env["_pyonnx_checks"] = checks
        test = " or ".join(f"{o}[{i}]" for i in checks.flags)
        return f"    if {test}:\n        _pyonnx_checks.fail({o})\n"

    def _rebuild_src(self, tree: tuple, o: str, env: dict[str, Any]) -> str:
        """The expression rebuilding a returned Python value from the outputs ``o`` (see
        ``frontend.convert.OutputStructure.tree``): lists are new objects per call."""
        kind = tree[0]
        if kind == "leaf":
            k, python_scalar = tree[1], tree[2]
            if python_scalar:
                return f"{o}[{k}].item()"
            return f"{o}[{k}][()]" if self.scalars[k] else f"{o}[{k}]"
        if kind == "seq":  # a list built at run time: onnxruntime gives a list of arrays
            k, items = tree[1], tree[2]
            if items == "python":
                return f"[_pyonnx_e.item() for _pyonnx_e in {o}[{k}]]"
            return f"[_pyonnx_e[()] for _pyonnx_e in {o}[{k}]]" if items == "numpy" else f"{o}[{k}]"
        if kind == "pyleaf":  # a Python number where its flag output is true
            k, f = tree[1], tree[2]
            return f"({o}[{k}].item() if {o}[{f}] else {o}[{k}][()])"
        if kind == "maybe":  # a possibly-None number: None where its flag output is False
            return f"({self._rebuild_src(tree[2], o, env)} if {o}[{tree[1]}] else None)"
        if kind == "zip":  # a list of tuples built at run time: one sequence per field
            return f"list(zip({', '.join(self._rebuild_src(c, o, env) for c in tree[1])}))"
        if kind == "const":
            name = f"_pyonnx_c{len(env)}"
            env[name] = tree[1]
            return name
        if kind == "dict":  # static str/int keys, spelled by repr
            return "{" + "".join(f"{k!r}: {self._rebuild_src(c, o, env)}, "
                                 for k, c in zip(tree[1], tree[2])) + "}"
        parts = "".join(self._rebuild_src(c, o, env) + ", " for c in tree[1])
        return f"({parts})" if kind == "tuple" else f"[{parts}]"

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
                parts += [f"a{i}.dtype", f"a{i}.shape" if fn.static_shapes else f"a{i}.ndim"]
            elif t in _SCALAR_TYPES:
                guards.append(f"type(a{i}) is t{i}")
            else:
                guards.append(f"type(a{i}) is t{i}")
                parts.append(f"h(a{i})")
        # Unpacking into locals once is cheaper than indexing args per use; callers always
        # pass the full positional tuple.
        unpack = "".join(f"a{i}, " for i in range(len(args)))
        guard = " and ".join(guards) or "True"
        src = ("def key(args):\n"
               "    if fn._static_idx is not static_idx:\n"
               "        return rekey(fn, args)\n"
               + (f"    ({unpack}) = args\n" if args else "")
               + f"    if {guard}:\n"
               f"        return ({''.join(p + ', ' for p in parts)})\n"
               f"    return slow(args, static_idx, {bool(fn.static_shapes)})\n")
        exec(src, env)
        return env["key"]

    _SLOW = object()  # first item of every generic key

    @staticmethod
    def slow_key(args: Sequence[Any], static_idx: frozenset[int], shapes: bool = False) -> tuple:
        """The generic signature key, for argument types the specialized key does not cover."""
        key: list[Any] = [_Compiled._SLOW]
        for i, a in enumerate(args):
            t = type(a)
            if i in static_idx:
                key.append(_hashable(a))
            elif t is np.ndarray:
                key.append((t, a.dtype, a.shape if shapes else a.ndim))
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



def _plain(given: Sequence[Any], normalized: Sequence[Any]) -> Sequence[Any]:
    """The arguments a fast entry's guards are built from: as given, except arrays that
    normalization replaced (byte-swapped, memmaps), which take their plain form (their calls
    then keep the dispatch path, where they are normalized)."""
    if given is normalized:
        return given
    return tuple(g if isinstance(g, np.generic) or n is g else n
                 for g, n in zip(given, normalized))


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

"""The disk cache of converted signatures (``pyonnx.compile(cache=True)``).

Input: a compiled function and one signature's parameters. Output: the serialized model and
its call metadata from an earlier process, or nothing; and, after a conversion, a new entry.

The key is everything the conversion read, by value: the function's source, the values of
the globals and closure cells it names (numbers, strings, arrays, dtypes, tuples...), the
source and names of the helper functions and compiled functions it calls (recursively),
library modules by name (numpy, math, pyonnx; numpy's version is in the key), the signature
(dtypes, ranks or shapes, static values), the options (opset, static shapes, transformation
steps), the Python, numpy, onnx, onnx-ir and onnxruntime versions and pyonnx's own source files
(size and mtime of each: a changed checkout never reuses an old entry). Anything else the
function names (an object of another class, a user module whose attributes it may read) makes
the signature uncacheable: it is converted as without the cache. Never silently wrong from a
stale entry.

Entries: one file per (function, signature) in ``PYONNX_CACHE_DIR`` (default
``~/.cache/pyonnx``), named by the function's module, name and signature, holding the full key,
a sha256 of its contents, the call metadata (JSON) and the model. A file whose key differs
(stale) or that fails its checksum (corrupt, truncated) is ignored and rewritten after the
conversion. Writes go to a temporary file renamed over the entry (atomic: two processes
converting at once each write a whole file, the last rename wins).
"""

from __future__ import annotations

import builtins
import hashlib
import inspect
import json
import logging
import os
import struct
import sys
import threading
import types
from collections.abc import Sequence
from typing import Any

import numpy as np

from pyonnx import call_meta

__all__ = ["cache_dir", "Entry", "entry_for", "info", "clear"]

logger = logging.getLogger(__name__)

_MAGIC = b"PYONNXC1"
_SUFFIX = ".pyonnx"
# Modules a function may name (by name in the key): their contents are pinned by the versions
# in the key (numpy) or never change (math, builtins), or are pyonnx itself (hashed).
_LIBRARIES = frozenset({"numpy", "math", "cmath", "builtins", "operator", "pyonnx"})


class Uncacheable(Exception):
    """The conversion may read something the key cannot capture by value."""


class NeedsStatic(Exception):
    """A cached answer: this signature's conversion needs the values of ``argnames`` (it
    raised the frontend's NeedStatic), so they become static without converting first."""

    def __init__(self, argnames: list[str]):
        super().__init__(argnames)
        self.argnames = tuple(argnames)


def cache_dir() -> str:
    """``PYONNX_CACHE_DIR``, else ``$XDG_CACHE_HOME/pyonnx``, else ``~/.cache/pyonnx``."""
    path = os.environ.get("PYONNX_CACHE_DIR")
    if path:
        return os.path.abspath(os.path.expanduser(path))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pyonnx")


# ------------------------------------------------------------------ the environment
_ENV_LOCK = threading.Lock()
_ENV: list[bytes] = []


def _environment() -> bytes:
    """Versions and pyonnx's own files, once per process (~1 ms: one stat per source file)."""
    with _ENV_LOCK:
        if not _ENV:
            h = hashlib.sha256()
            versions = [sys.version_info[:2], np.__version__]
            versions += [_installed(name) for name in ("onnx", "onnx_ir", "onnxruntime")]
            h.update(repr(versions).encode())
            root = os.path.dirname(os.path.abspath(__file__))
            for folder, dirs, files in sorted(os.walk(root)):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(".py"):
                        st = os.stat(os.path.join(folder, name))
                        rel = os.path.relpath(os.path.join(folder, name), root)
                        h.update(f"{rel}:{st.st_size}:{st.st_mtime_ns};".encode())
            _ENV.append(h.digest())
        return _ENV[0]


def _installed(package: str) -> Any:
    """The installed version of ``package`` without importing it (importing onnx costs
    0.1-0.4 s; ``importlib.metadata`` scans every distribution, ~70 ms): the name of its
    ``.dist-info`` folder beside it, else its ``__init__``'s size and mtime."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.origin:
        return None
    site = os.path.dirname(os.path.dirname(spec.origin))
    prefix = package.replace("_", "-").lower()
    for name in os.listdir(site):
        if name.endswith(".dist-info") and name.lower().replace("_", "-").startswith(prefix + "-"):
            rest = name[len(prefix) + 1:-len(".dist-info")]
            if rest[:1].isdigit():
                return name
    st = os.stat(spec.origin)
    return spec.origin, st.st_size, st.st_mtime_ns


# ------------------------------------------------------------------ fingerprints
class _Fingerprint:
    """Feeds values into a sha256 by value; raises Uncacheable for anything it cannot."""

    def __init__(self):
        self.h = hashlib.sha256()
        self._functions: set[types.CodeType] = set()

    def tok(self, *parts: Any) -> None:
        self.h.update(repr(parts).encode() + b"\0")

    def value(self, v: Any) -> None:
        t = type(v)
        if v is None or v is Ellipsis or t in (bool, int, float, complex, str, bytes):
            self.tok(t.__name__, v)
        elif t in (tuple, list):
            self.tok(t.__name__, len(v))
            for item in v:
                self.value(item)
        elif t in (set, frozenset):
            self.tok(t.__name__, len(v))
            for item in sorted(v, key=repr):
                self.value(item)
        elif t is dict:
            self.tok("dict", len(v))
            for key in sorted(v, key=repr):
                self.value(key)
                self.value(v[key])
        elif t is slice:
            self.tok("slice")
            self.value((v.start, v.stop, v.step))
        elif t is np.ndarray:
            self.tok("ndarray", v.dtype.str, v.shape)
            if v.dtype.hasobject:
                raise Uncacheable("an object array")
            self.h.update(np.ascontiguousarray(v).tobytes())
        elif isinstance(v, np.generic) and not isinstance(v, np.object_):
            self.tok("npscalar", v.dtype.str)
            self.h.update(v.tobytes())
        elif isinstance(v, np.dtype):
            self.tok("dtype", v.str, v.descr)
        elif isinstance(v, types.ModuleType):
            if v.__name__.split(".")[0] not in _LIBRARIES:
                raise Uncacheable(f"the module {v.__name__} (its attributes may change)")
            self.tok("module", v.__name__)
        elif isinstance(v, types.FunctionType):
            self.function(v)
        elif hasattr(v, "_pickle_options") and isinstance(getattr(v, "fn", None),
                                                          types.FunctionType):
            # a compiled or transformed function called inside
            self.tok("compiled", type(v).__module__, type(v).__qualname__,
                     repr(getattr(v, "steps", ())), v.opset, v.static_shapes,
                     sorted(v.static_argnames))
            self.function(v.fn)
        else:
            self.library_object(v)

    def library_object(self, v: Any) -> None:
        """A class or callable of a library module, by its importable name."""
        module = getattr(v, "__module__", None) or ""
        name = getattr(v, "__qualname__", None) or getattr(v, "__name__", None)
        if module.split(".")[0] in _LIBRARIES and isinstance(name, str):
            found: Any = sys.modules.get(module)
            for part in name.split("."):
                found = getattr(found, part, None)
            if found is v:
                self.tok("ref", module, name)
                return
            root = sys.modules.get(module.split(".")[0])  # numpy re-exports: np.sum
            if root is not None and getattr(root, name, None) is v:
                self.tok("ref", module.split(".")[0], name)
                return
        raise Uncacheable(f"a value of type {type(v).__qualname__}")

    def function(self, fn: types.FunctionType) -> None:
        """A Python function: its source, the globals it names, closure and defaults."""
        code = fn.__code__
        if code in self._functions:  # recursion (refused by the converter anyway)
            self.tok("again", fn.__qualname__)
            return
        self._functions.add(code)
        try:
            source = inspect.getsource(fn)
        except (OSError, TypeError):
            raise Uncacheable(f"the source of {fn.__qualname__} is unavailable") from None
        self.tok("function", fn.__module__, fn.__qualname__, code.co_filename,
                 code.co_firstlineno, source)
        g = fn.__globals__
        for name in sorted(_names(code)):
            if name in g:
                self.tok("global", name)
                self.value(g[name])
            elif hasattr(builtins, name):
                self.tok("builtin", name)
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            self.tok("free", name)
            try:
                self.value(cell.cell_contents)
            except ValueError:
                self.tok("empty")
        self.value(fn.__defaults__)
        self.value(fn.__kwdefaults__)


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


# ------------------------------------------------------------------ entries
class Entry:
    """One (function, signature) file: :meth:`load` it or :meth:`store` a conversion."""

    def __init__(self, path: str, key: bytes):
        self.path = path
        self.key = key

    def load(self) -> tuple[bytes, Any, tuple[bool, ...], float] | None:
        """(model bytes, structure, scalars, conversion seconds), or None when the file is
        missing, stale (another key) or corrupt.

        Raises:
            NeedsStatic: the entry records that the conversion needs static arguments.
        """
        try:
            with open(self.path, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        try:
            if data[:8] != _MAGIC:
                raise ValueError("not a pyonnx cache file")
            (meta_len,) = struct.unpack("<Q", data[8:16])
            digest, body = data[16:48], data[48:]
            if hashlib.sha256(body).digest() != digest or meta_len > len(body):
                raise ValueError("checksum mismatch")
            meta = json.loads(body[:meta_len])
            if meta.get("key") != self.key.hex():
                logger.debug("pyonnx cache: %s is stale; converting again", self.path)
                return None
            if "needs_static" in meta:
                names = meta["needs_static"]
                if not (isinstance(names, list) and names and
                        all(isinstance(n, str) for n in names)):
                    raise ValueError("bad needs_static record")
                needs = NeedsStatic(names)
            else:
                structure, scalars = call_meta.from_json(meta["call"])
                return bytes(body[meta_len:]), structure, scalars, float(meta.get("seconds", 0.0))
        except Exception as e:  # corrupt in any way: never trusted
            logger.warning("pyonnx cache: ignoring the corrupt entry %s (%s); it is rewritten",
                           self.path, e)
            return None
        raise needs

    def store(self, model: bytes, structure: Any, scalars: tuple[bool, ...],
              seconds: float) -> None:
        self._write({"key": self.key.hex(), "call": call_meta.to_json(structure, scalars),
                     "seconds": seconds}, model)

    def store_needs_static(self, argnames: Sequence[str]) -> None:
        """Records that this signature's conversion needs ``argnames`` to be static."""
        self._write({"key": self.key.hex(), "needs_static": sorted(argnames)}, b"")

    def _write(self, meta_dict: dict[str, Any], model: bytes) -> None:
        meta = json.dumps(meta_dict).encode()
        body = meta + model
        data = _MAGIC + struct.pack("<Q", len(meta)) + hashlib.sha256(body).digest() + body
        import tempfile  # only when writing: not on the path of a cached model

        folder = os.path.dirname(self.path)
        try:
            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=_SUFFIX)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, self.path)  # atomic: readers see the old file or the new one
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError as e:
            logger.warning("pyonnx cache: cannot write %s (%s)", self.path, e)


def entry_for(f: Any, params: list) -> Entry | None:
    """The cache entry of ``f`` (a CompiledFunction) for ``params``, or None when the
    conversion may read something the key cannot hold (logged at debug level)."""
    fp = _Fingerprint()
    try:
        fp.tok("env", _environment().hex())
        fp.tok("class", type(f).__module__, type(f).__qualname__, repr(getattr(f, "steps", ())),
               f.opset, f.static_shapes)
        signature = []
        for p in params:
            spec = p.spec
            signature.append((p.name, p.kind, None if spec is None else
                              (spec.dtype.str, spec.shape)))
            if p.kind in ("static", "alias"):
                fp.value(p.value)
        fp.tok("signature", signature)
        fp.function(f.fn)
    except Uncacheable as e:
        logger.debug("pyonnx cache: not caching %s: it reads %s", f.fn.__qualname__, e)
        return None
    fn = f.fn
    name = hashlib.sha256(repr((fn.__module__, fn.__qualname__, fn.__code__.co_filename,
                                type(f).__qualname__, repr(getattr(f, "steps", ())),
                                signature)).encode()).hexdigest()[:32]
    stem = "".join(c if c.isalnum() or c in "._-" else "_" for c in fn.__qualname__)[:60]
    return Entry(os.path.join(cache_dir(), f"{stem}-{name}{_SUFFIX}"), fp.h.digest())


# ------------------------------------------------------------------ maintenance
def info(path: str | None = None) -> dict[str, Any]:
    """The cache folder, its number of entries and their total size in bytes."""
    path = path or cache_dir()
    files = _entries(path)
    return {"path": path, "entries": len(files),
            "bytes": sum(os.path.getsize(f) for f in files)}


def clear(path: str | None = None) -> int:
    """Deletes every entry (and leftover temporary file); returns how many entries."""
    path = path or cache_dir()
    files = _entries(path)
    for f in files + [os.path.join(path, n) for n in _listdir(path) if n.startswith(".tmp-")]:
        try:
            os.unlink(f)
        except FileNotFoundError:
            pass
    return len(files)


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def _entries(path: str) -> list[str]:
    return [os.path.join(path, n) for n in _listdir(path)
            if n.endswith(_SUFFIX) and not n.startswith(".tmp-")]

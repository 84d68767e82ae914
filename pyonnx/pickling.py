"""Pickling compiled functions: by reference when importable, else by value from the source.

Input: a :class:`~pyonnx.api.CompiledFunction` (or a transformed one: ``grad(f)``...).
Output: the ``__reduce__`` tuple pickle (and cloudpickle, multiprocessing, Dask) use.

* **By reference**: the function's module (not ``__main__``) holds this very object under its
  qualified name or another name (``dg = pyonnx.grad(f)`` at module level). Unpickling imports
  the module; the object there carries its own cache, so each process converts once.
* **By value** otherwise (``__main__``, nested functions, notebooks' files): the Python
  function's source lines, its closure values and the globals it reads, its defaults, the
  compile options and the transformation steps. The receiving process compiles the source
  again (under the file name ``<original> (pickled)``, kept in ``linecache`` with the original
  line numbers, so errors still point at the user's lines) into a function with the same
  globals and closure. Modules travel as names; helper functions that are not importable travel
  by value the same way. A process unpickling the same bytes again gets the same compiled
  function (memoized on their sha256), so a worker running many tasks converts once.

Limits: a function whose source cannot be read (typed at the interactive prompt) cannot be
pickled by value (``pickle.PicklingError`` says so); a global that is neither importable nor
picklable makes pickling fail with pickle's own message.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import importlib
import inspect
import linecache
import pickle
import sys
import textwrap
import threading
import types
from typing import Any

__all__ = ["reduce_compiled"]

_MEMO: dict[bytes, Any] = {}
_MEMO_LOCK = threading.Lock()


def reduce_compiled(f: Any) -> tuple:
    """``f.__reduce__()`` for a CompiledFunction ``f``."""
    ref = _reference(f)
    if ref is not None:
        return _from_reference, ref
    payload = {
        "cls": type(f),
        "fn": _function_payload(f.fn, {}),
        "options": f._pickle_options(),
        "steps": getattr(f, "steps", None),
    }
    try:
        blob = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:
        raise pickle.PicklingError(
            f"cannot pickle {f!r} by value: {e} (a global or closure value it reads cannot be "
            "pickled; define the function in an importable module to pickle it by reference)"
        ) from None
    return _from_value, (blob,)


def _reference(obj: Any) -> tuple[str, str] | None:
    """(module, attribute path) under which ``obj`` itself can be imported, or None."""
    module_name = getattr(obj, "__module__", None)
    if not module_name or module_name == "__main__":
        return None
    module = sys.modules.get(module_name)
    if module is None:
        return None
    qualname = getattr(obj, "__qualname__", "")
    if "<locals>" not in qualname:
        found: Any = module
        for part in qualname.split("."):
            found = getattr(found, part, None)
        if found is obj:
            return module_name, qualname
    for name, value in vars(module).items():
        if value is obj:
            return module_name, name
    return None


def _from_reference(module: str, path: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _from_value(blob: bytes) -> Any:
    """The compiled function pickled in ``blob``; the same object for the same bytes."""
    digest = hashlib.sha256(blob).digest()
    with _MEMO_LOCK:
        f = _MEMO.get(digest)
        if f is not None:
            return f
    payload = pickle.loads(blob)
    fn = _rebuild_function(payload["fn"])
    cls, options, steps = payload["cls"], payload["options"], payload["steps"]
    f = cls(fn, steps, **options) if steps is not None else cls(fn, **options)
    with _MEMO_LOCK:
        return _MEMO.setdefault(digest, f)


# ------------------------------------------------------------------ functions by value
class _ModuleRef:
    """A module in a function's globals, sent by name."""

    def __init__(self, name: str):
        self.name = name

    def __reduce__(self):
        return importlib.import_module, (self.name,)


def _function_payload(fn: types.FunctionType, seen: dict[int, Any]) -> dict[str, Any]:
    """What rebuilds ``fn`` elsewhere: source lines, names it reads, closure, defaults."""
    if id(fn) in seen:
        raise pickle.PicklingError(f"cannot pickle the mutually recursive functions "
                                   f"{fn.__qualname__} by value; import them from a module")
    seen[id(fn)] = fn
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise pickle.PicklingError(
            f"cannot pickle {fn.__qualname__} by value: its source is unavailable ({e}); define "
            "it in a file") from None
    code = fn.__code__
    names = _global_names(code)
    glob = {n: _ship(fn.__globals__[n], seen) for n in sorted(names) if n in fn.__globals__}
    closure = {}
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            closure[name] = _ship(cell.cell_contents, seen)
        except ValueError:  # an empty cell (assigned later in the enclosing function)
            pass
    del seen[id(fn)]
    return {"name": fn.__name__, "qualname": fn.__qualname__, "module": fn.__module__,
            "filename": code.co_filename, "lines": lines, "first": first, "globals": glob,
            "freevars": code.co_freevars, "closure": closure, "defaults": fn.__defaults__,
            "kwdefaults": fn.__kwdefaults__, "doc": fn.__doc__}


def _global_names(code: types.CodeType) -> set[str]:
    """Names ``code`` (and the code nested in it: comprehensions, inner functions) may read
    from globals (a superset: attribute names too, filtered by the caller)."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _ship(value: Any, seen: dict[int, Any]) -> Any:
    """``value`` as it travels: modules by name, non-importable functions by value."""
    if isinstance(value, types.ModuleType):
        return _ModuleRef(value.__name__)
    if isinstance(value, types.FunctionType) and _reference(value) is None:
        return _SourceFunction(_function_payload(value, seen))
    return value


class _SourceFunction:
    """A helper function travelling by value (rebuilt from its source when unpickled)."""

    def __init__(self, payload: dict[str, Any]):
        self.payload = payload

    def __reduce__(self):
        return _rebuild_function, (self.payload,)


def _rebuild_function(p: dict[str, Any]) -> types.FunctionType:
    """A function compiled from ``p``'s source, with its globals, closure and defaults.

    The source lines are registered in ``linecache`` (mtime None: never invalidated) under
    ``<file> (pickled)`` at their original line numbers, so ``inspect.getsource`` (the
    frontend) reads them and errors point at the original lines.
    """
    filename = f"{p['filename']} (pickled)"
    first = p["first"]
    text = textwrap.dedent("".join(p["lines"]))
    own = text.splitlines(keepends=True)
    with _MEMO_LOCK:  # functions of one file share its entry: each fills in its own lines
        entry = linecache.cache.get(filename)
        lines = list(entry[2]) if entry is not None and len(entry) == 4 else []
        lines += ["\n"] * (first - 1 + len(own) - len(lines))
        lines[first - 1:first - 1 + len(own)] = own
        linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)
    tree = ast.parse(text)
    fdef = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    fdef.decorator_list = []  # the source's @pyonnx.compile: the options travel separately
    ast.increment_lineno(fdef, first - 1)
    freevars = list(p["freevars"])
    if freevars:  # a factory taking the closure's names as parameters makes them free
        factory = ast.FunctionDef(
            name="_pyonnx_factory",
            args=ast.arguments(posonlyargs=[], args=[ast.arg(v) for v in freevars],
                               kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=[fdef, ast.Return(ast.Name(fdef.name, ast.Load()))], decorator_list=[])
        module = ast.Module([factory], type_ignores=[])
    else:
        module = ast.Module([fdef], type_ignores=[])
    ast.fix_missing_locations(module)
    namespace: dict[str, Any] = {"__builtins__": builtins, "__name__": p["module"]}
    namespace.update(p["globals"])
    exec(compile(module, filename, "exec"), namespace)
    if freevars:
        fn = namespace.pop("_pyonnx_factory")(*[p["closure"].get(v) for v in freevars])
        for v in freevars:
            if v not in p["closure"]:  # keep an empty cell empty
                fn.__closure__[freevars.index(v)].cell_contents = None
                del fn.__closure__[freevars.index(v)].cell_contents
    else:
        fn = namespace[fdef.name]
    fn.__defaults__, fn.__kwdefaults__ = p["defaults"], p["kwdefaults"]
    fn.__qualname__, fn.__doc__ = p["qualname"], p["doc"]
    return fn

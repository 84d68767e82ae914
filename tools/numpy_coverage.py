"""The numpy coverage table: which of numpy's public callables pyonnx converts.

Walks numpy's public namespaces (``numpy.__all__``, ``numpy.linalg``, ``numpy.fft``,
``numpy.random``, the ufunc methods, the scalar types, the ``ndarray`` methods and attributes),
asks pyonnx's numpy registry about each one and writes ``docs/numpy-coverage.md``. Nothing in
the table is written by hand: a row says

* **yes** when a lowering is registered and takes every parameter of numpy's signature;
* **partly** when the lowering does not take some of numpy's parameters (found by comparing the
  two signatures) or declares ``limits=`` for some (``registry.register``);
* **no** with the reason recorded by ``registry.refuse`` (or "not yet");
* **out of scope** for callables refused with ``out_of_scope=True`` (files, text, datetimes,
  Python objects...): listed, not counted.

``tests/test_numpy_coverage.py`` regenerates the table and fails when the checked-in file
differs. Usage::

    python tools/numpy_coverage.py            # rewrite docs/numpy-coverage.md and the README's
                                              # headline
    python tools/numpy_coverage.py --check    # exit 1 when it is stale
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import os
import re
import sys
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from pyonnx.frontend import numpy_calls  # noqa: E402
from pyonnx.frontend.graph.dtypes import SUPPORTED_DTYPES  # noqa: E402
from pyonnx.frontend.lower import writers  # noqa: E402
from pyonnx.frontend.lower.imports_contexts import NOOP_CALLS  # noqa: E402
from pyonnx.frontend.numpy_calls import registry  # noqa: E402

OUTPUT = os.path.join(ROOT, "docs", "numpy-coverage.md")
README = os.path.join(ROOT, "README.md")
# The README's headline sentence, rewritten with the table.
_README_HEADLINE = re.compile(r"\*\*numpy coverage: \d+ of \d+ in-scope callables supported\*\*")

# Parameters every lowering leaves out on purpose, stated once in the table's header rather
# than in every row: results are new values (out=), pyonnx has one array type (subok=, like=)
# and one device.
IGNORED_PARAMS = frozenset({"out", "subok", "like", "device"})

# Callables the lowering supports outside the registry (statement-level forms).
_CONTEXTS = {np.errstate: "as 'with np.errstate(...)': a no-op (ONNX raises no warnings)"}
_SPECIAL_CALLS = {np.ndindex: "in 'for idx in np.ndindex(shape)' and list(np.ndindex(...))"}
# ndarray members the statement lowering supports itself (frontend/lower/expr.py).
_SPECIAL_MEMBERS = {"flat": "indexed: x.flat[i] reads (copies), x.flat[i] = v writes"}

UFUNC_METHODS = ("reduce", "accumulate", "reduceat", "outer", "at")

# Sized aliases of long double that exist on some platforms only (np.longdouble has a row):
# left out so that the table is the same on every machine.
_PLATFORM_NAMES = frozenset({"float96", "float128", "complex192", "complex256"})


@dataclasses.dataclass
class Row:
    """One table row: ``status`` is yes / partly / no / out."""

    name: str
    status: str
    note: str = ""


# ------------------------------------------------------------------------- status of one item
def _params(fn: Any, skip_first: int) -> list[inspect.Parameter] | None:
    try:
        return list(inspect.signature(fn).parameters.values())[skip_first:]
    except (TypeError, ValueError):
        return None


def _missing(numpy_fn: Any, entry: Any, is_method: bool) -> list[str]:
    """numpy's keyword-usable parameters the lowering cannot take (beyond IGNORED_PARAMS)."""
    theirs = _params(numpy_fn, 0)
    ours = _params(entry.fn, 2 if is_method else 1)
    if theirs is None or ours is None or any(p.kind is p.VAR_KEYWORD for p in ours):
        return []
    names = {p.name for p in ours}
    return [p.name for p in theirs
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            and p.name not in names and p.name not in IGNORED_PARAMS and p.name != "self"]


def _entry_row(name: str, entry: Any, numpy_fn: Any, is_method: bool = False) -> Row:
    missing = _missing(numpy_fn, entry, is_method)
    notes = []
    if missing:
        notes.append("not taken: " + ", ".join(f"`{m}`" for m in missing))
    notes += [f"`{p}`: {what}" for p, what in entry.limits]
    return Row(name, "partly" if notes else "yes", "; ".join(notes))


def function_row(name: str, obj: Any) -> Row:
    """The row of a numpy function (or ufunc, or class used as a function)."""
    entry = numpy_calls.lookup(obj)
    if entry is not None:
        return _entry_row(name, entry, obj)
    if writers.function_writer(obj) is not None:
        return Row(name, "yes", "writes into its array argument")
    if _hashable(obj) and obj in _CONTEXTS:
        return Row(name, "yes", _CONTEXTS[obj])
    if _hashable(obj) and obj in _SPECIAL_CALLS:
        return Row(name, "yes", _SPECIAL_CALLS[obj])
    if _hashable(obj) and obj in NOOP_CALLS:
        return Row(name, "yes", "a no-op")
    if _hashable(obj) and obj in _complex_lowerings():
        from pyonnx.frontend.lower.complex_queries import LIMITS
        if obj in LIMITS:
            return Row(name, "partly",
                       f"complex lowering (frontend/lower/complex_*): {LIMITS[obj]}")
        return Row(name, "yes", "complex lowering (frontend/lower/complex_*)")
    refused = numpy_calls.refusal(obj)
    if refused is not None:
        return Row(name, "out" if refused[1] else "no", refused[0])
    return Row(name, "no", "not yet")


def _complex_lowerings() -> set:
    """The numpy functions the complex lowering converts (for real and complex arguments: the
    complex dispatch runs before the registry's look-up)."""
    from pyonnx.frontend.lower import (
        complex_fft, complex_functions, complex_reductions, complex_sorted, complex_stats)
    return {f for f in (*complex_functions.FUNCS, *complex_fft.FUNCS, *complex_stats.FUNCS,
                        *complex_reductions.FUNCS, *complex_sorted.FUNCS)
            if _hashable(f) and (getattr(f, "__module__", None) or "").startswith("numpy")}


def _hashable(x: Any) -> bool:
    try:
        hash(x)
        return True
    except TypeError:
        return False


def scalar_type_row(name: str, t: type) -> Row:
    """``np.float32(x)`` and friends: casts, supported for the dtypes pyonnx computes in."""
    try:
        dt = np.dtype(t)
    except TypeError:
        return Row(name, "out", "abstract scalar type: a dtype category for np.issubdtype and "
                                "isinstance, not a cast")
    if dt in SUPPORTED_DTYPES:
        return Row(name, "yes", f"cast to {dt.name}")
    if dt.kind == "c" and dt.itemsize <= 16:
        return Row(name, "yes", f"cast to {dt.name} (complex lowering)")
    if dt.kind == "c":
        return Row(name, "no", "long double: ONNX has no extended-precision type")
    if dt.kind == "f":
        return Row(name, "no", "long double: ONNX has no extended-precision type")
    return Row(name, "out", f"{dt.name} values (text, bytes, datetimes, Python objects) are not "
                            "model values")


def method_row(name: str) -> Row:
    """An ``ndarray`` method or attribute."""
    label = f"ndarray.{name}"
    entry = numpy_calls.lookup_method(name)
    if entry is not None:
        return _entry_row(label, entry, getattr(np.ndarray, name), is_method=True)
    if numpy_calls.lookup_attribute(name) is not None:
        return Row(label, "yes")
    if name in writers.METHODS:
        return Row(label, "yes", "writes into the array")
    if name in _SPECIAL_MEMBERS:
        return Row(label, "partly", _SPECIAL_MEMBERS[name])
    refused = numpy_calls.refusal(getattr(np.ndarray, name))
    if refused is not None:
        return Row(label, "out" if refused[1] else "no", refused[0])
    reason = _NDARRAY_OUT.get(name)
    if reason is not None:
        return Row(label, "out", reason)
    return Row(label, "no", "not yet")


# ndarray members with no meaning for a model value (the registry holds functions only).
_NDARRAY_OUT = {
    "ctypes": "memory buffers", "data": "memory buffers", "base": "memory buffers",
    "strides": "memory layout", "flags": "memory layout", "setflags": "memory layout",
    "dump": "files (I/O)", "dumps": "bytes (I/O)", "tofile": "files (I/O)",
    "tobytes": "bytes (I/O)", "byteswap": "byte order of memory", "getfield": "memory buffers",
    "setfield": "memory buffers",
}


def ufunc_method_rows() -> list[Row]:
    """One row per ufunc method: for how many of the ufuncs it applies to it is supported."""
    ufuncs = sorted({getattr(np, n) for n in np.__all__ if isinstance(getattr(np, n), np.ufunc)},
                    key=lambda u: u.__name__)
    rows = []
    for m in UFUNC_METHODS:
        applicable = [u for u in ufuncs if u.nin == 2 and u.signature is None
                      and (m == "outer" or u.nout == 1)]
        ok = [u.__name__ for u in applicable
              if numpy_calls.lookup(getattr(u, m)) is not None
              or writers.function_writer(getattr(u, m)) is not None]
        label = f"ufunc.{m}"
        if len(ok) == len(applicable):
            rows.append(Row(label, "yes", f"all {len(ok)} binary ufuncs"))
        elif ok:
            rest = [u.__name__ for u in applicable if u.__name__ not in ok]
            rows.append(Row(label, "partly", f"{len(ok)} of {len(applicable)}: "
                            + (" ".join(ok) if len(ok) <= len(rest) else
                               "all but " + " ".join(rest))))
        else:
            rows.append(Row(label, "no", "not yet"))
    return rows


# --------------------------------------------------------------------------------- the walk
def _is_scalar_type(obj: Any) -> bool:
    return isinstance(obj, type) and issubclass(obj, np.generic)


def sections() -> list[tuple[str, list[Row], bool]]:
    """(title, rows, counted in the headline) for every namespace, rows sorted by name."""
    funcs, types_ = [], []
    for n in sorted(np.__all__):
        obj = getattr(np, n)
        if inspect.ismodule(obj) or not callable(obj) or n in _PLATFORM_NAMES:
            continue
        if _is_scalar_type(obj):
            types_.append(scalar_type_row(f"np.{n}", obj))
        else:
            funcs.append(function_row(f"np.{n}", obj))
    out = [("numpy", funcs, True), ("ufunc methods (`np.add.reduce`, ...)", ufunc_method_rows(),
                                     True)]
    for mod in (np.linalg, np.fft):
        rows = [function_row(f"{mod.__name__.replace('numpy', 'np')}.{n}", getattr(mod, n))
                for n in sorted(mod.__all__)
                if callable(getattr(mod, n)) and not (isinstance(getattr(mod, n), type)
                                                     and issubclass(getattr(mod, n), Exception))]
        out.append((mod.__name__, rows, True))
    members = sorted(n for n in dir(np.ndarray) if not n.startswith("_"))
    out.append(("ndarray methods and attributes", [method_row(n) for n in members], True))
    out.append(("scalar types (casts: `np.float32(x)`)", types_, True))
    rnd = [function_row(f"np.random.{n}", getattr(np.random, n)) for n in sorted(np.random.__all__)
           if callable(getattr(np.random, n))]
    out.append(("numpy.random (not counted: random streams are their own topic)", rnd, False))
    return out


# ------------------------------------------------------------------------------- rendering
_STATUS = {"yes": "yes", "partly": "partly", "no": "no", "out": "out of scope"}


def headline(secs: list[tuple[str, list[Row], bool]]) -> tuple[int, int, int, int, int]:
    """(supported, in scope, fully, partly, out of scope) over the counted sections."""
    rows = [r for _, rs, counted in secs if counted for r in rs]
    full = sum(r.status == "yes" for r in rows)
    part = sum(r.status == "partly" for r in rows)
    out = sum(r.status == "out" for r in rows)
    return full + part, len(rows) - out, full, part, out


def render() -> str:
    secs = sections()
    n, m, full, part, out = headline(secs)
    lines = [
        "# numpy coverage",
        "",
        "Generated by `python tools/numpy_coverage.py` from pyonnx's numpy registry "
        f"(numpy {np.__version__}); do not edit by hand: `tests/test_numpy_coverage.py` fails "
        "when this file is stale.",
        "",
        f"**{n} of {m} in-scope callables supported ({100 * n / m:.1f}%)**: {full} fully, "
        f"{part} partly; {out} more are out of scope (listed, not counted). Counted: numpy, "
        "the ufunc methods, numpy.linalg, numpy.fft, the ndarray methods and attributes and the "
        "scalar types; numpy.random is listed apart.",
        "",
        "- **yes**: converted with numpy's values, dtypes and shapes (differential tests).",
        "- **partly**: the parameters named are not taken (a ConversionError at the call) or "
        "supported only in the forms said.",
        "- **no**: a ConversionError at the call, with the reason given here.",
        "- **out of scope**: nothing an ONNX model computes (files, text, datetimes, Python "
        "objects and callbacks, global state).",
        "- Everywhere: `out=` is refused (assign the result), and `subok=`, `like=`, "
        "`device=` are not taken (one array type, one device). Aliases (`np.abs`, "
        "`np.absolute`) have a row each.",
        "",
    ]
    for title, rows, counted in secs:
        k = sum(r.status in ("yes", "partly") for r in rows)
        scope = sum(r.status != "out" for r in rows)
        lines += [f"## {title}", "", f"{k} of {scope} in scope supported.", "",
                  "| callable | status | notes |", "|---|---|---|"]
        lines += [f"| `{r.name}` | {_STATUS[r.status]} | {r.note} |" for r in rows]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when docs/numpy-coverage.md is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        with open(OUTPUT, encoding="utf-8") as f:
            stale = f.read() != text
        print("docs/numpy-coverage.md is stale: run python tools/numpy_coverage.py"
              if stale else "docs/numpy-coverage.md is up to date")
        return int(stale)
    with open(OUTPUT, "w", encoding="utf-8") as f:
        f.write(text)
    n, m, *_ = headline(sections())
    with open(README, encoding="utf-8") as f:
        readme = f.read()
    with open(README, "w", encoding="utf-8") as f:
        f.write(_README_HEADLINE.sub(
            f"**numpy coverage: {n} of {m} in-scope callables supported**", readme))
    print(text.splitlines()[4])
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The source of a compiled signature's generated call: feed, run, check, unpack, write back.

Input: a :class:`~pyonnx.call_path._Compiled` (its session, feed plan and output structure) and
how the generated function spells its arguments. Output: Python source lines (and the names
they use, put in ``env``) that feed the session, run it, raise a failed run-time check, copy
written arguments back and rebuild the returned Python value. ``call_path`` wraps these lines
in the ``call`` and ``fast`` functions it generates; nothing here runs per call except the
helpers the generated code names (``_readonly``, ``_overlap``...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pyonnx import complex_io

# ``compiled`` below is a pyonnx.call_path._Compiled; not imported, even for typing: call_path
# imports this module, and pyonnx/ keeps no import cycle (tests/test_architecture.py).
_Compiled = Any

__all__ = ["run_src", "checks_src", "rebuild_src"]


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



def run_src(compiled: _Compiled, env: dict[str, Any], arg: Callable[[int], str], all_args: str,
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
    env.update(_pyonnx_sess=compiled.session, _pyonnx_out_names=compiled.session.output_names,
               _pyonnx_asarray=np.asarray)
    items = []
    complex_in, complex_out = compiled.complex_io
    for k, (name, i, dtype) in enumerate(compiled.feed_plan):
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
    tree = getattr(compiled.structure, "tree", None)
    if tree is not None:
        result = rebuild_src(compiled, tree, o, env)
    elif compiled.structure == "single":
        result = f"{o}[0][()]" if compiled.scalars[0] else f"{o}[0]"
    elif compiled.structure == "tuple":
        parts = [f"{o}[{k}][()]" if s else f"{o}[{k}]" for k, s in enumerate(compiled.scalars)]
        result = "(" + "".join(p + ", " for p in parts) + ")"
    elif compiled.structure == "none":
        result = "None"
    else:
        raise AssertionError(f"unknown output structure {compiled.structure!r}")
    # Arguments the function writes into: numpy's in-place meaning, by copying the final
    # values back after the run (refused up front for read-only arrays, as numpy refuses).
    check, copy, cplx = "", "", ""
    if complex_out:
        env["_pyonnx_cout"] = complex_io.outputs_converter(complex_out)
        cplx = f"    {o} = _pyonnx_cout({o})\n"
    arg_of = {name: i for name, i, _ in compiled.feed_plan}
    for name in getattr(compiled.structure, "contiguous", ()):
        if name in arg_of:
            # The model follows a reshape of this argument as a view (and writes through
            # it), which numpy's reshape is only for a C-contiguous array.
            env["_pyonnx_layout"] = _not_contiguous
            a = arg(arg_of[name])
            check += (f"    if not {a}.flags.c_contiguous:\n"
                      f"        _pyonnx_layout({name!r})\n")
    arrays = [(name, i) for name, i, dtype in compiled.feed_plan if dtype is None]
    first = len(compiled.scalars)
    for j, name in enumerate(getattr(compiled.structure, "writeback", ())):
        a = arg(arg_of[name])
        env["_pyonnx_copyto"] = np.copyto
        env["_pyonnx_readonly"] = _readonly
        check += (f"    if not {a}.flags.writeable:\n"
                  f"        _pyonnx_readonly({name!r})\n")
        # An argument written into that shares memory with another one: the model, which
        # reads all inputs before writing, cannot give numpy's answer (only functions that
        # write an argument pay for this check).
        env.update(_pyonnx_overlap=_overlap, _pyonnx_overlapping=_overlapping,
                   _pyonnx_self=compiled)
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
            + checks_src(compiled, env, o) + cplx + copy + f"    return {result}\n")

def checks_src(compiled: _Compiled, env: dict[str, Any], o: str) -> str:
    """Source raising a failed run-time check's exception (pyonnx.check_protocol) right
    after the run: before the written arguments are copied back and before any result is
    returned."""
    from pyonnx import check_protocol

    sites = check_protocol.parse(getattr(compiled.session, "metadata", {}).get(
        check_protocol.KEY))
    if not sites:
        return ""
    checks = check_protocol.Checks(sites, list(compiled.session.output_names))
    env["_pyonnx_checks"] = checks
    test = " or ".join(f"{o}[{i}]" for i in checks.flags)
    return f"    if {test}:\n        _pyonnx_checks.fail({o})\n"


def rebuild_src(compiled: _Compiled, tree: tuple, o: str, env: dict[str, Any]) -> str:
    """The expression rebuilding a returned Python value from the outputs ``o`` (see
    ``frontend.convert.OutputStructure.tree``): lists are new objects per call."""
    kind = tree[0]
    if kind == "leaf":
        k, python_scalar = tree[1], tree[2]
        if python_scalar:
            return f"{o}[{k}].item()"
        return f"{o}[{k}][()]" if compiled.scalars[k] else f"{o}[{k}]"
    if kind == "seq":  # a list built at run time: onnxruntime gives a list of arrays
        k, items = tree[1], tree[2]
        if items == "python":
            return f"[_pyonnx_e.item() for _pyonnx_e in {o}[{k}]]"
        return f"[_pyonnx_e[()] for _pyonnx_e in {o}[{k}]]" if items == "numpy" else f"{o}[{k}]"
    if kind == "pyleaf":  # a Python number where its flag output is true
        k, f = tree[1], tree[2]
        return f"({o}[{k}].item() if {o}[{f}] else {o}[{k}][()])"
    if kind == "aleaf":  # a 0-d array where its flag output is true, else a numpy scalar
        k, f = tree[1], tree[2]
        return f"({o}[{k}] if {o}[{f}] else {o}[{k}][()])"
    if kind == "maybe":  # a possibly-None number: None where its flag output is False
        return f"({rebuild_src(compiled, tree[2], o, env)} if {o}[{tree[1]}] else None)"
    if kind == "zip":  # a list of tuples built at run time: one sequence per field
        return f"list(zip({', '.join(rebuild_src(compiled, c, o, env) for c in tree[1])}))"
    if kind == "const":
        name = f"_pyonnx_c{len(env)}"
        env[name] = tree[1]
        return name
    if kind == "dict":  # static str/int keys, spelled by repr
        return "{" + "".join(f"{k!r}: {rebuild_src(compiled, c, o, env)}, "
                             for k, c in zip(tree[1], tree[2])) + "}"
    parts = "".join(rebuild_src(compiled, c, o, env) + ", " for c in tree[1])
    return f"({parts})" if kind == "tuple" else f"[{parts}]"

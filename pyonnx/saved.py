"""Saved models that run without the source: ``pyonnx.save(f, path, *specs)``, ``pyonnx.load``.

Input (save): a compiled function (or plain function) and example arrays or
:func:`pyonnx.spec` specs. Output: a plain ``.onnx`` file any runtime loads, whose
``metadata_props`` hold pyonnx's call metadata under ``pyonnx.call`` (JSON): the parameters in
order (kind, dtype, shape, the value of static ones), the result's structure (tuples, lists,
Python numbers), which outputs are 0-d (numpy scalars) and which array arguments the function
writes into.

Input (load): such a file. Output: a :class:`SavedFunction` called like the compiled function
(keywords, static arguments defaulting to their saved values, numpy scalars for 0-d results,
tuples, written arguments updated in place, provider fallback), with the arguments checked
against the saved signature first (dtype, rank, fixed dimensions, Python scalar types) so a
wrong call is a TypeError naming the parameter, not an onnxruntime message. No source and no
converter are needed.
"""

from __future__ import annotations

import ast
import inspect
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from pyonnx import call_meta

__all__ = ["save", "load", "SavedFunction"]

KEY = "pyonnx.call"
_FORMAT = 1
_PY_TYPES = {"bool": bool, "int64": int, "float64": float}


def save(f: Any, path: str, *args: Any, **kwargs: Any):
    """Converts ``f`` for ``args`` (arrays or specs) and writes the model with call metadata.

    Returns:
        The ``onnx.ModelProto`` written.

    Raises:
        ConversionError: ``f`` cannot be converted for ``args``.
        ValueError: a static argument's value cannot be written as a Python literal.
    """
    import onnx

    from pyonnx.api import CompiledFunction, compile
    from pyonnx.passes.name_output_dims import name_output_dims

    if not isinstance(f, CompiledFunction):
        f = compile(f)
    if type(f).__call__ is not CompiledFunction.__call__:
        raise ValueError(f"{f!r} repacks its results in Python; save the function it transforms "
                         "with a single argnums instead")
    params, model_bytes, structure, scalars = f._build_for(args, kwargs)
    model = name_output_dims(onnx.load_from_string(model_bytes))
    meta = {"format": _FORMAT, "function": f.fn.__qualname__,
            "call": call_meta.to_json(structure, scalars),
            "params": [_param_out(p) for p in params]}
    entry = model.metadata_props.add()
    entry.key, entry.value = KEY, json.dumps(meta)
    onnx.save(model, path)
    return model


def _param_out(p: Any) -> dict[str, Any]:
    if p.kind == "static":
        text = repr(p.value)
        try:
            same = ast.literal_eval(text) == p.value
        except (ValueError, SyntaxError):
            same = False
        if not same:
            raise ValueError(f"the static argument '{p.name}' = {text[:60]} cannot be saved "
                             "(only Python literals: numbers, strings, tuples, None)")
        return {"name": p.name, "kind": "static", "value": text}
    if p.kind != "tensor" and p.kind != "scalar":
        raise ValueError(f"parameter '{p.name}' of kind {p.kind} cannot be saved")
    return {"name": p.name, "kind": p.kind, "dtype": p.spec.dtype.name,
            "shape": list(p.spec.shape)}


def load(path: str, providers: Sequence[str] | str | None = None) -> SavedFunction:
    """A callable for a model written by :func:`save` (see the module docstring).

    Raises:
        ValueError: the file has no pyonnx call metadata (not written by ``pyonnx.save``).
    """
    return SavedFunction(path, providers)


class SavedFunction:
    """A saved model called with the compiled function's conventions.

    Attributes:
        name: the original function's qualified name.
        providers: the providers the session runs on.
    """

    def __init__(self, path: str, providers: Sequence[str] | str | None = None):
        with open(path, "rb") as fh:
            data = fh.read()
        meta = _read_meta(data, path)
        from pyonnx.api import _SESSIONS
        from pyonnx.call_path import _Compiled
        from pyonnx.runtime.providers import resolve_providers

        self.name = meta.get("function", "saved")
        self._params = meta["params"]
        structure, scalars = call_meta.from_json(meta["call"])
        P = inspect.Parameter
        sig, feed_plan, self._checks = [], [], []
        for i, p in enumerate(self._params):
            if p["kind"] == "static":
                value = ast.literal_eval(p["value"])
                # Statics follow the arrays in the signature's order, so a default is fine
                # only where every later parameter has one too; else keep it required.
                sig.append((p["name"], value))
                self._checks.append(("static", p["name"], value))
                continue
            dtype = np.dtype(p["dtype"])
            shape = tuple(p["shape"])
            if p["kind"] == "scalar":
                feed_plan.append((p["name"], i, dtype))
                self._checks.append(("scalar", p["name"], _PY_TYPES[dtype.name]))
            else:
                feed_plan.append((p["name"], i, None))
                self._checks.append(("tensor", p["name"], (dtype, shape)))
            sig.append((p["name"], P.empty))
        params, seen_required = [], False
        for name, default in reversed(sig):
            if default is P.empty:
                seen_required = True
            elif seen_required:
                default = P.empty  # a static before a required parameter: pass it again
            params.append(P(name, P.POSITIONAL_OR_KEYWORD, default=default))
        self._signature = inspect.Signature(list(reversed(params)))
        session = _SESSIONS.get(data, resolve_providers(providers))
        self._compiled = _Compiled(data, session, feed_plan, structure, scalars, 0.0)
        self.__signature__ = self._signature

    @property
    def providers(self) -> tuple[str, ...]:
        return self._compiled.session.providers

    def __repr__(self) -> str:
        return f"<pyonnx.SavedFunction {self.name}{self._signature}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}(): {e}") from None
        bound.apply_defaults()
        values = [bound.arguments[p["name"]] for p in self._params]
        dims: dict[str, int] = {}
        for i, (kind, name, want) in enumerate(self._checks):
            values[i] = _checked(self.name, kind, name, want, values[i], dims)
        return self._compiled.call(tuple(values))


def _checked(fname: str, kind: str, name: str, want: Any, a: Any, dims: dict[str, int]) -> Any:
    """``a`` as fed, after checking it against the saved parameter."""
    if kind == "static":
        if type(a) is not type(want) or a != want:
            raise ValueError(f"{fname}(): '{name}' was {want!r} when the model was saved (a "
                             f"static argument); got {a!r}")
        return a
    if kind == "scalar":
        if type(a) is not want:
            raise TypeError(f"{fname}(): '{name}' must be a Python {want.__name__} (as when "
                            f"the model was saved), got {type(a).__name__}")
        return a
    dtype, shape = want
    if isinstance(a, np.generic):
        a = np.asarray(a)
    if type(a) is np.memmap:
        a = np.asarray(a)
    if type(a) is not np.ndarray:
        raise TypeError(f"{fname}(): '{name}' must be a numpy array of {dtype.name}, got "
                        f"{type(a).__name__}")
    if a.dtype.newbyteorder("=") != dtype:
        raise TypeError(f"{fname}(): '{name}' must have dtype {dtype.name}, got {a.dtype}")
    if not a.dtype.isnative:
        a = a.astype(dtype)
    if a.ndim != len(shape):
        raise TypeError(f"{fname}(): '{name}' must have {len(shape)} dimensions, got shape "
                        f"{a.shape}")
    for d, (want_d, got) in enumerate(zip(shape, a.shape)):
        if isinstance(want_d, int) and want_d != got:
            raise ValueError(f"{fname}(): '{name}' must have size {want_d} in dimension {d}, "
                             f"got shape {a.shape}")
        if isinstance(want_d, str):
            if dims.setdefault(want_d, got) != got:
                raise ValueError(f"{fname}(): dimension {want_d} is {dims[want_d]} in an "
                                 f"earlier argument but {got} in '{name}' (shape {a.shape})")
    return a


def _read_meta(data: bytes, path: str) -> dict[str, Any]:
    import onnx

    model = onnx.load_from_string(data)
    props = {p.key: p.value for p in model.metadata_props}
    if KEY not in props:
        raise ValueError(f"{path} has no pyonnx call metadata ('{KEY}'); write it with "
                         "pyonnx.save, or run it with onnxruntime directly")
    meta = json.loads(props[KEY])
    if meta.get("format") != _FORMAT:
        raise ValueError(f"{path}: unknown pyonnx call metadata format {meta.get('format')}")
    return meta

"""The run-time check protocol between a converted model and the call that runs it.

Where the function raises on values only known at run time (``raise E(...)`` under a condition
on array values, an ``assert`` on them), the model computes per check site a bool output that
is true when that check failed (at most one is: the first to fail in Python's order), and the
0-d values its message formats. The compiled function raises the exception right after the
run, as numba does in nopython mode. The model's ``metadata_props["pyonnx.checks"]`` (JSON,
:data:`KEY`) describes the sites; a deployment can test the outputs itself::

    {"format": 1, "sites": [{"failed": "check_1_failed", "exception": "builtins.ValueError",
                             "where": "file.py:12", "message": null | [part, ...],
                             "values": [{"name": "check_1_value_0", "python": true,
                                         "dtype": "int8"}, ...]}]}

A message part is a string, or ``{"value": j, "conversion": "s" | "r" | "a" | null, "spec":
str}``: value ``j`` formatted as an f-string field (a Python number when ``python``, else a
numpy scalar of ``dtype``; the output holds it as int64 for bools and integers, float32 for float16,
which onnxruntime's Where supports). A complex value is two values, its real part (``value``)
and its imaginary part (``"imag": k``, the part's key then), each of the float dtype of the
complex one. ``message`` null: the exception is raised without arguments.

Light (no onnx import): saved models and the disk cache read it at call time.
"""

from __future__ import annotations

import builtins
import importlib
import json
from typing import Any

import numpy as np

__all__ = ["KEY", "FORMAT", "parse", "resolve", "Checks", "strip"]

KEY = "pyonnx.checks"
FORMAT = 1

_CONVERSIONS = {None: lambda v: v, "s": str, "r": repr, "a": ascii}


def resolve(name: str) -> type[BaseException] | None:
    """The exception class ``module.qualname`` names, or None."""
    module, _, qualname = name.rpartition(".")
    try:
        obj: Any = builtins if module == "builtins" else importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError, ValueError):
        return None
    return obj if isinstance(obj, type) and issubclass(obj, BaseException) else None


def parse(text: str | None) -> list[dict] | None:
    """The sites of a model's ``pyonnx.checks`` entry (None when absent or not this format)."""
    if not text:
        return None
    meta = json.loads(text)
    if meta.get("format") != FORMAT:
        return None
    return meta["sites"]


class Checks:
    """The sites of one model bound to its output order: ``flags`` are the output indices of
    the failed flags; ``fail(outs)`` raises the exception of the site that failed."""

    def __init__(self, sites: list[dict], output_names: list[str]):
        index = {n: i for i, n in enumerate(output_names)}
        self.sites = [(index[s["failed"]], s,
                       [(index[v["name"]], v["python"], np.dtype(v["dtype"]))
                        for v in s["values"]]) for s in sites]
        self.flags = [i for i, _, _ in self.sites]

    def fail(self, outs: list[Any]) -> None:
        """Raises the failed site's exception (called when some flag of ``outs`` is true)."""
        for flag, site, values in self.sites:
            if outs[flag]:
                found = [np.asarray(outs[i]).astype(dtype) for i, _, dtype in values]
                raise self.exception(site, [v.item() if python else v[()]
                                            for v, (_, python, _) in zip(found, values)])

    @staticmethod
    def exception(site: dict, values: list[Any]) -> BaseException:
        cls = resolve(site["exception"]) or RuntimeError
        message = site["message"]
        if message is None:
            return cls()
        parts = []
        for p in message:
            if isinstance(p, str):
                parts.append(p)
            else:
                value = values[p["value"]]
                if "imag" in p:
                    value = _complex(value, values[p["imag"]])
                parts.append(format(_CONVERSIONS[p["conversion"]](value), p["spec"]))
        return cls("".join(parts))


def _complex(re: Any, im: Any) -> Any:
    """The complex number of two parts: a Python complex from Python floats, else the numpy
    complex scalar of their dtype (float32 parts: complex64)."""
    if type(re) is float and type(im) is float:  # (np.float64 is a float subclass)
        return complex(re, im)
    dtype = np.result_type(np.asarray(re).dtype, np.complex64)
    out = np.zeros((), dtype)
    out.real, out.imag = re, im
    return out[()]


def strip(model: Any) -> Any:
    """Drops the check outputs and their metadata from an ``onnx_ir.Model`` (in place; the
    passes then remove the nodes only they used): ``to_onnx(..., checks=False)``, and the
    models of ``pyonnx.grad`` & co., whose checks are not differentiated."""
    sites = parse(model.metadata_props.get(KEY))
    if not sites:
        return model
    names = {s["failed"] for s in sites} | {v["name"] for s in sites for v in s["values"]}
    kept = [o for o in model.graph.outputs if o.name not in names]
    model.graph.outputs.clear()
    model.graph.outputs.extend(kept)
    del model.metadata_props[KEY]
    return model

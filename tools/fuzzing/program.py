"""A generated program: its source, its two input sets, and loading/running it.

pyonnx reads a function's source, so a program is written to a real file and imported.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import os
import sys
import tempfile
from dataclasses import dataclass, field

import numpy as np

from fuzzing.values import literal

_DIR = None


@dataclass
class Program:
    """``source`` defines ``f``; ``inputs`` holds two argument tuples (sizes differ);
    ``alias[i] = j`` passes argument ``j``'s array again at position ``i`` (``f(x, x)``)."""

    seed: int
    source: str
    inputs: list
    alias: dict = field(default_factory=dict)
    mode: str = "compile"
    argnums: tuple = ()

    def args(self, k: int) -> list:
        """Fresh copies of input set ``k``, with the aliasing the call asks for."""
        out = [copy.deepcopy(v) for v in self.inputs[k]]
        for i, j in self.alias.items():
            out[i] = out[j]
        return out

    def inputs_source(self) -> str:
        """``ARGS0 = [...]`` and ``ARGS1 = [...]``: the two input sets as Python source."""
        lines = []
        for k, ins in enumerate(self.inputs):
            vals = ["None" if i in self.alias else literal(v) for i, v in enumerate(ins)]
            lines.append(f"ARGS{k} = [{', '.join(vals)}]")
            lines += [f"ARGS{k}[{i}] = ARGS{k}[{j}]  # the same array twice" for i, j in self.alias.items()]
        return "\n".join(lines)


def load(source: str, name: str = "f"):
    """Imports ``source`` from a file (pyonnx reads it back) and returns its function ``name``."""
    global _DIR
    if _DIR is None:
        _DIR = tempfile.mkdtemp(prefix="pyonnx_fuzz_")
    digest = hashlib.sha1(source.encode()).hexdigest()[:16]
    mod_name = f"fuzzprog_{digest}_{os.getpid()}"
    path = os.path.join(_DIR, mod_name + ".py")
    if not os.path.exists(path):
        with open(path, "w") as fh:
            fh.write(source)
    spec = importlib.util.spec_from_file_location(mod_name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = mod
    spec.loader.exec_module(mod)
    return getattr(mod, name)


def run_numpy(fn, args, computed: set | None = None):
    """``fn(*args)`` under numpy with every floating-point warning raised (a valid program has none).
    With ``computed`` (a set), the dtype names of every ufunc result are added to it
    (fuzzing.ufunc_trace)."""
    import warnings

    from fuzzing.ufunc_trace import traced_numpy
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            if computed is None:
                return fn(*args)
            with traced_numpy(fn, computed):
                return fn(*args)

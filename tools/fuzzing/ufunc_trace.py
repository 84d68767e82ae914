"""The float dtypes numpy computes in while it runs a program, for the oracle's tolerance.

numpy computes a float ufunc of a small integer in the smallest float that holds it
(``np.tanh(np.uint16(3))`` is float32, ``np.sin(np.int8(1))`` float16); a float64 result built
from such a value carries that float's error, which neither the arguments' dtypes nor the
source's names show. ``traced_numpy(fn)`` runs ``fn`` with its module's ``np`` replaced by a proxy
whose ufuncs record the dtypes of what they return.
"""

from __future__ import annotations

import contextlib
import types

import numpy as np


class _TracedUfunc:
    """A numpy ufunc that adds the dtype names of its results to ``seen``; ``reduce``,
    ``accumulate``, ``outer``, ... record theirs too."""

    def __init__(self, ufunc: np.ufunc, seen: set):
        self._ufunc, self._seen = ufunc, seen

    def _record(self, out):
        for o in out if isinstance(out, tuple) else (out,):
            if isinstance(o, (np.ndarray, np.generic)):
                self._seen.add(o.dtype.name)
        return out

    def __call__(self, *args, **kwargs):
        return self._record(self._ufunc(*args, **kwargs))

    def __getattr__(self, name):
        attr = getattr(self._ufunc, name)
        if callable(attr) and name in ("reduce", "accumulate", "reduceat", "outer", "at"):
            return lambda *a, **k: self._record(attr(*a, **k))
        return attr


def _proxy(seen: set) -> types.ModuleType:
    mod = types.ModuleType("numpy")
    for name in dir(np):
        value = getattr(np, name)
        setattr(mod, name, _TracedUfunc(value, seen) if isinstance(value, np.ufunc) else value)
    return mod


@contextlib.contextmanager
def traced_numpy(fn, seen: set):
    """While the block runs, ``fn``'s module sees a tracing ``np``; ``seen`` collects the dtype
    names of every ufunc result. A function whose globals have no ``np`` runs untraced."""
    g = fn.__globals__
    if g.get("np") is not np:
        yield
        return
    g["np"] = _proxy(seen)
    try:
        yield
    finally:
        g["np"] = np

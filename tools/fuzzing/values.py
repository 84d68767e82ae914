"""dtypes, random inputs and descriptions of run-time values.

A *description* is what the generator's model keeps of a value: ``Desc(kind, dtype, shape)`` with
kind ``array`` / ``npscalar`` / ``pyscalar`` / ``list`` / ``other``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64")
INTS = tuple(d for d in DTYPES if d.startswith(("int", "uint")))
FLOATS = ("float16", "float32", "float64")
COMPLEX = ("complex64", "complex128")  # drawn for a small fraction of inputs (generator)


@dataclass(frozen=True)
class Desc:
    """The generator's model of one value (in one input set)."""

    kind: str                # array | npscalar | pyscalar | list | other
    dtype: str = ""          # numpy dtype name ('' for lists/other; 'int'/'float'/'bool' for Python)
    shape: tuple = ()        # arrays; for lists: (len,)
    exact: bool = True       # values on the exact grid (multiples of 1/4, small): safe to compare/floor

    @property
    def ndim(self) -> int:
        return len(self.shape)


def on_grid(v) -> bool:
    """True when every float is a small multiple of 1/4 (exact in float16 and up)."""
    a = np.asarray(v)
    if a.dtype.kind == "c":
        return on_grid(a.real) and on_grid(a.imag)
    if a.dtype.kind != "f":
        return True
    if a.size == 0:
        return True
    if not np.all(np.isfinite(a)):
        return False
    return bool(np.all(np.abs(a) <= 256) and np.all(a * 4 == np.round(a * 4)))


def in_range(v) -> bool:
    """Integers far from overflow and floats far from float16's limit, so later ops stay defined."""
    a = np.asarray(v)
    if a.size == 0 or a.dtype.kind == "b":
        return True
    if a.dtype.kind in "iu":
        lim = 2 ** (8 * a.dtype.itemsize - 3)
        return bool(np.all(np.abs(a.astype(np.float64)) < lim))
    if a.dtype.kind in "fc":
        return bool(np.all(np.isfinite(a)) and np.all(np.abs(a) < 1e4))
    return True


def describe(v) -> Desc:
    if isinstance(v, np.ndarray):
        return Desc("array", v.dtype.name, v.shape, on_grid(v))
    if isinstance(v, np.generic):
        return Desc("npscalar", v.dtype.name, (), on_grid(v))
    if isinstance(v, bool):
        return Desc("pyscalar", "bool")
    if isinstance(v, int):
        return Desc("pyscalar", "int")
    if isinstance(v, float):
        return Desc("pyscalar", "float", (), on_grid(v))
    if isinstance(v, complex):
        return Desc("pyscalar", "complex", (), on_grid(v))
    if isinstance(v, list):
        return Desc("list", "", (len(v),))
    return Desc("other")


def random_array(rng: random.Random, dtype: str, shape: tuple) -> np.ndarray:
    """Small exact values: ints in [-4, 4] ([0, 6] unsigned), floats in quarters of [-4, 4]."""
    n = int(np.prod(shape)) if shape else 1
    if dtype == "bool":
        vals = [rng.random() < 0.5 for _ in range(n)]
    elif dtype.startswith("uint"):
        vals = [rng.randint(0, 6) for _ in range(n)]
    elif dtype.startswith("int"):
        vals = [rng.randint(-4, 4) for _ in range(n)]
    elif dtype.startswith("complex"):
        vals = [complex(rng.randint(-16, 16) / 4, rng.randint(-16, 16) / 4) for _ in range(n)]
    else:
        vals = [rng.randint(-16, 16) / 4 for _ in range(n)]
    return np.array(vals, dtype=dtype).reshape(shape)


def random_dim(rng: random.Random) -> int:
    r = rng.random()
    return 0 if r < 0.07 else 1 if r < 0.25 else rng.randint(2, 5)


def literal(v) -> str:
    """Python source that rebuilds an input value exactly."""
    if isinstance(v, np.ndarray):
        return f"np.array({v.tolist()!r}, dtype=np.{v.dtype.name}).reshape({v.shape!r})"
    if isinstance(v, np.generic):
        return f"np.{v.dtype.name}({v.item()!r})"
    return repr(v)

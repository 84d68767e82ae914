"""Input specifications: what a model input looks like without an example array.

``pyonnx.spec("float32", ("N", 3))`` describes a float32 input of rank 2 whose first dimension
is symbolic (named ``N``) and second is 3. Parsed from CLI text too: ``float32[N,3]``,
``int64[]``.
"""

from __future__ import annotations

import dataclasses
import re

from typing import Any

import numpy as np

__all__ = ["TensorSpec", "Param", "spec", "parse_spec"]

Dim = int | str | None


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """A tensor input: dtype and shape (ints are fixed, strings symbolic, None unnamed)."""

    dtype: np.dtype
    shape: tuple[Dim, ...]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __str__(self) -> str:
        dims = ",".join("?" if d is None else str(d) for d in self.shape)
        return f"{self.dtype.name}[{dims}]"


@dataclasses.dataclass(frozen=True)
class Param:
    """How one parameter enters the model.

    Attributes:
        name: the parameter name.
        kind: "tensor" (a model input described by ``spec``), "scalar" (a Python int/float/bool
            passed as a weak 0-d input of ``spec.dtype``), "static" (``value`` is used at
            conversion time and is not an input) or "alias" (the very array object of the
            earlier parameter named ``value``: numpy's f(r, r); not an input).
        spec: the tensor spec for "tensor" and "scalar".
        value: the static value for "static", the parameter's name for "alias".
        group: for an item of ``*args``/``**kwargs`` (pyonnx.variadic), the ``*``/``**``
            parameter and its position or keyword.
        numpy_scalar: a "tensor" that the caller passed as a numpy scalar (``np.float64(2)``):
            immutable, so no memory of the caller's (``np.asarray`` of it is a new array).
    """

    name: str
    kind: str
    spec: TensorSpec | None = None
    value: Any = None
    group: tuple[str, Any] | None = None  # ("args", 0) / ("kwargs", "alpha"): *args/**kwargs
    numpy_scalar: bool = False


def spec(dtype, shape=()) -> TensorSpec:
    """Describes an input for :meth:`CompiledFunction.to_onnx`.

    Args:
        dtype: a numpy dtype or its name (``"float32"``).
        shape: a tuple of ints (fixed), strings (symbolic, e.g. ``"N"``) or None.

    Returns:
        A TensorSpec.

    Raises:
        TypeError: the dtype is not a numpy dtype or a dimension is not int/str/None.
    """
    dt = np.dtype(dtype)
    if isinstance(shape, (int, str)):
        shape = (shape,)
    dims = tuple(shape)
    for d in dims:
        if not (d is None or isinstance(d, str) or (isinstance(d, int) and d >= 0)):
            raise TypeError(f"a dimension must be a non-negative int, a name or None, not {d!r}")
    return TensorSpec(dt, dims)


_SPEC_RE = re.compile(r"^\s*([A-Za-z0-9_]+)\s*(?:\[(.*)\])?\s*$")


def parse_spec(text: str) -> TensorSpec:
    """Parses ``float32[N,3]`` / ``int64[]`` / ``float64`` (a 0-d input).

    Raises:
        ValueError: the text is not of that form.
    """
    m = _SPEC_RE.match(text)
    if not m:
        raise ValueError(f"cannot parse input spec {text!r}; write e.g. float32[N,3] or int64[]")
    try:
        dtype = np.dtype(m.group(1))
    except TypeError:
        raise ValueError(f"unknown dtype {m.group(1)!r} in input spec {text!r}") from None
    body = (m.group(2) or "").strip()
    dims: list[Dim] = []
    if body:
        for part in body.split(","):
            part = part.strip()
            if part in ("?", ""):
                dims.append(None)
            elif part.isdigit():
                dims.append(int(part))
            elif part.isidentifier():
                dims.append(part)
            else:
                raise ValueError(f"bad dimension {part!r} in input spec {text!r}")
    return TensorSpec(dtype, tuple(dims))

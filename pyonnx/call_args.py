"""A call's arguments as the Params of its signature (what the conversion sees of each).

Input: a compiled function and the full positional arguments of one call. Output: one
:class:`~pyonnx.specs.Param` per parameter: arrays and numpy scalars as tensors (dtype, and
symbolic dimensions or the shape), Python bool/int/float as weak 0-d scalars, and everything
else (static argument names, strings, tuples, None, lists: copied) as static values.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from pyonnx.errors import ConversionError
from pyonnx.signature_keys import _SCALAR_TYPES, _hashable
from pyonnx.specs import Param, TensorSpec, spec

__all__ = ["params_for", "feed_plan", "check_lists_unchanged", "same_list", "SCALAR_DTYPES"]

SCALAR_DTYPES = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64)}
_SCALAR_DTYPES = SCALAR_DTYPES


def params_for(fn: Any, args: Sequence[Any], symbolic: bool,
               static: frozenset[str] | None = None) -> list:
    """The :class:`~pyonnx.specs.Param` of each argument of a call of ``fn`` (a
    CompiledFunction): static (its value joins the signature), tensor (dtype and rank, or
    shape unless ``symbolic``) or scalar (a Python bool/int/float, fed as a weak 0-d input).

    Raises:
        ConversionError: an ndarray subclass or a dtype pyonnx does not convert.
    """
    if static is None:
        static = frozenset(fn.static_argnames)
    params = []
    for i, (name, a) in enumerate(zip(fn._params, args)):
        if name in static:
            params.append(Param(name, "static", value=a))
        elif isinstance(a, TensorSpec):
            params.append(Param(name, "tensor", spec=a))
        elif isinstance(a, np.ndarray) and type(a) not in (np.ndarray, np.memmap):
            # np.matrix multiplies with *, masked arrays carry masks: numpy's meaning for
            # them is not the plain-array meaning pyonnx converts.
            raise ConversionError(
                f"argument '{name}' is a {type(a).__name__}, an ndarray subclass pyonnx does "
                "not convert; pass np.asarray(...) of it")
        elif isinstance(a, np.ndarray) or isinstance(a, np.generic):
            arr = np.asarray(a)
            if arr.dtype.kind not in "biufc":
                raise ConversionError(f"argument '{name}' has dtype {arr.dtype}, which pyonnx "
                                      "does not support (bool, ints, floats, complex)")
            dims = tuple(f"{name}_{d}" for d in range(arr.ndim)) if symbolic else arr.shape
            # Byte order is the feed's concern (native in the model; see _Compiled.normalize).
            params.append(Param(name, "tensor", spec=spec(arr.dtype.newbyteorder("="), dims),
                                numpy_scalar=isinstance(a, np.generic)))
        elif type(a) in _SCALAR_TYPES:
            params.append(Param(name, "scalar", spec=spec(SCALAR_DTYPES[type(a)], ())))
        elif isinstance(a, list):
            # A list (ratios=[0.5, 1, 2]) is a static value like a tuple: its value joins
            # the signature. The conversion sees a copy, so a function that changes its
            # list is found out (_convert) instead of changing the caller's list once.
            params.append(Param(name, "static", value=copy.deepcopy(a)))
        else:
            params.append(Param(name, "static", value=a))
    return params


def feed_plan(args: Sequence[Any], params: list) -> list[tuple[str, int, Any]]:
    """``(input name, argument index, dtype)`` per model input: the dtype to feed a Python
    scalar or numpy scalar in (``np.asarray(v, dtype)``), None for an array fed as it is.
    Static and alias parameters are no inputs."""
    plan = []
    for i, p in enumerate(params):
        if p.kind in ("static", "alias"):
            continue
        dtype = p.spec.dtype if (p.kind == "scalar" or not isinstance(args[i], np.ndarray)) \
            else None
        plan.append((p.name, i, dtype))
    return plan


def same_list(a: Any, b: Any) -> bool:
    """True when the list ``a`` (the copy a conversion saw) still equals ``b`` (the caller's)."""
    try:
        return _hashable(a) == _hashable(b)
    except ConversionError:
        return False


def check_lists_unchanged(qualname: str, params: list, args: Sequence[Any]) -> None:
    """After a conversion: the static list arguments (converted on copies, see
    :func:`params_for`) must still equal the caller's lists.

    Raises:
        ConversionError: the function changes a list argument (numpy code would change the
            caller's list on every call; a compiled model cannot).
    """
    for p, a in zip(params, args):
        if p.kind == "static" and isinstance(a, list) and not same_list(p.value, a):
            raise ConversionError(
                f"{qualname} changes its list argument '{p.name}' (append, "
                "item assignment): numpy code would change the caller's list on every "
                f"call, a compiled model cannot; copy it first ({p.name} = list("
                f"{p.name})) or pass a tuple")

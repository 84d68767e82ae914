"""numpy dtype ↔ ONNX type mapping and numpy 2's promotion rules (NEP 50).

Input: Arrays and static values. Output: numpy dtypes, computed by numpy itself (``resolve_dtypes``
on the ufunc, ``np.result_type``) so pyonnx promotes exactly as the installed numpy does.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import onnx_ir as ir

from pyonnx.frontend.graph.values import Array

__all__ = [
    "SUPPORTED_DTYPES", "to_ir", "from_ir", "proxy", "result_type", "ufunc_dtypes",
    "default_dtype_of_scalar", "is_weak",
]

# The dtypes pyonnx accepts for arrays (complex is carried as real/imag pairs by a later issue).
SUPPORTED_DTYPES = tuple(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64))


@functools.cache
def to_ir(dtype: np.dtype) -> ir.DataType:
    return ir.DataType.from_numpy(np.dtype(dtype))


@functools.cache
def from_ir(dtype: ir.DataType) -> np.dtype:
    return np.dtype(dtype.numpy())


def default_dtype_of_scalar(value: Any) -> np.dtype:
    """The dtype numpy gives a Python scalar alone (``np.asarray(3).dtype``)."""
    if isinstance(value, bool | np.bool_):
        return np.dtype(np.bool_)
    if isinstance(value, int):
        return np.dtype(np.int64)
    if isinstance(value, float):
        return np.dtype(np.float64)
    if isinstance(value, complex):
        return np.dtype(np.complex128)
    return np.asarray(value).dtype


def proxy(value: Any) -> Any:
    """What stands for ``value`` in numpy's dtype resolution.

    A strong Array is its dtype; a weak Array is the Python type of its kind (numpy treats
    ``int``/``float``/``bool``/``complex`` as weak); a static Python scalar is its type, a
    static numpy value its dtype.
    """
    # A Python bool is the lowest kind, so it promotes as np.bool_ does (numpy's resolve_dtypes
    # does not accept the bool type as a weak scalar).
    if isinstance(value, Array):
        if value.weak and value.dtype.kind != "b":
            return {"i": int, "u": int, "f": float, "c": complex}[value.dtype.kind]
        return value.dtype
    if isinstance(value, bool):
        return np.dtype(np.bool_)
    if isinstance(value, int | float | complex) and not isinstance(value, np.generic):
        return type(value)
    return np.asarray(value).dtype


def is_weak(value: Any) -> bool:
    """True for Python scalars and weak Arrays (values that came from Python scalars)."""
    if isinstance(value, Array):
        return value.weak
    return isinstance(value, bool | int | float | complex) and not isinstance(value, np.generic)


def _strong(p: Any) -> np.dtype:
    return np.dtype({bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}
                    .get(p, p))


@functools.cache
def _resolve(ufunc: np.ufunc, proxies: tuple) -> tuple[tuple[np.dtype, ...], tuple[np.dtype, ...]]:
    dtypes = ufunc.resolve_dtypes(proxies + (None,) * ufunc.nout)
    return tuple(dtypes[: ufunc.nin]), tuple(dtypes[ufunc.nin:])


def ufunc_dtypes(ufunc: np.ufunc, *operands: Any) -> tuple[tuple[np.dtype, ...], tuple[np.dtype, ...], bool]:
    """numpy's loop dtypes for ``ufunc(*operands)``.

    Returns:
        (input loop dtypes, output dtypes, weak): ``weak`` is True when every operand was a
        Python scalar, so the result is a Python scalar again (``2 * n`` with ``n: int``).

    Raises:
        TypeError: numpy has no loop for these dtypes (e.g. ``float & float``).
    """
    # proxy()/is_weak() inlined for the common strong Array (this runs for every operator).
    proxies = []
    weak = True
    for v in operands:
        if isinstance(v, Array) and not v.weak:
            proxies.append(v.dtype)
            weak = False
        else:
            proxies.append(proxy(v))
            weak = weak and is_weak(v)
    if weak:
        proxies = [_strong(p) for p in proxies]
    try:
        ins, outs = _resolve(ufunc, tuple(proxies))
    except TypeError:
        raise
    except Exception as e:  # numpy raises its own _UFuncNoLoopError (a TypeError subclass) or others
        raise TypeError(str(e)) from None
    return ins, outs, weak


def result_type(*operands: Any) -> np.dtype:
    """``np.result_type`` with weak Python scalars, for non-ufunc functions (concatenate, where)."""
    proxies = tuple(proxy(v) for v in operands)
    if all(is_weak(v) for v in operands):
        proxies = tuple(_strong(p) for p in proxies)
    return np.result_type(*(p(0) if isinstance(p, type) else p for p in proxies))

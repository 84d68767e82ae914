"""Signature keys of compiled-function calls, and the argument forms they are made from.

Input: the full positional arguments of a call (and the compiled function's static argument
positions). Output: a hashable key equal exactly for calls that one converted model serves
(arrays by dtype and rank, or shape with ``static_shapes``; Python scalars by type; static
values by :func:`_hashable` value). :func:`make_key` generates a key function specialized for
one set of argument types (the hot path), :func:`slow_key` is the generic one;
:func:`normalize` makes the arrays onnxruntime would misread plain first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pyonnx.errors import ConversionError

__all__ = ["make_key", "slow_key", "normalize", "SCALAR_TYPES", "_hashable", "_plain"]

# Python scalars passed as weak 0-d inputs.
SCALAR_TYPES = (bool, int, float)
_SCALAR_TYPES = SCALAR_TYPES


def make_key(fn: Any, args: Sequence[Any]):
    """Generates ``fn``'s signature-key function, specialized for the kinds of ``args``.

    The template fixes, per parameter, the argument type seen now: an ndarray contributes
    its dtype and rank, a Python scalar nothing (its type is checked, its value is fed),
    a static argument or any other object its hashable value. Calls whose types differ from
    the template take the generic :func:`slow_key` (tagged so the two never collide). The
    key notices a change of ``fn``'s static arguments and regenerates itself (the cache was
    cleared by that change, so no key of the old form remains).
    """
    static_idx = fn._static_idx
    env: dict[str, Any] = {"fn": fn, "static_idx": static_idx, "nd": np.ndarray,
                           "h": _hashable, "slow": slow_key,
                           "rekey": type(fn)._key}
    guards, parts = [], []
    for i, a in enumerate(normalize(args)):
        t = type(a)
        if i in static_idx:
            parts.append(f"h(a{i})")
            continue
        env[f"t{i}"] = t
        if t is np.ndarray:
            guards.append(f"type(a{i}) is nd")
            parts += [f"a{i}.dtype", f"a{i}.shape" if fn.static_shapes else f"a{i}.ndim"]
        elif t in _SCALAR_TYPES:
            guards.append(f"type(a{i}) is t{i}")
        else:
            guards.append(f"type(a{i}) is t{i}")
            parts.append(f"h(a{i})")
    # Unpacking into locals once is cheaper than indexing args per use; callers always
    # pass the full positional tuple.
    unpack = "".join(f"a{i}, " for i in range(len(args)))
    guard = " and ".join(guards) or "True"
    src = ("def key(args):\n"
           "    if fn._static_idx is not static_idx:\n"
           "        return rekey(fn, args)\n"
           + (f"    ({unpack}) = args\n" if args else "")
           + f"    if {guard}:\n"
           f"        return ({''.join(p + ', ' for p in parts)})\n"
           f"    return slow(args, static_idx, {bool(fn.static_shapes)})\n")
    exec(src, env)
    return env["key"]

_SLOW = object()  # first item of every generic key

def slow_key(args: Sequence[Any], static_idx: frozenset[int], shapes: bool = False) -> tuple:
    """The generic signature key, for argument types the specialized key does not cover."""
    key: list[Any] = [_SLOW]
    for i, a in enumerate(args):
        t = type(a)
        if i in static_idx:
            key.append(_hashable(a))
        elif t is np.ndarray:
            key.append((t, a.dtype, a.shape if shapes else a.ndim))
        elif t is float or t is int or t is bool:
            key.append(t)
        elif isinstance(a, np.generic):
            key.append((np.generic, a.dtype))
        else:
            key.append(_hashable(a))
    return tuple(key)

def normalize(args: Sequence[Any]) -> tuple:
    """``args`` with the arrays onnxruntime would misread or refuse made plain.

    onnxruntime reads non-native byte order as native (silently wrong values);
    ``np.memmap`` is an ndarray subclass numpy treats as a plain array. Other arrays pass
    unchanged: onnxruntime copies non-contiguous and Fortran-ordered ones into a contiguous
    buffer itself. A numpy scalar stays one: it has a signature of its own (it is immutable,
    so no memory of the caller's: call_args.params_for), and is fed as a 0-d array.
    """
    out = list(args)
    for i, a in enumerate(out):
        t = type(a)
        if t is np.ndarray:
            if not a.dtype.isnative:
                out[i] = a.astype(a.dtype.newbyteorder("="))
        elif t is np.memmap:
            out[i] = np.asarray(a)
    return tuple(out)


def _plain(given: Sequence[Any], normalized: Sequence[Any]) -> Sequence[Any]:
    """The arguments a fast entry's guards are built from: as given, except arrays that
    normalization replaced (byte-swapped, memmaps), which take their plain form (their calls
    then keep the dispatch path, where they are normalized)."""
    if given is normalized:
        return given
    return tuple(g if isinstance(g, np.generic) or n is g else n
                 for g, n in zip(given, normalized))


def _hashable(a: Any) -> Any:
    """A hashable stand-in for a static argument's value, equal exactly when the values are.

    Containers are converted item by item and arrays by their bytes: a fallback to ``id()``
    could match a new object that reuses a freed one's id and run the wrong model.

    Raises:
        ConversionError: the value is unhashable and not a list, tuple, dict or ndarray.
    """
    if isinstance(a, np.ndarray):
        return (np.ndarray, a.dtype.str, a.shape, a.tobytes())
    if isinstance(a, (list, tuple)):
        return (type(a), tuple(_hashable(v) for v in a))
    if isinstance(a, dict):
        return (dict, tuple(sorted((repr(k), _hashable(v)) for k, v in a.items())))
    if isinstance(a, slice):  # unhashable before Python 3.12
        return (slice, _hashable(a.start), _hashable(a.stop), _hashable(a.step))
    try:
        hash(a)
    except TypeError:
        raise ConversionError(
            f"a static argument of type {type(a).__name__} must be hashable (it is part of the "
            "signature that selects the compiled model)") from None
    return (type(a), a)

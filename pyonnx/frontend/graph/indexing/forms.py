"""Index elements → :class:`Item` (a registry of the forms numpy accepts, tried in order).

Input: one element of an evaluated subscript (``x[a, b:c]`` has the two elements ``a`` and
``slice(b, c)``). Output: an :class:`Item` saying what numpy makes of it: its kind, its value
(static or an Array) and how many axes of the indexed array it consumes. Each registered form's
docstring lists the exact syntax it accepts; an element no form accepts is refused with numpy's
IndexError text.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array, is_static

__all__ = ["Item", "classify", "FORMS", "INT", "SLICE", "NEWAXIS", "ELLIPSIS", "BOOL0", "ARRAY",
           "MASK", "ADVANCED", "const_value"]

INT, SLICE, NEWAXIS, ELLIPSIS = "int", "slice", "newaxis", "ellipsis"
BOOL0, ARRAY, MASK = "bool0", "array", "mask"
# Kinds numpy handles by advanced ("fancy") indexing; integers join them when one is present.
ADVANCED = frozenset({BOOL0, ARRAY, MASK})

_INVALID = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer "
            "or boolean arrays are valid indices (numpy raises IndexError)")


@dataclasses.dataclass
class Item:
    """One classified index element.

    Attributes:
        kind: INT, SLICE, NEWAXIS, ELLIPSIS, BOOL0, ARRAY or MASK.
        value: INT: a Python int or a 0-d integer Array; SLICE: a slice whose parts are None,
            Python ints or 0-d integer Arrays; BOOL0: a Python bool or a 0-d bool Array;
            ARRAY: an int64 np.ndarray or an integer Array (rank >= 1); MASK: a bool np.ndarray
            or a bool Array (rank >= 1); NEWAXIS/ELLIPSIS: None/Ellipsis.
        consumes: how many axes of the indexed array it consumes (MASK: its rank).
        axis: the first consumed axis, set when the subscript is planned.
    """

    kind: str
    value: Any
    consumes: int
    axis: int = -1

    @property
    def static(self) -> bool:
        return is_static(self.value)


FORMS: list[Callable[[Any, Any], Item | None]] = []


def form(fn: Callable[[Any, Any], Item | None]) -> Callable[[Any, Any], Item | None]:
    """Registers an index form: ``fn(ctx, element) -> Item | None`` (None: not this form)."""
    FORMS.append(fn)
    return fn


def classify(ctx, element: Any) -> Item:
    """The Item for one subscript element (see the registered forms).

    Raises:
        ConversionError: numpy refuses the element (floats, strings, float arrays...).
    """
    element = _normalize(ctx, element)
    for f in FORMS:
        item = f(ctx, element)
        if item is not None:
            return item
    raise ctx.error(_INVALID)


def const_value(a: Array) -> np.ndarray | None:
    """The value of an Array that is a graph constant (an initializer), else None."""
    const = getattr(a.value, "const_value", None)
    return None if const is None else const.numpy()


def _normalize(ctx, v: Any) -> Any:
    """numpy scalars → Python scalars, sequences → arrays, constant Arrays → static values."""
    if isinstance(v, Array):
        const = const_value(v)
        if const is not None and v.dtype.kind in "biu":
            return bool(const) if v.dtype.kind == "b" and const.ndim == 0 else (
                int(const) if const.ndim == 0 else const)
        return v
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "biu":
        return bool(v) if v.dtype.kind == "b" else int(v)
    if isinstance(v, (list, tuple)):
        if is_static(v):
            try:
                arr = np.asarray(v)
            except ValueError:
                raise ctx.error(_INVALID) from None
            # numpy reads an empty list as an empty integer index.
            if arr.size == 0 and arr.dtype.kind == "f":
                arr = arr.astype(np.int64)
            return arr
        return ctx.asarray(v)
    return v


def _index_array_error(ctx):
    return ctx.error("arrays used as indices must be of integer (or boolean) type "
                     "(numpy raises IndexError)")


# ---------------------------------------------------------------------------- the forms
@form
def ellipsis(ctx, v: Any) -> Item | None:
    """``x[...]``, ``x[..., 0]``, ``x[1, ..., ::2]``: at most one Ellipsis, standing for as
    many ``:`` as the other elements leave axes."""
    if v is Ellipsis:
        return Item(ELLIPSIS, v, 0)
    return None


@form
def newaxis(ctx, v: Any) -> Item | None:
    """``x[None]``, ``x[:, np.newaxis]``, ``x[..., None, 1:]``: a new axis of length 1."""
    if v is None:
        return Item(NEWAXIS, None, 0)
    return None


@form
def boolean_scalar(ctx, v: Any) -> Item | None:
    """``x[True]``, ``x[False]``, ``x[np.True_]``, ``x[b]`` with ``b`` a 0-d bool Array (a
    Python bool argument is one): a new axis of length 1 (true) or 0 (false). numpy treats it
    as an advanced index (so ``x[True, [0, 1]]`` broadcasts it with the other index arrays)."""
    if isinstance(v, bool):
        return Item(BOOL0, v, 0)
    if isinstance(v, Array) and v.ndim == 0 and v.dtype.kind == "b":
        return Item(BOOL0, v, 0)
    return None


@form
def integer(ctx, v: Any) -> Item | None:
    """``x[3]``, ``x[-1]``, ``x[np.int8(2)]``, ``x[i]`` with ``i`` a 0-d Array of any integer
    dtype (a Python int argument is one): selects one position and removes the axis. A static
    index out of bounds of a known length is a ConversionError (numpy's IndexError); at run time
    onnxruntime's Gather (or Squeeze) fails instead."""
    if isinstance(v, int) and not isinstance(v, bool):
        return Item(INT, v, 1)
    if isinstance(v, Array) and v.ndim == 0 and v.dtype.kind in "iu":
        return Item(INT, v, 1)
    if isinstance(v, Array) and v.ndim == 0:
        raise ctx.error(_INVALID)
    return None


@form
def slice_(ctx, v: Any) -> Item | None:
    """``x[a:b]``, ``x[a:b:c]``, ``x[::-1]``, ``x[n:]``: each part omitted, None, a Python or
    numpy int (any value: out-of-range bounds are clipped as numpy does), or a 0-d integer
    Array (a Python int argument is one). A zero step is a ConversionError (numpy's
    ValueError) when static; a run-time zero step makes onnxruntime's Slice fail."""
    if not isinstance(v, slice):
        return None
    parts = [_slice_part(ctx, p) for p in (v.start, v.stop, v.step)]
    if parts[2] == 0 and not isinstance(parts[2], Array):
        raise ctx.error("slice step cannot be zero (numpy raises ValueError)")
    return Item(SLICE, slice(*parts), 1)


def _slice_part(ctx, p: Any) -> Any:
    msg = ("slice indices must be integers or None or have an __index__ method (numpy raises "
           "TypeError)")
    if isinstance(p, (np.bool_, np.ndarray)) and np.asarray(p).dtype.kind == "b":
        raise ctx.error(msg)  # numpy refuses numpy booleans where Python takes True as 1
    if isinstance(p, bool):
        return int(p)
    if isinstance(p, Array) and p.dtype.kind == "b" and p.ndim == 0 and p.weak:
        return ctx.cast(p, np.int64)  # a Python bool argument: True is 1, as in Python
    p = _normalize(ctx, p) if not isinstance(p, (list, tuple)) else p
    if p is None:
        return None
    if isinstance(p, Array):
        if p.ndim != 0:
            raise ctx.error("only integer scalar arrays can be converted to a scalar index "
                            "(numpy raises TypeError); a slice bound must be a 0-d integer")
        if p.dtype.kind not in "iu":
            raise ctx.error(msg)
        return p
    if isinstance(p, int) and not isinstance(p, bool):
        return p
    if isinstance(p, np.ndarray) and p.ndim:
        raise ctx.error("only integer scalar arrays can be converted to a scalar index "
                        "(numpy raises TypeError); a slice bound must be a 0-d integer")
    try:  # other objects with __index__ work in numpy as they do in Python
        return operator.index(p)
    except TypeError:
        raise ctx.error(msg) from None


@form
def integer_array(ctx, v: Any) -> Item | None:
    """``x[[0, 2]]``, ``x[(0, 2), 1]``, ``x[np.array([[1], [0]])]``, ``x[I]`` with ``I`` an
    Array of any integer dtype and rank >= 1, ``x[[i, j]]`` with ``i``, ``j`` 0-d Arrays:
    gathers along one axis; negative entries count from the end. Several index arrays
    (``x[I, J]``, ``x[I, :, J]``) broadcast together, and the result dimensions go where numpy
    puts them (in place when the advanced indices are adjacent, else first)."""
    if isinstance(v, np.ndarray) and v.ndim >= 1:
        if v.dtype.kind in "iu":
            if v.dtype.kind == "u" and v.size and v.max() > np.iinfo(np.int64).max:
                raise ctx.error(f"index {v.max()} is out of bounds (numpy raises IndexError)")
            return Item(ARRAY, v.astype(np.int64), 1)
        if v.dtype.kind != "b":
            raise _index_array_error(ctx)
        return None
    if isinstance(v, Array) and v.ndim >= 1:
        if v.dtype.kind in "iu":
            return Item(ARRAY, v, 1)
        if v.dtype.kind != "b":
            raise _index_array_error(ctx)
    return None


@form
def boolean_array(ctx, v: Any) -> Item | None:
    """``x[m]``, ``x[x > 0]``, ``x[:, m]``, ``x[m, 1:]``, ``x[[True, False, True]]`` with ``m``
    a bool Array or static bool array of rank k >= 1: consumes k axes, whose lengths must equal
    m's shape (a ConversionError when known to differ, else checked at run time), and selects
    the positions where m is true, as ``x[m.nonzero()]``."""
    if isinstance(v, (np.ndarray, Array)) and v.ndim >= 1 and v.dtype.kind == "b":
        return Item(MASK, v, v.ndim)
    return None

"""numpy scalars versus 0-d arrays for complex values: which one a 0-d Complex is.

The complex counterpart of :mod:`scalar_kinds` (real values keep their kind per graph value
in the alias state; a Complex carries it on itself). It decides what ``z op= v`` does (a numpy
scalar is immutable and rebinds, to numpy's promoted dtype: ``complex64 / np.float64(1)`` is
complex128; a 0-d array is written, keeping complex64) and what a returned 0-d value is
(``np.zeros((), complex)`` returns a 0-d ndarray, ``z.sum()`` a numpy scalar).

Input: :class:`Complex` values. Output: their kind, "array", "scalar" or "unknown" (a run-time
``if``/loop joined both kinds), or None for a value that is no strong 0-d one. numpy makes a
0-d complex *array* only with an array constructor (``np.array``, ``np.zeros(())``, ...), a
view or from the caller; every operation gives a numpy scalar. The constructors and the
kind-keeping methods (``copy``, ``astype``, ``reshape``, ...) set ``Complex.zero_d``
(complex_calls.with_kind); a value that does not say is judged by :func:`kind`'s rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex

__all__ = ["kind", "mark", "join", "static_kind"]


def kind(z: Any) -> str | None:
    """The kind of ``z`` (see the module docstring); None unless a strong 0-d Complex."""
    if not isinstance(z, Complex) or z.ndim or z.weak:
        return None
    if z.zero_d:
        return z.zero_d
    # an argument or a view (z[...], a part of a 0-d array) is a 0-d array; a value that came
    # out of a run-time if/loop as a view on some path is one where it may be written
    if z.param is not None or z.base is not None or z.shared:
        return "array"
    return "scalar"  # an operation's result


def mark(z: Any, k: str | None) -> Any:
    """``z`` with kind ``k`` recorded (0-d strong values only); returns ``z``."""
    if k is not None and isinstance(z, Complex) and not z.ndim and not z.weak:
        z.zero_d = k
    return z


def join(kinds: list) -> str | None:
    """The kind of a value that is one of several (the paths of a run-time ``if``, a loop's
    entry and exit): theirs when they agree, else "unknown" (None: not a 0-d strong value on
    that path, e.g. a Python complex, which takes the others' kind)."""
    found = {k for k in kinds if k is not None}
    if not found:
        return None
    return found.pop() if len(found) == 1 else "unknown"


def static_kind(v: Any) -> str | None:
    """The kind of a conversion-time complex value: a numpy scalar or a 0-d ndarray."""
    if isinstance(v, np.generic):
        return "scalar"
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return "array"
    return None

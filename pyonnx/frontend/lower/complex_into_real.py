"""Complex values assigned into a real array (``x[i] = z`` with a real ``x``), as numpy does.

Input: the real target (an Array or a conversion-time ndarray) and the assigned value (a
Complex, or a conversion-time complex number or array). Output: the value as numpy stores it,
a real Array or constant of the target's dtype, for the real item assignment; or a
ConversionError where numpy raises.

numpy casts the value with the ``unsafe`` rule (``astype``): a numpy complex value (array or
numpy scalar) gives its real part, with a ComplexWarning (not repeated by the model), and into
a bool array whether either part is nonzero; a Python ``complex`` is converted by
``float()``/``int()``, which raise TypeError (``x[0] = 2 + 3j``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.complex_values import Complex, is_complex
from pyonnx.frontend.graph.values import Array

__all__ = ["applies", "convert"]


def applies(target: Any, value: Any) -> bool:
    """Whether ``target[...] = value`` stores complex values into a real array."""
    real_target = isinstance(target, Array) or (
        isinstance(target, np.ndarray) and target.dtype.kind != "c")
    return real_target and (isinstance(value, Complex) or (
        is_complex(value) and not isinstance(value, (list, tuple))))


def convert(ctx, target: Any, value: Any) -> Any:
    """The value numpy stores (see the module docstring)."""
    from pyonnx.frontend.lower import complex_functions as F

    dt = np.dtype(target.dtype)
    weak = value.weak if isinstance(value, Complex) else (
        isinstance(value, complex) and not isinstance(value, np.generic))
    if weak and dt.kind != "b":
        conv = "float" if dt.kind == "f" else "int"
        extra = ", a bytes-like object" if conv == "int" else ""
        raise ctx.error(f"{conv}() argument must be a string{extra} or a real number, not "
                        "'complex' (numpy raises TypeError assigning a Python complex into a "
                        f"{dt} array); assign v.real, or make the array complex")
    if not isinstance(value, Complex):  # a conversion-time numpy complex value
        with np.errstate(all="ignore"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                return np.asarray(value).astype(dt)
    return F.astype(ctx, value, dt)

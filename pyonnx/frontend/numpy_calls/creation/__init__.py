"""Array creation with numpy 2's dtypes and values, for shapes and values known only at run time.

Input: numpy's arguments as frontend values; at least one is an Array (calls whose arguments are
all static run in numpy at conversion time and become constants). Output: an Array with numpy's
dtype and the static shape where it is known (None for the dimensions only the run time knows).

Supported syntax::

    np.zeros / np.ones / np.empty(shape, dtype=float)
    np.full(shape, fill_value, dtype=None)
    np.zeros_like / np.ones_like / np.empty_like(a, dtype=None, shape=None)
    np.full_like(a, fill_value, dtype=None, shape=None)
    np.arange([start,] stop[, step], dtype=None)
    np.linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)
    np.eye(N, M=None, k=0, dtype=float), np.identity(n, dtype=None)
    np.tri(N, M=None, k=0, dtype=float)
    np.tril(m, k=0), np.triu(m, k=0)
    np.array(obj, dtype=None, copy=True, ndmin=0), np.asarray / np.asanyarray(a, dtype=None,
    copy=None), np.ascontiguousarray(a, dtype=None)

``shape`` is an int, a 0-d integer Array, a tuple or list mixing both (``(x.shape[0], 3)``), or
a 1-D integer Array of known length. ``np.empty`` gives zeros (numpy's values are arbitrary, so
zeros are one correct choice). ``obj`` in ``np.array`` is an Array, a static value, or nested
lists/tuples mixing both: the elements are stacked along new leading axes as numpy does (their
shapes must agree); with ``dtype=`` each element is converted to it directly, as numpy does.

Values match numpy bit for bit where numpy's algorithm is reproducible: ``arange`` fills
``start + i*delta`` in the result dtype with ``delta = dtype(start + step) - dtype(start)``
(float16 in float32), as numpy's ``fill`` does, and computes the length as numpy does
(``ceil((stop - start) / step)`` with numpy's scalar promotion); ``linspace`` follows numpy's
Python code step by step. Run-time values numpy rejects (a zero or non-finite ``arange`` step,
``linspace`` with a negative ``num``) make the model fail at run time at the user's line.

Modules: :mod:`.common` (dtype, order and integer arguments), :mod:`.filled` (zeros, ones,
empty, full and their ``*_like``; numpy's ``shape`` argument), :mod:`.ranges` (arange,
linspace), :mod:`.matrices` (eye, identity, tri, tril, triu) and :mod:`.conversion` (array,
asarray, asanyarray, ascontiguousarray).
"""

from __future__ import annotations

# Importing each module runs its registrations.
from pyonnx.frontend.numpy_calls.creation import (  # noqa: F401
    conversion,
    filled,
    matrices,
    ranges,
)
from pyonnx.frontend.numpy_calls.creation.filled import shape_arg

__all__ = ["shape_arg"]

"""numpy shape manipulation: reshape, transpose, join, split, tile, repeat, flip, roll, pad, ...

Input: frontend values (Arrays and static values) under numpy's parameter names. Output: Arrays
whose static shape has the exact rank and every dimension known at conversion time (an int) or
None. Shapes may hold dynamic dimensions (``x.shape[0]``, a weak int64 0-d Array); errors numpy
raises on known shapes are raised at conversion time with numpy's message, and mismatches only
the run time can see make onnxruntime fail (never a silently different result). Results are
strong (numpy functions return arrays, never Python scalars).

Supported syntax (``x`` an array; ``dims`` ints, -1 once, or integer 0-d arrays like
``x.shape[0]``; ``axis`` static ints):

* ``np.reshape(x, dims)``, ``x.reshape(d0, d1, ...)``, ``x.reshape((d0, d1))`` (order='C');
  ``np.ravel(x)``, ``x.ravel()``, ``x.flatten()``.
* ``np.transpose(x, axes=None)``, ``x.transpose(1, 0)``/``x.transpose((1, 0))``,
  ``np.permute_dims``, ``np.matrix_transpose``, ``np.swapaxes``/``x.swapaxes``,
  ``np.moveaxis`` (int or tuple axes), ``np.rollaxis``.
* ``np.expand_dims(x, axis)`` (int or tuple), ``np.squeeze(x, axis=None)``/``x.squeeze``:
  without ``axis`` every dimension must be known; with it, a known dimension must be 1 and a
  dynamic one that is not 1 makes onnxruntime's Squeeze fail at run time.
* ``np.concatenate``/``np.concat`` (axis int or None, ``dtype=``, ``casting=``), ``np.stack``,
  ``np.hstack``, ``np.vstack``, ``np.dstack``, ``np.column_stack``: lists or tuples mixing
  arrays and static values, or one array (joined along its first axis).
* ``np.atleast_1d/2d/3d(*arrays)``, ``np.tile(x, reps)``, ``np.repeat(x, repeats, axis=None)``
  and ``x.repeat`` (int, 0-d array, or per-element repeats: static or a 1-D int array),
  ``np.broadcast_to(x, shape)``, ``np.broadcast_arrays(*arrays)``.
* ``np.flip(x, axis=None)``, ``np.fliplr``, ``np.flipud``, ``np.roll(x, shift, axis=None)``
  (shift int, 0-d int array or tuple; axis None, int or tuple).
* ``np.split``/``np.array_split``/``np.hsplit``/``np.vsplit``/``np.dsplit`` with a static
  number of sections or static indices (a list of arrays).
* ``x.astype(dtype, casting=, copy=)``, ``np.astype``, ``np.copy(x)``, ``x.copy()``.
* ``np.pad(x, pad_width, mode=..., **kwargs)`` with static pad widths and every numpy mode
  but 'empty' and callables (science/padding.py for those ONNX ``Pad`` lacks).
* ``np.shape(x)``, ``np.ndim(x)``, ``np.size(x, axis=None)``.

Modules (importing this package imports them all, which registers their entries):
``reshaping`` (reshape, ravel, flatten, expand_dims, squeeze, atleast_*), ``axes`` (transpose
and the other axis permutations), ``joining`` (concatenate, stack, h/v/d/column_stack),
``splitting`` (split and friends), ``repeating`` (tile, repeat, broadcast_to,
broadcast_arrays, pad), ``reordering`` (flip, roll), ``conversion`` (astype, copy) and
``queries`` (shape, ndim, size); ``common`` holds the helpers they share with linalg.
"""

from __future__ import annotations

# The registry imports this package by name: importing every module runs its @register.
from pyonnx.frontend.numpy_calls.shape import (  # noqa: F401
    axes, conversion, editing, joining, queries, reordering, repeating, reshaping, splitting,
)
from pyonnx.frontend.numpy_calls.shape.common import (  # noqa: F401
    I64, DimLike, axes_of, axis_of, dim_value, flatten_range, fmt_shape, guard, ints,
    ints_array, ravel_array, reshape_dims, reshape_vec, shape_slice, shape_vector, slice_axis,
    squeeze_axes, static_prod, strong, to_array, transpose_to, unsqueeze,
)
# The entries keep the names the single shape.py module gave them (x.mT uses matrix_transpose).
from pyonnx.frontend.numpy_calls.shape.axes import (  # noqa: F401
    matrix_transpose, moveaxis, rollaxis, swapaxes, transpose, transpose_method,
)
from pyonnx.frontend.numpy_calls.shape.conversion import (  # noqa: F401
    astype, astype_method, copy, copy_method,
)
from pyonnx.frontend.numpy_calls.shape.joining import (  # noqa: F401
    column_stack, concatenate, dstack, hstack, stack, vstack,
)
from pyonnx.frontend.numpy_calls.shape.queries import ndim_, shape_, size_  # noqa: F401
from pyonnx.frontend.numpy_calls.shape.reordering import flip, fliplr, flipud, roll  # noqa: F401
from pyonnx.frontend.numpy_calls.shape.repeating import (  # noqa: F401
    broadcast_arrays, broadcast_to, pad, repeat, tile,
)
from pyonnx.frontend.numpy_calls.shape.reshaping import (  # noqa: F401
    atleast_1d, atleast_2d, atleast_3d, expand_dims, flatten, ravel, reshape, reshape_method,
    squeeze,
)
from pyonnx.frontend.numpy_calls.shape.splitting import (  # noqa: F401
    array_split, dsplit, hsplit, split, vsplit,
)

__all__ = [
    "strong", "to_array", "ints", "dim_value", "shape_vector", "shape_slice", "reshape_vec",
    "reshape_dims", "transpose_to", "unsqueeze", "squeeze_axes", "slice_axis", "guard",
    "axis_of", "axes_of", "fmt_shape", "flatten_range", "ravel_array", "static_prod",
]

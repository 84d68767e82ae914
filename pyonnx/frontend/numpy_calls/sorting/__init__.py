"""numpy sorting, searching and set functions, with numpy 2's ordering rules.

Input: Arrays (or values ``ctx.asarray`` accepts). Output: Arrays, or tuples of them.

Every ordering goes through one stable argsort built on ONNX ``TopK`` over a key that orders
exactly as numpy does (NaNs last, ``-0.0 == 0.0``, exact uint64): see :mod:`.ordering`.

Supported syntax:

* ``np.sort(a, axis=-1, kind=None, stable=None)``, ``axis=None`` flattens. ``x.sort()`` sorts
  in place and is refused (write ``x = np.sort(x)``).
* ``np.argsort(a, axis=-1, kind=None, stable=None)`` and ``a.argsort(...)``: the STABLE order
  (ties by index). numpy's default ``kind`` may order ties differently; results equal numpy's
  for ``kind='stable'``/``stable=True`` or for data without ties. Likewise the position of
  ``-0.0`` versus ``0.0`` in ``np.sort`` output is that of a stable sort.
* ``np.lexsort(keys, axis=-1)`` with ``keys`` a tuple or list of arrays (last key primary).
* ``np.nonzero(a)``/``a.nonzero()`` (a tuple of int64 index arrays; 0-d refused as numpy does),
  ``np.flatnonzero(a)``, ``np.argwhere(a)``; ``np.where(cond)`` reaches ``np.nonzero``.
* ``np.unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
  equal_nan=True, sorted=True)`` with ``axis=None`` (numpy 2 shapes: the inverse has ``ar``'s
  shape); ``return_index`` gives first occurrences, as numpy does.
* ``np.searchsorted(a, v, side='left'|'right', sorter=None)`` and ``a.searchsorted(...)``:
  computed in ``np.promote_types(v.dtype, a.dtype)`` as numpy does; ``a`` must be sorted (as
  numpy requires); NaNs are ordered last, as numpy's search does.
* ``np.diff(a, n=1, axis=-1, prepend=..., append=...)``.
* ``np.isin(element, test_elements, assume_unique=False, invert=False, kind=None)``.
* ``np.bincount(x, weights=None, minlength=0)`` (with weights, an empty ``x`` gives float64
  zeros where numpy gives int64 zeros: the dtype cannot depend on the run-time size).
* ``np.quantile(a, q, axis=None, keepdims=False, method=...)`` and ``np.percentile(...)``
  with any of numpy's 13 methods and ``q`` known at conversion time: numpy's ``_quantile``
  arithmetic step by step (its dtypes, its two-sided lerp, NaN slices giving NaN) on the
  sorted data.

Not supported: ``np.partition``/``np.argpartition`` (numpy's element order inside each part is
an implementation detail of introselect), ``np.unique(..., axis=k)``, ``sorted=False``
(numpy then uses a hash table whose order cannot be reproduced), ``order=`` (structured arrays),
``np.unique_values`` (hash order), weights, run-time ``q``.

float16 arithmetic goes through :func:`emit_exact` (float32 between explicit Casts), because
onnxruntime drops the float16 rounding between chained float16 ops.

Modules (importing this package imports them all, which registers their entries): ``ordering``
(the ordering core, sort, argsort, lexsort), ``searching`` (searchsorted), ``nonzeros``
(nonzero, flatnonzero, argwhere), ``sets`` (unique, isin), ``differences`` (diff), ``counting``
(bincount) and ``quantiles`` (quantile, percentile); ``common`` holds their shared helpers.
"""

from __future__ import annotations

# The registry imports this package by name: importing every module runs its @register.
from pyonnx.frontend.numpy_calls.sorting import (  # noqa: F401
    counting, differences, nan_median, nonzeros, ordering, partition, quantiles, searching, sets,
)
from pyonnx.frontend.numpy_calls.sorting.common import emit_exact
# The entries keep the names the single sorting.py module gave them.
from pyonnx.frontend.numpy_calls.sorting.counting import bincount  # noqa: F401
from pyonnx.frontend.numpy_calls.sorting.differences import diff  # noqa: F401
from pyonnx.frontend.numpy_calls.sorting.nonzeros import (  # noqa: F401
    argwhere, flatnonzero, nonzero,
)
from pyonnx.frontend.numpy_calls.sorting.ordering import (  # noqa: F401
    argsort, lexsort, sort, sort_along, sort_method, stable_argsort,
)
from pyonnx.frontend.numpy_calls.sorting.quantiles import percentile, quantile  # noqa: F401
from pyonnx.frontend.numpy_calls.sorting.searching import (  # noqa: F401
    searchsorted, searchsorted_flat,
)
from pyonnx.frontend.numpy_calls.sorting.sets import isin, unique  # noqa: F401

__all__ = ["stable_argsort", "sort_along", "searchsorted_flat", "emit_exact"]

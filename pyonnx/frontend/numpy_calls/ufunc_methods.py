"""ufunc methods: ``np.<ufunc>.reduce`` and ``np.<ufunc>.accumulate`` for the ufuncs numpy
code reduces with (``outer`` is registered with every binary ufunc in
:mod:`.elementwise.ufunc`; ``np.add.at`` is a writer in ``frontend/lower/writers.py``;
``np.maximum.accumulate``/``np.minimum.accumulate`` live in :mod:`.reductions.cumulative`).

Input: an Array (or anything ``np.asarray`` takes) and the method's keywords, ``axis``,
``keepdims``, ``dtype`` known at conversion time. Output: numpy's result. Each method is the
plain reduction it equals in numpy (same loop, same result dtype), with the method's own
default ``axis=0``:

* ``add.reduce`` = ``np.sum``, ``multiply.reduce`` = ``np.prod``, ``maximum.reduce`` /
  ``minimum.reduce`` = ``np.max``/``np.min``, ``fmax.reduce``/``fmin.reduce`` = the
  NaN-ignoring ``nanmax``/``nanmin`` step, ``logical_or.reduce``/``logical_and.reduce`` =
  ``np.any``/``np.all``, ``logical_xor.reduce`` = an odd number of true elements;
  ``keepdims``, ``initial`` and ``where`` as those take them;
* ``add.accumulate`` = ``np.cumsum``, ``multiply.accumulate`` = ``np.cumprod``,
  ``logical_or.accumulate``/``logical_and.accumulate`` = "some / every element so far is true"
  (bool); ``axis=None`` only on 1-D arrays, as numpy.

Supported syntax::

    np.add.reduce(a, axis=0, dtype=None, keepdims=False, initial=..., where=True)
    np.logical_or.reduce(a, axis=0, keepdims=False, where=True)
    np.add.accumulate(a, axis=0, dtype=None)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyonnx.frontend.graph.values import Array
from pyonnx.frontend.numpy_calls.reductions.common import (
    _BOOL,
    _I64,
    _NOVALUE,
    _arr,
    _refuse,
)
from pyonnx.frontend.numpy_calls.registry import lookup, register

__all__: list[str] = []


def _call(fn: Any, ctx, *args, **kwargs) -> Any:
    return lookup(fn).fn(ctx, *args, **kwargs)


def _no_dtype(ctx, name: str, dtype: Any, ok: str = "") -> None:
    if dtype is not None and np.dtype(ctx.static(dtype, "dtype")).kind not in ok:
        raise ctx.error(f"{name}(..., dtype=...) is not supported; cast the array first")


# ------------------------------------------------------------------------------------ reduce
def _reduce(ufunc: np.ufunc, plain: Any, has_dtype: bool):
    name = f"np.{ufunc.__name__}.reduce"

    def lower(ctx, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NOVALUE,
              where=True):
        _refuse(ctx, name, out)
        if has_dtype:
            return _call(plain, ctx, array, axis, dtype, None, keepdims, initial, where)
        _no_dtype(ctx, name, dtype)
        return _call(plain, ctx, array, axis, None, keepdims, initial, where)

    lower.__name__ = f"{ufunc.__name__}_reduce"
    lower.__doc__ = f"``{name}(a, axis=0, ...)``: ``np.{plain.__name__}`` with axis=0."
    return lower


for _u, _plain, _has_dtype in ((np.add, np.sum, True), (np.multiply, np.prod, True),
                               (np.maximum, np.max, False), (np.minimum, np.min, False),
                               (np.fmax, np.nanmax, False), (np.fmin, np.nanmin, False)):
    register(_u.reduce, name=f"numpy.{_u.__name__}.reduce")(_reduce(_u, _plain, _has_dtype))


def _logical_reduce(is_or: bool):
    name = f"np.logical_{'or' if is_or else 'and'}.reduce"
    plain = np.any if is_or else np.all

    def lower(ctx, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NOVALUE,
              where=True):
        _refuse(ctx, name, out)
        _no_dtype(ctx, name, dtype, "b")
        if initial is not _NOVALUE:
            raise ctx.error(f"{name}(..., initial=...) is not supported; combine the initial "
                            "value with the result instead")
        return _call(plain, ctx, array, axis, None, keepdims, where=where)

    lower.__name__ = f"logical_{'or' if is_or else 'and'}_reduce"
    return lower


register(np.logical_or.reduce, name="numpy.logical_or.reduce")(_logical_reduce(True))
register(np.logical_and.reduce, name="numpy.logical_and.reduce")(_logical_reduce(False))


@register(np.logical_xor.reduce, name="numpy.logical_xor.reduce",
          limits={"initial": "refused", "where": "refused"})
def logical_xor_reduce(ctx, array, axis=0, dtype=None, out=None, keepdims=False,
                       initial=_NOVALUE, where=True):
    """``np.logical_xor.reduce(a, axis=0, keepdims=False)``: an odd number of true
    elements."""
    name = "np.logical_xor.reduce"
    _refuse(ctx, name, out, where)
    _no_dtype(ctx, name, dtype, "b")
    if initial is not _NOVALUE:
        raise ctx.error(f"{name}(..., initial=...) is not supported")
    x = _arr(ctx, array)
    truth = x if x.dtype == _BOOL else _call(np.not_equal, ctx, x, 0)
    count = _call(np.sum, ctx, Array(truth.value, _BOOL, truth.shape), axis, _I64, None,
                  keepdims)
    odd = _call(np.bitwise_and, ctx, count, 1)
    return _call(np.equal, ctx, odd, 1)


# ------------------------------------------------------------------------------- accumulate
def _accumulate_axis(ctx, name: str, x: Array, axis: Any) -> int:
    axis = ctx.static(axis, "axis")
    if x.ndim == 0:
        raise ctx.error(f"{name}: cannot accumulate on a scalar (numpy raises TypeError)")
    if axis is None:
        if x.ndim > 1:
            raise ctx.error(f"{name}: accumulate does not allow multiple axes (numpy raises "
                            "ValueError); give axis=")
        return 0
    if isinstance(axis, tuple):
        raise ctx.error(f"{name}: accumulate does not allow multiple axes (numpy raises "
                        "ValueError)")
    return axis


def _accumulate(ufunc: np.ufunc, plain: Any):
    name = f"np.{ufunc.__name__}.accumulate"

    def lower(ctx, array, axis=0, dtype=None, out=None):
        _refuse(ctx, name, out)
        x = _arr(ctx, array)
        return _call(plain, ctx, x, _accumulate_axis(ctx, name, x, axis), dtype)

    lower.__name__ = f"{ufunc.__name__}_accumulate"
    lower.__doc__ = f"``{name}(a, axis=0, dtype=None)``: ``np.{plain.__name__}`` with axis=0."
    return lower


register(np.add.accumulate, name="numpy.add.accumulate")(_accumulate(np.add, np.cumsum))
register(np.multiply.accumulate, name="numpy.multiply.accumulate")(
    _accumulate(np.multiply, np.cumprod))


def _logical_accumulate(is_or: bool):
    name = f"np.logical_{'or' if is_or else 'and'}.accumulate"

    def lower(ctx, array, axis=0, dtype=None, out=None):
        """Counts the true (or) / false (and) elements so far: exact, any length."""
        _refuse(ctx, name, out)
        _no_dtype(ctx, name, dtype, "b")
        x = _arr(ctx, array)
        k = _accumulate_axis(ctx, name, x, axis)
        hits = _call(np.not_equal if is_or else np.equal, ctx, x, 0)
        count = _call(np.cumsum, ctx, hits, k, _I64)
        return _call(np.greater if is_or else np.equal, ctx, count, 0)

    lower.__name__ = f"logical_{'or' if is_or else 'and'}_accumulate"
    return lower


register(np.logical_or.accumulate, name="numpy.logical_or.accumulate")(_logical_accumulate(True))
register(np.logical_and.accumulate, name="numpy.logical_and.accumulate")(
    _logical_accumulate(False))
